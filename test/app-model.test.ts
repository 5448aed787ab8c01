// The web application's parts that need no browser: the model's description it is built from
// (http/describe.ts) — including a test model with one extra descriptor, which gets its list,
// record and form with no UI code —, the pure functions of web/app/lib.js (addresses, money in
// a currency's decimals, the list's one GraphQL request, violations at their fields), the /app
// shell and its sign-in redirect, and the dashboard's declared operation on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeModel, type ModelDescription } from '../http/describe.ts';
import { buildModel } from '../engine/model.ts';
import { descriptors } from '../resources/index.ts';
import { lastMonths } from '../resources/rules/dashboard.ts';
import { model } from '../server/model.ts';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { Browserish } from './web-helpers.ts';
import expense from './fixtures/expense.ts';
// @ts-expect-error: the pages' plain ES module (web/app/lib.js), run here as the browser runs it.
import * as lib from '../web/app/lib.js';
// @ts-expect-error: the pages' plain ES modules: /app's words in English, as the English page gets them.
import { setLanguage } from '../web/app/lib.js';
// The English catalogue as the English page gets it: its messages parsed (http/describe-i18n.ts).
import { appCatalogue } from '../http/describe-i18n.ts';

setLanguage('en', 'en', appCatalogue('en'));

const desc = (d: ModelDescription) => lib.indexDescription(structuredClone(d));

describe('the description the application is built from', () => {
  const d = describeModel(model);

  it('lists every resource with REST operations; lines have an owner and no page of their own', () => {
    expect(d.navigation).toEqual(['Client', 'Contact', 'Address', 'Tax', 'Invoice', 'Quote', 'RecurringInvoice', 'Payment', 'CreditNote']);
    // Developer resources under Settings (descriptor present.group).
    // The resources the server stores (API tokens, people) are in the one model and described,
    // but reached from the settings pages, not from the navigation.
    expect(d.settings).toEqual(['Webhook', 'DocumentLink', 'Email']);
    expect(d.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['ApiToken', 'Member', 'Invitation']));
    const line = d.resources.find((r) => r.name === 'InvoiceLine')!;
    expect(line.owner).toEqual({ resource: 'Invoice', field: 'invoice' });
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });

  it('describes fields, states, documents and operations of an invoice', () => {
    const inv = d.resources.find((r) => r.name === 'Invoice')!;
    const f = (n: string) => inv.fields.find((x) => x.name === n)!;
    expect(inv).toMatchObject({ iri: '/api/invoices', path: '/app/invoices', title: 'number', search: 'number', gql: true });
    expect(inv.columns).toEqual(['number', 'client', 'status', 'invoiceDate', 'dueDate', 'total', 'balance']);
    expect(f('client')).toMatchObject({ kind: 'ref', target: 'Client', required: true, filter: 'exact' });
    expect(f('total')).toMatchObject({ kind: 'money', readOnly: true, order: true });
    // Data for programs (the kept parties' JSON) is not shown to people.
    expect(inv.fields.map((x) => x.name)).not.toContain('parties');
    expect(f('discountValue')).toMatchObject({ kind: 'decimal', scale: 4, label: 'Discount', unit: { field: 'discountType', values: { percentage: 'percent', fixed: 'money' } } });
    // Presentation as declared: default order, currency, sections, guards, actions, operations' conditions.
    expect(inv.defaultOrder).toEqual({ field: 'createdAt', dir: 'desc' });
    expect(inv.currency).toEqual({ field: 'currency', from: 'client' });
    expect(inv.sections!.map((x) => x.label)).toEqual(['Invoice', 'Discount', 'Terms and notes']);
    expect(inv.states!.guards).toEqual([{ to: 'draft', when: { amountPaid: { eq: 0 }, amountCredited: { eq: 0 } }, because: expect.any(String) }]);
    expect(inv.states!.actions!.pending).toMatchObject({ label: 'Issue', confirm: expect.stringContaining('can no longer change') });
    expect(inv.operations.find((o) => o.name === 'credit')).toMatchObject({ when: { status: { in: ['pending', 'overdue'] }, balance: { gt: 0 } }, label: 'Credit' });
    // "Credit" asks what to credit in its view, from its declared input (views/credit.js).
    const credit = inv.operations.find((o) => o.name === 'credit')!;
    expect(credit).toMatchObject({ view: 'credit', whole: 'balance', input: true, resource: 'CreditNote' });
    expect(credit.schema).toMatchObject({ type: 'object', properties: { lines: { type: 'array', items: { type: 'object', required: ['line'] } }, amount: { type: 'integer', minimum: 1 } } });
    expect(inv.operations.find((o) => o.name === 'dashboard')).toMatchObject({ view: 'dashboard' });
    expect(f('status')).toMatchObject({ kind: 'enum', values: ['draft', 'pending', 'overdue', 'paid', 'cancelled'] });
    expect(f('lines')).toMatchObject({ kind: 'children', target: 'InvoiceLine', embedded: true, orderBy: 'position', via: 'invoice' });
    expect(f('dueDate').updatable).toBe(true);
    expect(inv.states!.transitions.draft).toEqual(['pending', 'cancelled']);
    expect(inv.states!.editable!.pending).toEqual(['dueDate', 'terms', 'notes']);
    expect(inv.documents.map((x) => x.extension)).toEqual(['pdf', 'xml']);
    expect(inv.operations.map((o) => o.name)).toEqual(['dashboard', 'credit']);
    const pay = d.resources.find((r) => r.name === 'Payment')!;
    expect(pay.fields.find((x) => x.name === 'amount')).toMatchObject({ kind: 'money', writeOnce: true, required: true });
    expect(pay.fields.find((x) => x.name === 'amount')!.updatable).toBeUndefined();
    const rec = d.resources.find((r) => r.name === 'RecurringInvoice')!;
    expect(rec.fields.find((x) => x.name === 'lines')!.of!.map((m) => `${m.name}:${m.kind}`)).toEqual(['description:text', 'qty:decimal', 'price:money', 'tax:ref']);
    const hook = d.resources.find((r) => r.name === 'Webhook')!;
    expect(hook.fields.find((x) => x.name === 'events')!.values).toContain('invoice.paid');
    expect(hook.fields.some((x) => x.name === 'secret' && x.readOnly)).toBe(true);
  });

  it('a model with one more descriptor gets its pages: navigation, list columns, form fields, reference picker', () => {
    const extended = lib.indexDescription(describeModel(buildModel([...descriptors, expense])));
    expect(extended.navigation).toContain('Expense');
    const r = extended.get('Expense');
    expect(r).toMatchObject({ path: '/app/expenses', iri: '/api/expenses', title: 'label', search: 'label', gql: true });
    expect(r.columns).toEqual(['label', 'client', 'amount']);
    expect(lib.route(extended, '/app/expenses', '').view).toBe('list');
    expect(lib.route(extended, '/app/expenses/new', '').view).toBe('form');
    expect(lib.route(extended, '/app/expenses/0190', '')).toMatchObject({ view: 'record', id: '0190' });
    expect(lib.formFields(r, 'create').map((f: { name: string }) => f.name)).toEqual(['client', 'label', 'amount']);
    expect(lib.listQuery(extended, r, new URLSearchParams('label=taxi&order=label:asc'))).toBe(
      '{ expenses(first: 30, label: "taxi", order: [{label: "ASC"}]) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { node { id _id label client { id name } amount } } } }',
    );
  });
});

describe('web/app/lib.js', () => {
  const d = desc(describeModel(model));

  it('reads every view from its address', () => {
    expect(lib.route(d, '/app', '')).toEqual({ view: 'dashboard' });
    expect(lib.route(d, '/app/', '')).toEqual({ view: 'dashboard' });
    expect(lib.route(d, '/app/clients', '?name=ac').query.get('name')).toBe('ac');
    expect(lib.route(d, '/app/invoices/abc/edit', '')).toMatchObject({ view: 'form', id: 'abc' });
    expect(lib.route(d, '/app/invoice-lines', '').view).toBe('missing');
    expect(lib.route(d, '/app/nothing', '').view).toBe('missing');
  });

  it('writes money in the currency’s decimals, exactly', () => {
    expect(lib.minorToDecimal(123456, 'USD')).toBe('1234.56');
    expect(lib.minorToDecimal(-5, 'EUR')).toBe('-0.05');
    expect(lib.minorToDecimal(1234, 'JPY')).toBe('1234');
    expect(lib.minorToDecimal(1234, 'BHD')).toBe('1.234');
    expect(lib.parseMoney('1,234.5', 'USD')).toEqual({ minor: 123450 });
    expect(lib.parseMoney('0.07', 'USD')).toEqual({ minor: 7 });
    expect(lib.parseMoney('19.99', 'USD')).toEqual({ minor: 1999 });
    expect(lib.parseMoney('1.5', 'JPY').error).toBeTruthy();
    expect(lib.parseMoney('12', 'JPY')).toEqual({ minor: 12 });
    expect(lib.parseMoney('abc', 'USD').error).toBeTruthy();
    expect(lib.formatMoney(123456, 'USD')).toBe('$1,234.56');
    expect(lib.formatMoney(1234, 'JPY')).toBe('¥1,234');
    expect(lib.fromInput({ kind: 'money' }, '1.234', 'USD').error).toMatch(/ambiguous/);
    expect(lib.fromInput({ kind: 'money' }, '9,99', 'USD')).toEqual({ value: 999 });
    // A discount's unit is chosen by its type: a fixed one in major units, sent in minor units.
    const discount = { kind: 'decimal', scale: 4, unit: { field: 'discountType', values: { percentage: 'percent', fixed: 'money' } } };
    expect(lib.fromInput(discount, '50', 'EUR', { discountType: 'fixed' })).toEqual({ value: 5000 });
    expect(lib.fromInput(discount, '12,5 %', 'EUR', { discountType: 'percentage' })).toEqual({ value: 12.5 });
    expect(lib.toInput(discount, 5000, 'EUR', { discountType: 'fixed' })).toBe('50.00');
    expect(lib.fromInput({ kind: 'decimal', scale: 4 }, '2.5', 'USD')).toEqual({ value: 2.5 });
    expect(lib.fromInput({ kind: 'decimal', scale: 4 }, '2.12345', 'USD').error).toBeTruthy();
  });

  it('asks one GraphQL request per list page, with filters, order and cursors', () => {
    const inv = d.get('Invoice');
    const q = lib.listQuery(d, inv, new URLSearchParams('status=paid&invoiceDate[after]=2026-01-01&order=total:desc&after=abc'));
    expect(q).toContain('invoices(first: 30, after: "abc", status: "paid", invoiceDate: [{after: "2026-01-01"}], order: [{total: "DESC"}])');
    expect(q).toContain('client { id name }');
    // Newest first when the address names no order (the descriptor's present.order).
    expect(lib.listQuery(d, inv, new URLSearchParams('last=1'))).toContain('invoices(last: 30, order: [{createdAt: "DESC"}])');
    expect(lib.listQuery(d, inv, new URLSearchParams('before=xyz'))).toContain('invoices(last: 30, before: "xyz", order: [{createdAt: "DESC"}])');
    // Text goes as a GraphQL string literal, whatever it holds.
    expect(lib.listQuery(d, d.get('Client'), new URLSearchParams({ name: 'a"b\\c' }))).toContain('name: "a\\"b\\\\c"');
    // REST, for a resource without GraphQL: cursor paging from the edge cursor.
    expect(lib.listUrl(inv, new URLSearchParams('status=paid'))).toBe(`/api/invoices?itemsPerPage=30&status=paid&order%5BcreatedAt%5D=desc&after=${lib.EDGE_CURSOR}`);
    expect(lib.listAddress(inv, new URLSearchParams('status=paid&after=x'), { order: 'total:asc' })).toBe('/app/invoices?status=paid&order=total%3Aasc');
  });

  it('puts violations at their fields and lines', () => {
    const v = lib.violationsByField([
      { propertyPath: 'name', message: 'This value should not be blank.' },
      { propertyPath: 'lines[1].price', message: 'Too low.' },
      { propertyPath: 'lines[0]', message: 'Bad line.' },
      { propertyPath: '(body)', message: 'Odd.' },
    ]);
    expect(v.fields).toEqual({ name: ['This value should not be blank.'] });
    expect(v.lines).toEqual({ lines: { 1: { price: ['Too low.'] }, 0: { _: ['Bad line.'] } } });
    expect(v.other).toEqual(['Odd.']);
  });

  it('knows which fields a state locks and which fields a form shows', () => {
    const inv = d.get('Invoice');
    expect([...lib.lockedFields(inv, { status: 'pending' })]).toContain('lines');
    expect([...lib.lockedFields(inv, { status: 'pending' })]).not.toContain('dueDate');
    expect(lib.lockedFields(inv, { status: 'draft' }).size).toBe(0);
    const create = lib.formFields(inv, 'create').map((f: { name: string }) => f.name);
    expect(create).toEqual(['number', 'client', 'invoiceDate', 'dueDate', 'discountType', 'discountValue', 'terms', 'notes', 'buyerReference', 'lines']);
    expect(lib.lineFields(d, inv.byField.get('lines')).map((f: { name: string }) => f.name)).toEqual(['description', 'qty', 'price', 'tax']);
  });

  it('scales the chart’s bars and names its months', () => {
    const months = lastMonths(new Date('2026-03-15T00:00:00Z'));
    expect(months[0]).toBe('2025-04');
    expect(months[11]).toBe('2026-03');
    const bars = lib.chartBars(months, [{ month: '2026-03', currency: 'USD', amount: 200 }, { month: '2026-01', currency: 'USD', amount: 100 }, { month: '2026-01', currency: 'EUR', amount: 999 }], 'USD', 100);
    expect(bars.at(-1)).toEqual({ month: '2026-03', amount: 200, height: 100 });
    expect(bars.at(-3)).toEqual({ month: '2026-01', amount: 100, height: 50 });
    expect(lib.monthLabel('2026-01')).toBe('Jan 2026');
  });
});

describe('the /app shell and the dashboard operation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('/app without a session goes to sign-in, which returns to the same address', async () => {
    const token = await tokenFor(t, { email: 'owner@app.test', company: 'App Co', currency: 'EUR' });
    expect(token).toMatch(/^inv_/);
    const v = new Browserish(t.url);
    const res = await v.get('/app/invoices?status=paid&order=total:desc');
    expect(res.status).toBe(302);
    expect(res.location).toBe(`/login?next=${encodeURIComponent('/app/invoices?status=paid&order=total:desc')}`);
    const login = await v.get(res.location!);
    expect(login.text).toContain('name="next" value="/app/invoices?status=paid&#38;order=total:desc"');
    const signed = await v.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(login.text), email: 'owner@app.test', password: 'password123', next: '/app/invoices?status=paid&order=total:desc' } });
    expect(signed.status).toBe(303);
    expect(signed.location).toBe('/app/invoices?status=paid&order=total:desc');
    // Somewhere else is not a place to return to.
    const other = await v.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(login.text), email: 'owner@app.test', password: 'password123', next: '//evil.test/app' } });
    expect(other.location).toBe('/app');
    const page = await v.get('/app/invoices/some-id/edit');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const boot = JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/s.exec(page.text)![1]!);
    expect(boot.company).toMatchObject({ name: 'App Co', role: 'admin', currency: 'EUR' });
    expect(boot.csrf).toBe(Browserish.csrfOf(page.text));
    // The description is a module at a content-hashed address, preloaded by the page, cached for a year.
    expect(boot.description).toMatch(/^\/app\/description-en-[\w-]{16}\.js$/);
    expect(page.text).toContain(`<link rel="modulepreload" href="${boot.description}">`);
    const module = await fetch(`${t.url}${boot.description}`);
    expect(module.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(module.headers.get('content-type')).toMatch(/^text\/javascript/);
    // It exports the catalogue of /app's words (`messages`) and the description (default).
    const fromModule = JSON.parse(/^export default (.*);\n$/m.exec(await module.text())![1]!);
    expect(fromModule.navigation).toContain('Invoice');
    const described = await new Browserish(t.url).get('/app/description.json');
    expect(described.status).toBe(200);
    expect(described.body).toEqual(fromModule);
    // The budget of the first page (bench/results/app.md): its HTML at most 40 KiB, and at most 15
    // files before a list shows (the page, its style sheets, the description and every module
    // main.js imports without waiting: static imports, followed), leaving 1 request for /api.
    expect(page.text.length).toBeLessThanOrEqual(40 * 1024);
    const again = await fetch(`${t.url}/app/description.json`, { headers: { 'if-none-match': described.headers.get('etag')! } });
    expect(again.status).toBe(304);
    // The application's files are served by us.
    for (const f of ['app/main.js', 'app/views/shell.js', 'app/views/form.js', 'app/money.js', 'app/lib.js', 'app/api.js', 'app/app.css']) expect((await fetch(`${t.url}/assets/app/${f}`)).status).toBe(200);
    // The page names them by versioned addresses (the content hash of their root), cached for a
    // year as immutable: a warm load asks for nothing but the page. Every module the application
    // imports, followed from main.js through its relative imports and the import map, is one.
    const map = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(page.text)![1]!).imports as Record<string, string>;
    const named = [...page.text.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    const seen = new Set<string>();
    const queue = [...named, ...Object.values(map)];
    while (queue.length) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      expect(url, url).toMatch(/^\/assets\/@[0-9a-f]{16}\//);
      const res = await fetch(`${t.url}${url}`);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      const text = await res.text();
      if (!url.endsWith('.js') && !url.endsWith('.mjs')) continue;
      // Static imports, and the dynamic ones (the forms load when first opened).
      for (const m of text.matchAll(/(?:(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
        const spec = m[1]!;
        queue.push(spec.startsWith('.') ? new URL(spec, `http://x${url}`).pathname : map[spec]!);
      }
    }
    expect([...seen].some((u) => u.endsWith('/app/rules/totals.js'))).toBe(true);
    const first = new Set<string>();
    const statics = [...named.filter((u) => u.endsWith('.css')), named.find((u) => u.endsWith('/app/main.js'))!];
    while (statics.length) {
      const url = statics.shift()!;
      if (first.has(url)) continue;
      first.add(url);
      if (!url.endsWith('.js') && !url.endsWith('.mjs')) continue;
      const text = await (await fetch(`${t.url}${url}`)).text();
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g)) statics.push(m[1]!.startsWith('.') ? new URL(m[1]!, `http://x${url}`).pathname : map[m[1]!]!);
    }
    // Nothing preloaded that the first view does not import.
    for (const u of named.filter((x) => x.endsWith('.js'))) expect(first.has(u), u).toBe(true);
    expect(1 + first.size + 1, [...first].join('\n')).toBeLessThanOrEqual(15);
    // An old version's address still answers, but is revalidated.
    expect((await fetch(`${t.url}/assets/@0000000000000000/app/app/main.js`)).headers.get('cache-control')).toBe('no-cache');
  });

  it('GET /api/invoices/dashboard: outstanding and overdue per currency, invoices per status, payments per month', async () => {
    const token = await tokenFor(t, { email: 'dash@app.test', company: 'Dash Co', currency: 'USD' });
    const api = client(t, token);
    const empty = await api.get('/api/invoices/dashboard', { accept: 'application/json' });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ currencies: [], payments: [] });
    expect(empty.body.months).toHaveLength(12);
    expect(empty.body.statuses).toContainEqual({ status: 'draft', count: 0 });
    const usd = (await api.post('/api/clients', { name: 'Dollar' })).body['@id'];
    const jpy = (await api.post('/api/clients', { name: 'Yen', currency: 'JPY' })).body['@id'];
    const invoice = async (c: string, price: number, status?: string) => {
      const inv = (await api.post('/api/invoices', { client: c, lines: [{ description: 'Work', qty: 1, price }] })).body['@id'];
      if (status) expect((await api.patch(inv, { status })).status).toBe(200);
      return inv;
    };
    const a = await invoice(usd, 10000, 'pending');
    await invoice(usd, 2500, 'pending');
    await invoice(jpy, 700, 'pending');
    await invoice(usd, 999);
    expect((await api.post('/api/payments', { invoice: a, amount: 4000 })).status).toBe(201);
    // Overdue, as schedule:run would make it.
    await t.db.database.raw(`update invoices set status = 'overdue' where id = $1`, [a.split('/').pop()]);
    const res = await api.get('/api/invoices/dashboard', { accept: 'application/json' });
    expect(res.body.currencies).toEqual([
      { currency: 'JPY', outstanding: 700, overdue: 0, overdueCount: 0 },
      { currency: 'USD', outstanding: 8500, overdue: 6000, overdueCount: 1 },
    ]);
    expect(res.body.statuses).toContainEqual({ status: 'pending', count: 2 });
    expect(res.body.statuses).toContainEqual({ status: 'draft', count: 1 });
    expect(res.body.payments).toEqual([{ month: new Date().toISOString().slice(0, 7), currency: 'USD', amount: 4000, count: 1 }]);
    // Another company sees its own.
    const other = client(t, await tokenFor(t, { email: 'other@app.test', company: 'Other Co' }));
    expect((await other.get('/api/invoices/dashboard', { accept: 'application/json' })).body.currencies).toEqual([]);
    // GraphQL has it too, as every declared operation.
    const gql = await api.post('/api/graphql', { query: '{ dashboardInvoice { currencies { currency outstanding } } }' }, { contentType: 'application/json' });
    expect(gql.body.data.dashboardInvoice.currencies).toHaveLength(2);
  });
});
