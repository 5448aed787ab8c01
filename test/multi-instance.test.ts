// Several instances on one PostgreSQL: the rate limit shared through Redis, and a revocation
// through one instance refused by the others on their very next request — with Redis (cached
// tokens, revocation epoch) and without it (no token cache); reads after writes across
// instances, schedule:run run by both at once issuing each recurring invoice once, and failed
// sign-ins counted across instances.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleRun, userCreate } from '../server/cli/commands.ts';
import { openDatabase } from '../server/db.ts';
import { call, client, databaseOptionsOf, freshDatabase, startTestServer, tokenFor, type TestDatabase, type TestServer } from './helpers.ts';
import { Browserish } from './web-helpers.ts';
import { registrationChangeReaches, roleChangeReaches } from './support/principal-changes.ts';

const PG = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = 'redis://127.0.0.1:6379';
const T0 = Date.UTC(2026, 4, 1, 8, 0, 0);

/** Two instances on one database, each with its own connection pool. */
async function twoInstances(env: Record<string, string>, clock?: () => number) {
  const db = await freshDatabase(PG);
  const second = await openDatabase({ ...databaseOptionsOf(db), maxConnections: 5 });
  const opts = clock ? { clock } : {};
  const a = await startTestServer(env, { db, ...opts });
  const b = await startTestServer(env, { db: { ...db, database: second, drop: async () => {} }, ...opts });
  return {
    a,
    b,
    db,
    async close() {
      await a.close();
      await b.close();
      await second.close();
      await db.drop();
    },
  };
}

describe('with Redis', () => {
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const redis = new Redis(REDIS_URL);
  let now = T0;
  let pair: Awaited<ReturnType<typeof twoInstances>>;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    pair = await twoInstances({ REDIS_URL, REDIS_KEY_PREFIX: prefix }, () => now);
    ({ a, b } = pair);
  });
  afterAll(async () => {
    await pair.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('300 requests in total across both instances, then 429 on both', async () => {
    const token = await tokenFor(a, { email: 'shared@a.test', company: 'A' });
    for (let i = 0; i < 300; i++) {
      now = T0 + i * 10;
      const r = await call(i % 2 ? b : a, 'GET', '/api', { token });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(299 - i));
    }
    now = T0 + 5000;
    for (const instance of [a, b]) {
      const r = await call(instance, 'GET', '/api/clients', { token });
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('55');
      expect(r.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((T0 + 60_000) / 1000)));
    }
    // The window slides on both: the first request (at T0) leaves at T0 + 60 s.
    now = T0 + 60_000;
    expect((await call(b, 'GET', '/api', { token })).status).toBe(200);
    expect((await call(a, 'GET', '/api', { token })).status).toBe(429);
    // The state lives in Redis under the configured prefix: one sorted set per key.
    const keys = await redis.keys(`${prefix}rl:t:*`);
    expect(keys).toHaveLength(1);
    expect(await redis.zcard(keys[0]!)).toBe(300);
  });

  it('a token revoked through one instance is refused by the other on its next request', async () => {
    now = T0 + 1_000_000;
    const ownerValue = await tokenFor(a, { email: 'revoker@a.test', company: 'A' });
    const owner = client(a, ownerValue);
    for (let round = 0; round < 3; round++) {
      const created = await owner.post('/api/api-tokens', { name: `doomed ${round}` });
      const doomed = created.body.token;
      // Both instances have seen (and cached) the token.
      for (let i = 0; i < 3; i++) {
        expect((await call(a, 'GET', '/api/taxes', { token: doomed })).status).toBe(200);
        expect((await call(b, 'GET', '/api/taxes', { token: doomed })).status).toBe(200);
      }
      // Revoke through one instance (alternating), then ask the other one first.
      const [via, other] = round % 2 ? [b, a] : [a, b];
      expect((await client(via, ownerValue).delete(created.body['@id'])).status).toBe(204);
      const refused = await call(other, 'GET', '/api/taxes', { token: doomed });
      expect(refused.status).toBe(401);
      expect(refused.body.message).toBe('Invalid API token');
      expect((await call(via, 'GET', '/api/taxes', { token: doomed })).status).toBe(401);
      expect((await call(other, 'GET', '/api/taxes', { token: doomed })).status).toBe(401);
    }
    // Other tokens keep working on both after a revocation emptied the caches.
    const still = await tokenFor(a, { email: 'still@a.test', company: 'A' });
    expect((await call(b, 'GET', '/api/taxes', { token: still })).status).toBe(200);
    expect((await call(a, 'GET', '/api/taxes', { token: still })).status).toBe(200);
  });

  it('a role changed through one instance applies on the other at its next request (cached tokens carry their role)', async () => {
    now = T0 + 2_000_000;
    await roleChangeReaches(a, b, 'redis-role');
    await roleChangeReaches(b, a, 'redis-role-back');
  });

  it('a VAT registration changed through one instance applies to the next create on the other', async () => {
    now = T0 + 3_000_000;
    await registrationChangeReaches(a, b, 'redis-vat');
  });

  it('counts every request of both instances in the history and usage count', async () => {
    now = T0 + 2_000_000;
    const token = await tokenFor(a, { email: 'counted@a.test', company: 'A', name: 'counted' });
    await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, 'GET', '/api/taxes', { token })));
    // a's reads write a's queue first; b writes within a second.
    await expect.poll(async () => (await client(a, token).get('/api/api-tokens')).body.member[0].usageCount, { timeout: 5000, interval: 200 }).toBeGreaterThanOrEqual(40);
    const me = (await client(a, token).get('/api/api-tokens')).body.member[0];
    const history = await client(a, token).get(`${me['@id']}/history`, { accept: 'application/json' });
    expect(history.body.filter((e: any) => e.endpoint === '/api/taxes')).toHaveLength(40);
  });
  it('reads its own writes across instances: what one writes, the other reads, lists and changes at once', async () => {
    now = T0 + 3_000_000;
    const token = await tokenFor(a, { email: 'rw@a.test', company: 'A' });
    const onA = client(a, token);
    const onB = client(b, token);
    for (let round = 0; round < 5; round++) {
      const created = await onA.post('/api/clients', { name: `Across ${round}`, currency: 'EUR' });
      expect(created.status).toBe(201);
      const iri = created.body['@id'];
      expect((await onB.get(iri)).body).toMatchObject({ name: `Across ${round}`, currency: 'EUR' });
      const listed = await onB.get(`/api/clients?name=Across%20${round}`);
      expect(listed.body.member.map((c: any) => c['@id'])).toEqual([iri]);
      expect((await onB.patch(iri, { name: `Renamed ${round}` })).status).toBe(200);
      expect((await onA.get(iri)).body.name).toBe(`Renamed ${round}`);
    }
    // A document's life spread over both: created on A, issued on B, paid on A, seen paid on B.
    const customer = (await onB.post('/api/clients', { name: 'Payer', currency: 'USD' })).body['@id'];
    const invoice = await onA.post('/api/invoices', { client: customer, lines: [{ description: 'Work', price: 12000 }] });
    expect(invoice.status).toBe(201);
    expect((await onB.patch(invoice.body['@id'], { status: 'pending' })).body).toMatchObject({ status: 'pending', total: 12000 });
    expect((await onA.post('/api/payments', { invoice: invoice.body['@id'], amount: 12000 })).status).toBe(201);
    expect((await onB.get(invoice.body['@id'])).body).toMatchObject({ status: 'paid', balance: 0 });
    // A second payment through B is refused: B sees A's payment.
    expect((await onB.post('/api/payments', { invoice: invoice.body['@id'], amount: 1 })).status).toBe(422);
    // Deleted on one, gone on the other.
    const doomed = (await onA.post('/api/clients', { name: 'Short-lived', currency: 'EUR' })).body['@id'];
    expect((await onB.delete(doomed)).status).toBe(204);
    expect((await onA.get(doomed)).status).toBe(404);
  });

  it('issues each recurring invoice once when both instances run schedule:run for the same date at once', async () => {
    now = T0 + 4_000_000;
    const api = client(a, await tokenFor(a, { email: 'sched@a.test', company: 'A' }));
    const customer = (await api.post('/api/clients', { name: 'Subscriber', currency: 'EUR' })).body['@id'];
    const series: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await api.post('/api/recurring-invoices', { client: customer, frequency: 'monthly', startDate: '2026-03-01', lines: [{ description: `Plan ${i}`, price: 1000 + i }] });
      expect(r.status, r.text).toBe(201);
      expect((await api.patch(r.body['@id'], { status: 'active' })).status).toBe(200);
      series.push(r.body['@id']);
    }
    // Each instance's own connection pool, two runs each, all at once (as two hosts' cron jobs would).
    const dbs = [a.db.database.db, b.db.database.db];
    expect(dbs[0]).not.toBe(dbs[1]);
    const runs = await Promise.all([0, 1, 0, 1].map((i) => scheduleRun({ db: dbs[i]! }, { date: '2026-03-01' })));
    expect(runs.map((r) => r.failed)).toEqual([[], [], [], []]);
    expect(runs.reduce((n, r) => n + r.created, 0)).toBe(6);
    const invoices = (await client(b, api.token).get('/api/invoices?itemsPerPage=100')).body.member as any[];
    for (const iri of series) {
      expect(invoices.filter((inv) => inv.recurringInvoice === iri).map((inv) => inv.invoiceDate)).toEqual(['2026-03-01']);
      expect((await client(b, api.token).get(iri)).body).toMatchObject({ lastRunDate: '2026-03-01', nextRunDate: '2026-04-01' });
    }
    // The same date again on both: nothing more.
    const again = await Promise.all([0, 1].map((i) => scheduleRun({ db: dbs[i]! }, { date: '2026-03-01' })));
    expect(again.map((r) => r.created)).toEqual([0, 0]);
  });

  it('counts failed sign-ins across instances: 3 on one and 2 on the other block the address on both', async () => {
    now = T0 + 5_000_000;
    const password = 'correct horse battery';
    await userCreate({ db: a.db.database.db }, { email: 'guessed@a.test', password, company: 'A' });
    const onA = new Browserish(a.url);
    const onB = new Browserish(b.url);
    for (let i = 0; i < 3; i++) expect((await onA.login('guessed@a.test', `guess ${i}`)).status).toBe(401);
    for (let i = 3; i < 5; i++) expect((await onB.login('guessed@a.test', `guess ${i}`)).status).toBe(401);
    // Five in all: refused on both instances, even with the right password.
    expect((await onA.login('guessed@a.test', password)).status).toBe(429);
    expect((await onB.login('guessed@a.test', password)).status).toBe(429);
    // The window ends on the instances' clock; a success clears the count everywhere.
    now += 16 * 60_000;
    expect((await onB.login('guessed@a.test', 'wrong again')).status).toBe(401);
    expect((await new Browserish(a.url).login('guessed@a.test', password)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await onB.login('guessed@a.test', `later ${i}`)).status).toBe(401);
    expect((await new Browserish(a.url).login('guessed@a.test', password)).status).toBe(303);
  });
});

describe('without Redis (several instances on one PostgreSQL)', () => {
  let pair: Awaited<ReturnType<typeof twoInstances>>;
  beforeAll(async () => {
    pair = await twoInstances({});
  });
  afterAll(() => pair.close());

  it('a revocation through one instance is refused by the other on its next request', async () => {
    const { a, b } = pair;
    const owner = client(a, await tokenFor(a, { email: 'o@a.test', company: 'A' }));
    const created = await owner.post('/api/api-tokens', { name: 'doomed' });
    for (let i = 0; i < 3; i++) expect((await call(b, 'GET', '/api/taxes', { token: created.body.token })).status).toBe(200);
    expect((await owner.delete(created.body['@id'])).status).toBe(204);
    expect((await call(b, 'GET', '/api/taxes', { token: created.body.token })).status).toBe(401);
  });

  it('limits each instance on its own', async () => {
    const { a, b } = pair;
    const token = await tokenFor(a, { email: 'l@a.test', company: 'A' });
    expect((await call(a, 'GET', '/api', { token })).headers.get('x-ratelimit-remaining')).toBe('299');
    expect((await call(b, 'GET', '/api', { token })).headers.get('x-ratelimit-remaining')).toBe('299');
  });
});

describe('when Redis cannot be reached', () => {
  let t: TestServer;
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase(PG);
    // Nothing listens on port 1: every Redis command fails at once.
    t = await startTestServer({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_MAX: '5' }, { db });
  });
  afterAll(async () => {
    await t.close();
    await db.drop();
  });

  it('still serves, limits per instance and honours revocations', async () => {
    const owner = client(t, await tokenFor(t, { email: 'r@a.test', company: 'A' }));
    const created = await owner.post('/api/api-tokens', { name: 'x' });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(t, 'GET', '/api/taxes', { token: created.body.token })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await owner.delete(created.body['@id'])).status).toBe(204);
    expect((await call(t, 'GET', '/api/taxes', { token: created.body.token })).status).toBe(401);
  });
});

describe('when Redis goes away and comes back', () => {
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  let proxy: Server;
  let port = 0;
  const sockets = new Set<Socket>();
  let t: TestServer;
  let db: TestDatabase;

  /** A TCP relay to the real Redis that the test can cut and restore. */
  function listen(): Promise<void> {
    proxy = createServer((inbound) => {
      const outbound = connect(6379, '127.0.0.1');
      sockets.add(inbound).add(outbound);
      inbound.pipe(outbound).pipe(inbound);
      const drop = () => {
        inbound.destroy();
        outbound.destroy();
        sockets.delete(inbound);
        sockets.delete(outbound);
      };
      inbound.on('error', drop).on('close', drop);
      outbound.on('error', drop).on('close', drop);
    });
    return new Promise((resolve) => proxy.listen(port, '127.0.0.1', () => ((port = (proxy.address() as AddressInfo).port), resolve())));
  }
  async function cut(): Promise<void> {
    const closed = new Promise((r) => proxy.close(r));
    for (const s of sockets) s.destroy();
    await closed;
  }

  beforeAll(async () => {
    await listen();
    db = await freshDatabase(PG);
    t = await startTestServer({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_MAX: '1000' }, { db });
  });
  afterAll(async () => {
    await t.close();
    await db.drop();
    proxy.close();
    for (const s of sockets) s.destroy();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('limits per instance meanwhile, and shares the window again once Redis answers', async () => {
    const token = await tokenFor(t, { email: 'flaky@a.test', company: 'A' });
    const remaining = async () => {
      const r = await call(t, 'GET', '/api', { token });
      expect(r.status).toBe(200);
      return Number(r.headers.get('x-ratelimit-remaining'));
    };
    const redis = new Redis(REDIS_URL);
    const shared = async () => {
      const keys = await redis.keys(`${prefix}rl:t:*`);
      return keys.length ? redis.zcard(keys[0]!) : 0;
    };
    try {
      expect([await remaining(), await remaining(), await remaining()]).toEqual([999, 998, 997]);
      expect(await shared()).toBe(3);
      await cut();
      // Served all the same, counted by this instance's own window, which starts afresh.
      expect([await remaining(), await remaining()]).toEqual([999, 998]);
      expect(await shared()).toBe(3);
      await listen();
      // Back on the shared window once the client has reconnected.
      await expect.poll(async () => (await remaining(), shared()), { timeout: 10_000, interval: 100 }).toBeGreaterThan(3);
      const n = await shared();
      expect(await remaining()).toBe(1000 - n - 1);
    } finally {
      await redis.quit();
    }
  });
});
