// The database builds JSON-LD and JSON records itself (engine/projection.ts) for item and
// collection reads. This holds that text to what formats/present.ts makes of the same records:
// for every resource, every record, both formats, the same members with the same values in the
// same order. Records are seeded from the descriptors (test/support/samples.ts) plus variants
// with empty optional fields, fractional decimals, text that needs escaping and many children.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../engine/types.ts';
import { ApiError } from '../engine/errors.ts';
import { createEngine, type Engine } from '../engine/operations.ts';
import { json } from '../formats/json.ts';
import { jsonld } from '../formats/jsonld.ts';
import type { Format } from '../formats/types.ts';
import { model, tables } from '../server/model.ts';
import { lookupToken } from '../server/access/tokens.ts';
import { call, client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { Seeder } from './support/samples.ts';

let t: TestServer;
let engine: Engine;
let principal: Principal;
let other: Principal;

// (Resources the server stores itself have no SQL projection: http/rest.ts presents them in JS.)
const readable = model.resources.filter((r) => (r.rest.has('read') || r.rest.has('list')) && !r.provider);
const formats: Format[] = [jsonld, json];
/** The same JSON text whatever the whitespace: member order is kept by JSON.parse. */
const canonical = (text: string) => JSON.stringify(JSON.parse(text));

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  const token = await tokenFor(t, { email: 'p@proj.test', company: 'Projection Co', currency: 'EUR' });
  principal = (await lookupToken(t.db.database.db, token))!;
  other = (await lookupToken(t.db.database.db, await tokenFor(t, { email: 'o@proj.test', company: 'Other Co' })))!;
  engine = createEngine(t.db.database.db, model, tables, { raw: t.db.database.raw });
  const seeder = new Seeder(t, token);
  await seeder.seedAll();
  await seeder.seedAll();
  // Variants the samples do not cover: empty optional fields, escapes, fractions, many children.
  const api = client(t, token);
  const clientIri = (await api.post('/api/clients', { name: 'Quote "Ünïcode" \\ \n\t\u0001 ✓', currency: 'EUR' })).body['@id'];
  const tax = (await api.post('/api/taxes', { name: 'Odd', rate: 7.125, type: 'inclusive' })).body['@id'];
  const lines = Array.from({ length: 12 }, (_, i) => ({ description: `L${i} "q" \\`, qty: [1, 0.5, 1.25, 3.3333, 1000][i % 5], price: 1999 * i - 5000, tax: i % 3 ? tax : null }));
  for (const body of [
    { client: clientIri, lines },
    { client: clientIri, lines: [], notes: null, terms: '' },
    { client: clientIri, lines: lines.slice(0, 2), discountType: 'percentage', discountValue: 12.5, dueDate: '2031-02-28', invoiceDate: '2031-01-31' },
  ]) expect((await api.post('/api/invoices', body)).status).toBe(201);
  expect((await api.post('/api/quotes', { client: clientIri, lines: lines.slice(3, 8) })).status).toBe(201);
  const recurring = await api.post('/api/recurring-invoices', {
    client: clientIri, frequency: 'monthly', startDate: '2030-01-31', lines: lines.slice(0, 4).map(({ description, qty, price, tax: x }) => ({ description, qty, price, tax: x })),
  });
  expect(recurring.status, recurring.text).toBe(201);
}, 120_000);
afterAll(() => t?.close());

describe.each(formats.map((f) => [f.name, f] as const))('%s records built by the database', (_name, format) => {
  it.each(readable.map((r) => [r.name, r] as const))('%s: every record, as an item and as a collection member, equals the presented record', async (_n, r) => {
    const page = await engine.list(principal, r, { where: [], order: [], offset: 0, limit: 1000 });
    expect(page.items.length, `${r.name} has records to compare`).toBeGreaterThan(0);
    const members = await engine.json!.list(principal, r, { where: [], order: [], offset: 0, limit: 1000 }, format.projection!);
    expect(members.total).toBe(page.total);
    const expected = page.items.map((rec) => format.collection(model, { resource: r, items: [rec], total: 1, page: 1, itemsPerPage: 1, path: r.iri, query: new URLSearchParams() }));
    const fromJs = expected.map((x) => (Array.isArray(x.body) ? x.body[0] : (x.body as { member: unknown[] }).member[0]));
    expect(canonical(members.members)).toBe(JSON.stringify(fromJs));
    for (const rec of page.items) {
      const item = await engine.json!.read(principal, r, String(rec.id), format.projection!);
      const full = await engine.read(principal, r, String(rec.id));
      expect(canonical(item)).toBe(JSON.stringify(format.item(model, r, full).body));
    }
  });
});

describe('reads built by the database keep the rules of reads', () => {
  it('a record of another company is a 403, a missing or malformed id a 404', async () => {
    const r = model.get('Invoice');
    const [rec] = (await engine.list(principal, r, { where: [], order: [], offset: 0, limit: 1 })).items;
    await expect(engine.json!.read(other, r, String(rec!.id), jsonld.projection!)).rejects.toMatchObject({ status: 403 } satisfies Partial<ApiError>);
    await expect(engine.json!.read(principal, r, '0190a0a0-0000-7000-8000-000000000000', jsonld.projection!)).rejects.toMatchObject({ status: 404 });
    await expect(engine.json!.read(principal, r, 'nope', jsonld.projection!)).rejects.toMatchObject({ status: 404 });
    const foreign = await engine.json!.list(other, r, { where: [], order: [], offset: 0, limit: 30 }, jsonld.projection!);
    expect(foreign).toEqual({ members: '[]', total: 0 });
  });

  it('filters, orders and pages are those of the REST collection, over HTTP in both formats', async () => {
    const token = await tokenFor(t, { email: 'q@proj.test', company: 'Projection Co' });
    for (const accept of ['application/ld+json', 'application/json']) {
      const res = await call(t, 'GET', '/api/invoices?order[total]=desc&itemsPerPage=2&page=2&status=draft', { token, accept });
      expect(res.status, res.text).toBe(200);
      const items = accept === 'application/json' ? res.body : res.body.member;
      expect(items).toHaveLength(2);
      const all = (await call(t, 'GET', '/api/invoices?order[total]=desc&itemsPerPage=100&status=draft', { token, accept: 'application/json' })).body as { total: number; id: string }[];
      expect(items.map((x: { id: string }) => x.id)).toEqual(all.slice(2, 4).map((x) => x.id));
      if (accept === 'application/json') expect(Number(res.headers.get('x-total-count'))).toBe(all.length);
      else expect(res.body.totalItems).toBe(all.length);
    }
  });
});
