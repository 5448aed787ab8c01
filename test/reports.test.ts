// Reports (CONTRACT §21): revenue, tax and aging as declared operations of /api/reports, REST and
// GraphQL. Their figures equal the sums over the records the API returns, to the unit, for random
// data (fast-check: several currencies, rates and §18 categories, credit notes, partial payments,
// dates on both sides of period borders); aging buckets at their exact borders; a credit note in
// the quarter after its invoice's; one row per category at the same rate; roles, 422s, OpenAPI;
// and on PostgreSQL the plans read no other company's rows.
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { model } from '../server/model.ts';
import { agingSql, revenueSql, taxSql } from '../resources/rules/reports.ts';
import { rowsRead } from './support/explain.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

type X = Record<string, any>;
let t: TestServer;
let n = 0;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** A new company with an admin's client (each property run gets its own). */
async function company(currency = 'EUR'): Promise<Client> {
  n++;
  return client(t, await tokenFor(t, { email: `a${n}@reports.test`, company: `Reports ${n}`, currency }));
}

async function ok(res: Promise<{ status: number; text: string; body: any }>, status = 201): Promise<X> {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  return r.body;
}

/** Every record of a collection, page after page, as the API returns it. */
async function all(c: Client, path: string): Promise<X[]> {
  const out: X[] = [];
  let url: string | null = `${path}?itemsPerPage=100&after=WyJlZGdlIl0`;
  while (url) {
    const res = await c.get(url, { accept: 'application/ld+json' });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.member);
    url = res.body.view?.next ?? null;
  }
  return out;
}

const report = async (c: Client, path: string): Promise<X[]> => (await ok(c.get(path, { accept: 'application/json' }), 200)) as X[];

const periodOf = (day: string, by: 'month' | 'quarter' | 'year') =>
  by === 'year' ? day.slice(0, 4) : by === 'month' ? day.slice(0, 7) : `${day.slice(0, 4)}-Q${Math.ceil(Number(day.slice(5, 7)) / 3)}`;
const inRange = (day: string, from: string, to: string) => day >= from && day <= to;
/** A tax group's category (§18): every group the API returns carries one. */
const categoryOf = (g: X): string => {
  expect(g.category, JSON.stringify(g)).toMatch(/^(S|Z|E|AE|K|G|O)$/);
  return g.category;
};

function expectedRevenue(invoices: X[], notes: X[], payments: X[], from: string, to: string, by: 'month' | 'quarter' | 'year') {
  const m = new Map<string, X>();
  const add = (day: string, currency: string, k: string, v: number) => {
    if (!inRange(day, from, to)) return;
    const key = `${periodOf(day, by)}|${currency}`;
    const e = m.get(key) ?? { period: periodOf(day, by), currency, invoiced: 0, credited: 0, paid: 0 };
    e[k] += v;
    m.set(key, e);
  };
  for (const i of invoices) if (['pending', 'overdue', 'paid'].includes(i.status)) add(i.invoiceDate, i.currency, 'invoiced', i.total);
  for (const c of notes) if (c.status === 'issued') add(c.issueDate, c.currency, 'credited', c.total);
  for (const p of payments) add(new Date(p.paidAt).toISOString().slice(0, 10), p.currency, 'paid', p.amount);
  return [...m.values()].sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}

function expectedTax(invoices: X[], notes: X[], from: string, to: string) {
  const m = new Map<string, X>();
  const add = (currency: string, g: X, sign: number) => {
    const category = categoryOf(g);
    const key = `${currency}|${category}|${g.rate}`;
    const e = m.get(key) ?? { currency, category, rate: g.rate, taxable: 0, tax: 0 };
    e.taxable += sign * g.taxable;
    e.tax += sign * g.tax;
    m.set(key, e);
  };
  for (const i of invoices) if (['pending', 'overdue', 'paid'].includes(i.status) && inRange(i.invoiceDate, from, to)) for (const g of i.taxGroups) add(i.currency, g, 1);
  for (const c of notes) if (c.status === 'issued' && inRange(c.issueDate, from, to)) for (const g of c.taxGroups) add(c.currency, g, -1);
  return [...m.values()].sort((a, b) => a.currency.localeCompare(b.currency) || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0) || a.rate - b.rate);
}

const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000);

function expectedAging(invoices: X[], clients: X[], at: string) {
  const m = new Map<string, X>();
  for (const i of invoices) {
    if (!['pending', 'overdue'].includes(i.status)) continue;
    const age = daysBetween(at, i.dueDate ?? i.invoiceDate);
    const key = `${i.client}|${i.currency}`;
    const e = m.get(key) ?? { client: i.client, currency: i.currency, notDue: 0, days1to30: 0, days31to60: 0, days61to90: 0, over90: 0, total: 0 };
    e[age <= 0 ? 'notDue' : age <= 30 ? 'days1to30' : age <= 60 ? 'days31to60' : age <= 90 ? 'days61to90' : 'over90'] += i.balance;
    e.total += i.balance;
    m.set(key, e);
  }
  const name = new Map(clients.map((c) => [c['@id'], c.name]));
  return [...m.values()].filter((e) => e.total !== 0).sort((a, b) => (name.get(a.client) < name.get(b.client) ? -1 : name.get(a.client) > name.get(b.client) ? 1 : a.client < b.client ? -1 : 1));
}

// Days on both sides of month, quarter and year borders.
const DAYS = ['2025-12-31', '2026-01-01', '2026-01-31', '2026-02-01', '2026-03-31', '2026-04-01', '2026-06-30', '2026-07-01', '2026-09-30', '2026-10-01', '2026-12-31', '2027-01-01'];
// Taxes by their rate, and at 0 % with a category of their own (§18): the tax report keeps Z, E and
// G apart although their rate is the same.
const TAXES: X[] = [{ rate: 0 }, { rate: 5.5 }, { rate: 7 }, { rate: 20 }, { rate: 0, category: 'E', exemptionReasonCode: 'VATEX-EU-132' }, { rate: 0, category: 'G', exemptionReason: 'Export outside the EU' }];
const CURRENCIES = ['EUR', 'USD', 'JPY'];

const line = fc.record({ price: fc.integer({ min: 1, max: 200_000 }), qty: fc.constantFrom(1, 2, 3, 0.5, 1.25), tax: fc.constantFrom(-1, 0, 1, 2, 3, 4, 5), inclusive: fc.boolean() });
const invoiceArb = fc.record({
  client: fc.nat({ max: 2 }),
  day: fc.constantFrom(...DAYS),
  due: fc.nat({ max: 120 }),
  lines: fc.array(line, { minLength: 1, maxLength: 3 }),
  discount: fc.constantFrom('none', 'percentage'),
  status: fc.constantFrom('draft', 'pending', 'pending', 'pending', 'cancelled'),
  // A share of the total paid (0: nothing; 1: in full), and when.
  paid: fc.constantFrom(0, 0, 0.3, 0.5, 1),
  paidDay: fc.constantFrom(...DAYS),
  credit: fc.constantFrom(false, false, true),
  creditDay: fc.constantFrom(...DAYS),
});
const dataArb = fc.record({
  currencies: fc.shuffledSubarray(CURRENCIES, { minLength: 1, maxLength: 3 }),
  invoices: fc.array(invoiceArb, { minLength: 1, maxLength: 7 }),
  // Credit notes of their own (not linked to an invoice), issued or left as drafts.
  notes: fc.array(fc.record({ client: fc.nat({ max: 2 }), day: fc.constantFrom(...DAYS), lines: fc.array(line, { minLength: 1, maxLength: 2 }), issued: fc.boolean() }), { maxLength: 3 }),
  groupBy: fc.constantFrom('month', 'quarter', 'year'),
  window: fc.constantFrom(['2025-01-01', '2027-12-31'], ['2026-01-01', '2026-12-31'], ['2026-04-01', '2026-06-30'], ['2026-02-01', '2026-03-31']),
  agingAt: fc.constantFrom('2026-01-01', '2026-03-31', '2026-07-15', '2027-02-01'),
});

describe('reports', () => {
  it('equal the sums over the records the API returns, to the unit (property, random data)', async () => {
    await fc.assert(
      fc.asyncProperty(dataArb, async (d) => {
        const c = await company();
        const taxes: string[] = [];
        for (const [k, tax] of TAXES.entries()) {
          taxes.push((await ok(c.post('/api/taxes', { ...tax, name: `T${k}`, type: 'exclusive' })))['@id']);
          taxes.push((await ok(c.post('/api/taxes', { ...tax, name: `I${k}`, type: 'inclusive' })))['@id']);
        }
        const clients: string[] = [];
        for (const [k, cur] of [0, 1, 2].map((i) => [i, d.currencies[i % d.currencies.length]!] as const)) clients.push((await ok(c.post('/api/clients', { name: `Client ${k} "${cur}"`, currency: cur })))['@id']);
        const lines = (ls: typeof d.invoices[number]['lines']) => ls.map((l, k) => ({ description: `L${k}`, price: l.price, qty: l.qty, ...(l.tax >= 0 ? { tax: taxes[l.tax * 2 + (l.inclusive ? 1 : 0)] } : {}) }));
        for (const i of d.invoices) {
          const due = new Date(Date.parse(`${i.day}T00:00:00Z`) + i.due * 86_400_000).toISOString().slice(0, 10);
          const inv = await ok(c.post('/api/invoices', { client: clients[i.client], invoiceDate: i.day, dueDate: due, discountType: i.discount, discountValue: i.discount === 'none' ? 0 : 10, lines: lines(i.lines) }));
          if (i.status === 'draft') continue;
          await ok(c.patch(inv['@id'], { status: 'pending' }), 200);
          if (i.status === 'cancelled') {
            await ok(c.patch(inv['@id'], { status: 'cancelled' }), 200);
            continue;
          }
          const amount = Math.floor(inv.total * i.paid);
          if (amount > 0) await ok(c.post('/api/payments', { invoice: inv['@id'], amount, paidAt: `${i.paidDay}T23:30:00Z` }));
          if (i.credit && amount < inv.total) {
            const note = await ok(c.post(`${inv['@id']}/credit`, {}));
            await ok(c.patch(note['@id'], { issueDate: i.creditDay }), 200);
            await ok(c.patch(note['@id'], { status: 'issued' }), 200);
          }
        }
        for (const cn of d.notes) {
          const note = await ok(c.post('/api/credit-notes', { client: clients[cn.client], issueDate: cn.day, lines: lines(cn.lines) }));
          if (cn.issued) await ok(c.patch(note['@id'], { status: 'issued' }), 200);
        }
        const [invoices, notes, payments, clientRecs] = await Promise.all([all(c, '/api/invoices'), all(c, '/api/credit-notes'), all(c, '/api/payments'), all(c, '/api/clients')]);
        const [from, to] = d.window as readonly [string, string];
        expect(await report(c, `/api/reports/revenue?from=${from}&to=${to}&groupBy=${d.groupBy}`)).toEqual(expectedRevenue(invoices, notes, payments, from!, to!, d.groupBy));
        expect(await report(c, `/api/reports/tax?from=${from}&to=${to}`)).toEqual(expectedTax(invoices, notes, from!, to!));
        expect(await report(c, `/api/reports/aging?date=${d.agingAt}`)).toEqual(expectedAging(invoices, clientRecs, d.agingAt));
      }),
      { numRuns: Number(process.env.REPORTS_RUNS ?? 6), endOnFailure: true },
    );
  }, 600_000);
});

describe('reports at their borders', () => {
  it('puts each balance in its aging bucket at the exact borders (0, 1, 30, 31, 60, 61, 90, 91 days)', async () => {
    const c = await company();
    const cl = await ok(c.post('/api/clients', { name: 'Borders' }));
    const at = '2026-06-30';
    const ages = [0, 1, 30, 31, 60, 61, 90, 91, -5];
    for (const [k, age] of ages.entries()) {
      const due = new Date(Date.parse(`${at}T00:00:00Z`) - age * 86_400_000).toISOString().slice(0, 10);
      const inv = await ok(c.post('/api/invoices', { client: cl['@id'], invoiceDate: '2026-01-01', dueDate: due, lines: [{ description: 'x', price: 10 ** k }] }));
      await ok(c.patch(inv['@id'], { status: 'pending' }), 200);
    }
    // Balances 1, 10, 100, … so that each bucket's sum says which invoices it holds.
    expect(await report(c, `/api/reports/aging?date=${at}`)).toEqual([
      { client: cl['@id'], currency: 'EUR', notDue: 1 + 100_000_000, days1to30: 10 + 100, days31to60: 1000 + 10_000, days61to90: 100_000 + 1_000_000, over90: 10_000_000, total: 111_111_111 },
    ]);
  });

  it('counts a credit note in the quarter it is issued, not in its invoice\'s', async () => {
    const c = await company();
    const cl = await ok(c.post('/api/clients', { name: 'Quarterly' }));
    const vat = await ok(c.post('/api/taxes', { name: 'VAT', rate: 20 }));
    const inv = await ok(c.post('/api/invoices', { client: cl['@id'], invoiceDate: '2026-03-31', dueDate: '2026-04-30', lines: [{ description: 'x', price: 10000, tax: vat['@id'] }] }));
    await ok(c.patch(inv['@id'], { status: 'pending' }), 200);
    const note = await ok(c.post('/api/credit-notes', { client: cl['@id'], invoice: inv['@id'], issueDate: '2026-04-01', lines: [{ description: 'refund', price: 2500, tax: vat['@id'] }] }));
    await ok(c.patch(note['@id'], { status: 'issued' }), 200);
    expect(await report(c, '/api/reports/tax?from=2026-01-01&to=2026-03-31')).toEqual([{ currency: 'EUR', category: 'S', rate: 20, taxable: 10000, tax: 2000 }]);
    expect(await report(c, '/api/reports/tax?from=2026-04-01&to=2026-06-30')).toEqual([{ currency: 'EUR', category: 'S', rate: 20, taxable: -2500, tax: -500 }]);
    expect(await report(c, '/api/reports/tax?from=2026-01-01&to=2026-12-31')).toEqual([{ currency: 'EUR', category: 'S', rate: 20, taxable: 7500, tax: 1500 }]);
    expect(await report(c, '/api/reports/revenue?from=2026-01-01&to=2026-12-31&groupBy=quarter')).toEqual([
      { period: '2026-Q1', currency: 'EUR', invoiced: 12000, credited: 0, paid: 0 },
      { period: '2026-Q2', currency: 'EUR', invoiced: 0, credited: 3000, paid: 0 },
    ]);
    // Aging: today's balance (12000 − 3000), 1 day past due on 2026-05-01.
    expect(await report(c, '/api/reports/aging?date=2026-05-01')).toEqual([{ client: cl['@id'], currency: 'EUR', notDue: 0, days1to30: 9000, days31to60: 0, days61to90: 0, over90: 0, total: 9000 }]);
  });

  it('gives each tax category its own row, at the same rate too, ordered by currency, category and rate', async () => {
    const c = await company();
    const cl = await ok(c.post('/api/clients', { name: 'Categories' }));
    const vat = await ok(c.post('/api/taxes', { name: 'VAT', rate: 20 }));
    const exempt = await ok(c.post('/api/taxes', { name: 'Exempt', rate: 0, category: 'E', exemptionReasonCode: 'VATEX-EU-132' }));
    const zero = await ok(c.post('/api/taxes', { name: 'Zero', rate: 0 }));
    const inv = await ok(c.post('/api/invoices', {
      client: cl['@id'], invoiceDate: '2026-05-10', dueDate: '2026-06-10',
      lines: [{ description: 's', price: 10000, tax: vat['@id'] }, { description: 'e', price: 3000, tax: exempt['@id'] }, { description: 'z', price: 700, tax: zero['@id'] }, { description: 'none', price: 50 }],
    }));
    await ok(c.patch(inv['@id'], { status: 'pending' }), 200);
    const note = await ok(c.post('/api/credit-notes', { client: cl['@id'], invoice: inv['@id'], issueDate: '2026-05-20', lines: [{ description: 'e back', price: 1000, tax: exempt['@id'] }] }));
    await ok(c.patch(note['@id'], { status: 'issued' }), 200);
    // A line without a tax joins the Z 0 % group (§6), beside the Z tax's line.
    expect(await report(c, '/api/reports/tax?from=2026-05-01&to=2026-05-31')).toEqual([
      { currency: 'EUR', category: 'E', rate: 0, taxable: 2000, tax: 0 },
      { currency: 'EUR', category: 'S', rate: 20, taxable: 10000, tax: 2000 },
      { currency: 'EUR', category: 'Z', rate: 0, taxable: 750, tax: 0 },
    ]);
  });
});

describe('the reports as operations', () => {
  let c: Client;
  beforeAll(async () => {
    c = await company('USD');
    const cl = await ok(c.post('/api/clients', { name: 'Ops' }));
    const inv = await ok(c.post('/api/invoices', { client: cl['@id'], lines: [{ description: 'x', price: 500 }] }));
    await ok(c.patch(inv['@id'], { status: 'pending' }), 200);
  });

  it('default to the current year and today, in every format and in GraphQL', async () => {
    const year = new Date().toISOString().slice(0, 4);
    const month = new Date().toISOString().slice(0, 7);
    expect(await report(c, '/api/reports/revenue')).toEqual([{ period: month, currency: 'USD', invoiced: 500, credited: 0, paid: 0 }]);
    expect(await report(c, '/api/reports/revenue?groupBy=year')).toEqual([{ period: year, currency: 'USD', invoiced: 500, credited: 0, paid: 0 }]);
    expect(await report(c, '/api/reports/tax')).toEqual([{ currency: 'USD', category: 'Z', rate: 0, taxable: 500, tax: 0 }]);
    expect((await report(c, '/api/reports/aging'))[0]).toMatchObject({ currency: 'USD', notDue: 500, total: 500 });
    const ld = await c.get('/api/reports/tax', { accept: 'application/ld+json' });
    expect(ld.status).toBe(200);
    expect(ld.body).toMatchObject({ '@type': 'Collection', totalItems: 1, member: [{ '@type': 'TaxReport', category: 'Z' }] });
    expect(ld.headers.get('x-total-count')).toBe('1');
    const gql = await call(t, 'POST', '/api/graphql', {
      token: c.token, contentType: 'application/json',
      body: { query: `{ revenueReport(groupBy: "year", from: "${year}-01-01", to: "${year}-12-31") { totalCount items { period currency invoiced credited paid } } taxReport { items { category rate taxable tax } } agingReport(date: "2000-01-01") { items { client notDue total } } }` },
    });
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data.revenueReport).toEqual({ totalCount: 1, items: [{ period: year, currency: 'USD', invoiced: 500, credited: 0, paid: 0 }] });
    expect(gql.body.data.taxReport.items).toEqual([{ category: 'Z', rate: 0, taxable: 500, tax: 0 }]);
    expect(gql.body.data.agingReport.items[0]).toMatchObject({ notDue: 500, total: 500 });
  });

  it('answer 400 for a malformed parameter and 422 for a bad or too long period, naming the parameter, in REST and GraphQL', async () => {
    // Malformed values are refused by the operation runner from the declared query schema (400);
    // dates that do not exist and periods the report cannot take by the report (422).
    const cases: [string, string, number][] = [
      ['/api/reports/revenue?from=2026-13-01', 'from', 422],
      ['/api/reports/revenue?from=2026-02-30', 'from', 422],
      ['/api/reports/revenue?to=yesterday', 'to', 400],
      ['/api/reports/revenue?groupBy=week', 'groupBy', 400],
      ['/api/reports/revenue?from=2020-01-01&to=2025-01-01', 'to', 422],
      ['/api/reports/tax?from=2026-05-01&to=2026-04-30', 'to', 422],
      ['/api/reports/aging?date=2026-1-1', 'date', 400],
    ];
    for (const [path, param, status] of cases) {
      const res = await c.get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(res.body.violations.map((v: X) => v.propertyPath), path).toContain(param);
    }
    // Exactly 5 years less a day is allowed.
    expect((await c.get('/api/reports/tax?from=2020-01-01&to=2024-12-31')).status).toBe(200);
    const gql = await call(t, 'POST', '/api/graphql', { token: c.token, contentType: 'application/json', body: { query: '{ taxReport(from: "2020-01-01", to: "2030-01-01") { items { tax } } }' } });
    expect(gql.body.errors[0].extensions.status).toBe(422);
  });

  it('are for members and admins, and show only the caller\'s company', async () => {
    const viewer = client(t, await tokenFor(t, { email: `v${n}@reports.test`, company: `Reports ${n}`, role: 'viewer' }));
    const member = client(t, await tokenFor(t, { email: `m${n}@reports.test`, company: `Reports ${n}`, role: 'member' }));
    for (const name of ['revenue', 'tax', 'aging']) {
      expect((await viewer.get(`/api/reports/${name}`)).status).toBe(403);
      expect((await member.get(`/api/reports/${name}`)).status).toBe(200);
      expect((await c.post(`/api/reports/${name}`, {})).status).toBe(405);
    }
    const other = await company('USD');
    expect(await report(other, '/api/reports/revenue')).toEqual([]);
    expect(await report(other, '/api/reports/aging')).toEqual([]);
    expect((await c.get('/api/reports')).status).toBe(404);
  });

  it('are described in OpenAPI with their typed query parameters', async () => {
    const doc = (await call(t, 'GET', '/api/docs.json')).body;
    const op = doc.paths['/api/reports/revenue'].get;
    expect(op.operationId).toBe('api_reports_revenue_get');
    const groupBy = op.parameters.find((p: X) => p.name === 'groupBy');
    expect(groupBy.in).toBe('query');
    expect(JSON.stringify(groupBy.schema)).toContain('quarter');
    expect(op.parameters.find((p: X) => p.name === 'from').schema.pattern).toBeTruthy();
    expect(op.responses['422']).toBeDefined();
    expect(doc.paths['/api/reports/tax'].get).toBeDefined();
    expect(doc.paths['/api/reports/aging'].get.parameters.map((p: X) => p.name)).toContain('date');
    expect(doc.tags.map((x: X) => x.name)).toContain('Report');
  });
});

/** Whether every scan of `relation` in a plan is an index range on (company_id, `column`, …): no sequential scan. */
function indexed(plan: unknown, relation: string, column: string): boolean {
  const conds: string[] = [];
  let seq = false;
  const walk = (node: Record<string, unknown>, under?: string) => {
    const rel = (node['Relation Name'] as string | undefined) ?? under;
    if (node['Node Type'] === 'Seq Scan' && rel === relation) seq = true;
    if (rel === relation && typeof node['Index Cond'] === 'string') conds.push(node['Index Cond']);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child, node['Node Type'] === 'Bitmap Heap Scan' ? rel : undefined);
  };
  walk(plan as Record<string, unknown>);
  return !seq && conds.length > 0 && conds.every((c) => c.includes('company_id =') && c.includes(column));
}

describe('cost', () => {
  it.skipIf(!process.env.DATABASE_URL)('reads no other company\'s rows, through the (company, date) and (company, status) indexes (EXPLAIN ANALYZE)', async () => {
    const db = t.db.database.db;
    // Two companies, in SQL: A with 40 clients and 2,000 invoices, B ten times as many; the reports
    // of A read A's rows only.
    const ids: string[] = [];
    for (const [name, size] of [['Big A', 1], ['Big B', 10]] as const) {
      const c = client(t, await tokenFor(t, { email: `${name.replace(' ', '')}@reports.test`, company: name }));
      const cl = await ok(c.post('/api/clients', { name }));
      const [row] = rowsOf<{ company: string }>(await db.execute(sql`select company_id::text as company from clients where id = ${cl.id}`));
      ids.push(row!.company);
      await db.execute(sql`insert into clients (id, company_id, name, currency, status, e_invoice_format) select gen_random_uuid(), ${row!.company}, ${name} || ' ' || g, 'EUR', 'active', 'peppol' from generate_series(2, ${40 * size}::int) g`);
      await db.execute(sql`insert into invoices (id, company_id, number, client_id, status, invoice_date, due_date, discount_type, discount_value, total, balance, currency, tax_groups)
        select gen_random_uuid(), ${row!.company}, 'N-' || g, (select id from clients where company_id = ${row!.company} order by id offset g % ${40 * size}::int limit 1), (array['pending', 'overdue', 'paid', 'draft'])[1 + g % 4], date '2024-01-01' + (g % 900), date '2024-01-31' + (g % 900),
          'none', 0, 1000 + g, case when g % 4 < 2 then 1000 + g else 0 end, 'EUR', jsonb_build_array(jsonb_build_object('rate', 20, 'base', 1000, 'discount', 0, 'taxable', 1000, 'tax', 200))
        from generate_series(1, ${2000 * size}::int) g`);
      await db.execute(sql`insert into payments (id, company_id, invoice_id, client_id, amount, currency, method, paid_at)
        select gen_random_uuid(), company_id, id, client_id, 100, 'EUR', 'other', invoice_date::timestamptz + interval '3 days' from invoices where company_id = ${row!.company} and status = 'paid'`);
    }
    await db.execute(sql`analyze invoices; analyze payments; analyze credit_notes; analyze clients`);
    const [a] = ids;
    const explain = async (q: ReturnType<typeof sql>) => {
      const [row] = rowsOf<Record<string, unknown>>(await db.execute(sql`explain (analyze, format json) ${q}`));
      const json = Object.values(row!)[0] as { Plan: unknown }[] | string;
      return (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan;
    };
    const own = async (where: string) => Number(rowsOf<{ n: number }>(await db.execute(sql.raw(`select count(*)::int as n from invoices where company_id = '${a}' and ${where}`)))[0]!.n);
    // A year: the invoices dated in it (any status), the year's payments.
    const year = await explain(revenueSql({ model }, a!, '2025-01-01', '2025-12-31', 'month'));
    expect(rowsRead(year, 'invoices')).toBeLessThanOrEqual(await own("invoice_date between '2025-01-01' and '2025-12-31'"));
    expect(indexed(year, 'invoices', 'invoice_date')).toBe(true);
    expect(rowsRead(year, 'payments')).toBeLessThanOrEqual(2000);
    const tax = await explain(taxSql({ model }, a!, '2025-01-01', '2025-03-31'));
    expect(rowsRead(tax, 'invoices')).toBeLessThanOrEqual(await own("invoice_date between '2025-01-01' and '2025-03-31'"));
    expect(indexed(tax, 'invoices', 'invoice_date')).toBe(true);
    const aging = await explain(agingSql({ model }, a!, '2026-01-01'));
    // Half of A's invoices are open: the planner may read A's range, never B's.
    expect(rowsRead(aging, 'invoices')).toBeLessThanOrEqual(await own('true'));
    expect(indexed(aging, 'invoices', 'company_id')).toBe(true);
    // Each owing client's name, by its key.
    expect(rowsRead(aging, 'clients')).toBeLessThanOrEqual(40);
  });
});
