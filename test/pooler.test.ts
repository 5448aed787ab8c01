// Behind a transaction pooler (PgBouncer, `pool_mode = transaction`): found by the probe, refused
// when declared absent, every session statement refused, the statement timeout per transaction,
// the writes of issue #32 correct, revocations across two instances without LISTEN.
// Runs where a PgBouncer in transaction mode is given (PGBOUNCER_URL, or TEST_POOLER_URL), in
// front of the PostgreSQL at DATABASE_URL (.ci/run starts one).
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSessionState, openDatabase, probeTransactionPooler, type Database } from '../server/db.ts';
import { REVOCATION_POLL_BOUND_MS } from '../server/access/invalidation.ts';
import { call, client, startTestServer, tokenFor, type TestDatabase, type TestServer } from './helpers.ts';

const PG = process.env.DATABASE_URL;
const POOLER = process.env.TEST_POOLER_URL ?? process.env.PGBOUNCER_URL;

describe('session statements (refused behind a transaction pooler)', () => {
  const refused = [
    'set statement_timeout = 1000',
    'SET search_path TO public',
    'reset all',
    'listen token_cache_invalidation',
    'unlisten *',
    'prepare p1 as select 1',
    'deallocate all',
    'discard all',
    'create temp table t (x int)',
    'create temporary table t (x int)',
    'declare c cursor with hold for select 1',
    'select pg_advisory_lock(1)',
    'select pg_try_advisory_lock(1, 2)',
    'select pg_advisory_unlock(1)',
    'select pg_advisory_lock_shared(1)',
    'select pg_advisory_unlock_all()',
    "select set_config('statement_timeout', '1000', false)",
    'select 1; set role postgres',
  ];
  const allowed = [
    'set local statement_timeout = 1000',
    'set transaction isolation level serializable',
    'set constraints all deferred',
    "select set_config('statement_timeout', $1, true)",
    "select pg_advisory_xact_lock(hashtext('webhooks'), hashtext($1))",
    'select pg_try_advisory_xact_lock(1)',
    'update invoices set status = $1 where id = $2',
    'with x as (select 1) update t set a = 1',
    'insert into settings (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value',
    'select "reset" from t',
  ];
  it.each(refused)('refuses %s', (text) => expect(() => assertNoSessionState(text)).toThrow(/transaction pooler.*DATABASE_POOLER=transaction/));
  it.each(allowed)('lets %s through', (text) => expect(() => assertNoSessionState(text)).not.toThrow());
});

describe.skipIf(!PG || !POOLER)('behind PgBouncer in transaction mode', () => {
  let admin: postgres.Sql;
  let name: string;
  const at = (base: string) => {
    const u = new URL(base);
    u.pathname = `/${name}`;
    return u.toString();
  };
  let pooled: Database;
  let direct: Database;

  beforeAll(async () => {
    admin = postgres(PG!, { max: 1, onnotice: () => {} });
    name = `test_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    // Two instances migrate at once through the pooler, without a direct connection: one
    // transaction each, serialised by a transaction-scoped lock.
    const one = await openDatabase({ databaseUrl: at(POOLER!), maxConnections: 2 });
    const two = await openDatabase({ databaseUrl: at(POOLER!), maxConnections: 2, pooler: 'transaction' });
    await Promise.all([one.migrate(), two.migrate()]);
    await two.close();
    pooled = one;
    direct = await openDatabase({ databaseUrl: at(PG!), maxConnections: 2 });
  });
  afterAll(async () => {
    await pooled?.close();
    await direct?.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('the probe finds the pooler, and PostgreSQL itself to be none', async () => {
    expect((await probeTransactionPooler(at(POOLER!))).pooled).toBe(true);
    expect((await probeTransactionPooler(at(PG!))).pooled).toBe(false);
    expect([pooled.pooled, pooled.sessionUrl]).toEqual([true, undefined]);
    expect([direct.pooled, direct.sessionUrl]).toEqual([false, at(PG!)]);
  });

  it('migrations applied once each by the two instances that ran them together', async () => {
    const rows = await direct.raw('select count(*)::int as n, count(distinct hash)::int as distinct from drizzle.__drizzle_migrations', []);
    expect(rows[0]!.n).toBe(rows[0]!.distinct);
    expect(rows[0]!.n).toBeGreaterThan(0);
  });

  it('refuses to open with DATABASE_POOLER=none, saying what to set', async () => {
    await expect(openDatabase({ databaseUrl: at(POOLER!), pooler: 'none' })).rejects.toThrow(/transaction pooler.*Set DATABASE_POOLER=transaction/);
  });

  it('refuses a session statement through the pooler: the statement fails, not production', async () => {
    // drizzle wraps the driver's error (its cause).
    const refusal = (p: Promise<unknown>) => p.then(() => 'ran', (e: Error & { cause?: Error }) => `${e.message} ${e.cause?.message ?? ''}`);
    expect(await refusal(pooled.raw('set statement_timeout = 1', []))).toMatch(/Refused behind a transaction pooler/);
    expect(await refusal(pooled.db.execute(sql`select pg_advisory_lock(1)`))).toMatch(/Refused behind a transaction pooler/);
    expect(await refusal(pooled.db.transaction((tx) => tx.execute(sql`listen anything`)))).toMatch(/Refused behind a transaction pooler/);
    // The same statements are fine on a connection of its own.
    await direct.raw('select pg_advisory_lock(1), pg_advisory_unlock(1)', []);
  });

  it('gives each transaction its statement timeout; nothing of it is left in the session', async () => {
    const timed = await openDatabase({ databaseUrl: at(POOLER!), maxConnections: 1, statementTimeoutMs: 300 });
    try {
      const inside = await timed.db.transaction(async (tx) => (await tx.execute(sql`select current_setting('statement_timeout') as t`)) as unknown as { t: string }[]);
      expect(inside[0]!.t).toBe('300ms');
      const err = await timed.db.transaction((tx) => tx.execute(sql`select pg_sleep(2)`)).catch((e: unknown) => e);
      expect((err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code).toBe('57014');
      // Outside a transaction: the server's own setting (here PostgreSQL's default, none).
      const outside = await timed.raw(`select current_setting('statement_timeout') as t`, []);
      expect(outside[0]!.t).toBe('0');
      expect(timed.timeoutPerTransaction).toBe(true);
    } finally {
      await timed.close();
    }
  });

  it("sets nothing per transaction when the server's own statement timeout is the one configured", async () => {
    // A database of its own, its setting made before any connection reaches it (PgBouncer's
    // server connections take the database's settings when they log in).
    const other = `test_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`create database ${other}`);
    await admin.unsafe(`alter database ${other} set statement_timeout = 700`);
    const u = new URL(POOLER!);
    u.pathname = `/${other}`;
    const timed = await openDatabase({ databaseUrl: u.toString(), maxConnections: 1, statementTimeoutMs: 700 });
    const differs = await openDatabase({ databaseUrl: u.toString(), maxConnections: 1, statementTimeoutMs: 800 });
    try {
      expect([timed.timeoutPerTransaction, differs.timeoutPerTransaction]).toEqual([false, true]);
      const inside = await timed.db.transaction(async (tx) => (await tx.execute(sql`select current_setting('statement_timeout') as t`)) as unknown as { t: string }[]);
      expect(inside[0]!.t).toBe('700ms');
      const err = await timed.db.transaction((tx) => tx.execute(sql`select pg_sleep(2)`)).catch((e: unknown) => e);
      expect((err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code).toBe('57014');
      const set = await differs.db.transaction(async (tx) => (await tx.execute(sql`select current_setting('statement_timeout') as t`)) as unknown as { t: string }[]);
      expect(set[0]!.t).toBe('800ms');
    } finally {
      await timed.close();
      await differs.close();
      await admin.unsafe(`drop database if exists ${other} with (force)`);
    }
  });
});

describe.skipIf(!PG || !POOLER)('two instances behind PgBouncer without DATABASE_DIRECT_URL', () => {
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let second: Database;
  let name: string;
  let admin: postgres.Sql;

  beforeAll(async () => {
    admin = postgres(PG!, { max: 1, onnotice: () => {} });
    name = `test_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    const u = new URL(POOLER!);
    u.pathname = `/${name}`;
    const d = new URL(PG!);
    d.pathname = `/${name}`;
    const first = await openDatabase({ databaseUrl: u.toString(), maxConnections: 4 });
    await first.migrate();
    second = await openDatabase({ databaseUrl: u.toString(), maxConnections: 4 });
    db = { database: first, url: u.toString(), directUrl: d.toString(), env: { DATABASE_URL: u.toString() }, drop: async () => {} };
    // No Redis: the token cache is kept in step by polling the revocation epoch.
    a = await startTestServer({ REDIS_URL: '' }, { db });
    b = await startTestServer({ REDIS_URL: '' }, { db: { ...db, database: second } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.database.close();
    await second?.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('what issue #32 saw change nothing or fail now changes what it says, everywhere', async () => {
    const api = client(a, await tokenFor(a, { email: 'writes@pool.test', company: 'Pooled' }));
    const other = client(b, api.token);
    const owner = await api.post('/api/clients', { name: 'Owner' });
    const address = await api.post('/api/addresses', { client: owner.body['@id'], street1: '1 Main St', city: 'Old', country: 'BE' });
    expect(address.status).toBe(201);
    expect((await api.patch(address.body['@id'], { city: 'New' })).status).toBe(200);
    expect((await other.get(address.body['@id'])).body.city).toBe('New');
    expect((await api.get(address.body['@id'])).body.city).toBe('New');
    const tax = await api.post('/api/taxes', { name: 'VAT', rate: 21 });
    expect((await other.patch(tax.body['@id'], { rate: 6 })).status).toBe(200);
    expect((await api.get(tax.body['@id'])).body.rate).toBe(6);
    // 105 clients in a row, alternating instances: 105 exist (and the owner of the address).
    for (let i = 0; i < 105; i++) expect((await (i % 2 ? other : api).post('/api/clients', { name: `Client ${i}` })).status).toBe(201);
    expect((await other.get('/api/clients')).body.totalItems).toBe(106);
    // A token name used twice: 422, not 500.
    expect((await api.post('/api/api-tokens', { name: 'twice' })).status).toBe(201);
    expect((await other.post('/api/api-tokens', { name: 'twice' })).status).toBe(422);
  });

  it(`a token revoked on one instance is refused by the other: at once after the revoking request, within ${REVOCATION_POLL_BOUND_MS} ms of an operator's SQL`, async () => {
    const owner = await tokenFor(a, { email: 'revoker@pool.test', company: 'Pooled' });
    for (let round = 0; round < 2; round++) {
      const created = await client(a, owner).post('/api/api-tokens', { name: `doomed ${round}` });
      const doomed = created.body.token;
      for (let i = 0; i < 3; i++) {
        expect((await call(a, 'GET', '/api/taxes', { token: doomed })).status).toBe(200);
        expect((await call(b, 'GET', '/api/taxes', { token: doomed })).status).toBe(200);
      }
      const [via, other] = round % 2 ? [b, a] : [a, b];
      expect((await client(via, owner).delete(created.body['@id'])).status).toBe(204);
      expect((await call(other, 'GET', '/api/taxes', { token: doomed })).status).toBe(401);
    }
    // Revoked behind the service's back (SQL, directly on PostgreSQL): the caches follow by polling.
    const created = await client(a, owner).post('/api/api-tokens', { name: 'by sql' });
    const doomed = created.body.token;
    expect((await call(b, 'GET', '/api/taxes', { token: doomed })).status).toBe(200);
    expect((await call(a, 'GET', '/api/taxes', { token: doomed })).status).toBe(200);
    const sqlDirect = postgres(db.directUrl!, { max: 1, onnotice: () => {} });
    try {
      await sqlDirect`delete from api_tokens where name = 'by sql'`;
    } finally {
      await sqlDirect.end();
    }
    // Not a timing: a cache answers only under an epoch read less than the bound ago, so from the
    // commit plus the bound on, whatever the machine's load, it has read the revocation or it
    // does not answer (the token is then read from the database).
    await new Promise((r) => setTimeout(r, REVOCATION_POLL_BOUND_MS));
    expect((await call(b, 'GET', '/api/taxes', { token: doomed })).status).toBe(401);
    expect((await call(a, 'GET', '/api/taxes', { token: doomed })).status).toBe(401);
  });
});
