// The deployment example of docs/deploying.md, run as written: deploy/pgbouncer.ini started with
// Debian's pgbouncer (only its addresses, files and authentication adapted to this machine),
// two instances started as deploy/invoicing@.service starts them (its ExecStart, the environment of
// deploy/invoicing.env, its PORT), the CLI run with that environment too. They act as one service
// through PgBouncer: a user created by the CLI, a change made on one read on the other, a token
// revoked on one refused by the other, one rate-limit window.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, freePort } from './helpers.ts';

const PG = process.env.DATABASE_URL;
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const hasPgbouncer = spawnSync('sh', ['-c', 'command -v pgbouncer || test -x /usr/sbin/pgbouncer']).status === 0;
const PGBOUNCER = spawnSync('sh', ['-c', 'command -v pgbouncer || echo /usr/sbin/pgbouncer'], { encoding: 'utf8' }).stdout.trim();

/** KEY=VALUE lines (comments and blank lines skipped), as systemd's EnvironmentFile reads them. */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/** Waits until `done()` holds (expect.poll is for tests, not their hooks). */
async function until(done: () => Promise<boolean>, timeoutMs: number, why: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms ${why()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!PG || !hasPgbouncer)('deploy/: two instances behind PgBouncer, as the example runs them', () => {
  const unit = readFileSync('deploy/invoicing@.service', 'utf8');
  const fileEnv = envFile(readFileSync('deploy/invoicing.env', 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'invoicing-deploy-'));
  const name = `test_${randomBytes(6).toString('hex')}`;
  let admin: postgres.Sql;
  let bouncerPort: number;
  const children: ChildProcess[] = [];
  let env: Record<string, string>;
  const instances: { url: string; log: () => string }[] = [];

  beforeAll(async () => {
    admin = postgres(PG!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    // deploy/pgbouncer.ini, its database pointed at this test's, on a free port, trust authentication.
    bouncerPort = await freePort();
    const pg = new URL(PG!);
    const ini = readFileSync('deploy/pgbouncer.ini', 'utf8')
      .replace(/^invoicing = host=\S+ port=\d+ dbname=\S+$/m, `invoicing = host=${pg.hostname} port=${pg.port || 5432} dbname=${name}`)
      .replace(/^listen_port = \d+$/m, `listen_port = ${bouncerPort}`)
      .replace(/^unix_socket_dir = .*$/m, 'unix_socket_dir =')
      .replace(/^auth_type = .*$/m, 'auth_type = trust')
      .replace(/^auth_file = .*$/m, `auth_file = ${dir}/userlist.txt`)
      .replace(/^logfile = .*$/m, `logfile = ${dir}/pgbouncer.log`)
      .replace(/^pidfile = .*$/m, `pidfile = ${dir}/pgbouncer.pid`);
    expect(ini).toContain('pool_mode = transaction');
    writeFileSync(join(dir, 'pgbouncer.ini'), ini);
    writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
    const root = process.getuid?.() === 0;
    if (root) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      for (const f of ['', 'pgbouncer.ini', 'userlist.txt']) chownSync(join(dir, f), uid, -1);
    }
    const started = spawnSync(PGBOUNCER, ['-d', ...(root ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { encoding: 'utf8' });
    expect(started.status, started.stderr).toBe(0);
    const probe = postgres(`postgres://postgres@127.0.0.1:${bouncerPort}/invoicing`, { max: 1, prepare: false, onnotice: () => {} });
    await until(async () => (await probe`select 1 as one`.catch(() => []))[0]?.one === 1, 10_000);
    await probe.end();

    // The unit's environment: the file's, PORT from the instance name; the addresses made this machine's.
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/invoicing\/invoicing\.env$/m);
    expect(unit).toMatch(/^Environment=PORT=%i$/m);
    expect(unit).toMatch(/^ExecStart=\S*invoicing serve$/m);
    const pooled = new URL(fileEnv.DATABASE_URL!);
    expect([pooled.port, pooled.pathname, fileEnv.DATABASE_POOLER]).toEqual(['6432', '/invoicing', 'transaction']);
    pooled.username = 'postgres';
    pooled.password = '';
    pooled.port = String(bouncerPort);
    const direct = new URL(PG!);
    direct.pathname = `/${name}`;
    env = {
      ...fileEnv,
      DATABASE_URL: pooled.toString(),
      DATABASE_DIRECT_URL: direct.toString(),
      REDIS_URL: REDIS,
      REDIS_KEY_PREFIX: `deploy-${randomBytes(4).toString('hex')}:`,
      INVOICING_CACHE_DIR: join(dir, 'cache'),
      RATE_LIMIT_MAX: '40',
      SCHEDULER: 'off',
      LOG_LEVEL: 'info',
      PATH: process.env.PATH ?? '',
    };
    // ExecStart (the single executable) is `node --import tsx server/cli/cli.ts` from the sources here.
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      children.push(child);
      instances.push({ url: `http://127.0.0.1:${port}`, log: () => out });
      await until(async () => (await call(instances[i]!, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200, 60_000, () => instances[i]!.log());
    }
  }, 120_000);

  afterAll(async () => {
    if (process.env.DEBUG_DEPLOY) for (const i of instances) console.log(i.log());
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    try {
      const pid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim());
      if (pid) process.kill(pid, 'SIGTERM');
    } catch {
      /* not started */
    }
    await admin?.unsafe(`drop database if exists ${name} with (force)`);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The CLI with the instances' environment (through PgBouncer). Not spawnSync: while it blocked
   * this process, an instance could close the idle keep-alive connection of the last request
   * (after its keepAliveTimeout, when the CLI is slow on a loaded machine), and the next request
   * was written to that connection before the close was seen ("other side closed").
   */
  async function cli(...args: string[]): Promise<string> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', ...args], { env: { ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    return stdout.trim();
  }

  it('each instance says how it runs behind the pooler', () => {
    for (const i of instances) expect(i.log()).toMatch(/Behind a transaction pooler: statements are not prepared/);
    // With DATABASE_DIRECT_URL: no polling note.
    for (const i of instances) expect(i.log()).not.toMatch(/without DATABASE_DIRECT_URL/);
  });

  it('acts as one service: the CLI creates a user, one instance writes what the other reads, a revocation on one is refused by the other, one rate-limit window', async () => {
    await cli('user:create', '--email', 'ops@deploy.test', '--password', 'password123', '--company', 'Deployed');
    const token = (await cli('token:create', '--email', 'ops@deploy.test', '--company', 'Deployed', '--name', 'ops')).split('\n').pop()!.trim();
    const [a, b] = [client(instances[0]!, token), client(instances[1]!, token)];
    const tax = await a.post('/api/taxes', { name: 'VAT', rate: 20 });
    expect(tax.status).toBe(201);
    expect((await b.patch(tax.body['@id'], { rate: 7 })).status).toBe(200);
    expect((await a.get(tax.body['@id'])).body.rate).toBe(7);

    const doomed = await a.post('/api/api-tokens', { name: 'doomed' });
    expect((await call(instances[1]!, 'GET', '/api/taxes', { token: doomed.body.token })).status).toBe(200);
    expect((await a.delete(doomed.body['@id'])).status).toBe(204);
    expect((await call(instances[1]!, 'GET', '/api/taxes', { token: doomed.body.token })).status).toBe(401);

    // RATE_LIMIT_MAX=40 across both (Redis): the 41st request of the window, on either, is refused.
    const fresh = (await a.post('/api/api-tokens', { name: 'limited' })).body.token;
    const statuses: number[] = [];
    for (let i = 0; i < 42; i++) statuses.push((await call(instances[i % 2]!, 'GET', '/api/taxes', { token: fresh })).status);
    expect(statuses.filter((s) => s === 200).length).toBe(40);
    expect(statuses.slice(40)).toEqual([429, 429]);
  }, 180_000);
});
