// CRUD of every REST resource, through HTTP, in JSON-LD and plain JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;
let taxIri: string;

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'owner@a.test', company: 'A' }));
  clientIri = (await api.post('/api/clients', { name: 'Fixture client', currency: 'EUR' })).body['@id'];
  taxIri = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
});
afterAll(() => t.close());

interface Case {
  path: string;
  type: string;
  create: () => Record<string, unknown>;
  patch: Record<string, unknown>;
  check: (body: Record<string, unknown>) => void;
}

const cases: Case[] = [
  {
    path: '/api/clients', type: 'Client',
    create: () => ({ name: 'Globex', website: 'https://globex.test', vatNumber: 'DE123' }),
    patch: { notes: 'Pays late' },
    check: (b) => expect(b).toMatchObject({ name: 'Globex', currency: 'USD', status: 'active', notes: 'Pays late' }),
  },
  {
    path: '/api/contacts', type: 'Contact',
    create: () => ({ client: clientIri, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@globex.test' }),
    patch: { phone: '+44 1' },
    check: (b) => expect(b).toMatchObject({ client: clientIri, firstName: 'Ada', phone: '+44 1' }),
  },
  {
    path: '/api/addresses', type: 'Address',
    create: () => ({ client: clientIri, street1: '1 Main St', city: 'Berlin', country: 'DE' }),
    patch: { zip: '10115' },
    check: (b) => expect(b).toMatchObject({ country: 'DE', countryName: 'Germany', zip: '10115' }),
  },
  {
    path: '/api/taxes', type: 'Tax',
    create: () => ({ name: 'Reduced', rate: 7.5, type: 'inclusive' }),
    patch: { rate: 5.25 },
    check: (b) => expect(b).toMatchObject({ name: 'Reduced', rate: 5.25, type: 'inclusive' }),
  },
  {
    path: '/api/invoices', type: 'Invoice',
    create: () => ({ client: clientIri, dueDate: '2099-01-31', lines: [{ description: 'Work', qty: 2, price: 1500, tax: taxIri }] }),
    patch: { notes: 'Thanks' },
    check: (b) => {
      expect(b).toMatchObject({ client: clientIri, status: 'draft', currency: 'EUR', notes: 'Thanks' });
      expect(b.number).toMatch(/^INV-\d{6}$/);
      const lines = b.lines as Record<string, unknown>[];
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ '@type': 'InvoiceLine', description: 'Work', qty: 2, price: 1500, tax: taxIri });
      expect(String(lines[0]!['@id'])).toMatch(/^\/api\/invoice-lines\//);
    },
  },
  {
    path: '/api/quotes', type: 'Quote',
    create: () => ({ client: clientIri, lines: [{ description: 'Offer', qty: 1.5, price: 999 }] }),
    patch: { terms: '30 days' },
    check: (b) => {
      expect(b).toMatchObject({ client: clientIri, status: 'draft', terms: '30 days' });
      expect(b.number).toMatch(/^QUO-\d{6}$/);
      expect((b.lines as unknown[]).length).toBe(1);
    },
  },
  {
    path: '/api/recurring-invoices', type: 'RecurringInvoice',
    create: () => ({ client: clientIri, frequency: 'monthly', startDate: '2026-01-31', lines: [{ description: 'Hosting', price: 2000, tax: taxIri }] }),
    patch: { interval: 2 },
    check: (b) => {
      expect(b).toMatchObject({ frequency: 'monthly', interval: 2, dueInDays: 14, status: 'draft' });
      expect(b.lines).toEqual([{ description: 'Hosting', qty: 1, price: 2000, tax: taxIri }]);
    },
  },
];

describe.each(cases)('$type', (c) => {
  it('creates, reads, lists, updates, replaces and deletes', async () => {
    const created = await api.post(c.path, c.create());
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    const iri = created.body['@id'] as string;
    expect(iri).toBe(`${c.path}/${created.body.id}`);
    expect(created.headers.get('location')).toBe(iri);
    expect(created.body['@type']).toBe(c.type);
    expect(created.body['@context']).toBe(`/api/contexts/${c.type}`);
    expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(Date.parse(created.body.createdAt)).not.toBeNaN();

    const read = await api.get(iri);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const listed = await api.get(c.path);
    expect(listed.status).toBe(200);
    expect(listed.body['@type']).toBe('Collection');
    expect(listed.body.member.map((m: { '@id': string }) => m['@id'])).toContain(iri);

    const patched = await api.patch(iri, c.patch);
    expect(patched.status, patched.text).toBe(200);
    c.check(patched.body);

    const asJson = await api.get(iri, { accept: 'application/json' });
    expect(asJson.headers.get('content-type')).toMatch(/^application\/json/);
    expect(asJson.body['@id']).toBeUndefined();
    expect(asJson.body.id).toBe(created.body.id);

    const replaced = await api.put(iri, c.create());
    expect(replaced.status, replaced.text).toBe(200);
    for (const k of Object.keys(c.patch)) if (!(k in c.create())) expect(replaced.body[k], `PUT resets ${k}`).not.toEqual(c.patch[k]);

    const deleted = await api.delete(iri);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.get(iri)).status).toBe(404);
  });
});

describe('Payment', () => {
  it('is created against a pending invoice, read, listed, updated on its notes, and voided by delete', async () => {
    const inv = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'Job', price: 10000 }] });
    expect(inv.status, inv.text).toBe(201);
    expect((await api.patch(inv.body['@id'], { status: 'pending' })).status).toBe(200);
    const pay = await api.post('/api/payments', { invoice: inv.body['@id'], amount: 4000, method: 'card' });
    expect(pay.status, pay.text).toBe(201);
    expect(pay.body).toMatchObject({ invoice: inv.body['@id'], client: clientIri, currency: 'EUR', amount: 4000, method: 'card' });
    expect((await api.get(pay.body['@id'])).body.amount).toBe(4000);
    expect((await api.get(`/api/payments?invoice=${encodeURIComponent(inv.body['@id'])}`)).body.totalItems).toBe(1);
    const upd = await api.patch(pay.body['@id'], { reference: 'R-1' });
    expect(upd.body.reference).toBe('R-1');
    const refused = await api.patch(pay.body['@id'], { amount: 1 });
    expect(refused.status).toBe(422);
    expect(refused.body.violations[0].propertyPath).toBe('amount');
    expect((await api.put(pay.body['@id'], { invoice: inv.body['@id'], amount: 4000 })).status).toBe(405);
    expect((await api.delete(pay.body['@id'])).status).toBe(204);
    expect((await api.get(pay.body['@id'])).status).toBe(404);
  });
});

describe('the API root', () => {
  it('serves the entrypoint and a @context for every type', async () => {
    const root = await api.get('/api');
    expect(root.body).toMatchObject({ '@id': '/api', '@type': 'Entrypoint', client: '/api/clients', invoice: '/api/invoices', recurringInvoice: '/api/recurring-invoices' });
    expect(root.body.invoiceLine).toBeUndefined();
    for (const type of ['Client', 'Invoice', 'Payment', 'Entrypoint']) {
      const ctx = await api.get(`/api/contexts/${type}`);
      expect(ctx.status).toBe(200);
      // The entrypoint names the members' collection (the Member resource) by its own term: it has no hydra:member.
      if (type === 'Entrypoint') expect(ctx.body['@context'].member).toEqual({ '@id': 'Entrypoint/member', '@type': '@id' });
      else expect(ctx.body['@context'].member).toBe('hydra:member');
    }
    expect((await api.get('/api/contexts/Nope')).status).toBe(404);
  });

  it('has no REST root for lines', async () => {
    expect((await api.get('/api/invoice-lines')).status).toBe(404);
  });
});
