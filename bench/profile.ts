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

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  process.stdout.write(`${summariseProfile(process.argv[2]!, Number(process.argv[3] ?? 30))}\n`);
}
