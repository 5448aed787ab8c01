// Credit notes (CONTRACT §14): the resource, the `credit` operation on invoices (REST and GraphQL),
// what issuing does to the invoice, the documents (PDF, UBL CreditNote checked by the EN 16931
// rule checker in helpers.ts's call), tenancy and roles, and bad input that changes nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbState } from './support/db-state.ts';
import { en16931Violations } from './support/en16931.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let other: Client;
let clientIri: string;
const tax: Record<string, string> = {};
type X = Record<string, any>;
const dir = mkdtempSync(join(tmpdir(), 'credit-notes-test-'));

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'a@cn.test', company: 'CN Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'v@cn.test', company: 'CN Co', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'o@other.test', company: 'Other' }));
  await admin.patch('/api/company', { legalName: 'CN Company GmbH', email: 'billing@cn.test', vatNumber: 'DE123456789', country: 'DE', city: 'Berlin', street1: 'Str. 1', zip: '10115', peppolId: '9930:DE123456789' });
  clientIri = (await admin.post('/api/clients', { name: 'Buyer BV', vatNumber: 'NL999999999B01', peppolId: '9944:NL999999999B01' })).body['@id'];
  await admin.post('/api/addresses', { client: clientIri, city: 'Amsterdam', country: 'NL' });
  await admin.post('/api/contacts', { client: clientIri, firstName: 'Ann', email: 'ann@buyer.test' });
  tax.s20 = (await admin.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
  tax.s7 = (await admin.post('/api/taxes', { name: 'Reduced VAT', rate: 7 })).body['@id'];
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const gql = (c: Client, query: string, variables?: Record<string, unknown>) => call(t, 'POST', '/api/graphql', { token: c.token, body: { query, variables }, contentType: 'application/json' });

/** A pending invoice of 3333 × 3 at 20 % and 4550 at 7 %, 10 % off: total 15181 (CONTRACT §6). */
async function pendingInvoice(extra: X = {}): Promise<X> {
  const inv = await admin.post('/api/invoices', {
    client: clientIri, dueDate: '2099-01-01', discountType: 'percentage', discountValue: 10,
    lines: [{ description: 'Design', qty: 3, price: 3333, tax: tax.s20 }, { description: 'Books', price: 4550, tax: tax.s7 }], ...extra,
  });
  expect(inv.status, inv.text).toBe(201);
  const res = await admin.patch(inv.body['@id'], { status: 'pending' });
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(15181);
  return res.body;
}

function pdfText(bytes: Buffer): string {
  const file = join(dir, `cn-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

describe('credit notes', () => {
  it('credits an untouched invoice with its lines and discount; issuing cancels the invoice and numbers the note', async () => {
    const inv = await pendingInvoice();
    const res = await admin.post(`${inv['@id']}/credit`, {});
    expect(res.status, res.text).toBe(201);
    const note = res.body;
    expect(res.headers.get('location')).toBe(note['@id']);
    expect(note).toMatchObject({ '@type': 'CreditNote', status: 'draft', number: null, invoice: inv['@id'], client: clientIri, currency: 'EUR', discountType: 'percentage', discountValue: 10, total: 15181 });
    expect(note.taxGroups).toEqual(inv.taxGroups);
    expect(note.lines.map((l: X) => [l.description, l.qty, l.price, l.tax])).toEqual(inv.lines.map((l: X) => [l.description, l.qty, l.price, l.tax]));
    // A draft changes nothing on the invoice.
    expect((await admin.get(inv['@id'])).body).toMatchObject({ amountCredited: 0, balance: 15181, status: 'pending' });

    const issued = await admin.patch(note['@id'], { status: 'issued' });
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body.number).toMatch(/^CN-\d{6}$/);
    expect((await admin.get(inv['@id'])).body).toMatchObject({ amountCredited: 15181, balance: 0, status: 'cancelled', amountPaid: 0 });

    // An issued credit note never changes and cannot be deleted.
    const before = await dbState(t.db.database.db);
    const change = await admin.patch(note['@id'], { notes: 'changed' });
    expect(change.status).toBe(422);
    expect(change.body.violations[0].propertyPath).toBe('notes');
    expect((await admin.patch(note['@id'], { status: 'draft' })).status).toBe(422);
    expect((await admin.patch(note['@id'], { lines: [] })).status).toBe(422);
    expect((await admin.delete(note['@id'])).status).toBe(409);
    expect(await dbState(t.db.database.db)).toEqual(before);

    // Documents: a UBL CreditNote (the rule checker runs in call()) and a PDF titled "Credit note".
    const ubl = await admin.get(note['@id'], { accept: 'application/vnd.oasis.ubl+xml' });
    expect(ubl.status, ubl.text).toBe(200);
    expect(en16931Violations(ubl.text)).toEqual([]);
    expect(ubl.text).toContain('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"');
    expect(ubl.text).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(ubl.text).toContain(`<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${inv.number}</cbc:ID>`);
    expect(ubl.text).toContain('<cbc:PayableAmount currencyID="EUR">151.81</cbc:PayableAmount>');
    expect(ubl.text.match(/<cac:AllowanceCharge>/g)?.length).toBe(2);
    const pdf = await fetch(t.url + note['@id'], { headers: { 'x-api-token': admin.token, accept: 'application/pdf' } });
    expect(pdf.status).toBe(200);
    const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
    expect(text).toContain('CREDIT NOTE');
    expect(text).toContain(issued.body.number);
    expect(text).toContain(`Credits invoice ${inv.number}`);
    expect(text).toContain('Total EUR 151.81');
    expect(text).toContain(`REASON Credit for invoice ${inv.number}`);
  });

  it('credits the balance of a partly paid invoice per tax group; issuing marks it paid', async () => {
    const inv = await pendingInvoice();
    expect((await admin.post('/api/payments', { invoice: inv['@id'], amount: 5000 })).status).toBe(201);
    const res = await admin.post(`${inv['@id']}/credit`, {});
    expect(res.status, res.text).toBe(201);
    const note = res.body;
    expect(note.total).toBe(10181);
    expect(note.discountType).toBe('none');
    // Shares of 10181 in proportion to taxable + tax (4095 + 287 and 8999 + 1800): 2938.77 and
    // 7242.25, the missing unit to the larger remainder: 2939 and 7242. Largest nets: 2747 + 192
    // at 7 %, 6035 + 1207 at 20 %; nothing left over.
    expect(note.lines.map((l: X) => [l.price, l.tax])).toEqual([[2747, tax.s7], [6035, tax.s20]]);
    expect((await admin.patch(note['@id'], { status: 'issued' })).status).toBe(200);
    expect((await admin.get(inv['@id'])).body).toMatchObject({ amountPaid: 5000, amountCredited: 10181, balance: 0, status: 'paid' });
    expect((await admin.get(inv['@id'])).body.paidAt).not.toBeNull();
  });

  it('credits through GraphQL, and keeps tenancy and roles', async () => {
    const inv = await pendingInvoice();
    const q = `mutation($id: ID!) { creditInvoice(input: {id: $id, clientMutationId: "x"}) { clientMutationId creditNote { id number status total invoice { id } taxGroups { rate category exemptionReason exemptionReasonCode base discount taxable tax } lines { edges { node { description price } } } } } }`;
    const res = await gql(admin, q, { id: inv['@id'] });
    expect(res.body.errors).toBeUndefined();
    const note = res.body.data.creditInvoice.creditNote;
    expect(note).toMatchObject({ status: 'draft', number: null, total: 15181, invoice: { id: inv['@id'] } });
    expect(note.taxGroups).toEqual(inv.taxGroups);
    expect(res.body.data.creditInvoice.clientMutationId).toBe('x');
    const list = await gql(admin, `{ creditNotes(invoice: "${inv['@id']}") { totalCount edges { node { id } } } }`);
    expect(list.body.data.creditNotes.totalCount).toBe(1);

    const before = await dbState(t.db.database.db);
    expect((await viewer.post(`${inv['@id']}/credit`, {})).status).toBe(403);
    expect((await gql(viewer, q, { id: inv['@id'] })).status).toBe(403);
    expect((await other.post(`${inv['@id']}/credit`, {})).status).toBe(403);
    expect((await other.get(note.id)).status).toBe(403);
    expect((await admin.post('/api/invoices/0190a0a0-0000-7000-8000-000000000000/credit', {})).status).toBe(404);
    expect(await dbState(t.db.database.db)).toEqual(before);
    // Another company's invoice as a credit note's link: refused as unknown.
    const theirs = (await other.post('/api/clients', { name: 'Theirs' })).body['@id'];
    expect((await other.post('/api/credit-notes', { client: theirs, invoice: inv['@id'], lines: [] })).status).toBe(422);
  });

  it('refuses bad input with the contract\'s errors and changes nothing', async () => {
    const draft = (await admin.post('/api/invoices', { client: clientIri, lines: [{ description: 'X', price: 1000, tax: tax.s20 }] })).body;
    const inv = await pendingInvoice();
    const before = await dbState(t.db.database.db);
    // A credit of a draft invoice.
    const credit = await admin.post(`${draft['@id']}/credit`, {});
    expect(credit.status).toBe(422);
    expect(credit.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(credit.body.violations.map((v: X) => v.propertyPath)).toEqual(['status']);
    // A fixed discount above the base (Σ net before tax: 14549).
    const fixed = await admin.post('/api/credit-notes', { client: clientIri, invoice: inv['@id'], discountType: 'fixed', discountValue: 14550, lines: [{ description: 'Design', qty: 3, price: 3333, tax: tax.s20 }, { description: 'Books', price: 4550, tax: tax.s7 }] });
    expect(fixed.status).toBe(422);
    expect(fixed.body.violations[0].propertyPath).toBe('discountValue');
    expect((await admin.patch(inv['@id'], { discountType: 'fixed', discountValue: 1 })).status).toBe(422); // pending: discount locked
    expect(await dbState(t.db.database.db)).toEqual(before);

    // A credit over the balance: the draft is accepted, issuing it is refused on lines.
    const over = await admin.post('/api/credit-notes', { client: clientIri, invoice: inv['@id'], lines: [{ description: 'Too much', price: 15182 }] });
    expect(over.status).toBe(201);
    const beforeIssue = await dbState(t.db.database.db);
    const issue = await admin.patch(over.body['@id'], { status: 'issued' });
    expect(issue.status).toBe(422);
    expect(issue.body.violations.map((v: X) => v.propertyPath)).toEqual(['lines']);
    expect(await dbState(t.db.database.db)).toEqual(beforeIssue);
    // Another client's invoice.
    const someoneElse = (await admin.post('/api/clients', { name: 'Someone else' })).body['@id'];
    const wrong = await admin.post('/api/credit-notes', { client: someoneElse, invoice: inv['@id'], lines: [] });
    expect(wrong.status).toBe(422);
    expect(wrong.body.violations[0].propertyPath).toBe('invoice');
    // A draft credit note can be deleted; the invoice keeps its balance.
    expect((await admin.delete(over.body['@id'])).status).toBe(204);
    expect((await admin.get(inv['@id'])).body).toMatchObject({ balance: 15181, amountCredited: 0, status: 'pending' });
  });

  it('a credit note created issued is checked and credits its invoice as one issued by an update', async () => {
    const inv = await pendingInvoice();
    const before = await dbState(t.db.database.db);
    const over = await admin.post('/api/credit-notes', { client: clientIri, invoice: inv['@id'], status: 'issued', lines: [{ description: 'Too much', price: 15182 }] });
    expect(over.status, over.text).toBe(422);
    expect(over.body.violations.map((v: X) => v.propertyPath)).toEqual(['lines']);
    expect(await dbState(t.db.database.db)).toEqual(before);
    const part = await admin.post('/api/credit-notes', { client: clientIri, invoice: inv['@id'], status: 'issued', lines: [{ description: 'Goodwill', price: 1181 }] });
    expect(part.status, part.text).toBe(201);
    expect(part.body).toMatchObject({ status: 'issued', total: 1181 });
    expect(part.body.number).toMatch(/^CN-\d{6}$/);
    expect((await admin.get(inv['@id'])).body).toMatchObject({ balance: 14000, amountCredited: 1181, status: 'pending' });
  });

  it('numbers issued credit notes from their own sequence and lists its events', async () => {
    const n1 = (await admin.post('/api/credit-notes', { client: clientIri, lines: [{ description: 'Goodwill', price: 100 }] })).body;
    const n2 = (await admin.post('/api/credit-notes', { client: clientIri, lines: [{ description: 'Goodwill', price: 100 }] })).body;
    const a = (await admin.patch(n2['@id'], { status: 'issued' })).body.number;
    const b = (await admin.patch(n1['@id'], { status: 'issued' })).body.number;
    expect(Number(b.slice(3))).toBe(Number(a.slice(3)) + 1);
    const invoices = (await admin.get('/api/invoices?itemsPerPage=100')).body.member.map((i: X) => i.number);
    expect(invoices.every((n: string) => n.startsWith('INV-'))).toBe(true);
    const types = (await admin.get('/api/webhooks/event-types', { accept: 'application/json' })).body;
    expect(types).toEqual(expect.arrayContaining(['credit_note.created', 'credit_note.updated', 'credit_note.deleted', 'credit_note.issued']));
  });
});
