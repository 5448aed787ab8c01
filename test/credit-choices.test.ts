// The invoice's `credit` operation asked what to credit (CONTRACT §14, §20): the whole balance
// (no body, `{}`), chosen lines and quantities, or an amount, through REST and GraphQL; the credit
// notes it drafts pass the official e-invoice artefacts once issued (call() checks every UBL); each
// refusal is a 422 naming the member, with amounts in major units, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbState } from './support/db-state.ts';
import { en16931Violations } from './support/en16931.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let clientIri: string;
const tax: Record<string, string> = {};
type X = Record<string, any>;

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'a@cc.test', company: 'CC Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'v@cc.test', company: 'CC Co', role: 'viewer' }));
  await admin.patch('/api/company', { legalName: 'CC Company GmbH', email: 'billing@cc.test', vatNumber: 'DE123456789', country: 'DE', city: 'Berlin', street1: 'Str. 1', zip: '10115', peppolId: '9930:DE123456789' });
  clientIri = (await admin.post('/api/clients', { name: 'Buyer BV', vatNumber: 'NL999999999B01', peppolId: '9944:NL999999999B01' })).body['@id'];
  await admin.post('/api/addresses', { client: clientIri, city: 'Amsterdam', country: 'NL' });
  tax.s20 = (await admin.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
  tax.s7 = (await admin.post('/api/taxes', { name: 'Reduced VAT', rate: 7 })).body['@id'];
});
afterAll(async () => {
  await t.close();
});

const gql = (c: Client, query: string, variables?: Record<string, unknown>) => call(t, 'POST', '/api/graphql', { token: c.token, body: { query, variables }, contentType: 'application/json' });
const db = () => dbState(t.db.database.db);
const paths = (res: X) => res.body.violations.map((v: X) => v.propertyPath);

/** A pending invoice of 3333 × 3 at 20 % and 4550 at 7 %; 10 % off: total 15181 (CONTRACT §6). */
async function pendingInvoice(extra: X = {}): Promise<X> {
  const inv = await admin.post('/api/invoices', {
    client: clientIri, dueDate: '2099-01-01', discountType: 'percentage', discountValue: 10,
    lines: [{ description: 'Design', qty: 3, price: 3333, tax: tax.s20 }, { description: 'Books', price: 4550, tax: tax.s7 }], ...extra,
  });
  expect(inv.status, inv.text).toBe(201);
  const res = await admin.patch(inv.body['@id'], { status: 'pending' });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Issues `note` and checks its UBL (call() runs the official artefacts on it) and the invoice's balance. */
async function issueAndCheck(note: X, inv: X, balance: number): Promise<void> {
  const issued = await admin.patch(note['@id'], { status: 'issued' });
  expect(issued.status, issued.text).toBe(200);
  const ubl = await admin.get(note['@id'], { accept: 'application/vnd.oasis.ubl+xml' });
  expect(ubl.status, ubl.text).toBe(200);
  expect(en16931Violations(ubl.text)).toEqual([]);
  expect(ubl.text).toContain('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"');
  expect((await admin.get(inv['@id'])).body).toMatchObject({ amountCredited: note.total, balance });
}

describe('credit: what to credit', () => {
  it('declares its input once: OpenAPI, Hydra and GraphQL show lines and amount', async () => {
    const oai = (await call(t, 'GET', '/api/docs.json')).body;
    const body = oai.paths['/api/invoices/{id}/credit'].post.requestBody.content['application/json'].schema;
    expect(body.properties.amount).toMatchObject({ type: 'integer', minimum: 1 });
    expect(body.properties.lines.items.required).toEqual(['line']);
    expect(oai.paths['/api/invoices/{id}/credit'].post.responses['422']).toBeDefined();
    // Hydra: the operation now expects a body.
    const found: X[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        if (String((v as X)['hydra:description'] ?? '').startsWith('Drafts a credit note')) found.push(v as X);
        Object.values(v).forEach(walk);
      }
    };
    walk((await call(t, 'GET', '/api/docs.jsonld')).body);
    expect(found.map((o) => [o['hydra:method'], o.expects])).toEqual([['POST', 'owl:Thing']]);
    const type = await gql(admin, '{ __type(name: "creditInvoiceInput") { inputFields { name } } }');
    expect(type.body.data.__type.inputFields.map((f: X) => f.name)).toEqual(expect.arrayContaining(['id', 'lines', 'amount', 'clientMutationId']));
  });

  it('credits the whole balance with no body at all, as with {}', async () => {
    const inv = await pendingInvoice();
    const res = await call(t, 'POST', `${inv['@id']}/credit`, { token: admin.token });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ total: 15181, discountType: 'percentage', invoice: inv['@id'] });
  });

  it('credits chosen lines at chosen quantities, with the invoice\'s percentage discount (REST)', async () => {
    const inv = await pendingInvoice();
    const [design, books] = inv.lines;
    const res = await admin.post(`${inv['@id']}/credit`, { lines: [{ line: design['@id'], quantity: '1' }, { line: books.id }] });
    expect(res.status, res.text).toBe(201);
    const note = res.body;
    // Design 3333 × 1 at 20 %: 3333 − 333 = 3000 + 600; Books 4550 at 7 %: 4550 − 455 = 4095 + 287.
    expect(note.lines.map((l: X) => [l.description, l.qty, l.price, l.tax])).toEqual([['Design', 1, 3333, tax.s20], ['Books', 1, 4550, tax.s7]]);
    expect(note).toMatchObject({ status: 'draft', discountType: 'percentage', discountValue: 10, total: 3600 + 4382, invoice: inv['@id'] });
    expect((await admin.get(inv['@id'])).body.balance).toBe(15181);
    await issueAndCheck(note, inv, 15181 - 7982);
  });

  it('credits a fixed discount in proportion to the credited lines', async () => {
    const inv = await pendingInvoice({ discountType: 'fixed', discountValue: 2000 });
    expect(inv.total).toBe(14549);
    const res = await admin.post(`${inv['@id']}/credit`, { lines: [{ line: inv.lines[1]['@id'] }] });
    expect(res.status, res.text).toBe(201);
    // 2000 × 4550 / 14549 = 625.5 → 625, as the invoice's own group took: 3925 + 275.
    expect(res.body).toMatchObject({ discountType: 'fixed', discountValue: 625, total: 4200 });
    expect(res.body.taxGroups).toEqual([inv.taxGroups[0]]);
    await issueAndCheck(res.body, inv, 14549 - 4200);
  });

  it('credits a fractional quantity of a line', async () => {
    const inv = await pendingInvoice();
    const res = await admin.post(`${inv['@id']}/credit`, { lines: [{ line: inv.lines[0]['@id'], quantity: '1.5' }] });
    expect(res.status, res.text).toBe(201);
    // 3333 × 1.5 = 4999.5 → 5000, less 10 %: 4500 + 900.
    expect(res.body.lines.map((l: X) => l.qty)).toEqual([1.5]);
    expect(res.body.total).toBe(5400);
  });

  it('credits an amount over the tax groups (REST)', async () => {
    const inv = await pendingInvoice();
    const res = await admin.post(`${inv['@id']}/credit`, { amount: 5000 });
    expect(res.status, res.text).toBe(201);
    // Shares of 5000 by taxable + tax (4382 and 10799): 1443 and 3557; largest nets 1349 + 94, 2964 + 593.
    expect(res.body.lines.map((l: X) => [l.price, l.tax])).toEqual([[1349, tax.s7], [2964, tax.s20]]);
    expect(res.body).toMatchObject({ total: 5000, discountType: 'none' });
    await issueAndCheck(res.body, inv, 10181);
    // The rest of the balance, to the unit.
    const rest = await admin.post(`${inv['@id']}/credit`, { amount: 10181 });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.total).toBe(10181);
  });

  it('credits lines and amounts through GraphQL', async () => {
    const inv = await pendingInvoice();
    const q = `mutation($input: creditInvoiceInput!) { creditInvoice(input: $input) { creditNote { id total lines { edges { node { description qty price } } } } } }`;
    const byLines = await gql(admin, q, { input: { id: inv['@id'], lines: [{ line: inv.lines[0]['@id'], quantity: '2' }] } });
    expect(byLines.body.errors).toBeUndefined();
    expect(byLines.body.data.creditInvoice.creditNote.lines.edges.map((e: X) => [e.node.description, Number(e.node.qty), e.node.price])).toEqual([['Design', 2, 3333]]);
    // 6666 − 667 = 5999 + 1200.
    expect(byLines.body.data.creditInvoice.creditNote.total).toBe(7199);
    const byAmount = await gql(admin, q, { input: { id: inv['@id'], amount: 1000 } });
    expect(byAmount.body.errors).toBeUndefined();
    expect(byAmount.body.data.creditInvoice.creditNote.total).toBe(1000);
    // Refused the same way, with the member named.
    const before = await db();
    const over = await gql(admin, q, { input: { id: inv['@id'], amount: 15182 } });
    expect(over.body.data?.creditInvoice ?? null).toBeNull();
    expect(over.body.errors[0].extensions.status).toBe(422);
    expect(over.body.errors[0].extensions.violations.map((v: X) => v.path)).toEqual(['amount']);
    expect(over.body.errors[0].message).toContain('151.82 EUR');
    const qty = await gql(admin, q, { input: { id: inv['@id'], lines: [{ line: inv.lines[0].id, quantity: '3.5' }] } });
    expect(qty.body.errors[0].extensions.violations.map((v: X) => v.path)).toEqual(['lines[0].quantity']);
    expect((await gql(viewer, q, { input: { id: inv['@id'], amount: 1 } })).status).toBe(403);
    expect(await db()).toEqual(before);
  });

  it('refuses what cannot be credited, naming the member, and changes nothing', async () => {
    const inv = await pendingInvoice();
    const other = await pendingInvoice();
    const draft = (await admin.post('/api/invoices', { client: clientIri, lines: [{ description: 'X', price: 1000, tax: tax.s20 }] })).body;
    const before = await db();
    const refused = async (body: unknown, at = inv) => {
      const res = await admin.post(`${at['@id']}/credit`, body);
      expect(res.status, res.text).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      return res;
    };
    expect(paths(await refused({ lines: [{ line: inv.lines[0]['@id'] }], amount: 100 }))).toEqual(['lines', 'amount']);
    expect(paths(await refused({ lines: [] }))).toEqual(['lines']);
    expect(paths(await refused({ lines: [{ line: other.lines[0]['@id'] }] }))).toEqual(['lines[0].line']);
    expect(paths(await refused({ lines: [{ line: inv.lines[1].id }, { line: '/api/invoice-lines/0190a0a0-0000-7000-8000-000000000000' }] }))).toEqual(['lines[1].line']);
    expect(paths(await refused({ lines: [{ line: inv.lines[0].id }, { line: inv.lines[0]['@id'] }] }))).toEqual(['lines[1].line']);
    const over = await refused({ lines: [{ line: inv.lines[0]['@id'], quantity: '4' }] });
    expect(paths(over)).toEqual(['lines[0].quantity']);
    expect(over.body.violations[0].message).toBe("The quantity to credit, 4, exceeds the line's, 3.");
    expect(paths(await refused({ lines: [{ line: inv.lines[0]['@id'], quantity: '0' }] }))).toEqual(['lines[0].quantity']);
    expect(paths(await refused({ lines: [{ line: inv.lines[0]['@id'], quantity: '-1' }] }))).toEqual(['lines[0].quantity']);
    expect(paths(await refused({ lines: [{ line: inv.lines[0]['@id'], quantity: '1,5' }] }))).toEqual(['lines[0].quantity']);
    expect(paths(await refused({ lines: [{ line: inv.lines[0]['@id'], quantity: '0.00001' }] }))).toEqual(['lines[0].quantity']);
    expect(paths(await refused({ lines: [{ quantity: '1' }] }))).toEqual(['lines[0].line']);
    const big = await refused({ amount: 15182 });
    expect(paths(big)).toEqual(['amount']);
    expect(big.body.violations[0].message).toBe("The amount to credit, 151.82 EUR, exceeds the invoice's balance, 151.81 EUR.");
    expect(big.body.violations[0].extensions).toEqual({ amount: { amount: 15182, currency: 'EUR' }, balance: { amount: 15181, currency: 'EUR' } });
    expect(paths(await refused({ amount: 0 }))).toEqual(['amount']);
    expect(paths(await refused({ amount: 12.5 }))).toEqual(['amount']);
    expect(paths(await refused({ amount: '100' }))).toEqual(['amount']);
    expect((await refused({ everything: true })).body.violations.length).toBeGreaterThan(0);
    // A draft invoice cannot be credited, whatever is asked.
    expect(paths(await refused({ amount: 100 }, draft))).toEqual(['status']);
    expect((await viewer.post(`${inv['@id']}/credit`, { amount: 100 })).status).toBe(403);
    expect(await db()).toEqual(before);
  });

  it('refuses chosen lines whose credit exceeds what is left to pay', async () => {
    const inv = await pendingInvoice();
    expect((await admin.post('/api/payments', { invoice: inv['@id'], amount: 14000 })).status).toBe(201);
    const before = await db();
    const res = await admin.post(`${inv['@id']}/credit`, { lines: [{ line: inv.lines[0]['@id'] }] });
    expect(res.status, res.text).toBe(422);
    expect(paths(res)).toEqual(['lines']);
    // 3 × 3333 = 9999 − 1000 = 8999 + 1800 = 10799, against 15181 − 14000.
    expect(res.body.violations[0].message).toBe("The credit's total, 107.99 EUR, exceeds the invoice's balance, 11.81 EUR.");
    expect(await db()).toEqual(before);
    // What fits is made.
    const fits = await admin.post(`${inv['@id']}/credit`, { lines: [{ line: inv.lines[1]['@id'], quantity: '0.25' }] });
    expect(fits.status, fits.text).toBe(201);
    await issueAndCheck(fits.body, inv, 1181 - fits.body.total);
  });
});
