// Smoke test of the single executable (.ci/run, after `npm run build:binary`): the binary is
// copied into a fresh temporary directory outside the repository and run from there, with no
// node_modules anywhere. Embedded database: user:create, token:create, serve, the API, both
// documentation pages with every file they load, a command through the running server, SIGTERM,
// a restart that still knows the token and the data, migrate and schedule:run. Then, when
// PostgreSQL and Redis answer, the same binary on a fresh PostgreSQL database with REDIS_URL.
// Exits non-zero on the first failed check.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { Redis } from 'ioredis';

const source = resolve(process.argv[2] ?? 'dist/invoicing');
const work = mkdtempSync(join(tmpdir(), 'invoicing-smoke-'));
const bin = join(work, 'invoicing');
copyFileSync(source, bin);
const baseEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: work,
  DATA_DIR: join(work, 'data'),
  INVOICING_CACHE_DIR: join(work, 'cache'),
  LOG_LEVEL: 'warn',
  SCHEDULER: 'off',
};
let passed = 0;

function check(ok: boolean, what: string, detail = ''): void {
  if (!ok) {
    process.stderr.write(`FAIL ${what}${detail ? `: ${detail}` : ''}\n`);
    throw new Error(`smoke test failed: ${what}`);
  }
  passed++;
  process.stdout.write(`ok   ${what}\n`);
}

function run(args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(bin, args, { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
  check(r.status === 0, `invoicing ${args[0]} exits 0`, `${r.status} ${r.stderr}`);
  check(!r.stderr.includes('Warning'), `invoicing ${args[0]} prints no warning`, r.stderr);
  return r.stdout;
}

interface Server {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

/** Starts `invoicing serve` on a free port and waits for its "listening" log line. */
function serve(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(bin, ['serve'], { cwd: work, env: { ...env, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let stderr = '';
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start in 60 s:\n${log}`)), 60_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        ok({ child, url: m[1]!, stderr: () => stderr });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => {
      log += c.toString('utf8');
      stderr += c.toString('utf8');
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`serve exited (${code}) before listening:\n${log}`));
    });
  });
}

async function stop(s: Server): Promise<void> {
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  s.child.kill('SIGTERM');
  check((await exited) === 0, 'serve stops on SIGTERM with exit code 0');
  check(s.stderr() === '', 'serve wrote nothing to stderr', s.stderr());
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(url, { headers });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** An HTML page and every script, stylesheet and icon it references, all from this server. */
async function pageLoads(s: Server, path: string, label: string): Promise<void> {
  const page = await get(s.url + path, { accept: 'text/html' });
  check(page.status === 200 && page.type.startsWith('text/html'), `${label} page (${path}, Accept: text/html) is 200 HTML`, `${page.status} ${page.type}`);
  const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  check(refs.length >= 3, `${label} page references its files`, refs.join(' '));
  for (const ref of refs) {
    const url = new URL(ref, s.url + path);
    check(url.origin === s.url, `${label}: ${ref} is served by the server itself`);
    const file = await get(url.href);
    check(file.status === 200 && file.text.length > 0, `${label}: ${url.pathname} is 200 and not empty`, `${file.status}`);
  }
}

async function embedded(): Promise<void> {
  process.stdout.write(`== embedded database (binary copied to ${work})\n`);
  const env = baseEnv;
  check(run(['user:create', '--email', 'owner@smoke.test', '--password', 'a long secret', '--company', 'Smoke'], env).includes('owner@smoke.test'), 'user:create');
  const token = run(['token:create', '--email', 'owner@smoke.test', '--company', 'Smoke', '--name', 'smoke'], env).trim();
  check(/^inv_[A-Za-z0-9_-]+$/.test(token), 'token:create prints only the token', token);
  const auth = { 'x-api-token': token };

  let s = await serve(env);
  const list = await get(`${s.url}/api/clients`, auth);
  check(list.status === 200, 'GET /api/clients with the token is 200', `${list.status} ${list.text.slice(0, 200)}`);
  const created = await fetch(`${s.url}/api/clients`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ name: 'Kept Across Restarts', currency: 'EUR' }) });
  check(created.status === 201, 'POST /api/clients is 201', String(created.status));
  // A PDF drawn with the fonts embedded in the binary, read back with pdftotext when it is installed.
  const clientIri = ((await created.json()) as { id: string }).id;
  const invoice = await fetch(`${s.url}/api/invoices`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ client: clientIri, lines: [{ description: 'Ελληνικά и кириллица', qty: 2, price: 1250 }] }),
  });
  const invoiceId = ((await invoice.json()) as { id: string }).id;
  const pdf = await fetch(`${s.url}/api/invoices/${invoiceId}`, { headers: { ...auth, accept: 'application/pdf' } });
  const pdfBytes = Buffer.from(await pdf.arrayBuffer());
  check(pdf.status === 200 && pdf.headers.get('content-type') === 'application/pdf' && pdfBytes.subarray(0, 5).toString('latin1') === '%PDF-', 'GET an invoice with Accept: application/pdf is a PDF', `${pdf.status} ${pdfBytes.subarray(0, 200).toString('utf8')}`);
  const pdfFile = join(work, 'smoke.pdf');
  writeFileSync(pdfFile, pdfBytes);
  const pdfText = spawnSync('pdftotext', [pdfFile, '-'], { encoding: 'utf8' });
  if (pdfText.error) console.log('  (pdftotext not installed: the PDF text is not checked)');
  else check(pdfText.stdout.includes('Ελληνικά и кириллица') && pdfText.stdout.includes('EUR 25.00'), 'the PDF text has the line and the total', pdfText.stdout.slice(0, 300));
  await pageLoads(s, '/api/docs', 'Swagger UI');
  await pageLoads(s, '/api/graphql', 'GraphiQL');
  const login = await get(`${s.url}/login`, { accept: 'text/html' });
  check(login.status === 200 && login.type.startsWith('text/html'), 'the sign-in page is 200 HTML', `${login.status} ${login.type}`);
  for (const asset of ['/assets/app/app/main.js', '/assets/app/styles.css', '/assets/preact/dist/preact.mjs', '/assets/preact/hooks/dist/hooks.mjs', '/assets/htm/htm.mjs']) {
    const file = await get(s.url + asset);
    check(file.status === 200 && file.text.length > 0, `web page file ${asset} is 200 and not empty`, String(file.status));
  }
  const openapi = await get(`${s.url}/api/docs.json`);
  check(openapi.status === 200 && JSON.parse(openapi.text).info.version !== undefined, 'GET /api/docs.json is the OpenAPI document');
  const gql = await fetch(`${s.url}/api/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ clients { totalCount } }' }) });
  check(gql.status === 200 && (await gql.json()).data.clients.totalCount === 1, 'POST /api/graphql answers a query');
  // While serve holds the database, other commands run inside it through the admin socket.
  const second = run(['token:create', '--email', 'owner@smoke.test', '--company', 'Smoke', '--name', 'while-serving'], env).trim();
  check((await get(`${s.url}/api/clients`, { 'x-api-token': second })).status === 200, 'token:create through the running server gives a working token');
  const refused = spawnSync(bin, ['serve'], { cwd: work, env: { ...env, PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
  check(refused.status !== 0 && refused.stderr.includes('in use by process'), 'a second serve on the same DATA_DIR is refused', refused.stderr);
  await stop(s);

  s = await serve(env);
  const after = await get(`${s.url}/api/clients`, { ...auth, accept: 'application/json' });
  check(after.status === 200, 'after a restart the token still works');
  check((JSON.parse(after.text) as { name: string }[]).some((c) => c.name === 'Kept Across Restarts'), 'after a restart the client is still listed', after.text.slice(0, 200));
  await stop(s);

  check(run(['migrate'], env).includes('Migrations applied'), 'migrate');
  check(/\d/.test(run(['schedule:run', '--date', '2026-01-15'], env)), 'schedule:run prints its summary');
  const usage = spawnSync(bin, ['no-such-command'], { cwd: work, env, encoding: 'utf8' });
  check(usage.status === 2 && usage.stderr.includes('Usage'), 'an unknown command prints the usage and exits 2');
}

async function reachable(): Promise<boolean> {
  const sql = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, connect_timeout: 3, onnotice: () => {} });
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await sql`select 1`;
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
    redis.disconnect();
  }
}

async function scaled(): Promise<void> {
  if (!(await reachable())) {
    process.stdout.write('== PostgreSQL + Redis: not reachable on 127.0.0.1, skipped\n');
    return;
  }
  process.stdout.write('== PostgreSQL (DATABASE_URL) + Redis (REDIS_URL)\n');
  const name = `smoke_${randomBytes(5).toString('hex')}`;
  const prefix = `smoke:${randomBytes(5).toString('hex')}:`;
  const admin = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} });
  const redis = new Redis('redis://127.0.0.1:6379');
  await admin.unsafe(`create database ${name}`);
  const env = { ...baseEnv, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${name}`, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: prefix, DATA_DIR: join(work, 'unused') };
  try {
    check(run(['migrate'], env).includes('Migrations applied'), 'migrate on PostgreSQL');
    run(['user:create', '--email', 'pg@smoke.test', '--password', 'a long secret', '--company', 'PG'], env);
    const token = run(['token:create', '--email', 'pg@smoke.test', '--company', 'PG', '--name', 'pg'], env).trim();
    const a = await serve(env);
    const b = await serve(env);
    try {
      const ra = await get(`${a.url}/api/clients`, { 'x-api-token': token });
      const rb = await get(`${b.url}/api/clients`, { 'x-api-token': token });
      check(ra.status === 200 && rb.status === 200, 'two instances of the binary on one PostgreSQL answer GET /api/clients');
      const keys = await redis.keys(`${prefix}rl:t:*`);
      check(keys.length === 1 && (await redis.zcard(keys[0]!)) === 2, 'their rate-limit window is one sorted set in Redis', `${keys.length} keys`);
    } finally {
      await stop(a);
      await stop(b);
    }
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}

try {
  await embedded();
  await scaled();
  process.stdout.write(`smoke: ${passed} passed, 0 failed\n`);
} catch (e) {
  process.stdout.write(`smoke: ${passed} passed, 1 failed\n`);
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
