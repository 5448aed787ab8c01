// The invoicing rules of CONTRACT §4–§6 through HTTP (and, for line writes as GraphQL makes them,
// through the engine): totals, numbers, states, edit and delete rules, payments, quotes.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../engine/types.ts';
import { ApiError } from '../engine/errors.ts';
import { createEngine, type Engine } from '../engine/operations.ts';
import { computeTotals, type Discount } from '../resources/rules/totals.ts';
import { model, tables } from '../server/model.ts';
import { lookupToken } from '../server/access/tokens.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let token: string;
let principal: Principal;
let engine: Engine;
let clientIri: string;
let inc20: string;
let exc20: string;

beforeAll(async () => {
  t = await startTestServer();
  token = await tokenFor(t, { email: 'owner@inv.test', company: 'Invoicing Co' });
  api = client(t, token);
  principal = (await lookupToken(t.db.database.db, token))!;
  engine = createEngine(t.db.database.db, model, tables);
  clientIri = (await api.post('/api/clients', { name: 'Acme', currency: 'EUR' })).body['@id'];
  inc20 = (await api.post('/api/taxes', { name: 'VAT 20 incl', rate: 20, type: 'inclusive' })).body['@id'];
  exc20 = (await api.post('/api/taxes', { name: 'VAT 20', rate: 20, type: 'exclusive' })).body['@id'];
});
afterAll(() => t.close());

async function newInvoice(body: Record<string, unknown> = {}) {
  const res = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'Work', price: 10000 }], ...body });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

async function pendingInvoice(body: Record<string, unknown> = {}) {
  const inv = await newInvoice(body);
  const res = await api.patch(inv['@id'], { status: 'pending' });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>;
}

function violation(res: { status: number; body: any; text: string }, path: string): string {
  expect(res.status, res.text).toBe(422);
  const v = (res.body.violations as { propertyPath: string; message: string }[]).find((x) => x.propertyPath === path);
  expect(v, `a violation on ${path} in ${res.text}`).toBeDefined();
  return v!.message;
}

describe('totals (CONTRACT §6)', () => {
  it('two lines of 15000 × 1 with a 20 % inclusive tax: subtotal 25000, taxTotal 5000, total 30000', async () => {
    const inv = await newInvoice({ lines: [{ description: 'A', price: 15000, qty: 1, tax: inc20 }, { description: 'B', price: 15000, tax: inc20 }] });
    expect(inv).toMatchObject({ subtotal: 25000, taxTotal: 5000, discountTotal: 0, total: 30000, amountPaid: 0, balance: 30000 });
    expect(inv.lines.map((l: any) => [l.total, l.taxRate, l.taxType])).toEqual([[15000, 20, 'inclusive'], [15000, 20, 'inclusive']]);
  });

  it('the same lines with a 20 % exclusive tax: 30000, 6000, 36000', async () => {
    const inv = await newInvoice({ lines: [{ description: 'A', price: 15000, tax: exc20 }, { description: 'B', price: 15000, tax: exc20 }] });
    expect(inv).toMatchObject({ subtotal: 30000, taxTotal: 6000, total: 36000, balance: 36000 });
  });

  it('recomputes when lines or the discount change, and refuses impossible discounts', async () => {
    const inv = await newInvoice();
    let res = await api.patch(inv['@id'], { lines: [{ description: 'X', price: 999, qty: 2.5, tax: exc20 }, { description: 'Y', price: 1 }] });
    expect(res.body).toMatchObject({ subtotal: 2499, taxTotal: 500, total: 2999 }); // 2497.5 → 2498; 2498 × 20 % = 499.6 → 500
    expect(res.body.lines.map((l: any) => l.total)).toEqual([2498, 1]);
    expect(res.body.lines.map((l: any) => l.net)).toEqual([2498, 1]);
    // §18: each group names its category (S at the same rates gives §6's figures); Z and S have no exemption reason.
    const plain = { exemptionReason: null, exemptionReasonCode: null };
    expect(res.body.taxGroups).toEqual([{ rate: 0, category: 'Z', ...plain, base: 1, discount: 0, taxable: 1, tax: 0 }, { rate: 20, category: 'S', ...plain, base: 2498, discount: 0, taxable: 2498, tax: 500 }]);
    // The discount comes off each rate's net before tax (EN 16931): 10 % of 2498 is 249.8 → 250.
    res = await api.patch(inv['@id'], { discountType: 'percentage', discountValue: 10 });
    expect(res.body).toMatchObject({ discountTotal: 250, taxTotal: 450, total: 2699, balance: 2699 });
    // A fixed 999 over bases 1 and 2498: 0 and 998, the missing unit to the larger remainder.
    res = await api.patch(inv['@id'], { discountType: 'fixed', discountValue: 999 });
    expect(res.body).toMatchObject({ discountTotal: 999, taxTotal: 300, total: 1800 });
    expect(res.body.taxGroups.map((g: any) => g.discount)).toEqual([0, 999]);
    // Amounts in messages are for people: major units with the currency; minor units in extensions (§20).
    expect(violation(await api.patch(inv['@id'], { discountValue: 3000 }), 'discountValue')).toBe('A fixed discount cannot exceed the amount before tax and discount, 24.99 EUR.');
    violation(await api.patch(inv['@id'], { discountType: 'percentage', discountValue: 150 }), 'discountValue');
    violation(await api.patch(inv['@id'], { discountValue: 10.5 }), 'discountValue');
    expect(violation(await api.patch(inv['@id'], { lines: [{ description: 'Huge', price: 9_000_000_000_000_000, qty: 1000 }] }), 'lines')).toMatch(/too large/);
    expect((await api.get(inv['@id'])).body).toMatchObject({ discountType: 'fixed', discountValue: 999, total: 1800 });
  });

  it('keeps the order of embedded lines', async () => {
    const lines = Array.from({ length: 8 }, (_, i) => ({ description: `L${i}`, price: 100 + i }));
    const inv = await newInvoice({ lines });
    expect(inv.lines.map((l: any) => l.description)).toEqual(lines.map((l) => l.description));
    expect(inv.lines.map((l: any) => l.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('recomputes the invoice when a line is created, updated or deleted through the engine (as GraphQL does)', async () => {
    const inv = await newInvoice({ lines: [] });
    const lines = model.get('InvoiceLine');
    const a = await engine.create(principal, lines, { invoice: inv['@id'], description: 'A', price: 15000, tax: inc20 });
    await engine.create(principal, lines, { invoice: inv.id, description: 'B', price: 15000, qty: 1, tax: inc20 });
    expect((await api.get(inv['@id'])).body).toMatchObject({ subtotal: 25000, taxTotal: 5000, total: 30000 });
    await engine.update(principal, lines, String(a.id), { price: 30000 }, 'update');
    expect((await api.get(inv['@id'])).body).toMatchObject({ subtotal: 37500, taxTotal: 7500, total: 45000 });
    await engine.remove(principal, lines, String(a.id));
    const after = (await api.get(inv['@id'])).body;
    expect(after).toMatchObject({ subtotal: 12500, taxTotal: 2500, total: 15000, balance: 15000 });
    expect(after.lines.map((l: any) => l.description)).toEqual(['B']);
  });

  it('matches the arithmetic module for random invoices (through HTTP)', async () => {
    const dec = (max: number) => fc.integer({ min: 1, max: max * 10000 }).map((n) => n / 10000);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ price: fc.integer({ min: 0, max: 5_000_000 }), qty: dec(50), tax: fc.constantFrom(null, 'inc', 'exc') }), { minLength: 1, maxLength: 6 }),
        fc.oneof(fc.constant<Discount>({ type: 'none', value: 0 }), dec(100).map((value): Discount => ({ type: 'percentage', value }))),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (lines, discount, share) => {
          const res = await api.post('/api/invoices', {
            client: clientIri,
            discountType: discount.type,
            discountValue: discount.value,
            lines: lines.map((l, i) => ({ description: `L${i}`, price: l.price, qty: l.qty, tax: l.tax === 'inc' ? inc20 : l.tax === 'exc' ? exc20 : null })),
          });
          expect(res.status, res.text).toBe(201);
          const expected = computeTotals(
            lines.map((l) => ({ price: l.price, qty: l.qty, tax: l.tax ? { rate: 20, type: l.tax === 'inc' ? ('inclusive' as const) : ('exclusive' as const) } : null })),
            discount,
          );
          const b = res.body;
          expect([b.subtotal, b.taxTotal, b.discountTotal, b.total]).toEqual([expected.subtotal, expected.taxTotal, expected.discountTotal, expected.total]);
          expect(b.total).toBe(b.subtotal + b.taxTotal - b.discountTotal);
          expect(b.balance).toBe(b.total - b.amountPaid);
          for (const v of [b.subtotal, b.taxTotal, b.discountTotal, b.total, b.balance]) expect(Number.isInteger(v)).toBe(true);
          if (b.total <= 0) return;
          // Issue it and pay part of it (at least 1, at most all).
          expect((await api.patch(b['@id'], { status: 'pending' })).status).toBe(200);
          const amount = Math.max(1, Math.min(b.total, Math.round(b.total * share)));
          expect((await api.post('/api/payments', { invoice: b['@id'], amount })).status).toBe(201);
          const after = (await api.get(b['@id'])).body;
          expect(after).toMatchObject({ total: b.total, amountPaid: amount, balance: b.total - amount, status: amount === b.total ? 'paid' : 'pending' });
        },
      ),
      { numRuns: 15 },
    );
  });

  it('freezes an issued invoice: a tax edit changes drafts only', async () => {
    const tax = (await api.post('/api/taxes', { name: 'Changing', rate: 20 })).body['@id'];
    const lines = [{ description: 'A', price: 10000, tax }];
    const issued = await pendingInvoice({ lines });
    const draft = await newInvoice({ lines });
    const quote = (await api.post('/api/quotes', { client: clientIri, lines })).body;
    const template = (await api.post('/api/recurring-invoices', { client: clientIri, frequency: 'monthly', startDate: '2026-01-01', lines })).body;
    expect(template).toMatchObject({ taxTotal: 2000, total: 12000 });

    expect((await api.patch(tax, { rate: 10 })).status).toBe(200);
    expect((await api.get(issued['@id'])).body).toMatchObject({ taxTotal: 2000, total: 12000 });
    expect((await api.get(issued['@id'])).body.lines[0]).toMatchObject({ taxRate: 20, taxType: 'exclusive' });
    expect((await api.get(draft['@id'])).body).toMatchObject({ taxTotal: 1000, total: 11000 });
    expect((await api.get(draft['@id'])).body.lines[0]).toMatchObject({ taxRate: 10 });
    expect((await api.get(quote['@id'])).body).toMatchObject({ taxTotal: 1000, total: 11000 });
    expect((await api.get(template['@id'])).body).toMatchObject({ taxTotal: 1000, total: 11000 });

    expect((await api.patch(tax, { type: 'inclusive' })).status).toBe(200);
    expect((await api.get(issued['@id'])).body).toMatchObject({ taxTotal: 2000, total: 12000 });
    expect((await api.get(draft['@id'])).body).toMatchObject({ subtotal: 9091, taxTotal: 909, total: 10000 });

    // Back in draft, the invoice is live again.
    const back = await api.patch(issued['@id'], { status: 'draft' });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ subtotal: 9091, taxTotal: 909, total: 10000 });
    expect(back.body.lines[0]).toMatchObject({ taxRate: 10, taxType: 'inclusive' });
  });
});

describe('numbers', () => {
  it('gives 20 concurrent creations distinct numbers with no gap, and keeps user numbers', async () => {
    const other = client(t, await tokenFor(t, { email: 'seq@inv.test', company: 'Sequence Co' }));
    const c = (await other.post('/api/clients', { name: 'Seq client' })).body['@id'];
    const results = await Promise.all(Array.from({ length: 20 }, () => other.post('/api/invoices', { client: c })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = results.map((r) => r.body.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));

    const quotes = await Promise.all(Array.from({ length: 5 }, () => other.post('/api/quotes', { client: c })));
    expect(quotes.map((r) => r.body.number).sort()).toEqual(['QUO-000001', 'QUO-000002', 'QUO-000003', 'QUO-000004', 'QUO-000005']);

    const mine = await other.post('/api/invoices', { client: c, number: 'INV-000021' });
    expect(mine.body.number).toBe('INV-000021');
    expect((await other.post('/api/invoices', { client: c })).body.number).toBe('INV-000022');
    expect((await other.post('/api/invoices', { client: c, number: 'ACME/7' })).body.number).toBe('ACME/7');
    expect(violation(await other.post('/api/invoices', { client: c, number: 'ACME/7' }), 'number')).toMatch(/already used/);
    // Numbers are per company.
    expect((await api.post('/api/invoices', { client: clientIri, number: 'ACME/7' })).status).toBe(201);
  });

  it('numbers a draft again when an update clears its number (the update statement takes it)', async () => {
    const other = client(t, await tokenFor(t, { email: 'renumber@inv.test', company: 'Renumber Co' }));
    const c = (await other.post('/api/clients', { name: 'Renumber client' })).body['@id'];
    const q = (await other.post('/api/quotes', { client: c, number: 'MINE-1' })).body;
    const cleared = await other.patch(q['@id'], { number: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.number).toBe('QUO-000001');
  });
});

describe('states (CONTRACT §5)', () => {
  it('refuses an unlisted transition with a 422 on status naming the allowed targets', async () => {
    const inv = await newInvoice();
    expect(violation(await api.patch(inv['@id'], { status: 'paid' }), 'status')).toBe('The transition from "draft" to "paid" is not allowed. Allowed: "pending", "cancelled".');
    expect(violation(await api.post('/api/invoices', { client: clientIri, status: 'overdue' }), 'status')).toMatch(/cannot start as "overdue"/);
    await api.patch(inv['@id'], { status: 'cancelled' });
    expect(violation(await api.patch(inv['@id'], { status: 'pending' }), 'status')).toMatch(/Allowed: "draft"\./);
    const q = (await api.post('/api/quotes', { client: clientIri })).body;
    expect(violation(await api.patch(q['@id'], { status: 'accepted' }), 'status')).toMatch(/Allowed: "sent", "cancelled"\./);
    const r = (await api.post('/api/recurring-invoices', { client: clientIri, frequency: 'weekly', startDate: '2026-01-01' })).body;
    expect(violation(await api.patch(r['@id'], { status: 'paused' }), 'status')).toMatch(/Allowed: "active", "cancelled"\./);
    expect((await api.patch(r['@id'], { status: 'active' })).body.status).toBe('active');
    expect((await api.patch(r['@id'], { status: 'paused' })).body.status).toBe('paused');
    expect(violation(await api.patch(r['@id'], { status: 'completed' }), 'status')).toMatch(/Allowed: "active", "cancelled"\./);
  });

  it('lets a pending invoice go back to draft only without payments', async () => {
    const a = await pendingInvoice();
    expect((await api.patch(a['@id'], { status: 'draft' })).body.status).toBe('draft');
    const b = await pendingInvoice();
    expect((await api.post('/api/payments', { invoice: b['@id'], amount: 100 })).status).toBe(201);
    expect(violation(await api.patch(b['@id'], { status: 'draft' }), 'status')).toMatch(/payments/);
    // Cancelled with payments: not back to draft either.
    expect((await api.patch(b['@id'], { status: 'cancelled' })).status).toBe(200);
    violation(await api.patch(b['@id'], { status: 'draft' }), 'status');
  });

  it('lets only a draft change client, lines, discount, number or dates; pending may change dueDate, terms, notes', async () => {
    const other = (await api.post('/api/clients', { name: 'Other', currency: 'EUR' })).body['@id'];
    const inv = await pendingInvoice({ dueDate: '2099-01-31', lines: [{ description: 'Work', price: 10000, tax: exc20 }] });
    for (const [field, value] of [['client', other], ['discountType', 'percentage'], ['discountValue', 5], ['number', 'X-1'], ['invoiceDate', '2030-01-01']] as const) {
      expect(violation(await api.patch(inv['@id'], { [field]: value }), field)).toBe('This value cannot be changed while the status is "pending".');
    }
    violation(await api.patch(inv['@id'], { lines: [{ description: 'Other', price: 1 }] }), 'lines');
    const ok = await api.patch(inv['@id'], { dueDate: '2099-02-28', terms: 'Net 30', notes: 'Thanks' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ dueDate: '2099-02-28', terms: 'Net 30', notes: 'Thanks', total: 12000 });
    // Sending what is already there is no change; the lines keep their ids.
    const same = await api.patch(inv['@id'], { client: clientIri, lines: [{ description: 'Work', price: 10000, tax: exc20 }] });
    expect(same.status, same.text).toBe(200);
    expect(same.body.lines[0]['@id']).toBe(inv.lines[0]['@id']);
    // Direct line writes (GraphQL's line mutations) are refused too, with nothing changed.
    const lines = model.get('InvoiceLine');
    const err = await engine.create(principal, lines, { invoice: inv.id, description: 'Sneaky', price: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(422);
    expect((err as ApiError).violations![0]!.propertyPath).toBe('invoice');
    await expect(engine.update(principal, lines, inv.lines[0].id, { price: 1 }, 'update')).rejects.toMatchObject({ status: 422 });
    await expect(engine.remove(principal, lines, inv.lines[0].id)).rejects.toMatchObject({ status: 422 });
    expect((await api.get(inv['@id'])).body).toMatchObject({ total: 12000, lines: [{ description: 'Work', price: 10000 }] });
  });

  it('lets a paid invoice change nothing', async () => {
    const inv = await pendingInvoice();
    await api.post('/api/payments', { invoice: inv['@id'], amount: inv.total });
    violation(await api.patch(inv['@id'], { notes: 'late edit' }), 'notes');
    expect(violation(await api.patch(inv['@id'], { status: 'cancelled' }), 'status')).toBe('The transition from "paid" to "cancelled" is not allowed: no change of status is allowed from "paid".');
  });
});

describe('delete rules (CONTRACT §4)', () => {
  it('deletes only draft and cancelled invoices without payments', async () => {
    const draft = await newInvoice();
    expect((await api.delete(draft['@id'])).status).toBe(204);
    expect(await engine.find(principal, model.get('InvoiceLine'), draft.lines[0].id)).toBeNull();
    const pending = await pendingInvoice();
    const refused = await api.delete(pending['@id']);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe('This Invoice cannot be deleted: its status is "pending" (deletable: "draft", "cancelled").');
    await api.patch(pending['@id'], { status: 'cancelled' });
    expect((await api.delete(pending['@id'])).status).toBe(204);
    const paid = await pendingInvoice();
    await api.post('/api/payments', { invoice: paid['@id'], amount: 10 });
    await api.patch(paid['@id'], { status: 'cancelled' });
    const withPayment = await api.delete(paid['@id']);
    expect(withPayment.status).toBe(409);
    expect(withPayment.body.detail).toMatch(/payments/);
    expect((await api.get(paid['@id'])).status).toBe(200);
  });

  it('refuses to delete a tax used by any line, including a recurring invoice’s', async () => {
    const onInvoice = (await api.post('/api/taxes', { name: 'On invoice', rate: 5 })).body['@id'];
    const onQuote = (await api.post('/api/taxes', { name: 'On quote', rate: 5 })).body['@id'];
    const onTemplate = (await api.post('/api/taxes', { name: 'On template', rate: 5 })).body['@id'];
    const unused = (await api.post('/api/taxes', { name: 'Unused', rate: 5 })).body['@id'];
    await newInvoice({ lines: [{ description: 'x', price: 1, tax: onInvoice }] });
    await api.post('/api/quotes', { client: clientIri, lines: [{ description: 'x', price: 1, tax: onQuote }] });
    await api.post('/api/recurring-invoices', { client: clientIri, frequency: 'daily', startDate: '2026-01-01', lines: [{ description: 'x', price: 1, tax: onTemplate }] });
    for (const tax of [onInvoice, onQuote, onTemplate]) {
      const res = await api.delete(tax);
      expect(res.status, res.text).toBe(409);
      expect(res.body.detail).toMatch(/cannot be deleted: it is used by/);
    }
    expect((await api.delete(unused)).status).toBe(204);
  });

  it('refuses to delete a client with documents; its contacts and addresses go with it', async () => {
    const busy = (await api.post('/api/clients', { name: 'Busy' })).body['@id'];
    await api.post('/api/quotes', { client: busy });
    const res = await api.delete(busy);
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/quotes/);
    const free = (await api.post('/api/clients', { name: 'Free' })).body['@id'];
    const contact = (await api.post('/api/contacts', { client: free, firstName: 'Ann', email: 'ann@free.test' })).body['@id'];
    const address = (await api.post('/api/addresses', { client: free, city: 'Paris', country: 'FR' })).body['@id'];
    expect((await api.delete(free)).status).toBe(204);
    expect((await api.get(contact)).status).toBe(404);
    expect((await api.get(address)).status).toBe(404);
  });
});

describe('payments', () => {
  it('reduces the balance, marks paid at zero, and refuses drafts, overpayment and paid invoices', async () => {
    violation(await api.post('/api/payments', { invoice: (await newInvoice())['@id'], amount: 1 }), 'invoice');
    const inv = await pendingInvoice();
    const over = await api.post('/api/payments', { invoice: inv['@id'], amount: 10001 });
    expect(violation(over, 'amount')).toBe("This value should be at most the invoice's balance, 100.00 EUR.");
    expect(over.body.violations[0].extensions).toEqual({ balance: { amount: 10000, currency: 'EUR' }, amount: { amount: 10001, currency: 'EUR' } });
    // GraphQL states the same message, with the same machine values.
    const gql = await api.post('/api/graphql', { query: `mutation { createPayment(input: {invoice: ${JSON.stringify(inv['@id'])}, amount: 10001}) { payment { id } } }` });
    expect(gql.body.errors[0].message).toBe("amount: This value should be at most the invoice's balance, 100.00 EUR.");
    expect(gql.body.errors[0].extensions.violations[0].extensions.balance).toEqual({ amount: 10000, currency: 'EUR' });
    const p1 = await api.post('/api/payments', { invoice: inv['@id'], amount: 4000 });
    expect(p1.status).toBe(201);
    expect((await api.get(inv['@id'])).body).toMatchObject({ status: 'pending', amountPaid: 4000, balance: 6000, paidAt: null });
    const p2 = await api.post('/api/payments', { invoice: inv['@id'], amount: 6000, paidAt: '2026-03-04T10:00:00Z' });
    expect(p2.status).toBe(201);
    const paid = (await api.get(inv['@id'])).body;
    expect(paid).toMatchObject({ status: 'paid', amountPaid: 10000, balance: 0, paidAt: '2026-03-04T10:00:00.000Z' });
    expect(violation(await api.post('/api/payments', { invoice: inv['@id'], amount: 1 }), 'invoice')).toMatch(/"paid"/);

    // Voiding a payment restores the balance and the status.
    expect((await api.delete(p2.body['@id'])).status).toBe(204);
    expect((await api.get(inv['@id'])).body).toMatchObject({ status: 'pending', amountPaid: 4000, balance: 6000, paidAt: null });
    expect((await api.delete(p1.body['@id'])).status).toBe(204);
    expect((await api.get(inv['@id'])).body).toMatchObject({ status: 'pending', amountPaid: 0, balance: 10000 });
  });

  it('returns a voided invoice past its due date to overdue', async () => {
    const inv = await pendingInvoice({ invoiceDate: '2020-01-01', dueDate: '2020-01-31' });
    const p = await api.post('/api/payments', { invoice: inv['@id'], amount: 10000 });
    expect((await api.get(inv['@id'])).body.status).toBe('paid');
    await api.delete(p.body['@id']);
    expect((await api.get(inv['@id'])).body).toMatchObject({ status: 'overdue', balance: 10000 });
    expect((await api.post('/api/payments', { invoice: inv['@id'], amount: 10 })).status).toBe(201);
  });

  it('serialises 20 concurrent payments: exactly 5 of 2000 fit a balance of 10000', async () => {
    const inv = await pendingInvoice();
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/api/payments', { invoice: inv['@id'], amount: 2000, method: 'card' })));
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 422)).toHaveLength(15);
    const after = (await api.get(inv['@id'])).body;
    expect(after).toMatchObject({ status: 'paid', amountPaid: 10000, balance: 0 });
    const listed = await api.get(`/api/payments?invoice=${inv.id}&itemsPerPage=100`);
    expect(listed.body.totalItems).toBe(5);
    expect(listed.body.member.reduce((s: number, p: any) => s + p.amount, 0)).toBe(10000);
  });
});

describe('quotes', () => {
  it('entering accepted creates the draft invoice, copying the quote, and links both ways', async () => {
    const q = (await api.post('/api/quotes', {
      client: clientIri, discountType: 'percentage', discountValue: 10, terms: 'Net 15', notes: 'Hello',
      lines: [{ description: 'Design', qty: 1.5, price: 20000, tax: exc20 }, { description: 'Build', price: 50000, tax: inc20 }],
    })).body;
    expect(q).toMatchObject({ subtotal: 71667, taxTotal: 12900, discountTotal: 7167, total: 77400 });
    await api.patch(q['@id'], { status: 'sent' });
    const accepted = await api.patch(q['@id'], { status: 'accepted' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.invoice).toMatch(/^\/api\/invoices\//);
    const inv = (await api.get(accepted.body.invoice)).body;
    expect(inv).toMatchObject({
      status: 'draft', client: clientIri, quote: q['@id'], discountType: 'percentage', discountValue: 10, terms: 'Net 15', notes: 'Hello',
      subtotal: 71667, taxTotal: 12900, discountTotal: 7167, total: 77400, currency: 'EUR',
    });
    expect(inv.number).toMatch(/^INV-\d{6}$/);
    expect(inv.lines.map((l: any) => [l.description, l.qty, l.price, l.tax])).toEqual([['Design', 1.5, 20000, exc20], ['Build', 1, 50000, inc20]]);
    // An accepted quote is final.
    violation(await api.patch(q['@id'], { notes: 'changed' }), 'notes');
    expect((await api.delete(q['@id'])).status).toBe(409);
  });

  it('does not create an invoice when the acceptance fails', async () => {
    const q = (await api.post('/api/quotes', { client: clientIri })).body;
    const before = (await api.get('/api/invoices?itemsPerPage=1')).body.totalItems;
    violation(await api.patch(q['@id'], { status: 'accepted' }), 'status');
    expect((await api.get('/api/invoices?itemsPerPage=1')).body.totalItems).toBe(before);
  });
});

describe('clients', () => {
  it('locks the currency once the client has invoices, quotes, recurring invoices or payments', async () => {
    const c = (await api.post('/api/clients', { name: 'Currency test', currency: 'GBP' })).body['@id'];
    const changed = await api.patch(c, { currency: 'USD' });
    expect(changed.status).toBe(200);
    expect(changed.body.currency).toBe('USD');
    const r = (await api.post('/api/recurring-invoices', { client: c, frequency: 'monthly', startDate: '2026-01-01' })).body;
    expect(r.currency).toBe('USD');
    expect(violation(await api.patch(c, { currency: 'EUR' }), 'currency')).toMatch(/recurring invoices/);
    expect((await api.patch(c, { currency: 'USD', notes: 'same currency is fine' })).status).toBe(200);
    expect((await api.get(c)).body.currency).toBe('USD');
    // The lock lifts when the documents are gone.
    expect((await api.delete(r['@id'])).status).toBe(204);
    expect((await api.patch(c, { currency: 'EUR' })).body.currency).toBe('EUR');
  });
});
