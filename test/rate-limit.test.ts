// The sliding-window rate limit on one instance (in-memory store), with an injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, tokenFor, type Res, type TestServer } from './helpers.ts';

const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);

function limits(r: Res) {
  return {
    limit: Number(r.headers.get('x-ratelimit-limit')),
    remaining: Number(r.headers.get('x-ratelimit-remaining')),
    reset: Number(r.headers.get('x-ratelimit-reset')),
    retryAfter: r.headers.get('retry-after'),
  };
}

describe('the default limit: 300 in any 60 s', () => {
  let t: TestServer;
  let now = T0;
  let token: string;
  beforeAll(async () => {
    t = await startTestServer({}, { clock: () => now });
    token = await tokenFor(t, { email: 'busy@a.test', company: 'A' });
  });
  afterAll(() => t.close());

  it('lets 300 through, refuses the 301st until the oldest request leaves the window', async () => {
    expect(t.config.rateLimit).toEqual({ max: 300, windowMs: 60_000 });
    // 300 requests, 100 ms apart: the first at T0, the last at T0 + 29.9 s.
    for (let i = 0; i < 300; i++) {
      now = T0 + i * 100;
      const r = await call(t, 'GET', '/api', { token });
      expect(r.status).toBe(200);
      expect(limits(r)).toEqual({ limit: 300, remaining: 299 - i, reset: Math.ceil((T0 + 60_000) / 1000), retryAfter: null });
    }
    now = T0 + 30_000;
    const refused = await call(t, 'GET', '/api/clients', { token });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
    expect(limits(refused)).toEqual({ limit: 300, remaining: 0, reset: Math.ceil((T0 + 60_000) / 1000), retryAfter: '30' });

    // A millisecond before the oldest request leaves: still refused, Retry-After at least 1.
    now = T0 + 59_999;
    const almost = await call(t, 'GET', '/api', { token });
    expect(almost.status).toBe(429);
    expect(almost.headers.get('retry-after')).toBe('1');

    // As soon as it leaves, one more request fits; the next one waits for the second oldest.
    now = T0 + 60_000;
    const again = await call(t, 'GET', '/api', { token });
    expect(again.status).toBe(200);
    expect(limits(again)).toEqual({ limit: 300, remaining: 0, reset: Math.ceil((T0 + 60_100) / 1000), retryAfter: null });
    const next = await call(t, 'GET', '/api', { token });
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).toBe('1');
    now = T0 + 60_100;
    expect((await call(t, 'GET', '/api', { token })).status).toBe(200);

    // Refused requests were not counted: at T0 + 90 s every one of the first 300 has left, and
    // the window holds the two accepted at T0 + 60 s and T0 + 60.1 s, plus this one.
    now = T0 + 90_000;
    const later = await call(t, 'GET', '/api', { token });
    expect(later.status).toBe(200);
    expect(limits(later)).toEqual({ limit: 300, remaining: 297, reset: Math.ceil((T0 + 120_000) / 1000), retryAfter: null });
  });
});

describe('a small limit', () => {
  let t: TestServer;
  let now = T0;
  let token: string;
  let other: string;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '10000', TRUST_PROXY: 'true' }, { clock: () => now });
    token = await tokenFor(t, { email: 'small@a.test', company: 'A' });
    other = await tokenFor(t, { email: 'other@a.test', company: 'A' });
  });
  afterAll(() => t.close());

  const ip = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });

  it('keys by token: two tokens from one address have a window each', async () => {
    now = T0;
    for (let i = 0; i < 3; i++) expect((await call(t, 'GET', '/api/taxes', { token, headers: ip(1) })).status).toBe(200);
    expect((await call(t, 'GET', '/api/taxes', { token, headers: ip(2) })).status).toBe(429);
    const r = await call(t, 'GET', '/api/taxes', { token: other, headers: ip(1) });
    expect(r.status).toBe(200);
    expect(limits(r).remaining).toBe(2);
  });

  it('keys by client IP without a valid token, 401s included; X-Forwarded-For is trusted when TRUST_PROXY is set', async () => {
    now = T0 + 1000;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(t, 'GET', '/api/clients', { headers: ip(9) }));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429]);
    expect(answers.map((a) => limits(a).remaining)).toEqual([2, 1, 0, 0]);
    expect(answers[0]!.body.message).toBe('No API token provided');
    expect(answers[3]!.headers.get('retry-after')).toBe('10');
    // A wrong token counts against the address too; another address is not affected.
    expect((await call(t, 'GET', '/api/clients', { token: 'inv_nope', headers: ip(9) })).status).toBe(429);
    expect((await call(t, 'GET', '/api/clients', { token: 'inv_nope', headers: ip(10) })).status).toBe(401);
    // The GraphQL endpoint is under the same limit.
    const gql = await call(t, 'POST', '/api/graphql', { headers: ip(9), body: { query: '{ __typename }' }, contentType: 'application/json' });
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.status).toBe(429);
    // The valid token's own window is separate from its address's.
    now = T0 + 10_000;
    expect((await call(t, 'GET', '/api/clients', { token, headers: ip(9) })).status).toBe(200);
  });

  it('covers every /api response but not the docs pages nor the health checks', async () => {
    now = T0 + 100_000;
    const headersOf = async (path: string) => (await call(t, 'GET', path, { headers: ip(20) })).headers.get('x-ratelimit-limit');
    expect(await headersOf('/api')).toBe('3');
    expect(await headersOf('/api/contexts/Client')).toBe('3');
    expect(await headersOf('/api/nothing-here')).toBe('3');
    expect((await call(t, 'GET', '/api', { headers: ip(20) })).status).toBe(429);
    for (let i = 0; i < 5; i++) {
      const docs = await call(t, 'GET', '/api/docs', { headers: ip(20) });
      expect(docs.status).not.toBe(429);
      expect(docs.headers.get('x-ratelimit-limit')).toBeNull();
      expect((await call(t, 'GET', '/healthz', { headers: ip(20) })).headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('records a refused request of a valid token in its history', async () => {
    now = T0 + 200_000;
    const fresh = await tokenFor(t, { email: 'refused@a.test', company: 'A', name: 'refused' });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(t, 'GET', '/api/taxes', { token: fresh, headers: ip(30) })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    now = T0 + 300_000;
    const list = await call(t, 'GET', '/api/api-tokens', { token: fresh, headers: ip(30) });
    const me = list.body.member[0];
    expect(me.usageCount).toBe(5);
    const history = await call(t, 'GET', `${me['@id']}/history`, { token: fresh, headers: ip(30) });
    expect(history.body.member.map((e: any) => e.status)).toEqual([200, 429, 429, 200, 200, 200]);
    expect(history.body.member[1]).toMatchObject({ ipAddress: '203.0.113.30', date: new Date(T0 + 200_000).toISOString() });
  });
});

describe('the in-memory store keeps its most recently used keys', () => {
  it('evicts the least recently used key; a use moves a key to the recent end at most once a second', async () => {
    const { MemoryStore } = await import('../server/access/rate-limit.ts');
    const store = new MemoryStore({ max: 10, windowMs: 60_000 }, 2);
    store.hitSync('a', T0);
    store.hitSync('b', T0 + 10);
    // `a` used again within a second of its last move: it keeps its place, so `c` evicts it.
    store.hitSync('a', T0 + 500);
    store.hitSync('c', T0 + 600);
    expect(store.size).toBe(2);
    expect(store.hitSync('b', T0 + 700).remaining).toBe(8); // b kept its two earlier requests
    // More than a second after its last move, a use of `b` moves it behind `c`: `d` evicts `c`.
    expect(store.hitSync('b', T0 + 1_100).remaining).toBe(7);
    store.hitSync('d', T0 + 1_200);
    expect(store.hitSync('b', T0 + 1_300).remaining).toBe(6);
    expect(store.size).toBe(2);
  });
});
