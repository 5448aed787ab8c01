// Token management through HTTP: lifecycle, ownership, validation, filters, history, summary,
// and the token value shown once and stored nowhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../server/db.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let ownerToken: string;

beforeAll(async () => {
  t = await startTestServer();
  ownerToken = await tokenFor(t, { email: 'owner@a.test', company: 'A', name: 'bootstrap' });
  api = client(t, ownerToken);
});
afterAll(() => t.close());

/** Every text-like column of every table that contains `needle`. */
async function tablesContaining(needle: string): Promise<string[]> {
  const db = t.db.database.db;
  const cols = rowsOf<{ table_name: string; column_name: string }>(
    await db.execute(sql`select table_name, column_name from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`),
  );
  expect(cols.length).toBeGreaterThan(10);
  const found: string[] = [];
  for (const c of cols) {
    const [row] = rowsOf<{ n: number | string }>(
      await db.execute(sql`select count(*) as n from ${sql.identifier(c.table_name)} where position(${needle} in ${sql.identifier(c.column_name)}::text) > 0`),
    );
    if (Number(row!.n) > 0) found.push(`${c.table_name}.${c.column_name}`);
  }
  return found;
}

describe('token lifecycle', () => {
  it('creates, lists, reads, updates and revokes a token; the value is shown once and stored nowhere', async () => {
    const created = await api.post('/api/api-tokens', { name: 'CI deploy', description: 'Used by the pipeline' });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    const value: string = created.body.token;
    expect(value).toMatch(/^inv_[A-Za-z0-9_-]{43,}$/);
    expect(created.body).toMatchObject({ '@context': '/api/contexts/ApiToken', '@type': 'ApiToken', name: 'CI deploy', description: 'Used by the pipeline', usageCount: 0, lastUsedAt: null });
    expect(created.body.createdAt).toMatch(/Z$/);
    const iri: string = created.body['@id'];
    expect(created.headers.get('location')).toBe(iri);
    expect(iri).toBe(`/api/api-tokens/${created.body.id}`);

    // The new token works, and its use is counted.
    const other = client(t, value);
    expect((await other.get('/api/clients')).status).toBe(200);
    expect((await other.get('/api/taxes')).status).toBe(200);

    const seen: string[] = [];
    const item = await api.get(iri);
    seen.push(item.text);
    expect(item.status).toBe(200);
    expect(item.body).toMatchObject({ name: 'CI deploy', usageCount: 2 });
    expect(item.body.lastUsedAt).not.toBeNull();
    expect(item.body).not.toHaveProperty('token');

    const list = await api.get('/api/api-tokens');
    seen.push(list.text);
    expect(list.status).toBe(200);
    expect(list.body['@type']).toBe('Collection');
    expect(list.body.totalItems).toBe(2);
    expect(list.body.member.map((m: any) => m.name)).toEqual(['bootstrap', 'CI deploy']);
    for (const m of list.body.member) expect(m).not.toHaveProperty('token');

    const patched = await api.patch(iri, { name: 'CI deploy (prod)', description: null });
    seen.push(patched.text);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'CI deploy (prod)', description: null, usageCount: 2 });

    const history = await api.get(`${iri}/history`);
    seen.push(history.text);
    expect(history.body.member.map((e: any) => e.endpoint)).toEqual(['/api/taxes', '/api/clients']);
    const summary = await api.get('/api/api-tokens/summary');
    seen.push(summary.text);
    // The token's own view of itself.
    seen.push((await other.get(iri)).text, (await other.get('/api/api-tokens')).text);

    for (const text of seen) expect(text).not.toContain(value);
    expect(await tablesContaining(value)).toEqual([]);
    expect(await tablesContaining(value.slice(4))).toEqual([]);

    // Revoke: 204, then the token is refused on its very next request, and its history is gone.
    const revoked = await api.delete(iri);
    expect(revoked.status).toBe(204);
    const refused = await other.get('/api/clients');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ status: 401, message: 'Invalid API token' });
    expect((await api.get(iri)).status).toBe(404);
    const db = t.db.database.db;
    const [h] = rowsOf<{ n: string | number }>(await db.execute(sql`select count(*) as n from api_token_history where token_id = ${created.body.id}`));
    expect(Number(h!.n)).toBe(0);
    const [m] = rowsOf<{ n: string | number }>(await db.execute(sql`select count(*) as n from api_token_monthly where token_id = ${created.body.id}`));
    expect(Number(m!.n)).toBe(0);
  });

  it('answers in plain JSON on request', async () => {
    const created = await api.post('/api/api-tokens', { name: 'json one' }, { accept: 'application/json' });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'description', 'id', 'lastUsedAt', 'name', 'token', 'updatedAt', 'usageCount']);
    const list = await api.get('/api/api-tokens?name=json', { accept: 'application/json' });
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((x: any) => x.name)).toEqual(['json one']);
    expect(list.headers.get('x-total-count')).toBe('1');
    const summary = await api.get('/api/api-tokens/summary', { accept: 'application/json' });
    expect(summary.body).not.toHaveProperty('@context');
    expect(summary.body).toHaveProperty('activeTokens');
    await api.delete(`/api/api-tokens/${created.body.id}`);
  });

  it('a revoked token that deletes itself gets 401 on its next request', async () => {
    const created = await api.post('/api/api-tokens', { name: 'self-destruct' });
    const self = client(t, created.body.token);
    expect((await self.delete(created.body['@id'])).status).toBe(204);
    expect((await self.get('/api/api-tokens')).status).toBe(401);
  });
});

describe('validation and ownership', () => {
  it('requires a name of at most 100 characters, unique per user and company', async () => {
    const blank = await api.post('/api/api-tokens', { description: 'no name' });
    expect(blank.status).toBe(422);
    expect(blank.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(blank.body.violations).toEqual([expect.objectContaining({ propertyPath: 'name', message: 'This value should not be blank.' })]);
    const long = await api.post('/api/api-tokens', { name: 'x'.repeat(101) });
    expect(long.status).toBe(422);
    expect(long.body.violations[0].propertyPath).toBe('name');
    const unknown = await api.post('/api/api-tokens', { name: 'ok', token: 'inv_mine', usageCount: 5, scopes: ['all'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('scopes');
    expect((await api.post('/api/api-tokens', { name: 'dup' })).status).toBe(201);
    const dup = await api.post('/api/api-tokens', { name: 'dup' });
    expect(dup.status).toBe(422);
    expect(dup.body.violations).toEqual([expect.objectContaining({ propertyPath: 'name', message: 'This value is already used.' })]);
    const rename = await api.get('/api/api-tokens?name=bootstrap');
    const renamed = await api.patch(rename.body.member[0]['@id'], { name: 'dup' });
    expect(renamed.status).toBe(422);
    expect((await api.post('/api/api-tokens', 'not an object', { contentType: 'text/plain' })).status).toBe(415);
    expect((await call(t, 'POST', '/api/api-tokens', { token: ownerToken, rawBody: '{bad json', contentType: 'application/json' })).status).toBe(400);
    // Nothing of the refused attempts was stored.
    const all = await api.get('/api/api-tokens?itemsPerPage=100');
    expect(all.body.member.filter((m: any) => m.name === 'dup')).toHaveLength(1);
    expect(all.body.member.some((m: any) => m.name === 'ok')).toBe(false);
  });

  it("another user's token, or the same user's token of another company: 403; unknown: 404", async () => {
    const intruder = client(t, await tokenFor(t, { email: 'intruder@a.test', company: 'A', role: 'admin' }));
    const mine = await api.post('/api/api-tokens', { name: 'private' });
    const iri = mine.body['@id'];
    for (const r of [await intruder.get(iri), await intruder.patch(iri, { name: 'stolen' }), await intruder.delete(iri), await intruder.get(`${iri}/history`)]) {
      expect(r.status).toBe(403);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    // The same user in another company sees only that company's tokens.
    const elsewhere = client(t, await tokenFor(t, { email: 'owner@a.test', company: 'B', name: 'b-token' }));
    expect((await elsewhere.get(iri)).status).toBe(403);
    const listed = await elsewhere.get('/api/api-tokens');
    expect(listed.body.member.map((m: any) => m.name)).toEqual(['b-token']);
    expect((await intruder.get('/api/api-tokens')).body.member.map((m: any) => m.name)).not.toContain('private');
    expect((await api.get('/api/api-tokens/0190f0e0-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await api.get('/api/api-tokens/not-an-id')).status).toBe(404);
    expect((await api.get(iri)).body.name).toBe('private');
  });

  it('a viewer manages its own tokens', async () => {
    const viewer = client(t, await tokenFor(t, { email: 'viewer@a.test', company: 'A', role: 'viewer' }));
    expect((await viewer.post('/api/clients', { name: 'Nope' })).status).toBe(403);
    const created = await viewer.post('/api/api-tokens', { name: 'viewer laptop' });
    expect(created.status).toBe(201);
    expect((await viewer.patch(created.body['@id'], { description: 'mine' })).body.description).toBe('mine');
    expect((await viewer.delete(created.body['@id'])).status).toBe(204);
  });

  it('answers 405 for methods the token API does not have', async () => {
    const r = await api.put('/api/api-tokens/0190f0e0-0000-7000-8000-000000000000', { name: 'x' }, { contentType: 'application/json' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, PATCH, DELETE');
    expect((await api.delete('/api/api-tokens')).status).toBe(405);
  });
});

describe('collection', () => {
  let u: Client;
  beforeAll(async () => {
    u = client(t, await tokenFor(t, { email: 'lister@a.test', company: 'A', name: 'Alpha' }));
    for (const [name, description] of [['Beta', 'Staging server'], ['gamma', 'production SERVER'], ['Delta', null]] as const) {
      expect((await u.post('/api/api-tokens', { name, description })).status).toBe(201);
    }
  });

  it('filters on name and description, partially and ignoring case', async () => {
    expect((await u.get('/api/api-tokens?name=TA')).body.member.map((m: any) => m.name).sort()).toEqual(['Beta', 'Delta']);
    expect((await u.get('/api/api-tokens?description=server')).body.member.map((m: any) => m.name)).toEqual(['Beta', 'gamma']);
    expect((await u.get('/api/api-tokens?description=%25')).body.totalItems).toBe(0);
    const r = await u.get('/api/api-tokens?name=a');
    expect(r.body.search.template).toContain('order[usageCount]');
  });

  it('orders by name, usageCount, lastUsedAt and createdAt', async () => {
    expect((await u.get('/api/api-tokens?order[name]=desc')).body.member.map((m: any) => m.name)).toEqual(['gamma', 'Delta', 'Beta', 'Alpha']);
    expect((await u.get('/api/api-tokens?order[createdAt]=desc')).body.member.map((m: any) => m.name)).toEqual(['Delta', 'gamma', 'Beta', 'Alpha']);
    // Only "Alpha" has been used (by these requests).
    const byUse = await u.get('/api/api-tokens?order[usageCount]=desc');
    expect(byUse.body.member[0].name).toBe('Alpha');
    expect(byUse.body.member[0].usageCount).toBeGreaterThanOrEqual(4);
    expect((await u.get('/api/api-tokens?order[lastUsedAt]=desc')).status).toBe(200);
    expect((await u.get('/api/api-tokens?order[name]=sideways')).status).toBe(400);
  });

  it('paginates like other collections', async () => {
    const p2 = await u.get('/api/api-tokens?itemsPerPage=3&page=2');
    expect(p2.body.totalItems).toBe(4);
    expect(p2.body.member).toHaveLength(1);
    expect(p2.body.view).toMatchObject({ first: '/api/api-tokens?itemsPerPage=3&page=1', last: '/api/api-tokens?itemsPerPage=3&page=2', previous: '/api/api-tokens?itemsPerPage=3&page=1' });
    expect((await u.get('/api/api-tokens?page=0')).status).toBe(400);
    expect((await u.get('/api/api-tokens?itemsPerPage=abc')).status).toBe(400);
  });
});

describe('history and summary', () => {
  let u: Client;
  let value: string;
  let iri: string;
  beforeAll(async () => {
    u = client(t, await tokenFor(t, { email: 'history@a.test', company: 'A', name: 'manager' }));
    const created = await u.post('/api/api-tokens', { name: 'worker' });
    value = created.body.token;
    iri = created.body['@id'];
    const w = client(t, value);
    await w.get('/api/clients', { headers: { 'user-agent': 'worker/1.0' } });
    await w.post('/api/clients', { name: 'Initech' });
    await w.post('/api/clients', { name: '' });
    await w.get('/api/clients/0190f0e0-0000-7000-8000-000000000000?x=1');
    await call(t, 'GET', '/api/clients', { token: 'inv_wrong' });
  });

  it('lists the requests made with the token, newest first, with every field', async () => {
    const h = await u.get(`${iri}/history`);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ '@context': '/api/contexts/ApiTokenHistoryEntry', '@id': `${iri}/history`, '@type': 'Collection', totalItems: 4 });
    expect(h.body.member.map((e: any) => [e.method, e.endpoint, e.status])).toEqual([
      ['GET', '/api/clients/0190f0e0-0000-7000-8000-000000000000', 404],
      ['POST', '/api/clients', 422],
      ['POST', '/api/clients', 201],
      ['GET', '/api/clients', 200],
    ]);
    const first = h.body.member[3];
    expect(first).toMatchObject({ '@type': 'ApiTokenHistoryEntry', userAgent: 'worker/1.0', ipAddress: '127.0.0.1' });
    expect(Date.parse(first.date)).toBeLessThanOrEqual(Date.parse(h.body.member[0].date));
    expect(first.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const ctx = await call(t, 'GET', '/api/contexts/ApiTokenHistoryEntry');
    expect(ctx.status).toBe(200);
    expect(ctx.body['@context'].member).toBe('hydra:member');
  });

  it('filters by method, status range and date', async () => {
    const f = async (q: string) => (await u.get(`${iri}/history?${q}`)).body.member.map((e: any) => e.status);
    expect(await f('method=post')).toEqual([422, 201]);
    expect(await f('status=4xx')).toEqual([404, 422]);
    expect(await f('status=2xx&method=GET')).toEqual([200]);
    expect(await f('status[]=2xx&status[]=404')).toEqual([404, 201, 200]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await f(`date[after]=${today}&date[before]=${today}`)).toHaveLength(4);
    expect(await f('date[before]=2000-01-01')).toEqual([]);
    expect(await f(`date[after]=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    for (const bad of ['status=6xx', 'status=ok', 'date[after]=yesterday', 'date[before]=2026-02-30', 'method=G%20T']) {
      const r = await u.get(`${iri}/history?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('shows at most the 100 most recent entries', async () => {
    const w = client(t, value);
    for (let i = 0; i < 110; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => w.get(`/api?n=${i + j}`)));
    const h = await u.get(`${iri}/history`, { accept: 'application/json' });
    expect(h.body).toHaveLength(100);
    expect(h.body.every((e: any) => e.endpoint === '/api')).toBe(true);
    expect((await u.get(iri)).body.usageCount).toBe(114);
  });

  it('summarises the user’s tokens in the company', async () => {
    const s = await u.get('/api/api-tokens/summary');
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ '@type': 'ApiTokenSummary', activeTokens: 2, mostUsedToken: { '@id': iri, name: 'worker', usageCount: 114 } });
    // worker's 114 plus manager's requests so far (this one is counted once answered).
    const manager = (await u.get('/api/api-tokens?name=manager')).body.member[0];
    expect(s.body.apiCallsThisMonth).toBe(114 + manager.usageCount - 1);
    expect(Date.parse(s.body.lastActivity)).toBeGreaterThan(Date.now() - 60_000);
    const fresh = client(t, await tokenFor(t, { email: 'new@a.test', company: 'A' }));
    const empty = await fresh.get('/api/api-tokens/summary', { accept: 'application/json' });
    expect(empty.body).toEqual({ activeTokens: 1, apiCallsThisMonth: 0, lastActivity: null, mostUsedToken: null });
  });
});
