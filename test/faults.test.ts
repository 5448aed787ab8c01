// Faults: the database's connections killed under load, the database made unreachable (a TCP
// relay in this test stands between the service and PostgreSQL, and is cut or made to swallow
// packets), and the service process killed with SIGKILL while it writes. What must hold:
// requests fail fast with a 503 problem+json (never a 500, never a hang), /readyz says unready,
// the service recovers by itself, request history queued meanwhile is written afterwards, and
// no invoice is ever half-written.
//
// PostgreSQL only (these are faults of a database server); only this file's own databases are
// touched: backends are terminated by datname, the shared server is never stopped.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf } from '../server/db.ts';
import { invoiceInvariants } from '../scripts/invariants.ts';
import { call, freshDatabase, startTestServer, tokenFor, type Res, type TestDatabase, freePort } from './helpers.ts';

const PG = process.env.DATABASE_URL;
const dbName = (d: TestDatabase) => new URL(d.url!).pathname.slice(1);
const toDrop: TestDatabase[] = [];
afterAll(async () => {
  for (const d of toDrop) await d.drop().catch(() => {});
});

/** A request that must be answered: a hang shows as a failure, not as a stuck test. */
async function answered(t: { url: string }, method: string, path: string, o: Parameters<typeof call>[3] = {}): Promise<Res> {
  const ctl = AbortSignal.timeout(20_000);
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers['x-api-token'] = o.token;
  let body: string | undefined;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  }
  const res = await fetch(t.url + path, { method, headers, body, signal: ctl });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined };
}

function expectUnavailable(res: Res, label: string) {
  expect(res.status, `${label}: ${res.text.slice(0, 200)}`).toBe(503);
  expect(res.headers.get('content-type'), label).toMatch(/problem\+json/);
  expect(res.headers.get('retry-after'), label).toBe('1');
  expect(res.body.detail, label).toBe('The database is unavailable; retry shortly.');
}

const invoiceBody = (client: string, i: number) => ({
  client,
  discountType: i % 3 === 0 ? 'percentage' : 'none',
  discountValue: i % 3 === 0 ? 12.5 : 0,
  lines: [
    { description: 'a', price: 1999 + i, qty: 3 },
    { description: 'b', price: 4999, qty: 0.3333 },
    { description: 'c', price: 100, qty: 1.25 },
  ],
});

/**
 * A TCP relay to PostgreSQL: `cut()` closes every connection and refuses new ones;
 * `blackhole()` accepts connections and swallows what they send; `restore()` relays again.
 */
class Relay {
  private server: Server;
  private sockets = new Set<Socket>();
  mode: 'relay' | 'cut' | 'blackhole' = 'relay';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = this.make();
  }

  private make(): Server {
    return createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => {});
      if (this.mode === 'blackhole') return; // accepted, never answered
      const upstream = connect(this.target.port, this.target.host);
      this.sockets.add(upstream);
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(port = 0): Promise<void> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as { port: number }).port;
  }

  private dropAll() {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async cut(): Promise<void> {
    this.mode = 'cut';
    this.dropAll();
    await new Promise((r) => this.server.close(r));
  }

  async blackhole(): Promise<void> {
    if (this.mode === 'cut') {
      this.server = this.make();
      this.mode = 'blackhole';
      await this.listen(this.port);
    } else {
      this.mode = 'blackhole';
      this.dropAll();
    }
  }

  async restore(): Promise<void> {
    this.dropAll();
    if (this.mode === 'cut') {
      this.server = this.make();
      this.mode = 'relay';
      await this.listen(this.port);
    } else this.mode = 'relay';
  }

  async close(): Promise<void> {
    this.dropAll();
    if (this.server.listening) await new Promise((r) => this.server.close(r));
  }
}

describe.runIf(PG)('faults of the database (PostgreSQL)', () => {
  it('connections killed with pg_terminate_backend under load: 200s or 503s, never a 500, and the service recovers by itself', async () => {
    const t = await startTestServer({ RATE_LIMIT_MAX: '1000000' });
    const admin = postgres(PG!, { max: 1, onnotice: () => {} });
    try {
      const token = await tokenFor(t, { email: 'kill@k.test', company: 'K' });
      const client = (await call(t, 'POST', '/api/clients', { token, body: { name: 'K' } })).body['@id'];
      const statuses = new Map<number, number>();
      const bad: string[] = [];
      let stop = false;
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const res = i % 3 === 0 ? await answered(t, 'POST', '/api/invoices', { token, body: invoiceBody(client, i) }) : await answered(t, 'GET', w % 2 ? '/api/invoices?itemsPerPage=5' : '/api/clients', { token });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 503) expectUnavailable(res, 'during kills');
          else if (res.status !== 200 && res.status !== 201) bad.push(`${res.status} ${res.text.slice(0, 200)}`);
        }
      };
      const workers = Array.from({ length: 12 }, (_, w) => worker(w));
      let killed = 0;
      for (let round = 0; round < 6; round++) {
        await new Promise((r) => setTimeout(r, 400));
        const rows = await admin`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = ${dbName(t.db)} and pid <> pg_backend_pid()`;
        killed += rows.length;
      }
      await new Promise((r) => setTimeout(r, 300));
      stop = true;
      await Promise.all(workers);
      expect(killed, 'backends terminated').toBeGreaterThan(0);
      expect(bad, JSON.stringify([...statuses])).toEqual([]);
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      // Recovered without help: the next requests succeed.
      await expect.poll(async () => (await answered(t, 'GET', '/readyz')).status, { timeout: 10_000, interval: 100 }).toBe(200);
      expect((await answered(t, 'GET', '/api/clients', { token })).status).toBe(200);
      expect((await answered(t, 'POST', '/api/invoices', { token, body: invoiceBody(client, 1) })).status).toBe(201);
      // Whatever a killed connection interrupted, no invoice is half-written.
      const db = postgres(t.db.url!, { max: 1, onnotice: () => {} });
      try {
        const { checks, invoices } = await invoiceInvariants(db);
        for (const [name, ok, detail] of checks) expect(ok, `${name}: ${detail}`).toBe(true);
        expect(invoices.every((i) => i.lines === 3), 'every invoice has its 3 lines').toBe(true);
      } finally {
        await db.end();
      }
    } finally {
      await admin.end();
      await t.close();
    }
  }, 120_000);

  it('a transaction whose connection is killed runs none of its remaining statements on the connection that replaces it', async () => {
    // One connection, so the query that follows the kill reconnects the very connection object
    // the transaction held (a driver defect fixed by patches/postgres+3.4.9.patch).
    const fresh = await freshDatabase(PG);
    toDrop.push(fresh);
    const database = await openDatabase({ databaseUrl: fresh.url!, maxConnections: 1 });
    const admin = postgres(PG!, { max: 1, onnotice: () => {} });
    try {
      await database.db.execute(sql`create table kill_tx (n int)`);
      let inside!: () => void;
      const started = new Promise<void>((r) => (inside = r));
      let proceed!: () => void;
      const resume = new Promise<void>((r) => (proceed = r));
      const after: string[] = [];
      let ended!: () => void;
      const finished = new Promise<void>((r) => (ended = r));
      const tx = database.db.transaction(async (t) => {
        await t.execute(sql`insert into kill_tx values (1)`);
        inside();
        await resume;
        for (const n of [2, 3]) {
          try {
            await t.execute(sql`insert into kill_tx values (${n})`);
            after.push(`insert ${n} ran`);
          } catch (err) {
            const e = err as { code?: string; cause?: { code?: string } };
            after.push(`insert ${n} failed: ${e.cause?.code ?? e.code}`);
          }
        }
        ended();
      });
      const outcome = tx.then(() => 'committed', (err: { code?: string }) => `rejected ${err.code}`);
      await started;
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${dbName(fresh)} and application_name = 'invoicing'`;
      // A query queued on the pool now reconnects the transaction's connection.
      expect(rowsOf<{ n: number }>(await database.db.execute(sql`select 1 as n`))).toEqual([{ n: 1 }]);
      proceed();
      expect(await outcome).toMatch(/^rejected/);
      await finished; // the driver rejects the transaction at once; its callback runs on
      expect(after).toEqual(['insert 2 failed: CONNECTION_CLOSED', 'insert 3 failed: CONNECTION_CLOSED']);
      expect(rowsOf(await database.db.execute(sql`select n from kill_tx`))).toEqual([]);
      expect(rowsOf<{ n: number }>(await database.db.execute(sql`select 2 as n`))).toEqual([{ n: 2 }]);
    } finally {
      await admin.end();
      await database.close();
    }
  });

  it('the database unreachable (relay cut, then swallowing packets): fast 503s, /readyz unready, recovery by itself, history written afterwards', async () => {
    const real = await freshDatabase(PG);
    toDrop.push(real);
    const target = new URL(real.url!);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.listen();
    const viaRelay = new URL(real.url!);
    viaRelay.port = String(relay.port);
    // The service reaches the database only through the relay; connect_timeout 1 s.
    const database = await openDatabase({ databaseUrl: viaRelay.toString(), maxConnections: 4, connectTimeoutSeconds: 1 });
    const t = await startTestServer(
      { TOKEN_CACHE: 'on', RATE_LIMIT_MAX: '1000000' },
      { db: { ...real, database, url: viaRelay.toString(), drop: () => database.close() } },
    );
    let sent = 0;
    let unavailable = 0;
    try {
      const token = await tokenFor(t, { email: 'relay@r.test', company: 'R', name: 'relay' });
      const get = async (path: string) => {
        sent++;
        const res = await answered(t, 'GET', path, { token });
        if (res.status === 503) unavailable++;
        return res;
      };
      expect((await get('/api/clients')).status).toBe(200);

      // 1. Cut: connections reset, new ones refused.
      await relay.cut();
      for (let i = 0; i < 5; i++) expectUnavailable(await get('/api/clients'), `cut ${i}`);
      sent++;
      unavailable++;
      expectUnavailable(await answered(t, 'POST', '/api/invoices', { token, body: { client: '/api/clients/00000000-0000-7000-8000-000000000000' } }), 'cut write');
      expect((await answered(t, 'GET', '/readyz')).status).toBe(503);
      expect((await answered(t, 'GET', '/healthz')).status).toBe(200);
      // GraphQL answers in its own shape, with the status in extensions.
      sent++;
      const gql = await answered(t, 'POST', '/api/graphql', { token, body: { query: '{ clients { totalCount } }' } });
      expect(gql.status).toBeLessThan(500);
      expect(gql.body.errors[0].extensions.status).toBe(503);

      // 2. Blackhole: connections open but nothing answers; connect_timeout bounds the wait.
      await relay.blackhole();
      const started = Date.now();
      for (let i = 0; i < 3; i++) expectUnavailable(await get('/api/taxes'), `blackhole ${i}`);
      const readyz = await answered(t, 'GET', '/readyz');
      expect(readyz.status).toBe(503);
      expect(readyz.body).toEqual({ status: 'unavailable', detail: 'The database is not reachable.' });
      const waited = Date.now() - started;

      // 3. Back: no restart, no call to anything; the next requests succeed.
      await relay.restore();
      await expect.poll(async () => (await answered(t, 'GET', '/readyz')).status, { timeout: 15_000, interval: 100 }).toBe(200);
      expect((await get('/api/clients')).status).toBe(200);

      // 4. The history of every authenticated request (the 503s included) is written once the
      //    database is back: read directly, not through the relay.
      const direct = postgres(real.url!, { max: 1, onnotice: () => {} });
      try {
        const usage = async () => {
          const [row] = await direct`select usage_count, (select count(*) from api_token_history h where h.token_id = t.id)::int as rows,
            (select count(*) from api_token_history h where h.token_id = t.id and h.status = 503)::int as unavailable from api_tokens t where name = 'relay'`;
          return { usage: Number(row!.usage_count), rows: Number(row!.rows), unavailable: Number(row!.unavailable) };
        };
        await expect.poll(usage, { timeout: 15_000, interval: 200 }).toEqual({ usage: sent, rows: sent, unavailable });
      } finally {
        await direct.end();
      }
      // Each refusal took about connect_timeout, not the driver's default of 30 s (a liveness
      // bound, not a speed assertion: 3 requests and /readyz in well under 4 × 30 s).
      expect(waited).toBeLessThan(60_000);
    } finally {
      await t.close();
      await relay.close();
    }
  }, 120_000);
});

describe.runIf(PG)('SIGKILL of the service during writes', () => {
  it('leaves no half-written invoice: each has its lines and consistent totals, and every acknowledged one exists', async () => {
    const db = await freshDatabase(PG);
    toDrop.push(db);
    const seed = await startTestServer({}, { db });
    const token = await tokenFor(seed, { email: 'kill9@k.test', company: 'K9' });
    const client = (await call(seed, 'POST', '/api/clients', { token, body: { name: 'K9' } })).body['@id'];
    await seed.running.stop();

    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], {
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '1000000', SCHEDULER: 'off', REDIS_URL: '' },
      stdio: 'ignore',
    });
    const base = { url: `http://127.0.0.1:${port}` };
    await expect.poll(async () => (await call(base, 'GET', '/readyz').catch(() => ({ status: 0 }))).status, { timeout: 90_000, interval: 200 }).toBe(200);

    const acknowledged: string[] = [];
    let stop = false;
    const exited = once(child, 'exit');
    const workers = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const res = await call(base, 'POST', '/api/invoices', { token, body: invoiceBody(client, w * 1000 + i) }).catch(() => null);
        if (!res) return; // the process is gone
        if (res.status === 201) acknowledged.push(res.body['@id']);
        if (acknowledged.length >= 60 && !child.killed) child.kill('SIGKILL');
      }
    });
    await exited;
    stop = true;
    await Promise.all(workers);
    expect(child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);

    const direct = postgres(db.url!, { max: 1, onnotice: () => {} });
    try {
      const { checks, invoices } = await invoiceInvariants(direct);
      for (const [name, ok, detail] of checks) expect(ok, `${name}: ${detail}`).toBe(true);
      expect(invoices.filter((i) => i.lines !== 3), 'invoices without their 3 lines').toEqual([]);
      const stored = new Set(invoices.map((i) => i.id));
      expect(acknowledged.filter((iri) => !stored.has(iri.split('/').pop()!)), 'acknowledged but lost').toEqual([]);
      // Writes in flight when the process died either committed whole or not at all.
      expect(invoices.length).toBeGreaterThanOrEqual(acknowledged.length);
    } finally {
      await direct.end();
    }
  }, 120_000);
});

// Runs in the PGlite pass of the suite (it needs no PostgreSQL, and once is enough).
describe.skipIf(PG)('SIGKILL of the service on the embedded database (PGlite)', () => {
  it('leaves a database that opens again, with no half-written invoice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invoicing-kill9-'));
    try {
      const port = await freePort();
      const env = { ...process.env, DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '1000000', SCHEDULER: 'off', REDIS_URL: '', DATABASE_URL: '' };
      // The token is created through the CLI while no server runs.
      const run = (args: string[]) => new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        p.stdout!.on('data', (d) => (out += d));
        p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}`))));
      });
      await run(['user:create', '--email', 'p@p.test', '--password', 'password123', '--company', 'P']);
      const token = (await run(['token:create', '--email', 'p@p.test', '--company', 'P', '--name', 'p'])).trim();
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], { env, stdio: 'ignore' });
      const base = { url: `http://127.0.0.1:${port}` };
      await expect.poll(async () => (await call(base, 'GET', '/readyz').catch(() => ({ status: 0 }))).status, { timeout: 60_000, interval: 200 }).toBe(200);
      const client = (await call(base, 'POST', '/api/clients', { token, body: { name: 'P' } })).body['@id'];
      const acknowledged: string[] = [];
      const exited = once(child, 'exit');
      await Promise.all(Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; ; i++) {
          const res = await call(base, 'POST', '/api/invoices', { token, body: invoiceBody(client, w * 1000 + i) }).catch(() => null);
          if (!res) return;
          if (res.status === 201) acknowledged.push(res.body['@id']);
          if (acknowledged.length >= 30 && !child.killed) child.kill('SIGKILL');
        }
      }));
      await exited;
      expect(child.signalCode).toBe('SIGKILL');

      // The data directory opens again (PGlite recovers from its WAL), with every acknowledged
      // invoice whole. (The lock file of the dead process is taken over by the next start.)
      const database = await openDatabase({ dataDir: dir });
      try {
        const rows = rowsOf<{ id: string; n: number }>(await database.db.execute(sql`select i.id, count(l.id)::int as n from invoices i left join invoice_lines l on l.invoice_id = i.id group by i.id`));
        const byId = new Map(rows.map((r) => [r.id, Number(r.n)]));
        expect([...byId.values()].filter((n) => n !== 3), 'invoices without their 3 lines').toEqual([]);
        expect(acknowledged.filter((iri) => !byId.has(iri.split('/').pop()!)), 'acknowledged but lost').toEqual([]);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
