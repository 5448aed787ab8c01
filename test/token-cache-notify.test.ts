// The token cache on PostgreSQL without Redis (the default): two instances on one database, each
// caching tokens, learn of every revocation through PostgreSQL's LISTEN/NOTIFY (server/access/invalidation.ts).
// A revoked token is refused at once by the instance that revoked it and by the other on its
// next request (the revoking request answers once every listening instance has applied the
// change), also after the listening connection was killed, and after the database went away and
// came back; a role changed outside the service (user:create) reaches both within a second; and a
// cached token costs no statement: an item read is the read alone.
//
// PostgreSQL only. The shared server is never restarted (other suites use it): a restart is
// simulated for one instance by a TCP relay that closes every connection and refuses new ones,
// then relays again, which is what a restart looks like from the service.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { openDatabase, type Database } from '../server/db.ts';
import { InvalidationListener } from '../server/access/invalidation.ts';
import { call, client, freshDatabase, startTestServer, tokenFor, type TestDatabase, type TestServer } from './helpers.ts';
import { Relay } from './support/pg-relay.ts';
import { registrationChangeReaches, roleChangeReaches } from './support/principal-changes.ts';

const PG = process.env.DATABASE_URL;

describe.runIf(PG)('token cache on PostgreSQL without Redis', () => {
  let db: TestDatabase;
  let relay: Relay;
  let second: Database;
  let a: TestServer;
  let b: TestServer;
  let admin: postgres.Sql;
  const name = () => new URL(db.url!).pathname.slice(1);

  beforeAll(async () => {
    db = await freshDatabase(PG);
    relay = new Relay(new URL(PG!));
    await relay.open();
    // b reaches the database through the relay, its listening connection included.
    const url = relay.url(name());
    second = await openDatabase({ databaseUrl: url, maxConnections: 4, connectTimeoutSeconds: 2 });
    // The environment of these instances is exactly this: no REDIS_URL, whatever the CI exports.
    a = await startTestServer({}, { db });
    b = await startTestServer({}, { db: { ...db, database: second, url, drop: async () => {} } });
    expect([a.config.redisUrl, b.config.redisUrl, a.config.tokenCache, b.config.tokenCache]).toEqual([undefined, undefined, 'auto', 'auto']);
    admin = postgres(PG!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await second?.close();
    await relay?.cut();
    await admin?.end();
    await db?.drop();
  });

  /** SQL statements b runs for one request. */
  async function statementsOnB(path: string, token: string, expected = 200): Promise<number> {
    const before = second.statements();
    const r = await call(b, 'GET', path, { token });
    expect(r.status, r.text).toBe(expected);
    return second.statements() - before;
  }

  /** A token, used on both instances, with a tax of its company to read. */
  async function cachedOnBoth(email: string) {
    const token = await tokenFor(a, { email, company: `Co ${email}` });
    const tax = await client(a, token).post('/api/taxes', { name: 'VAT', rate: 20 });
    expect(tax.status).toBe(201);
    const item = tax.body['@id'] as string;
    for (const t of [a, b]) expect((await call(t, 'GET', item, { token })).status).toBe(200);
    return { token, item };
  }

  /** Until b listens (and caches) again: a read of a cached token is one statement. */
  async function cachingAgainOnB(item: string, token: string): Promise<void> {
    await expect.poll(async () => (await statementsOnB(item, token), statementsOnB(item, token)), { timeout: 10_000, interval: 100 }).toBe(1);
  }

  /** The instances' listening connections (both once they listen). */
  const listeners = async () => (await admin`select 1 from pg_stat_activity where datname = ${name()} and application_name = 'invoicing:token-cache'`).length;

  async function revokeThroughA(token: string, id: string): Promise<void> {
    expect((await client(a, token).delete(id)).status).toBe(204);
  }

  async function doomedToken(owner: string) {
    const created = await client(a, owner).post('/api/api-tokens', { name: `doomed ${Math.random()}` });
    expect(created.status).toBe(201);
    return { value: created.body.token as string, id: created.body['@id'] as string };
  }

  it('an authenticated item read of a cached token runs one statement: the read, no token lookup', async () => {
    const { token, item } = await cachedOnBoth('reader@a.test');
    for (let i = 0; i < 3; i++) expect(await statementsOnB(item, token)).toBe(1);
    const before = a.db.database.statements();
    expect((await call(a, 'GET', item, { token })).status).toBe(200);
    expect(a.db.database.statements() - before).toBe(1);
  });

  it('a token revoked through one instance is refused at once by both', async () => {
    const { token: owner, item } = await cachedOnBoth('revoker@a.test');
    for (let round = 0; round < 5; round++) {
      const doomed = await doomedToken(owner);
      for (let i = 0; i < 2; i++) {
        for (const t of [a, b]) expect((await call(t, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(200);
      }
      // Cached on b: a read costs no lookup.
      expect(await statementsOnB(item, doomed.value)).toBe(1);
      await revokeThroughA(owner, doomed.id);
      // The other instance first, then the revoking one.
      const refused = await call(b, 'GET', '/api/taxes', { token: doomed.value });
      expect(refused.status).toBe(401);
      expect(refused.body.message).toBe('Invalid API token');
      expect((await call(a, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(401);
    }
    // Other tokens still work, and are cached again.
    await cachingAgainOnB(item, owner);
  });

  it('a role changed with user:create (outside any instance) reaches both within a second', async () => {
    const { token, item } = await cachedOnBoth('demoted@a.test');
    expect((await client(b, token).patch(item, { rate: 10 })).status).toBe(200);
    await userCreate({ db: a.db.database.db }, { email: 'demoted@a.test', password: 'password123', company: 'Co demoted@a.test', role: 'viewer' });
    for (const t of [a, b]) {
      await expect.poll(async () => (await client(t, token).patch(item, { rate: 11 })).status, { timeout: 1000, interval: 20 }).toBe(403);
    }
  });

  it('a role changed through one instance (the API) applies on the other at its next request', async () => {
    await roleChangeReaches(a, b, 'notify-role');
  });

  it('a VAT registration changed through one instance applies to the next create on the other', async () => {
    await registrationChangeReaches(a, b, 'notify-vat');
  });

  it('after its listening connection was killed (pg_terminate_backend): a revocation is still refused at once, and the cache comes back', async () => {
    const { token: owner, item } = await cachedOnBoth('killed@a.test');
    const doomed = await doomedToken(owner);
    for (const t of [a, b]) expect((await call(t, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(200);
    const killed = await admin`
      select pg_terminate_backend(pid) as ok from pg_stat_activity
      where datname = ${name()} and application_name = 'invoicing:token-cache'`;
    // a, behind a transaction pooler without DATABASE_DIRECT_URL, polls instead of listening.
    const listening = db.database.sessionUrl ? 2 : 1;
    expect(killed.length).toBe(listening);
    await revokeThroughA(owner, doomed.id);
    expect((await call(b, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(401);
    expect((await call(a, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(401);
    // Both listen again: cached reads, and the next revocation is refused at once too.
    await cachingAgainOnB(item, owner);
    await expect.poll(listeners, { timeout: 5000 }).toBe(listening);
    const next = await doomedToken(owner);
    for (const t of [a, b]) expect((await call(t, 'GET', '/api/taxes', { token: next.value })).status).toBe(200);
    await revokeThroughA(owner, next.id);
    expect((await call(b, 'GET', '/api/taxes', { token: next.value })).status).toBe(401);
  });

  it('after the database went away and came back: a token revoked meanwhile is refused, and the cache comes back', async () => {
    const { token: owner, item } = await cachedOnBoth('outage@a.test');
    const doomed = await doomedToken(owner);
    for (const t of [a, b]) expect((await call(t, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(200);
    expect(await statementsOnB(item, owner)).toBe(1);
    // Every connection of b closes and none can open: b answers 503 (it cannot read anything).
    await relay.cut();
    expect((await call(b, 'GET', item, { token: owner })).status).toBe(503);
    // Revoked while b cannot hear of it.
    await revokeThroughA(owner, doomed.id);
    await relay.restore();
    // b is back: the revoked token is refused from its first answer on.
    await expect.poll(async () => (await call(b, 'GET', item, { token: owner })).status, { timeout: 10_000, interval: 50 }).toBe(200);
    expect((await call(b, 'GET', '/api/taxes', { token: doomed.value })).status).toBe(401);
    await cachingAgainOnB(item, owner);
    // Back again with nothing revoked meanwhile: the same epoch, so b keeps what it had cached
    // (once it listens again, a token read before the outage is not read again).
    const spare = await doomedToken(owner);
    await statementsOnB(item, spare.value, 200);
    expect(await statementsOnB(item, spare.value)).toBe(1);
    await relay.cut();
    await relay.restore();
    await cachingAgainOnB(item, owner);
    expect(await statementsOnB(item, spare.value)).toBe(1);
    const next = await doomedToken(owner);
    for (const t of [a, b]) expect((await call(t, 'GET', '/api/taxes', { token: next.value })).status).toBe(200);
    await revokeThroughA(owner, next.id);
    expect((await call(b, 'GET', '/api/taxes', { token: next.value })).status).toBe(401);
  });
});

describe.skipIf(!PG)('the wait of a revoking request', () => {
  it('lasts until another listening instance has said it applied the revocation', async () => {
    const db = await freshDatabase();
    const seen: number[] = [];
    const cache = { observe: (e: number) => seen.push(e), suspend: () => {}, resume: (e: number) => seen.push(e) };
    const quiet = { warn: () => {}, info: () => {} };
    // LISTEN needs a session of its own: PostgreSQL itself, not a transaction pooler.
    const listener = new InvalidationListener({ databaseUrl: db.directUrl!, cache: cache as never, log: quiet as never, strict: true });
    // Another instance, slow to apply: it says so 300 ms after each notification, on its listening
    // connection, as server/access/invalidation.ts does.
    let acknowledged = 0;
    const other: postgres.Sql = postgres(db.directUrl!, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: 'invoicing:token-cache' },
      ...({
        onnotify: (channel: string, payload: string) => {
          if (channel !== 'token_cache_invalidation') return;
          setTimeout(() => {
            acknowledged = Number(payload);
            void other.unsafe(`select pg_notify('token_cache_applied', $1 || ':' || pg_backend_pid() || ':slow-instance')`, [payload]);
          }, 300);
        },
      } as object),
    });
    try {
      await other.unsafe('listen token_cache_invalidation');
      await listener.start();
      expect(listener.synced).toBe(true);
      for (let round = 1; round <= 3; round++) {
        await other`select token_cache_bump()`;
        const [row] = await other<{ epoch: string }[]>`select epoch::text as epoch from token_cache_epoch`;
        await listener.settle(5000);
        // Resolved only once the other instance applied this epoch.
        expect(acknowledged).toBe(Number(row!.epoch));
      }
    } finally {
      await listener.close();
      await other.end();
      await db.drop();
    }
  });
});
