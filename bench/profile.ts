// Reads a V8 .cpuprofile (node --cpu-prof) and lists where self time went: by package or project
// folder, then the top functions. Used by `npm run bench -- --profile`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A script's path without the file:// scheme and the project's root. */
const shortUrl = (url: string) => url.replace(/^file:\/\//, '').replace(ROOT, '').replace(/^.*\/node_modules\//, '');

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const short = shortUrl(url);
  return short.includes('/') ? `${short.slice(0, short.indexOf('/'))}/` : short;
}

export function summariseProfile(file: string, top = 20): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const a = area(url, functionName);
    areas.set(a, (areas.get(a) ?? 0) + t);
    // Line numbers are those of the code tsx produced, so only the file is shown for our own.
    const where = url.includes('node_modules') || url.startsWith('node:') ? `${shortUrl(url)}:${lineNumber + 1}` : shortUrl(url);
    const key = `${functionName || '(anonymous)'} ${where}`;
    fns.set(key, (fns.get(key) ?? 0) + t);
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
  const lines = ['by area:'];
  for (const [a, t] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, 15)) lines.push(`  ${pct(t)}  ${a}`);
  lines.push('top functions:');
  for (const [f, t] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`  ${pct(t)}  ${f}`);
  return lines.join('\n');
}


/** A phase's share of the profile's busy samples, and where within it the self time is. */
export interface PhaseShare {
  phase: string;
  share: number;
  /** The largest places of self time within the phase (module or library), with their share of all. */
  top: [string, number][];
}

/** Our modules, by the phase of a request they belong to (the first match wins). */
const PHASES: [RegExp, string][] = [
  [/^server\/access\/(auth|gate|token-cache|token-service|token-storage|tokens|lru|invalidation|passwords|principals)\.ts$/, 'authentication'],
  [/^server\/access\/rate-limit\.ts$/, 'rate limit'],
  [/^server\/history\.ts$/, 'history (record, batched flush)'],
  [/^server\/idempotency\.ts$/, 'idempotency hooks'],
  [/^engine\/(read\/window|keyset)\.ts$/, 'window (paging, cursors)'],
  [/^engine\/(statements|drizzle-internals|query|sql-text|projection|counts)\.ts$|^engine\/read\//, 'statement building and binding'],
  [/^engine\/graphql\//, 'GraphQL (schema, compiler, resolvers)'],
  [/^engine\/|^resources\//, 'engine: writes, validation, rules'],
  [/^formats\//, 'rendering (formats)'],
  [/^http\//, 'REST/GraphQL adapter (http/)'],
  [/^server\/db\.ts$/, 'database glue (server/db.ts)'],
  [/^server\//, 'server (other)'],
];

/** Libraries, by what they do for a request. */
const LIBRARIES: [RegExp, string][] = [
  [/^postgres$/, 'PostgreSQL driver (postgres.js)'],
  [/^drizzle-orm$/, 'statement building and binding'],
  [/^(fastify|find-my-way|avvio|light-my-request|fast-querystring|fast-uri|@fastify\/.*|toad-cache|process-warning|abstract-logging|pino.*|secure-json-parse|content-type)$/, 'HTTP and fastify (routing, hooks, reply)'],
  [/^(fast-json-stringify|json-schema-ref-resolver|@fastify\/fast-json-stringify-compiler)$/, 'serialisation (JSON)'],
  [/^(mercurius|graphql|graphql-jit|@graphql-.*|tiny-lru|quick-lru)$/, 'GraphQL (mercurius, graphql-js)'],
  [/^(ajv|ajv-formats|@fastify\/ajv-compiler|fast-uri)$/, 'validation (ajv)'],
  [/^tsx$|^esbuild$/, 'module loading (tsx)'],
];

/**
 * Maps a profile's self time to request phases: each sample goes to the first frame up its stack
 * (from the leaf) that has a script: our module's phase, a library's role, or node's internals
 * (HTTP, sockets, timers). Native frames below it (JSON.stringify, regular expressions, string
 * building) count for that frame's phase, except JSON.stringify and JSON.parse themselves, which
 * are "serialisation", and the garbage collector. `fromUs`/`toUs`: only the samples in that span
 * of the monotonic clock (process.hrtime, which V8's profile timestamps share on Linux).
 */
export function phasesOfProfile(file: string, span?: { fromUs: number; toUs: number }): { shares: PhaseShare[]; samples: number } {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile & { startTime: number; nodes: (ProfileNode & { children?: number[] })[] };
  const parent = new Map<number, number>();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, [string, string]>();
  const classify = (id: number): [string, string] => {
    const known = memo.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame;
    let result: [string, string] | undefined;
    if (leaf.functionName === '(garbage collector)') result = ['garbage collector', '(GC)'];
    else if (leaf.functionName === '(idle)' || leaf.functionName === '(root)') result = ['(idle)', '(idle)'];
    else if (leaf.functionName === '(program)') result = ['V8/node outside JavaScript (program)', '(program)'];
    else if (!leaf.url && (leaf.functionName === 'stringify' || leaf.functionName === 'parse' || leaf.functionName === 'JSONStringify')) result = ['serialisation (JSON)', `JSON.${leaf.functionName}`];
    for (let at: number | undefined = id; !result && at !== undefined; at = parent.get(at)) {
      const { url, functionName } = byId.get(at)!.callFrame;
      if (!url) continue;
      const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
      if (nm) {
        const lib = nm[1]!;
        const role = LIBRARIES.find(([re]) => re.test(lib))?.[1] ?? `library: ${lib}`;
        result = [role, lib];
      } else if (url.startsWith('node:')) {
        const mod = url.slice(5);
        result = [/^(_http|http|net|stream|internal\/(streams|http|net|stream_base|js_stream))/.test(mod) ? 'HTTP and sockets (node)' : 'node internals (timers, buffers, …)', `node:${mod.split('/').slice(0, 2).join('/')}`];
      } else {
        const short = shortUrl(url);
        const phase = PHASES.find(([re]) => re.test(short))?.[1] ?? `our code: ${short}`;
        result = [phase, `${short}${at === id ? '' : ` (${leaf.functionName || 'native'})`}`.replace(/ \(\)$/, '')];
        if (functionName && at === id) result[1] = `${short}`;
      }
    }
    result ??= ['(native, no script frame)', leaf.functionName || '(anonymous)'];
    memo.set(id, result);
    return result;
  };
  let t = p.startTime;
  const phases = new Map<string, { t: number; where: Map<string, number> }>();
  let total = 0;
  let samples = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (span && (t < span.fromUs || t > span.toUs)) return;
    const [phase, where] = classify(id);
    if (phase === '(idle)') return;
    samples++;
    total += dt;
    const g = phases.get(phase) ?? { t: 0, where: new Map() };
    g.t += dt;
    g.where.set(where, (g.where.get(where) ?? 0) + dt);
    phases.set(phase, g);
  });
  const shares = [...phases]
    .map(([phase, g]) => ({ phase, share: g.t / total, top: [...g.where].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([w, x]) => [w, x / total] as [string, number]) }))
    .sort((a, b) => b.share - a.share);
  return { shares, samples };
}

// `npx tsx bench/profile.ts <file.cpuprofile> [top]`: areas and top functions; `--phases`: request phases.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  const args = process.argv.slice(2).filter((a) => a !== '--phases');
  if (process.argv.includes('--phases')) {
    const { shares, samples } = phasesOfProfile(args[0]!);
    process.stdout.write(`${samples} busy samples\n${shares.map((s) => `  ${(s.share * 100).toFixed(1).padStart(5)} %  ${s.phase}: ${s.top.map(([w, x]) => `${w} ${(x * 100).toFixed(1)} %`).join('; ')}`).join('\n')}\n`);
  } else process.stdout.write(`${summariseProfile(args[0]!, Number(args[1] ?? 30))}\n`);
}
