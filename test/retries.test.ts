// Safe retries and concurrent edits (CONTRACT §12): Idempotency-Key on REST POST/PATCH and
// GraphQL mutations, ETags, If-None-Match and If-Match, GraphQL's version.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeptResponses } from '../engine/idempotency.ts';
import { createEngine } from '../engine/operations.ts';
import { lookupToken } from '../server/access/tokens.ts';
import { rowsOf } from '../server/db.ts';
import { model, tables } from '../server/model.ts';
import { call, client, freePort, freshDatabase, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

const DAY = 24 * 60 * 60 * 1000;
let now = Date.now();
let t: TestServer;
let api: Client;
let clientIri: string;
let taxIri: string;

beforeAll(async () => {
  // The token cache on: a request's statements are then its own.
  t = await startTestServer({ TOKEN_CACHE: 'on', RATE_LIMIT_MAX: '100000' }, { clock: () => now });
  api = client(t, await tokenFor(t, { email: 'owner@retries.test', company: 'Retries Co' }));
  clientIri = (await api.post('/api/clients', { name: 'Acme' })).body['@id'];
  taxIri = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
});
afterAll(() => t.close());

async function counted<T>(fn: () => Promise<T>): Promise<{ n: number; result: T }> {
  const before = t.db.database.statements();
  const result = await fn();
  return { n: t.db.database.statements() - before, result };
}

const rows = async (text: string) => rowsOf(await t.db.database.db.execute(sql.raw(text))) as Record<string, number>[];

async function pendingInvoice(price = 10_000) {
  const inv = (await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'Work', price }] })).body;
  const res = await api.patch(inv['@id'], { status: 'pending' });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });

describe('ETags', () => {
  it('are strong, on every item response, and change with the record', async () => {
    const created = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'A', price: 100 }] });
    const etag = created.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const read = await api.get(created.body['@id']);
    expect(read.headers.get('etag')).toBe(etag);
    const json = await api.get(created.body['@id'], { accept: 'application/json' });
    expect(json.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(json.headers.get('etag'), 'each representation has its own tag').not.toBe(etag);
    const hal = await api.get(created.body['@id'], { accept: 'application/hal+json' });
    expect(hal.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const patched = await api.patch(created.body['@id'], { notes: 'changed' });
    expect(patched.headers.get('etag')).not.toBe(etag);
    expect((await api.get(created.body['@id'])).headers.get('etag')).toBe(patched.headers.get('etag'));
    const put = await api.put(created.body['@id'], { client: clientIri, notes: 'replaced', lines: [{ description: 'A', price: 100 }] });
    expect(put.status, put.text).toBe(200);
    expect(put.headers.get('etag')).not.toBe(patched.headers.get('etag'));
  });

  it('If-None-Match with the current tag: 304 without a body, reading only the version', async () => {
    const inv = (await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'A', price: 100 }] })).body;
    const first = await api.get(inv['@id']);
    const etag = first.headers.get('etag')!;
    await api.get(inv['@id']); // the token is cached
    const { n, result } = await counted(() => api.get(inv['@id'], { headers: { 'if-none-match': etag } }));
    expect(result.status).toBe(304);
    expect(result.text).toBe('');
    expect(result.headers.get('etag')).toBe(etag);
    expect(n).toBe(1);
    // Weak comparison for If-None-Match, several tags, and *.
    expect((await api.get(inv['@id'], { headers: { 'if-none-match': `"0-jsonld", W/${etag}` } })).status).toBe(304);
    expect((await api.get(inv['@id'], { headers: { 'if-none-match': '*' } })).status).toBe(304);
    // Another representation, or a stale tag: the whole record.
    const other = await api.get(inv['@id'], { accept: 'application/json', headers: { 'if-none-match': etag } });
    expect(other.status).toBe(200);
    await api.patch(inv['@id'], { notes: 'new' });
    const stale = await api.get(inv['@id'], { headers: { 'if-none-match': etag } });
    expect(stale.status).toBe(200);
    expect(stale.body.notes).toBe('new');
  });

  it('any change to a line changes the invoice’s tag: embedded writes, line mutations, payments, tax edits', async () => {
    const inv = (await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'A', price: 100, tax: taxIri }] })).body;
    const tags = [(await api.get(inv['@id'])).headers.get('etag')];
    const expectNewTag = async (why: string) => {
      const tag = (await api.get(inv['@id'])).headers.get('etag');
      expect(tags, why).not.toContain(tag);
      tags.push(tag);
    };
    await api.patch(inv['@id'], { lines: [{ description: 'A', price: 100, tax: taxIri }, { description: 'B', price: 5 }] });
    await expectNewTag('lines replaced');
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const res = await api.post('/api/graphql', { query, variables }, { contentType: 'application/json' });
      expect(res.body.errors, res.text).toBeUndefined();
      return res.body.data;
    };
    const lines = await gql('query($id: ID!) { invoice(id: $id) { lines { edges { node { id } } } } }', { id: inv['@id'] });
    const lineId = lines.invoice.lines.edges[0].node.id;
    const otherLineId = lines.invoice.lines.edges[1].node.id;
    await gql('mutation($i: updateInvoiceLineInput!) { updateInvoiceLine(input: $i) { invoiceLine { id } } }', { i: { id: lineId, description: 'A, renamed' } });
    await expectNewTag('a line updated on its own');
    await gql('mutation($i: createInvoiceLineInput!) { createInvoiceLine(input: $i) { invoiceLine { id } } }', { i: { invoice: inv['@id'], description: 'C', price: 1 } });
    await expectNewTag('a line added on its own');
    await gql('mutation($i: deleteInvoiceLineInput!) { deleteInvoiceLine(input: $i) { invoiceLine { id } } }', { i: { id: otherLineId } });
    await expectNewTag('a line deleted on its own');
    // A tax edit recomputes the draft's lines (a rule's own statements, not the invoice's write).
    const before = (await api.get(inv['@id'])).body.total;
    await api.patch(taxIri, { rate: 10 });
    expect((await api.get(inv['@id'])).body.total).not.toBe(before);
    await expectNewTag('a tax edit recomputed the lines');
    // A payment settles the invoice through a rule.
    await api.patch(inv['@id'], { status: 'pending' });
    await expectNewTag('status');
    expect((await api.post('/api/payments', { invoice: inv['@id'], amount: 1 })).status).toBe(201);
    await expectNewTag('a payment');
  });
});

describe('If-Match', () => {
  it('two PATCHes with the same tag: one 200, one 412 that changed nothing', async () => {
    const inv = (await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'A', price: 100 }] })).body;
    const etag = (await api.get(inv['@id'])).headers.get('etag')!;
    const [a, b] = await Promise.all(['first', 'second'].map((notes) => api.patch(inv['@id'], { notes }, { headers: { 'if-match': etag } })));
    const statuses = [a!.status, b!.status].sort();
    expect(statuses).toEqual([200, 412]);
    const lost = a!.status === 412 ? a! : b!;
    const won = a!.status === 200 ? a! : b!;
    expect(lost.headers.get('content-type')).toContain('application/problem+json');
    expect(lost.body).toMatchObject({ status: 412, type: '/errors/412' });
    const now = await api.get(inv['@id']);
    expect(now.body.notes).toBe(won.body.notes);
    expect(now.headers.get('etag')).toBe(won.headers.get('etag'));
    // The current tag, from any representation, or *: accepted.
    const jsonTag = (await api.get(inv['@id'], { accept: 'application/json' })).headers.get('etag')!;
    expect((await api.patch(inv['@id'], { notes: 'third' }, { headers: { 'if-match': jsonTag } })).status).toBe(200);
    expect((await api.patch(inv['@id'], { notes: 'fourth' }, { headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('PUT and DELETE: 412 when stale, nothing changed; a malformed header is a 400', async () => {
    const c = (await api.post('/api/clients', { name: 'Conditional' })).body;
    const stale = (await api.get(c['@id'])).headers.get('etag')!;
    await api.patch(c['@id'], { notes: 'moved on' });
    const put = await api.put(c['@id'], { name: 'Conditional', notes: 'overwrite' }, { headers: { 'if-match': stale } });
    expect(put.status, put.text).toBe(412);
    const del = await api.delete(c['@id'], { headers: { 'if-match': stale } });
    expect(del.status).toBe(412);
    expect((await api.get(c['@id'])).body.notes).toBe('moved on');
    for (const bad of ['abc', '"unterminated', 'W/']) {
      const res = await api.patch(c['@id'], { notes: 'x' }, { headers: { 'if-match': bad } });
      expect(res.status, bad).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await api.get(c['@id'], { headers: { 'if-none-match': 'nope' } })).status).toBe(400);
    expect((await api.get(c['@id'])).body.notes).toBe('moved on');
    const current = (await api.get(c['@id'])).headers.get('etag')!;
    expect((await api.delete(c['@id'], { headers: { 'if-match': current } })).status).toBe(204);
    expect((await api.delete(c['@id'], { headers: { 'if-match': '*' } })).status).toBe(404);
  });
});

describe('GraphQL version', () => {
  it('is readable, and update refuses a stale one with status 412', async () => {
    const gql = (query: string, variables: Record<string, unknown> = {}) => api.post('/api/graphql', { query, variables }, { contentType: 'application/json' });
    const c = (await api.post('/api/clients', { name: 'Versioned' })).body;
    const v1 = (await gql('query($id: ID!) { client(id: $id) { version } }', { id: c['@id'] })).body.data.client.version;
    expect(Number.isInteger(v1)).toBe(true);
    const ok = await gql('mutation($i: updateClientInput!) { updateClient(input: $i) { client { notes version } } }', { i: { id: c['@id'], notes: 'one', version: v1 } });
    expect(ok.body.errors, ok.text).toBeUndefined();
    expect(ok.body.data.updateClient.client.version).toBeGreaterThan(v1);
    const stale = await gql('mutation($i: updateClientInput!) { updateClient(input: $i) { client { notes } } }', { i: { id: c['@id'], notes: 'two', version: v1 } });
    expect(stale.body.data.updateClient).toBeNull();
    expect(stale.body.errors[0].extensions.status).toBe(412);
    expect((await api.get(c['@id'])).body.notes).toBe('one');
    // Through the resolvers too (GRAPHQL_COMPILE off answers the same).
    const list = await gql('{ clients(first: 5) { edges { node { name version } } } }');
    expect(list.body.data.clients.edges.every((e: { node: { version: number } }) => Number.isInteger(e.node.version))).toBe(true);
  });
});

describe('Idempotency-Key', () => {
  it('20 concurrent POSTs of one payment with one key: one payment, one balance change, the same 201 (or 409 while in flight)', async () => {
    const inv = await pendingInvoice(10_000);
    const body = { invoice: inv['@id'], amount: 2_500, method: 'card' };
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/api/payments', body, keyed('pay-1'))));
    const created = results.filter((r) => r.status === 201);
    expect(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.text)).toEqual([]);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body).toEqual(created[0]!.body);
    for (const r of results.filter((x) => x.status === 409)) expect(r.headers.get('content-type')).toContain('application/problem+json');
    // Once the first has finished, a retry gets its response again.
    const retry = await api.post('/api/payments', body, keyed('pay-1'));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(created[0]!.headers.get('location'));
    expect(retry.headers.get('etag')).toBe(created[0]!.headers.get('etag'));
    expect(retry.text).toBe(created[0]!.text);
    const payments = await api.get(`/api/payments?invoice=${encodeURIComponent(inv['@id'])}`);
    expect(payments.body.totalItems).toBe(1);
    expect((await api.get(inv['@id'])).body).toMatchObject({ amountPaid: 2_500, balance: 7_500 });
  });

  it('the same key with another request: 422; another token’s key is its own; after 24 hours the key is free', async () => {
    now = Date.now();
    const first = await api.post('/api/clients', { name: 'Keyed One' }, keyed('client-key'));
    expect(first.status).toBe(201);
    const other = await api.post('/api/clients', { name: 'Keyed Two' }, keyed('client-key'));
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect((await api.patch(first.body['@id'], { name: 'Keyed One' }, keyed('client-key'))).status, 'another method and path').toBe(422);
    // A second token of the same user has keys of its own.
    const second = client(t, await tokenFor(t, { email: 'owner@retries.test', company: 'Retries Co', name: 'second' }));
    expect((await second.post('/api/clients', { name: 'Keyed Two' }, keyed('client-key'))).status).toBe(201);
    // 24 hours later the key is free again: a new request under it runs.
    now += DAY + 1000;
    const later = await api.post('/api/clients', { name: 'Keyed Three' }, keyed('client-key'));
    expect(later.status, later.text).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.name).toBe('Keyed Three');
    // Expired keys are purged (each instance does it hourly): those of this token are all gone.
    now += DAY + 1000;
    const mine = `select count(*)::int as n from idempotency_keys where key = 'client-key'`;
    expect((await rows(mine))[0]!.n).toBe(2);
    expect(await new KeptResponses(t.db.database.db, tables.idempotency).purge(new Date(now))).toBeGreaterThanOrEqual(2);
    expect((await rows(mine))[0]!.n).toBe(0);
    now = Date.now();
  });

  it('keeps 4xx answers (not 409/429/5xx); PATCH too; malformed keys are a 400', async () => {
    const bad = await api.post('/api/clients', { name: '' }, keyed('bad-one'));
    expect(bad.status).toBe(422);
    const again = await api.post('/api/clients', { name: '' }, keyed('bad-one'));
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(bad.text);
    // A 409 is not kept: the retry runs again.
    const c = (await api.post('/api/clients', { name: 'In use' })).body;
    await api.post('/api/invoices', { client: c['@id'] });
    const patchBody = { notes: 'patched once' };
    const p1 = await api.patch(c['@id'], patchBody, keyed('patch-1'));
    expect(p1.status).toBe(200);
    await api.patch(c['@id'], { notes: 'changed by someone else' });
    const p2 = await api.patch(c['@id'], patchBody, keyed('patch-1'));
    expect(p2.status).toBe(200);
    expect(p2.headers.get('idempotent-replayed')).toBe('true');
    expect(p2.text).toBe(p1.text);
    expect((await api.get(c['@id'])).body.notes, 'the retry changed nothing').toBe('changed by someone else');
    for (const key of ['', ' ', 'é', 'a'.repeat(256), 'two words']) {
      const res = await api.post('/api/clients', { name: `Key ${key.length}` }, keyed(key));
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    // The IETF draft's quoted form names the same key.
    const quoted = await api.post('/api/clients', { name: 'Quoted' }, keyed('"q-1"'));
    expect(quoted.status).toBe(201);
    const plain = await api.post('/api/clients', { name: 'Quoted' }, keyed('q-1'));
    expect(plain.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a write under a key another request took fails as a whole (409), in one statement or in a transaction', async () => {
    const engine = createEngine(t.db.database.db, model, tables);
    const principal = (await lookupToken(t.db.database.db, api.token))!;
    const keep = { scope: principal.tokenId!, key: 'taken', fingerprint: 'f', status: 201, mediaType: null, createdAt: new Date(), expiresAt: new Date(Date.now() + DAY) };
    await engine.create(principal, model.get('Client'), { name: 'Taken 1' }, { keep });
    await expect(engine.create(principal, model.get('Client'), { name: 'Taken 2' }, { keep })).rejects.toMatchObject({ status: 409 });
    expect((await api.get('/api/clients?name=Taken 2')).body.totalItems).toBe(0);
    const inv = await pendingInvoice(3_000);
    await expect(engine.create(principal, model.get('Payment'), { invoice: inv.id, amount: 1_000 }, { keep })).rejects.toMatchObject({ status: 409 });
    expect((await api.get(`/api/payments?invoice=${encodeURIComponent(inv['@id'])}`)).body.totalItems).toBe(0);
    expect((await api.get(inv['@id'])).body.balance).toBe(3_000);
  });

  // An invoice's create: its reference read, its write, and the company's VAT registration (CONTRACT §18).
  it('adds one statement to the create, none when no key is sent', async () => {
    await api.get('/api/taxes');
    const body = (n: number) => ({ client: clientIri, lines: [{ description: `L${n}`, price: 100, tax: taxIri }] });
    const plain = await counted(() => api.post('/api/invoices', body(1)));
    expect(plain.result.status).toBe(201);
    expect(plain.n).toBe(2);
    const withKey = await counted(() => api.post('/api/invoices', body(2), keyed('count-1')));
    expect(withKey.result.status).toBe(201);
    expect(withKey.n).toBe(3);
    const replay = await counted(() => api.post('/api/invoices', body(2), keyed('count-1')));
    expect(replay.result.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.result.text).toBe(withKey.result.text);
    expect(replay.n).toBe(1);
    expect(withKey.result.body).toEqual((await api.get(withKey.result.body['@id'])).body);
  });

  it('GraphQL mutations: replayed as sent, one mutation per key, and answered from the kept result after a crash', async () => {
    const gql = (query: string, variables: Record<string, unknown>, key?: string) =>
      api.post('/api/graphql', { query, variables }, { contentType: 'application/json', ...(key ? keyed(key) : {}) });
    const inv = await pendingInvoice(5_000);
    const query = 'mutation($i: createPaymentInput!) { createPayment(input: $i) { payment { id amount invoice { balance } } } }';
    const i = { invoice: inv['@id'], amount: 1_000 };
    const first = await gql(query, { i }, 'gql-1');
    expect(first.body.errors, first.text).toBeUndefined();
    const second = await gql(query, { i }, 'gql-1');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect((await gql(query, { i: { ...i, amount: 2 } }, 'gql-1')).status).toBe(422);
    // The response lost (the process died after the commit): the result is kept, the operation
    // runs again around it, and nothing is written twice.
    await rows(`update idempotency_keys set body = null where key = 'gql-1'`);
    const third = await gql(query, { i }, 'gql-1');
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.data.createPayment.payment).toEqual(first.body.data.createPayment.payment);
    expect((await api.get(`/api/payments?invoice=${encodeURIComponent(inv['@id'])}`)).body.totalItems).toBe(1);
    const two = await gql('mutation { a: createClient(input: {name: "A1"}) { client { id } } b: createClient(input: {name: "B1"}) { client { id } } }', {}, 'gql-2');
    expect(two.body.errors[0].extensions.status).toBe(400);
    expect((await api.get('/api/clients?name=A1')).body.totalItems).toBe(0);
    // Queries ignore the key.
    const q = await gql('{ clients(first: 1) { totalCount } }', {}, 'gql-1');
    expect(q.body.errors, q.text).toBeUndefined();
  });
});

describe('the OpenAPI document', () => {
  it('names the headers of every item operation and its 304, 409, 412 and 422 answers', async () => {
    const doc = (await call(t, 'GET', '/api/docs.json')).body;
    const names = (op: { parameters?: { in: string; name: string }[] }) => (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
    for (const path of ['/api/invoices', '/api/clients', '/api/payments']) {
      const item = doc.paths[`${path}/{id}`];
      expect(names(doc.paths[path].post)).toContain('idempotency-key');
      expect(Object.keys(doc.paths[path].post.responses)).toEqual(expect.arrayContaining(['201', '409', '422']));
      expect(Object.keys(doc.paths[path].post.responses['201'].headers)).toEqual(expect.arrayContaining(['location', 'etag', 'idempotent-replayed']));
      expect(names(item.get)).toContain('if-none-match');
      expect(Object.keys(item.get.responses)).toContain('304');
      expect(item.get.responses['200'].headers.etag).toBeDefined();
      expect(names(item.patch)).toEqual(expect.arrayContaining(['if-match', 'idempotency-key']));
      expect(Object.keys(item.patch.responses)).toEqual(expect.arrayContaining(['409', '412', '422']));
      if (item.put) expect(names(item.put)).toContain('if-match');
      expect(names(item.delete)).toContain('if-match');
      expect(Object.keys(item.delete.responses)).toContain('412');
    }
  });
});

describe('a retry after the server died between the commit and the response', () => {
  const root = join(import.meta.dirname, '..');
  const PG = process.env.DATABASE_URL;
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('gets the kept response, and nothing is done twice', { timeout: 240_000 }, async () => {
    const db = PG ? await freshDatabase(PG) : undefined;
    const dir = mkdtempSync(join(tmpdir(), 'invoicing-retries-'));
    dirs.push(dir);
    const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
      const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', SCHEDULER: 'off', REDIS_URL: '', ...extra };
      if (db) e.DATABASE_URL = db.url;
      else delete e.DATABASE_URL;
      return e;
    };
    const serve = async (extra: Record<string, string>): Promise<{ child: ChildProcess; base: { url: string } }> => {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], { cwd: root, env: env({ PORT: String(port), ...extra }), stdio: 'ignore' });
      const base = { url: `http://127.0.0.1:${port}` };
      await expect.poll(async () => (await call(base, 'GET', '/readyz').catch(() => ({ status: 0 }))).status, { timeout: 90_000, interval: 200 }).toBe(200);
      return { child, base };
    };
    const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', ...args], { cwd: root, env: env({}), encoding: 'utf8', timeout: 90_000 });
    try {
      const doomed = await serve({ INVOICING_TEST_DIE_AFTER_COMMIT: '1' });
      expect(cli(['user:create', '--email', 'k@k.test', '--password', 'password123', '--company', 'K']).status).toBe(0);
      const tok = cli(['token:create', '--email', 'k@k.test', '--company', 'K', '--name', 'k']);
      expect(tok.status, tok.stderr).toBe(0);
      const token = tok.stdout.trim();
      const c = (await call(doomed.base, 'POST', '/api/clients', { token, body: { name: 'K' } })).body['@id'];
      const inv = (await call(doomed.base, 'POST', '/api/invoices', { token, body: { client: c, lines: [{ description: 'W', price: 9_000 }] } })).body;
      expect((await call(doomed.base, 'PATCH', inv['@id'], { token, body: { status: 'pending' } })).status).toBe(200);
      const exited = once(doomed.child, 'exit');
      const payment = { invoice: inv['@id'], amount: 4_000 };
      const lost = await call(doomed.base, 'POST', '/api/payments', { token, body: payment, headers: { 'idempotency-key': 'crash-1' } }).catch((e: Error) => e);
      expect(lost).toBeInstanceOf(Error);
      await exited;
      expect(doomed.child.signalCode).toBe('SIGKILL');

      const next = await serve({});
      try {
        const retry = await call(next.base, 'POST', '/api/payments', { token, body: payment, headers: { 'idempotency-key': 'crash-1' } });
        expect(retry.status, retry.text).toBe(201);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(retry.body).toMatchObject({ amount: 4_000, invoice: inv['@id'] });
        expect(retry.headers.get('location')).toBe(retry.body['@id']);
        const payments = await call(next.base, 'GET', `/api/payments?invoice=${encodeURIComponent(inv['@id'])}`, { token });
        expect(payments.body.totalItems).toBe(1);
        expect(payments.body.member[0]['@id']).toBe(retry.body['@id']);
        expect((await call(next.base, 'GET', inv['@id'], { token })).body).toMatchObject({ amountPaid: 4_000, balance: 5_000 });
      } finally {
        next.child.kill('SIGTERM');
        await once(next.child, 'exit');
      }
    } finally {
      await db?.drop();
    }
  });
});
