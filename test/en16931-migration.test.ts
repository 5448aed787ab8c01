// The migration that brings CONTRACT §6 (tax per rate on the discounted net, EN 16931): drafts,
// draft quotes and recurring invoices are recomputed; every other document keeps the amounts it
// was issued with, and an issued invoice whose discount was taken after tax stays a 422 as UBL.
// The documents are made through the API, then set back to what the earlier rule stored, and the
// migration's data statements run again over them. The SQL form of the rule that the migration
// keeps in the schema (en16931_tax_groups) is held to the TypeScript one on random documents.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { computeTotals, divRound, lineAmounts, scaled, type Discount, type LineInput } from '../resources/rules/totals.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;
const tax: Record<string, string> = {};
type X = Record<string, any>;

const exec = async (q: ReturnType<typeof sql>) => rowsOf<X>(await t.db.database.db.execute(q));

/** The data statements of the migration (its ALTER TABLEs have run already). */
function migrationData(): string[] {
  // The totals' part of the migration (it goes on with the credit notes' tables).
  const text = readFileSync(new URL('../drizzle/0016_en16931_credit_notes.sql', import.meta.url), 'utf8').split('-- Credit notes (CONTRACT §14).')[0]!;
  return text.split('--> statement-breakpoint').map((s) => s.trim()).filter((s) => s && !/^ALTER TABLE/i.test(s));
}

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'm@m.test', company: 'M', currency: 'EUR' }));
  await api.patch('/api/company', { legalName: 'M GmbH', email: 'billing@m.test', vatNumber: 'DE123456789', country: 'DE', city: 'Berlin', peppolId: '9930:DE123456789' });
  clientIri = (await api.post('/api/clients', { name: 'Buyer', vatNumber: 'NL999999999B01', peppolId: '9944:NL999999999B01' })).body['@id'];
  await api.post('/api/addresses', { client: clientIri, city: 'Amsterdam', country: 'NL' });
  await api.post('/api/contacts', { client: clientIri, firstName: 'Ann', email: 'ann@buyer.test' });
  tax.s20 = (await api.post('/api/taxes', { name: 'VAT 20', rate: 20 })).body['@id'];
  tax.s7 = (await api.post('/api/taxes', { name: 'VAT 7', rate: 7 })).body['@id'];
  tax.i10 = (await api.post('/api/taxes', { name: 'GST incl', rate: 10, type: 'inclusive' })).body['@id'];
});
afterAll(() => t.close());

const lines = () => [
  { description: 'Design', qty: 3, price: 3333, tax: tax.s20 },
  { description: 'Books', qty: 1, price: 4550, tax: tax.s7 },
  { description: 'Included', qty: 1.5, price: 1999, tax: tax.i10 },
];
const amounts = (b: X) => ({ subtotal: b.subtotal, taxTotal: b.taxTotal, discountTotal: b.discountTotal, total: b.total, ...(b.balance !== undefined ? { balance: b.balance } : {}) });

/** What the earlier rule stored: each line's tax, the discount taken off the amount after tax. */
function earlierRule(ls: { price: number; qty: number; rate: number | null; inclusive: boolean }[], d: Discount) {
  let subtotal = 0n;
  let taxTotal = 0n;
  for (const l of ls) {
    const total = divRound(BigInt(l.price) * scaled(l.qty), 10_000n);
    const tx = l.rate === null ? 0n : l.inclusive ? total - divRound(total * 1_000_000n, 1_000_000n + scaled(l.rate)) : divRound(total * scaled(l.rate), 1_000_000n);
    subtotal += l.inclusive ? total - tx : total;
    taxTotal += tx;
  }
  const gross = subtotal + taxTotal;
  const discountTotal = d.type === 'percentage' ? divRound(gross * scaled(d.value), 1_000_000n) : d.type === 'fixed' ? BigInt(d.value) : 0n;
  return { subtotal: Number(subtotal), taxTotal: Number(taxTotal), discountTotal: Number(discountTotal), total: Number(gross - discountTotal) };
}
const earlier = (d: Discount) => earlierRule([{ price: 3333, qty: 3, rate: 20, inclusive: false }, { price: 4550, qty: 1, rate: 7, inclusive: false }, { price: 1999, qty: 1.5, rate: 10, inclusive: true }], d);

describe('the migration to the EN 16931 rule', () => {
  it('recomputes drafts, draft quotes and recurring invoices; issued documents keep their amounts', async () => {
    const pct: Discount = { type: 'percentage', value: 10 };
    const fixed: Discount = { type: 'fixed', value: 2000 };
    const draft = (await api.post('/api/invoices', { client: clientIri, discountType: 'percentage', discountValue: 10, lines: lines() })).body;
    const issued = (await api.post('/api/invoices', { client: clientIri, dueDate: '2099-01-01', discountType: 'fixed', discountValue: 2000, lines: lines() })).body;
    expect((await api.patch(issued['@id'], { status: 'pending' })).status).toBe(200);
    const plain = (await api.post('/api/invoices', { client: clientIri, dueDate: '2099-01-01', lines: lines() })).body;
    expect((await api.patch(plain['@id'], { status: 'pending' })).status).toBe(200);
    const quote = (await api.post('/api/quotes', { client: clientIri, discountType: 'percentage', discountValue: 10, lines: lines() })).body;
    const recurring = (await api.post('/api/recurring-invoices', {
      client: clientIri, frequency: 'monthly', startDate: '2099-01-01', discountType: 'fixed', discountValue: 2000,
      lines: lines().map((l) => ({ description: l.description, qty: l.qty, price: l.price, tax: l.tax })),
    })).body;
    for (const d of [draft, issued, plain, quote, recurring]) expect(d.taxGroups.length, JSON.stringify(d)).toBe(3);

    // The database as the earlier rule left it: amounts with the discount after tax, no groups, no line nets.
    const old = { draft: earlier(pct), issued: earlier(fixed), plain: earlier({ type: 'none', value: 0 }), quote: earlier(pct), recurring: earlier(fixed) };
    expect(old.issued).not.toEqual(amounts(issued)); // the rules disagree on these documents
    const setOld = async (table: string, id: string, a: ReturnType<typeof earlierRule>, balance: boolean) => {
      await exec(sql`update ${sql.identifier(table)} set subtotal = ${a.subtotal}, tax_total = ${a.taxTotal}, discount_total = ${a.discountTotal}, total = ${a.total},
        tax_groups = '[]'::jsonb ${balance ? sql`, balance = ${a.total} - amount_paid` : sql``} where id = ${id}`);
    };
    await setOld('invoices', draft.id, old.draft, true);
    await setOld('invoices', issued.id, old.issued, true);
    await setOld('invoices', plain.id, old.plain, true);
    await setOld('quotes', quote.id, old.quote, false);
    await setOld('recurring_invoices', recurring.id, old.recurring, false);
    await exec(sql`update invoice_lines set net = 0`);
    await exec(sql`update quote_lines set net = 0`);

    for (const statement of migrationData()) await exec(sql.raw(statement));

    // Drafts and templates: the rule's figures, as the API computes them.
    const now = async (iri: string) => (await api.get(iri)).body;
    for (const d of [draft, quote, recurring]) {
      const after = await now(d['@id']);
      expect(amounts(after)).toEqual(amounts(d));
      // The groups' amounts: their categories and reasons (CONTRACT §18) came with a later migration.
      const groupAmounts = (gs: X[]) => gs.map((g) => ({ rate: g.rate, base: g.base, discount: g.discount, taxable: g.taxable, tax: g.tax }));
      expect(groupAmounts(after.taxGroups)).toEqual(groupAmounts(d.taxGroups));
    }
    expect((await now(draft['@id'])).lines.map((l: X) => l.net)).toEqual(draft.lines.map((l: X) => l.net));
    // Issued: the amounts do not move.
    const issuedAfter = await now(issued['@id']);
    expect(amounts(issuedAfter)).toEqual({ ...old.issued, balance: old.issued.total });
    expect(issuedAfter.lines.map((l: X) => l.net)).toEqual(issued.lines.map((l: X) => l.net));
    const plainAfter = await now(plain['@id']);
    expect(amounts(plainAfter)).toEqual({ ...old.plain, balance: old.plain.total });
    // Their groups are those amounts per rate, without discount.
    const sum = (gs: X[], k: string) => gs.reduce((s, g) => s + Number(g[k]), 0);
    expect(sum(plainAfter.taxGroups, 'tax')).toBe(old.plain.taxTotal);
    expect(sum(plainAfter.taxGroups, 'base')).toBe(old.plain.subtotal);
    expect(sum(issuedAfter.taxGroups, 'discount')).toBe(0);

    // UBL: the issued invoice with an after-tax discount stays a 422 on discountType; the one
    // without a discount is an e-invoice (and passes the rule checker, in helpers.ts's call).
    const ubl = { accept: 'application/vnd.oasis.ubl+xml' };
    const refused = await api.get(issued['@id'], ubl);
    expect(refused.status).toBe(422);
    expect(refused.body.violations.map((v: X) => v.propertyPath)).toEqual(['discountType']);
    expect((await api.get(plain['@id'], ubl)).status).toBe(200);
    expect((await api.get(draft['@id'], ubl)).status).toBe(200);
  });
});

describe('the rule in SQL (en16931_tax_groups) agrees with resources/rules/totals.ts', () => {
  it('on random documents', async () => {
    const decimal4 = (min: number, max: number) => fc.integer({ min: min * 10000, max: max * 10000 }).map((n) => (n / 10000).toFixed(4));
    const line: fc.Arbitrary<LineInput> = fc.record({
      price: fc.integer({ min: -100_000, max: 10_000_000 }),
      qty: decimal4(0, 1000).filter((q) => Number(q) > 0),
      tax: fc.option(fc.record({ rate: fc.constantFrom('0', '5.5', '7', '10', '20', '8.875', '0.0125'), type: fc.constantFrom('exclusive' as const, 'inclusive' as const) }), { nil: null }),
    });
    const discount: fc.Arbitrary<Discount> = fc.oneof(
      fc.constant<Discount>({ type: 'none', value: 0 }),
      decimal4(0, 100).map((value): Discount => ({ type: 'percentage', value })),
      fc.integer({ min: 0, max: 5_000_000 }).map((value): Discount => ({ type: 'fixed', value })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), discount, async (ls, d) => {
        const ts = computeTotals(ls, d);
        const input = ls.map((l) => ({ ...lineAmounts(l), rate: l.tax ? l.tax.rate : null, inclusive: l.tax?.type === 'inclusive' }));
        const [row] = await exec(sql`select en16931_tax_groups(${JSON.stringify(input)}::jsonb, ${d.type}, ${String(d.value)}::numeric) as g`);
        const groups = (typeof row!.g === 'string' ? JSON.parse(row!.g) : row!.g) as X[];
        expect(groups.map((g) => ({ rate: Number(g.rate), base: Number(g.base), discount: Number(g.discount), taxable: Number(g.taxable), tax: Number(g.tax) }))).toEqual(ts.groups.map((g) => ({ rate: Number(g.rate), base: g.base, discount: g.discount, taxable: g.taxable, tax: g.tax })));
      }),
      { numRuns: 300 },
    );
  });
});
