// Authentication, roles and tenancy: company B never reads, counts or changes company A's data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let a: Client;
let b: Client;
let viewer: Client;
const aRecords: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  a = client(t, await tokenFor(t, { email: 'alice@a.test', company: 'Company A' }));
  b = client(t, await tokenFor(t, { email: 'bob@b.test', company: 'Company B' }));
  viewer = client(t, await tokenFor(t, { email: 'vera@a.test', company: 'Company A', role: 'viewer' }));
  aRecords.client = (await a.post('/api/clients', { name: 'A client' })).body['@id'];
  aRecords.contact = (await a.post('/api/contacts', { client: aRecords.client, firstName: 'C', email: 'c@a.test' })).body['@id'];
  aRecords.address = (await a.post('/api/addresses', { client: aRecords.client, country: 'FR' })).body['@id'];
  aRecords.tax = (await a.post('/api/taxes', { name: 'A tax', rate: 10 })).body['@id'];
  aRecords.invoice = (await a.post('/api/invoices', { client: aRecords.client, lines: [{ description: 'x', price: 100, tax: aRecords.tax }] })).body['@id'];
  aRecords.quote = (await a.post('/api/quotes', { client: aRecords.client })).body['@id'];
  aRecords.recurring = (await a.post('/api/recurring-invoices', { client: aRecords.client, frequency: 'weekly', startDate: '2026-01-01' })).body['@id'];
  for (const [k, v] of Object.entries(aRecords)) expect(v, k).toMatch(/^\/api\//);
});
afterAll(() => t.close());

describe('authentication', () => {
  it('401s without a token, with the contract message', async () => {
    const res = await call(t, 'GET', '/api/clients');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, message: 'No API token provided', detail: 'No API token provided' });
  });

  it('401s a wrong token', async () => {
    for (const token of ['inv_wrong', 'nonsense', `inv_${'a'.repeat(43)}`]) {
      const res = await call(t, 'GET', '/api/clients', { token });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Invalid API token');
    }
  });

  it('accepts only X-API-TOKEN: Authorization alone counts as no token', async () => {
    for (const authorization of [`Bearer ${a.token}`, a.token]) {
      const res = await call(t, 'GET', '/api/clients', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('No API token provided');
    }
  });

  it('401s every verb on every resource without a token and changes nothing', async () => {
    for (const path of ['/api/clients', '/api/invoices', '/api/payments', '/api/taxes']) {
      expect((await call(t, 'POST', path, { body: { name: 'x' } })).status).toBe(401);
    }
    expect((await call(t, 'DELETE', aRecords.client!)).status).toBe(401);
    expect((await a.get(aRecords.client!)).status).toBe(200);
  });
});

describe('roles', () => {
  it('lets a viewer read', async () => {
    expect((await viewer.get('/api/clients')).body.totalItems).toBe(1);
    expect((await viewer.get(aRecords.invoice!)).status).toBe(200);
  });

  it('refuses every write of a viewer with 403 and changes nothing', async () => {
    const post = await viewer.post('/api/clients', { name: 'By viewer' });
    expect(post.status).toBe(403);
    expect(post.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await viewer.patch(aRecords.client!, { notes: 'v' })).status).toBe(403);
    expect((await viewer.put(aRecords.tax!, { name: 'T', rate: 1 })).status).toBe(403);
    expect((await viewer.delete(aRecords.contact!)).status).toBe(403);
    expect((await a.get('/api/clients')).body.totalItems).toBe(1);
    expect((await a.get(aRecords.client!)).body.notes).toBeNull();
    expect((await a.get(aRecords.contact!)).status).toBe(200);
  });
});

describe('tenancy', () => {
  it("never lists or counts another company's records", async () => {
    for (const path of ['/api/clients', '/api/contacts', '/api/addresses', '/api/taxes', '/api/invoices', '/api/quotes', '/api/recurring-invoices', '/api/payments']) {
      const res = await b.get(path);
      expect(res.status, path).toBe(200);
      expect(res.body.totalItems, path).toBe(0);
      expect(res.body.member, path).toEqual([]);
    }
  });

  it("answers 403 to reading, changing or deleting another company's record, and changes nothing", async () => {
    for (const [kind, iri] of Object.entries(aRecords)) {
      expect((await b.get(iri)).status, `GET ${kind}`).toBe(403);
      expect((await b.patch(iri, { notes: 'hijack' })).status, `PATCH ${kind}`).toBe(403);
      expect((await b.delete(iri)).status, `DELETE ${kind}`).toBe(403);
      expect((await a.get(iri)).status, `still there: ${kind}`).toBe(200);
    }
  });

  it("treats another company's IRI in a write body as a record that does not exist", async () => {
    const res = await b.post('/api/contacts', { client: aRecords.client, firstName: 'X', email: 'x@b.test' });
    expect(res.status).toBe(422);
    expect(res.body.violations[0]).toMatchObject({ propertyPath: 'client', message: `Item not found for "${aRecords.client}".` });
    const own = (await b.post('/api/clients', { name: 'B client' })).body['@id'];
    const inv = await b.post('/api/invoices', { client: own, lines: [{ description: 'x', price: 1, tax: aRecords.tax }] });
    expect(inv.status).toBe(422);
    expect(inv.body.violations[0].propertyPath).toBe('lines[0].tax');
  });

  it("does not see another company's records through filters", async () => {
    const res = await b.get(`/api/invoices?client=${encodeURIComponent(aRecords.client!)}`);
    expect(res.body.totalItems).toBe(0);
  });

  it('lets two companies use the same client name and invoice numbers', async () => {
    const c = await b.post('/api/clients', { name: 'A client' });
    expect(c.status).toBe(201);
    const [ia, ib] = [(await a.get(aRecords.invoice!)).body.number, (await b.post('/api/invoices', { client: c.body['@id'] })).body.number];
    expect(ib).toBe(ia);
  });
});
