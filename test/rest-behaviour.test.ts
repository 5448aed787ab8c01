// Validation, pagination, filters, order and HTTP semantics of the REST API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'owner@a.test', company: 'A', currency: 'GBP' }));
});
afterAll(() => t.close());

describe('validation', () => {
  it('refuses a blank name with a 422 naming the field, and writes nothing', async () => {
    const before = (await api.get('/api/clients')).body.totalItems;
    const res = await api.post('/api/clients', { name: '   ' });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 422, title: 'An error occurred', detail: 'name: This value should not be blank.' });
    expect(res.body.type).toMatch(/^\/validation_errors\//);
    expect(res.body.violations).toEqual([{ propertyPath: 'name', message: 'This value should not be blank.', code: expect.any(String) }]);
    expect((await api.get('/api/clients')).body.totalItems).toBe(before);
  });

  it('collects several violations at once', async () => {
    const res = await api.post('/api/clients', { website: 'ftp://nope', currency: 'XXQ', status: 'gone' });
    expect(res.status).toBe(422);
    expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort()).toEqual(['currency', 'name', 'status', 'website']);
    expect(res.body.detail.split('\n')).toHaveLength(4);
  });

  it('checks types, lengths, formats and ranges', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/clients', { name: 42 }, 'name'],
      ['/api/clients', { name: 'x'.repeat(126) }, 'name'],
      ['/api/taxes', { name: 'T', rate: 100.5 }, 'rate'],
      ['/api/taxes', { name: 'T', rate: 1.23456 }, 'rate'],
      ['/api/taxes', { name: 'T', rate: '5' }, 'rate'],
      ['/api/contacts', { client: '/api/clients/0190c3a5-0000-7000-8000-000000000000', firstName: 'A', email: 'not-an-email' }, 'email'],
    ];
    for (const [path, body, field] of cases) {
      const res = await api.post(path, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath), JSON.stringify(body)).toContain(field);
    }
  });

  it('refuses unknown fields with a 400 naming them, and ignores read-only ones', async () => {
    const res = await api.post('/api/clients', { name: 'Ok', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('"colour"');
    const ok = await api.post('/api/clients', { name: 'Ro', '@id': '/api/clients/x', '@type': 'Client', createdAt: '2000-01-01T00:00:00Z' });
    expect(ok.status).toBe(201);
    expect(ok.body.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('answers bad JSON with 400, a non-object with 400, an unsupported content type with 415', async () => {
    expect((await call(t, 'POST', '/api/clients', { token: api.token, rawBody: '{"name":', contentType: 'application/json' })).status).toBe(400);
    expect((await call(t, 'POST', '/api/clients', { token: api.token, rawBody: '', contentType: 'application/json' })).status).toBe(400);
    expect((await call(t, 'POST', '/api/clients', { token: api.token, rawBody: '[1]', contentType: 'application/json' })).status).toBe(400);
    const r415 = await call(t, 'POST', '/api/clients', { token: api.token, rawBody: 'name=x', contentType: 'text/plain' });
    expect(r415.status).toBe(415);
    expect(r415.headers.get('content-type')).toMatch(/problem\+json/);
    // PATCH takes merge-patch+json or json, not ld+json.
    const c = await api.post('/api/clients', { name: 'Patchy' });
    expect((await api.patch(c.body['@id'], { notes: 'x' }, { contentType: 'application/ld+json' })).status).toBe(415);
    expect((await api.patch(c.body['@id'], { notes: 'x' }, { contentType: 'application/json' })).status).toBe(200);
  });

  it('keeps names unique per company ignoring case', async () => {
    expect((await api.post('/api/clients', { name: 'Unique Ltd' })).status).toBe(201);
    const dup = await api.post('/api/clients', { name: 'unique ltd' });
    expect(dup.status).toBe(422);
    expect(dup.body.violations[0].propertyPath).toBe('name');
  });

  it('refuses a relation to a record that does not exist', async () => {
    const res = await api.post('/api/contacts', { client: '/api/clients/0190c3a5-0000-7000-8000-000000000000', firstName: 'A', email: 'a@b.co' });
    expect(res.status).toBe(422);
    expect(res.body.violations[0]).toMatchObject({ propertyPath: 'client', message: 'Item not found for "/api/clients/0190c3a5-0000-7000-8000-000000000000".' });
    const bare = await api.post('/api/contacts', { client: 'not-an-iri', firstName: 'A', email: 'a@b.co' });
    expect(bare.status).toBe(422);
  });

  it('accepts a bare id for a relation', async () => {
    const c = await api.post('/api/clients', { name: 'Bare' });
    const res = await api.post('/api/contacts', { client: c.body.id, firstName: 'B', email: 'b@b.co' });
    expect(res.status).toBe(201);
    expect(res.body.client).toBe(c.body['@id']);
  });

  it('clears a field with null in a merge patch and keeps the others', async () => {
    const c = await api.post('/api/clients', { name: 'Nully', notes: 'n', vatNumber: 'V' });
    const res = await api.patch(c.body['@id'], { notes: null });
    expect(res.body).toMatchObject({ notes: null, vatNumber: 'V', name: 'Nully' });
  });

  it('rejects a due date before the invoice date', async () => {
    const c = await api.post('/api/clients', { name: 'Dates' });
    const res = await api.post('/api/invoices', { client: c.body['@id'], invoiceDate: '2026-03-10', dueDate: '2026-03-01' });
    expect(res.status).toBe(422);
    expect(res.body.violations[0].propertyPath).toBe('dueDate');
    expect((await api.post('/api/invoices', { client: c.body['@id'], invoiceDate: '2026-02-30' })).status).toBe(422);
  });

  it('names the path of an invalid embedded line', async () => {
    const c = await api.post('/api/clients', { name: 'Lines' });
    const res = await api.post('/api/invoices', { client: c.body['@id'], lines: [{ description: 'ok', price: 1 }, { description: '', price: 1.5 }] });
    expect(res.status).toBe(422);
    expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort()).toEqual(['lines[1].description', 'lines[1].price']);
  });
});

describe('pagination', () => {
  let p: Client;
  beforeAll(async () => {
    p = client(t, await tokenFor(t, { email: 'pager@p.test', company: 'Pager' }));
    for (let i = 1; i <= 7; i++) expect((await p.post('/api/clients', { name: `Client ${String(i).padStart(2, '0')}` })).status).toBe(201);
  });

  it('pages with itemsPerPage and describes the view', async () => {
    const res = await p.get('/api/clients?itemsPerPage=3&page=2&order[name]=asc');
    expect(res.body.totalItems).toBe(7);
    expect(res.body.member.map((m: { name: string }) => m.name)).toEqual(['Client 04', 'Client 05', 'Client 06']);
    expect(res.body.view).toEqual({
      '@id': '/api/clients?itemsPerPage=3&order[name]=asc&page=2',
      '@type': 'PartialCollectionView',
      first: '/api/clients?itemsPerPage=3&order[name]=asc&page=1',
      last: '/api/clients?itemsPerPage=3&order[name]=asc&page=3',
      previous: '/api/clients?itemsPerPage=3&order[name]=asc&page=1',
      next: '/api/clients?itemsPerPage=3&order[name]=asc&page=3',
    });
    const last = await p.get('/api/clients?itemsPerPage=3&page=3');
    expect(last.body.member).toHaveLength(1);
    expect(last.body.view.next).toBeUndefined();
  });

  it('omits the view on a single unfiltered page', async () => {
    expect((await p.get('/api/clients')).body.view).toBeUndefined();
  });

  it('defaults to 30 per page and caps itemsPerPage at 100', async () => {
    const res = await p.get('/api/clients?itemsPerPage=1000');
    expect(res.status).toBe(200);
    expect(res.body.member).toHaveLength(7);
  });

  it('refuses a bad page or itemsPerPage with 400', async () => {
    for (const q of ['page=0', 'page=-1', 'page=abc', 'itemsPerPage=0', 'itemsPerPage=2.5', 'page=1e3']) {
      const res = await p.get(`/api/clients?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
  });

  it('returns an empty page past the end, with the total', async () => {
    const res = await p.get('/api/clients?page=9');
    expect(res.body.member).toEqual([]);
    expect(res.body.totalItems).toBe(7);
  });

  it('puts pagination in Link and X-Total-Count for plain JSON', async () => {
    const res = await p.get('/api/clients?itemsPerPage=2&page=2', { accept: 'application/json' });
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(2);
    expect(res.headers.get('x-total-count')).toBe('7');
    const link = res.headers.get('link')!;
    expect(link).toContain('</api/clients?itemsPerPage=2&page=1>; rel="first"');
    expect(link).toContain('</api/clients?itemsPerPage=2&page=1>; rel="prev"');
    expect(link).toContain('</api/clients?itemsPerPage=2&page=3>; rel="next"');
    expect(link).toContain('</api/clients?itemsPerPage=2&page=4>; rel="last"');
  });
});

describe('filters and order', () => {
  let f: Client;
  let acme: string;
  let bolt: string;
  beforeAll(async () => {
    f = client(t, await tokenFor(t, { email: 'filter@f.test', company: 'Filter' }));
    acme = (await f.post('/api/clients', { name: 'Acme Corp', currency: 'EUR' })).body['@id'];
    bolt = (await f.post('/api/clients', { name: 'Bolt 100%_off', currency: 'USD', status: 'archived' })).body['@id'];
    await f.post('/api/invoices', { client: acme, number: 'A-1', invoiceDate: '2026-01-10', dueDate: '2026-02-10' });
    await f.post('/api/invoices', { client: acme, number: 'A-2', invoiceDate: '2026-02-10', dueDate: '2026-03-10' });
    await f.post('/api/invoices', { client: bolt, number: 'B-1', invoiceDate: '2026-03-10', dueDate: '2026-04-10' });
  });
  const names = (res: { body: { member: { name?: string; number?: string }[] } }) => res.body.member.map((m) => m.name ?? m.number);

  it('matches text case-insensitively on a part, with LIKE metacharacters taken literally', async () => {
    expect(names(await f.get('/api/clients?name=acme'))).toEqual(['Acme Corp']);
    expect(names(await f.get('/api/clients?name=CORP'))).toEqual(['Acme Corp']);
    expect(names(await f.get(`/api/clients?name=${encodeURIComponent('100%_')}`))).toEqual(['Bolt 100%_off']);
    expect(names(await f.get('/api/clients?name=%25'))).toEqual(['Bolt 100%_off']);
    expect(names(await f.get("/api/clients?name=' or 1=1 --"))).toEqual([]);
  });

  it('filters on exact values and on several values', async () => {
    expect(names(await f.get('/api/clients?status=archived'))).toEqual(['Bolt 100%_off']);
    expect(names(await f.get('/api/clients?currency=eur'))).toEqual(['Acme Corp']);
    expect(names(await f.get('/api/clients?status[]=archived&status[]=active&order[name]=asc'))).toEqual(['Acme Corp', 'Bolt 100%_off']);
    expect(names(await f.get('/api/clients?status=nope'))).toEqual([]);
  });

  it('filters on a relation by IRI or id', async () => {
    expect(names(await f.get(`/api/invoices?client=${encodeURIComponent(acme)}&order[number]=asc`))).toEqual(['A-1', 'A-2']);
    expect(names(await f.get(`/api/invoices?client=${bolt.split('/').pop()}`))).toEqual(['B-1']);
    expect(names(await f.get('/api/invoices?client=garbage'))).toEqual([]);
  });

  it('filters dates with after, before and strictly_*', async () => {
    expect(names(await f.get('/api/invoices?invoiceDate[after]=2026-02-10&order[number]=asc'))).toEqual(['A-2', 'B-1']);
    expect(names(await f.get('/api/invoices?invoiceDate[strictly_after]=2026-02-10'))).toEqual(['B-1']);
    expect(names(await f.get('/api/invoices?invoiceDate[before]=2026-02-10&order[number]=asc'))).toEqual(['A-1', 'A-2']);
    expect(names(await f.get('/api/invoices?invoiceDate[strictly_before]=2026-02-10'))).toEqual(['A-1']);
    expect(names(await f.get('/api/invoices?invoiceDate[after]=2026-01-01&dueDate[before]=2026-03-10&order[number]=asc'))).toEqual(['A-1', 'A-2']);
    expect((await f.get('/api/invoices?invoiceDate[after]=yesterday')).status).toBe(400);
  });

  it('orders by the declared fields, ignores undeclared ones, refuses a bad direction', async () => {
    expect(names(await f.get('/api/invoices?order[invoiceDate]=desc'))).toEqual(['B-1', 'A-2', 'A-1']);
    expect(names(await f.get('/api/invoices?order[dueDate]=asc'))).toEqual(['A-1', 'A-2', 'B-1']);
    expect((await f.get('/api/invoices?order[notes]=asc')).status).toBe(200);
    expect((await f.get('/api/invoices?order[number]=sideways')).status).toBe(400);
  });

  it('advertises its filters in the Hydra search template', async () => {
    const res = await f.get('/api/invoices');
    expect(res.body.search.template).toContain('invoiceDate[after]');
    expect(res.body.search.template).toContain('order[total]');
  });
});

describe('HTTP semantics', () => {
  it('answers an unknown id with 404 and a malformed one with 404', async () => {
    expect((await api.get('/api/clients/0190c3a5-0000-7000-8000-000000000000')).status).toBe(404);
    const bad = await api.get('/api/clients/not-a-uuid');
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ type: '/errors/404', title: 'An error occurred', status: 404 });
  });

  it('answers a method that is not allowed with 405 and Allow', async () => {
    const res = await api.put('/api/clients', { name: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('answers an unacceptable Accept with 406 and honours q-values', async () => {
    const r406 = await api.get('/api/clients', { accept: 'text/plain' }); // text/csv is offered (CONTRACT §21)
    expect(r406.status).toBe(406);
    expect(r406.headers.get('content-type')).toMatch(/problem\+json/);
    const q = await api.get('/api/clients', { accept: 'application/ld+json;q=0.5, application/json' });
    expect(q.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await api.get('/api/clients', { accept: '*/*' })).headers.get('content-type')).toMatch(/^application\/ld\+json/);
  });

  it('answers a body over 1 MiB with 413', async () => {
    const res = await api.post('/api/clients', { name: 'big', notes: 'x'.repeat(1100 * 1024) });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('serves health and readiness without a token', async () => {
    expect((await call(t, 'GET', '/healthz')).status).toBe(200);
    expect((await call(t, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
  });
});

