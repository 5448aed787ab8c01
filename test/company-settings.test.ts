// The company profile's settings (CONTRACT §20): a new document's defaults (due days, terms,
// tax), the documents' language and the numbering (prefixes and next numbers, which the
// documents' sequences then use), over REST and GraphQL, validated, admins only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let other: Client;
let clientIri: string;

const J = { accept: 'application/json' };

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'admin@settings.test', company: 'Settings', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@settings.test', company: 'Settings', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'o@other-settings.test', company: 'Other Settings' }));
  clientIri = (await admin.post('/api/clients', { name: 'Buyer' })).body['@id'];
});
afterAll(() => t.close());

const gql = async (c: Client, query: string) => (await call(t, 'POST', '/api/graphql', { token: c.token, body: { query }, contentType: 'application/json' })).body;

const invoice = async (c: Client = admin, extra: Record<string, unknown> = {}) => {
  const r = await c.post('/api/invoices', { client: c === admin ? clientIri : (await c.post('/api/clients', { name: 'X' })).body['@id'], lines: [{ description: 'x', price: 100 }], ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body;
};

describe('defaults and language', () => {
  it('start as the contract says', async () => {
    const r = await viewer.get('/api/company', J);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      defaultDueDays: 14,
      defaultTerms: null,
      defaultTax: null,
      locale: 'en',
      invoiceNumberPrefix: 'INV-',
      quoteNumberPrefix: 'QUO-',
      creditNoteNumberPrefix: 'CN-',
      nextInvoiceNumber: 1,
      nextQuoteNumber: 1,
      nextCreditNoteNumber: 1,
    });
  });

  it('admins set them; the default tax is an IRI of the company, else 422 as for one that does not exist', async () => {
    const tax = (await admin.post('/api/taxes', { name: 'VAT 19', rate: 19 })).body['@id'];
    const r = await admin.patch('/api/company', { defaultDueDays: 30, defaultTerms: 'Net 30.', defaultTax: tax, locale: 'de' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ defaultDueDays: 30, defaultTerms: 'Net 30.', defaultTax: tax, locale: 'de' });
    expect((await viewer.get('/api/company', J)).body).toMatchObject({ defaultDueDays: 30, defaultTax: tax, locale: 'de' });

    const foreign = (await other.post('/api/taxes', { name: 'Theirs', rate: 7 })).body['@id'];
    for (const [body, path] of [
      [{ defaultTax: foreign }, 'defaultTax'],
      [{ defaultTax: '/api/taxes/0190f000-0000-7000-8000-000000000000' }, 'defaultTax'],
      [{ defaultTax: 'nonsense' }, 'defaultTax'],
      [{ defaultDueDays: 366 }, 'defaultDueDays'],
      [{ defaultDueDays: -1 }, 'defaultDueDays'],
      [{ defaultDueDays: 1.5 }, 'defaultDueDays'],
      [{ locale: 'es' }, 'locale'],
      [{ invoiceNumberPrefix: 'IN V' }, 'invoiceNumberPrefix'],
      [{ invoiceNumberPrefix: 'X'.repeat(21) }, 'invoiceNumberPrefix'],
      [{ nextInvoiceNumber: 0 }, 'nextInvoiceNumber'],
      [{ nextInvoiceNumber: null }, 'nextInvoiceNumber'],
    ] as const) {
      const bad = await admin.patch('/api/company', body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(bad.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual([path]);
    }
    expect((await admin.get('/api/company', J)).body).toMatchObject({ defaultDueDays: 30, defaultTax: tax, locale: 'de', invoiceNumberPrefix: 'INV-', nextInvoiceNumber: 1 });
    expect((await viewer.patch('/api/company', { locale: 'fr' })).status).toBe(403);

    // A deleted tax is no default any more; null clears it; null locale is the default.
    const gone = (await admin.post('/api/taxes', { name: 'Gone', rate: 5 })).body;
    expect((await admin.patch('/api/company', { defaultTax: gone['@id'] })).status).toBe(200);
    expect((await admin.delete(`/api/taxes/${gone.id}`)).status).toBe(204);
    expect((await admin.get('/api/company', J)).body.defaultTax).toBeNull();
    expect((await admin.patch('/api/company', { defaultTax: null, locale: null })).body).toMatchObject({ defaultTax: null, locale: 'en' });
  });

  it('are in GraphQL, read and written', async () => {
    const r = await gql(admin, 'mutation { updateCompany(input: { defaultDueDays: 21, locale: "fr", quoteNumberPrefix: "Q-" }) { company { defaultDueDays locale quoteNumberPrefix nextQuoteNumber defaultTax } } }');
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.data.updateCompany.company).toEqual({ defaultDueDays: 21, locale: 'fr', quoteNumberPrefix: 'Q-', nextQuoteNumber: 1, defaultTax: null });
    const bad = await gql(admin, 'mutation { updateCompany(input: { nextQuoteNumber: 0 }) { company { nextQuoteNumber } } }');
    expect(bad.errors?.[0]?.extensions?.violations?.[0]?.propertyPath ?? JSON.stringify(bad.errors)).toMatch(/nextQuoteNumber/);
    expect((await admin.patch('/api/company', { quoteNumberPrefix: 'QUO-', locale: 'en' })).status).toBe(200);
  });

  it('are described in the OpenAPI document', async () => {
    const doc = (await admin.get('/api/docs.json', J)).body;
    const schemas = JSON.stringify(doc.components.schemas);
    for (const f of ['defaultDueDays', 'defaultTerms', 'defaultTax', 'locale', 'invoiceNumberPrefix', 'nextCreditNoteNumber']) expect(schemas).toContain(`"${f}"`);
  });
});

describe('numbering', () => {
  it('the next invoice takes the prefix and next number set; a number already given cannot be next again', async () => {
    const first = await invoice();
    expect(first.number).toBe('INV-000001');
    expect((await admin.get('/api/company', J)).body.nextInvoiceNumber).toBe(2);

    const r = await admin.patch('/api/company', { invoiceNumberPrefix: '2026-', nextInvoiceNumber: 500 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ invoiceNumberPrefix: '2026-', nextInvoiceNumber: 500 });
    expect((await invoice()).number).toBe('2026-000500');
    expect((await invoice()).number).toBe('2026-000501');
    expect((await admin.get('/api/company', J)).body.nextInvoiceNumber).toBe(502);

    // Below (or at) a number given with that prefix: 422, nothing changed.
    const before = (await admin.get('/api/company', J)).body;
    for (const next of [1, 501]) {
      const bad = await admin.patch('/api/company', { nextInvoiceNumber: next, defaultDueDays: 3 });
      expect(bad.status).toBe(422);
      expect(bad.body.violations[0]).toMatchObject({ propertyPath: 'nextInvoiceNumber' });
      expect(bad.body.violations[0].message).toContain('2026-000501');
    }
    expect((await admin.get('/api/company', J)).body).toEqual(before);
    // Back to the old prefix: the numbers given with it are not given again.
    const back = await admin.patch('/api/company', { invoiceNumberPrefix: 'INV-' });
    expect(back.body).toMatchObject({ invoiceNumberPrefix: 'INV-', nextInvoiceNumber: 502 });
    const bad = await admin.patch('/api/company', { nextInvoiceNumber: 1 });
    expect(bad.status).toBe(422);
    expect((await admin.patch('/api/company', { nextInvoiceNumber: 2 })).body.nextInvoiceNumber).toBe(2);
    expect((await invoice()).number).toBe('INV-000002');
    // A number a person chose is skipped by the sequence.
    await invoice(admin, { number: 'INV-000003' });
    expect((await admin.get('/api/company', J)).body.nextInvoiceNumber).toBe(4);
    expect((await invoice()).number).toBe('INV-000004');
  });

  it('quotes and credit notes follow their own settings; other companies are untouched', async () => {
    expect((await admin.patch('/api/company', { quoteNumberPrefix: 'ANG-', nextQuoteNumber: 42, creditNoteNumberPrefix: 'GS-', nextCreditNoteNumber: 7 })).status).toBe(200);
    const q = await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'x', price: 100 }] });
    expect(q.status, q.text).toBe(201);
    expect(q.body.number).toBe('ANG-000042');
    const inv = await invoice();
    expect((await admin.patch(`/api/invoices/${inv.id}`, { status: 'pending' })).status).toBe(200);
    const cn = await admin.post('/api/credit-notes', { client: clientIri, invoice: inv['@id'], lines: [{ description: 'x', price: 50 }] });
    expect(cn.status, cn.text).toBe(201);
    const issued = await admin.patch(`/api/credit-notes/${cn.body.id}`, { status: 'issued' });
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body.number).toBe('GS-000007');
    expect((await other.get('/api/company', J)).body).toMatchObject({ invoiceNumberPrefix: 'INV-', nextInvoiceNumber: 1, quoteNumberPrefix: 'QUO-' });
    expect((await invoice(other)).number).toBe('INV-000001');
  });
});
