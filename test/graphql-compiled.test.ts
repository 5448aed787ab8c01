// Compiled GraphQL reads (engine/graphql/compile.ts) answer exactly as the resolvers do: for
// hand-picked and generated queries, the compiled `data` equals the normal path's, key order
// included, on data with nulls, decimals, many children and rows of another company. Queries the
// compiler leaves to the normal path answer as before. S4's query runs one SQL statement.
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldValues, Principal } from '../engine/types.ts';
import type { Order } from '../engine/query.ts';
import { createEngine } from '../engine/operations.ts';
import { createCompiler, type CompiledReads } from '../engine/graphql/compile.ts';
import { encodeCursor } from '../engine/keyset.ts';
import { aliasRule, DEFAULT_LIMITS, depthRule, introspectionRule } from '../engine/graphql/limits.ts';
import { buildGraphqlSchema } from '../engine/graphql/schema.ts';
import type { ModelResource } from '../engine/model.ts';
import { rowsOf } from '../server/db.ts';
import { model, tables } from '../server/model.ts';
import { call, client, startTestServer, tokenFor, type Res, type TestServer } from './helpers.ts';

const ENV = { RATE_LIMIT_MAX: '1000000', TOKEN_CACHE: 'on' };

let fast: TestServer; // compiles queries (the default)
let slow: TestServer; // GRAPHQL_COMPILE=off: every query through the resolvers, on the same database
let compiler: CompiledReads;
const tokens: Record<string, string> = {};
const principals: Record<string, Principal> = {};
/** IRIs of company A's records by resource name. */
const iris: Record<string, string[]> = {};
/** IRIs of company B's records, and ids of records that exist nowhere. */
const foreign: Record<string, string> = {};

const gql = (s: TestServer, token: string, query: string, variables?: Record<string, unknown>, operationName?: string): Promise<Res> =>
  call(s, 'POST', '/api/graphql', { token, body: { query, variables, operationName }, contentType: 'application/json' });

const normal = (text: string) => JSON.stringify(JSON.parse(text));

let compiledCount = 0;

/**
 * Runs `query` compiled (in process, on the same database) and through both servers; the
 * compiled data, when the compiler takes the query, and the fast server's response equal the
 * normal path's. Returns whether the query was compiled.
 */
async function agree(company: string, query: string, variables?: Record<string, unknown>, operationName?: string): Promise<boolean> {
  const token = tokens[company]!;
  const reference = await gql(slow, token, query, variables, operationName);
  const served = await gql(fast, token, query, variables, operationName);
  const context = `${query} ${JSON.stringify(variables ?? {})}\n${reference.text.slice(0, 2000)}`;
  expect(served.status, context).toBe(reference.status);
  expect(normal(served.text), context).toBe(normal(reference.text));
  const data = await compiler.run(query, operationName, variables, principals[company]!);
  if (data === undefined) return false;
  compiledCount++;
  expect(reference.status, context).toBe(200);
  expect(normal(`{"data":${data}}`), context).toBe(normal(reference.text));
  return true;
}

beforeAll(async () => {
  fast = await startTestServer(ENV);
  slow = await startTestServer({ ...ENV, GRAPHQL_COMPILE: 'off' }, { db: fast.db });
  const database = fast.db.database;
  const engine = createEngine(database.db, model, tables, { raw: database.raw });
  compiler = createCompiler({
    schema: buildGraphqlSchema(model, engine),
    engine,
    limits: DEFAULT_LIMITS,
    rules: [depthRule(DEFAULT_LIMITS), aliasRule(DEFAULT_LIMITS), introspectionRule()],
    maxTokens: 20_000,
  })!;

  for (const [company, email] of [['A', 'a@a.test'], ['B', 'b@b.test'], ['C', 'c@c.test']] as const) {
    tokens[company] = await tokenFor(fast, { email, company });
    const [row] = rowsOf<{ id: string; currency: string }>(await database.db.execute(sql`select id, currency from companies where name = ${company}`));
    principals[company] = { userId: 'test', role: 'admin', company: { id: row!.id, currency: row!.currency } };
  }
  const a = client(fast, tokens.A!);
  const post = async (path: string, body: unknown, api = a) => {
    const res = await api.post(path, body);
    expect(res.status, res.text).toBe(201);
    const resource = model.resources.find((r) => r.iri === `/api/${path.split('/')[2]}`)!;
    (iris[resource.name] ??= []).push(res.body['@id']);
    return res.body['@id'] as string;
  };
  const vat = await post('/api/taxes', { name: 'VAT', rate: 20 });
  const reduced = await post('/api/taxes', { name: 'Reduced', rate: 7.25, type: 'inclusive' });
  await post('/api/taxes', { name: 'Zero', rate: 0 });
  const names = ['Globex', 'Initech', 'O\'Brien & "Sons"', 'Ünïcødé 😀 GmbH', 'Back\\slash\tTab', 'Acme'];
  const clients: string[] = [];
  for (const [i, name] of names.entries()) {
    clients.push(await post('/api/clients', {
      name, currency: i % 2 ? 'USD' : 'EUR', website: i % 3 ? null : `https://c${i}.example`, vatNumber: i === 1 ? 'DE123' : null, notes: i === 2 ? 'line1\nline2 "quoted"' : null,
      status: i === 5 ? 'archived' : 'active',
    }));
  }
  await post('/api/contacts', { client: clients[0], firstName: 'Ada', lastName: 'Lovelace', email: 'ada@globex.test', phone: '+49 1' });
  await post('/api/contacts', { client: clients[0], firstName: 'Grace', email: 'grace@globex.test' });
  await post('/api/addresses', { client: clients[0], city: 'Berlin', country: 'DE', street1: 'Unter den Linden 1' });
  await post('/api/addresses', { client: clients[2], city: null, country: 'FR' });

  const qtys = [1, 2.5, 0.0001, 3, 1234.5678];
  const prices = [4000, 1500, 99, 120000, -500];
  const invoices: string[] = [];
  for (let i = 0; i < 12; i++) {
    const lines = Array.from({ length: i % 5 }, (_, k) => ({ description: `Line ${i}.${k}${k === 1 ? ' — ünï "q"' : ''}`, qty: qtys[(i + k) % 5], price: prices[(i * 3 + k) % 5], tax: k % 3 === 0 ? vat : k % 3 === 1 ? reduced : null, position: (k * 7) % 5 }));
    invoices.push(await post('/api/invoices', {
      client: clients[i % 6], invoiceDate: `2026-0${1 + (i % 6)}-${String(10 + i).padStart(2, '0')}`, dueDate: i % 4 ? `2026-0${2 + (i % 6)}-01` : null,
      notes: i % 3 ? null : `Notes ${i}`, terms: i === 4 ? 'Net 30' : null,
      discountType: i % 4 === 1 ? 'percentage' : i % 4 === 2 && i < 10 ? 'fixed' : 'none', discountValue: i % 4 === 1 ? 12.5 : i % 4 === 2 && i < 10 ? 100 : 0,
      lines,
    }));
  }
  // One invoice with more lines than a page.
  invoices.push(await post('/api/invoices', { client: clients[1], invoiceDate: '2026-02-20', lines: Array.from({ length: 35 }, (_, k) => ({ description: `Many ${k}`, qty: 1 + (k % 3) / 4, price: 100 + k, tax: k % 2 ? vat : null })) }));
  // An amount past 32 bits.
  invoices.push(await post('/api/invoices', { client: clients[0], invoiceDate: '2026-03-03', lines: [{ description: 'Tower', price: 5_000_000_000, qty: 2 }] }));
  for (const i of [1, 2, 3, 6, 12]) expect((await a.patch(invoices[i]!, { status: 'pending' })).status).toBe(200);
  expect((await a.patch(invoices[7]!, { status: 'cancelled' })).status).toBe(200);
  await post('/api/payments', { invoice: invoices[1], amount: 100, method: 'card', paidAt: '2026-02-01T10:30:00Z', reference: 'R1' });
  await post('/api/payments', { invoice: invoices[1], amount: 50, method: 'cash', paidAt: '2026-02-15T23:59:59.999Z' });
  await post('/api/payments', { invoice: invoices[12], amount: 700, method: 'bank_transfer', notes: 'partial' });
  const three = await a.get(invoices[3]!);
  if (three.body.balance > 0) await post('/api/payments', { invoice: invoices[3], amount: three.body.balance, method: 'check', paidAt: '2026-04-01T00:00:00+02:00' });

  const quote = await post('/api/quotes', { client: clients[0], validUntil: '2026-12-31', lines: [{ description: 'Offer', qty: 1.5, price: 700, tax: vat }, { description: 'Extra', price: 1 }] });
  await post('/api/quotes', { client: clients[3], lines: [] });
  for (const status of ['sent', 'accepted']) expect((await a.patch(quote, { status })).status).toBe(200);
  await post('/api/recurring-invoices', { client: clients[0], frequency: 'monthly', startDate: '2026-01-31', lines: [{ description: 'Support', qty: 1.25, price: 2000, tax: vat }, { description: 'Hosting', price: 990 }] });
  await post('/api/recurring-invoices', { client: clients[1], frequency: 'weekly', interval: 2, startDate: '2026-02-02', endDate: '2026-12-31', lines: [] });

  // Company B, and links across companies that only direct writes can make: the scoping of
  // every nested read must hide them.
  const b = client(fast, tokens.B!);
  const bClient = (await b.post('/api/clients', { name: 'Umbrella' })).body['@id'];
  const bTax = (await b.post('/api/taxes', { name: 'Secret tax', rate: 50 })).body['@id'];
  const bInvoice = (await b.post('/api/invoices', { client: bClient, lines: [{ description: 'Secret', price: 1, tax: bTax }] })).body['@id'];
  expect((await b.patch(bInvoice, { status: 'pending' })).status).toBe(200);
  const bPayment = (await b.post('/api/payments', { invoice: bInvoice, amount: 1 })).body['@id'];
  Object.assign(foreign, { client: bClient, tax: bTax, invoice: bInvoice, payment: bPayment });
  const id = (iri: string) => iri.split('/').pop()!;
  const db = database.db;
  await db.execute(sql`update invoice_lines set tax_id = ${id(bTax)} where id = (select id from invoice_lines where invoice_id = ${id(invoices[1]!)} order by position, id limit 1)`);
  await db.execute(sql`update payments set invoice_id = ${id(invoices[1]!)} where id = ${id(bPayment)}`);
  await db.execute(sql`update invoices set client_id = ${id(bClient)} where id = ${id(invoices[10]!)}`);
  await db.execute(sql`update recurring_invoices set lines = jsonb_set(lines, '{0,tax}', to_jsonb(${id(bTax)}::text)) where id = ${id(iris.RecurringInvoice![0]!)}`);

  // Company C: values the resolvers cannot serialise (errors on the normal path).
  const c = client(fast, tokens.C!);
  const cClient = (await c.post('/api/clients', { name: 'Odd' })).body['@id'];
  const cInvoice = (await c.post('/api/invoices', { client: cClient, lines: [{ description: 'Odd', price: 1 }] })).body['@id'];
  await c.post('/api/recurring-invoices', { client: cClient, frequency: 'daily', startDate: '2026-01-01', lines: [{ description: 'x', price: 1 }] });
  foreign.oddInvoice = cInvoice;
  await db.execute(sql`update invoices set total = 9007199254740993 where id = ${id(cInvoice)}`);
  await db.execute(sql`update invoice_lines set position = 3000000000 where invoice_id = ${id(cInvoice)}`);
  await db.execute(sql`update recurring_invoices set lines = '[{"description": "no price", "qty": 1}, {"price": 1.5, "description": 7, "qty": 2.5}]'::jsonb where company_id = ${principals.C!.company.id}`);
}, 120_000);

afterAll(async () => {
  await slow?.close();
  await fast?.close();
});

describe('hand-picked queries', () => {
  const S4 = '{ invoices(first: 30) { edges { node { number total client { name currency } lines(first: 10) { edges { node { description qty price } } } } } } }';
  const S5 = 'query ($id: ID!) { invoice(id: $id) { number total client { name } lines(first: 10) { edges { node { description qty price } } } payments(first: 10) { edges { node { amount method paidAt } } } } }';

  it('S4 and S5 are compiled and agree', async () => {
    expect(await agree('A', S4)).toBe(true);
    for (const id of iris.Invoice!) expect(await agree('A', S5, { id })).toBe(true);
  });

  it("S4's query runs exactly one SQL statement, whatever the number of rows", async () => {
    await gql(fast, tokens.A!, S4); // the token is now cached
    for (const company of ['A', 'B']) {
      await gql(fast, tokens[company]!, S4);
      const before = fast.db.database.statements();
      const res = await gql(fast, tokens[company]!, S4);
      expect(res.status).toBe(200);
      expect(fast.db.database.statements() - before).toBe(1);
    }
    // The normal path runs one statement per level and relation.
    const before = fast.db.database.statements();
    await gql(slow, tokens.A!, S4);
    expect(fast.db.database.statements() - before).toBeGreaterThan(1);
  });

  it('answers GET requests the same', async () => {
    const get = (s: TestServer) => call(s, 'GET', `/api/graphql?query=${encodeURIComponent(S4)}`, { token: tokens.A!, accept: 'application/json' });
    const [x, y] = [await get(fast), await get(slow)];
    expect(x.status).toBe(200);
    expect(normal(x.text)).toBe(normal(y.text));
  });

  it('every scalar kind, ids, timestamps, nulls and __typename, on every resource', async () => {
    // (The company profile, a singleton the server stores, is read by its own resolver: company.test.ts.)
    for (const r of model.resources.filter((x) => x.graphql.has('query') && !x.provider)) {
      const fields = ['__typename', 'id', '_id', 'createdAt', 'updatedAt', ...r.fields.filter((f) => f.kind !== 'children' && f.kind !== 'list' && f.kind !== 'ref' && !f.def.shownOnce).map((f) => f.name)];
      const refs = r.fields.filter((f) => f.kind === 'ref').map((f) => `${f.name} { id __typename }`);
      // Every member of each list's items (a relation with some of its fields).
      const lists = r.fields.filter((f) => f.kind === 'list').map((f) => {
        const of = (f.def as { of: Record<string, { kind: string }> }).of;
        return `${f.name} { __typename ${Object.entries(of).map(([n, d]) => (d.kind === 'ref' ? `${n} { id name rate }` : n)).join(' ')} }`;
      });
      const sel = [...fields, ...refs, ...lists].join(' ');
      expect(await agree('A', `{ ${r.plural}(first: 30) { __typename totalCount pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor } edges { __typename cursor node { ${sel} } } } }`), r.name).toBe(true);
      for (const iri of iris[r.name] ?? []) expect(await agree('A', `query($id: ID!) { __typename x: ${lowerFirst(r.name)}(id: $id) { ${sel} } }`, { id: iri })).toBe(true);
    }
  });

  it('nested connections with arguments, cursors and windows', async () => {
    const many = iris.Invoice![12]!;
    /** Every cursor of a connection in its default order, read page by page through the resolvers. */
    const cursors = async (query: string, pick: (data: any) => any, variables: Record<string, unknown> = {}): Promise<string[]> => {
      const out: string[] = [];
      let after: string | null = null;
      do {
        const res = await gql(slow, tokens.A!, query, { ...variables, a: after });
        const conn = pick(res.body.data);
        out.push(...conn.edges.map((e: { cursor: string }) => e.cursor));
        after = conn.pageInfo.hasNextPage ? conn.pageInfo.endCursor : null;
      } while (after);
      return out;
    };
    const lineCursors = await cursors('query($id: ID!, $a: String) { invoice(id: $id) { lines(first: 30, after: $a) { pageInfo { hasNextPage endCursor } edges { cursor } } } }', (d) => d.invoice.lines, { id: many });
    const invoiceCursors = await cursors('query($a: String) { invoices(first: 30, after: $a) { pageInfo { hasNextPage endCursor } edges { cursor } } }', (d) => d.invoices);
    expect(lineCursors).toHaveLength(35);
    expect(new Set(lineCursors).size).toBe(35);
    const windows = (c: string[], field: string) => ['', '(first: 0)', '(first: 5)', '(last: 5)', '(first: 3, last: 2)', `(after: "${c[4]}")`, `(after: "${c[c.length - 3]}", first: 10)`,
      `(before: "${c[10]}")`, `(before: "${c[10]}", last: 3)`, `(after: "${c[2]}", before: "${c[8]}", first: 4)`, `(after: "${c[2]}", before: "${c[8]}", last: 2)`, `(after: "${c[1]}", first: 5, last: 2)`,
      `(after: "${c[c.length - 1]}")`, `(before: "${c[0]}")`, `(before: "${c[0]}", last: 0)`, '(last: 0)', `(order: [{${field}: "DESC"}])`, `(order: [{createdAt: "desc"}, {${field}: "asc"}], first: 7)`];
    for (const w of windows(lineCursors, 'position')) {
      const q = `query($id: ID!) { invoice(id: $id) { lines${w} { totalCount pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { cursor node { description position qty tax { name } } } } } }`;
      expect(await agree('A', q, { id: many }), w).toBe(true);
    }
    for (const w of windows(invoiceCursors, 'number')) {
      expect(await agree('A', `{ invoices${w} { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { number } } } }`), w).toBe(true);
    }
    // An empty connection read past its end (after the greatest possible id).
    const end = encodeCursor(model.get('Payment'), [], { id: 'ffffffff-ffff-7fff-bfff-ffffffffffff' });
    expect(await agree('A', `{ invoices(first: 3) { edges { node { payments(after: "${end}") { totalCount pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { cursor } } } } } }`)).toBe(true);
    expect(await agree('A', '{ clients(order: [{name: "DESC"}]) { edges { node { name invoices(first: 2, order: [{invoiceDate: "DESC"}]) { totalCount edges { cursor node { number invoiceDate lines(last: 1) { edges { node { description } } } } } } payments { totalCount } contacts { edges { node { firstName email } } } } } } }')).toBe(true);
  });

  it('cursors are the same on both paths under every order, and page the same records', async () => {
    const orders = [...model.get('Invoice').orders, 'createdAt'].flatMap((f) => [`{${f}: "ASC"}`, `{${f}: "DESC"}`]);
    orders.push('{dueDate: "ASC"}, {total: "DESC"}', '{number: "DESC"}, {invoiceDate: "ASC"}');
    const q = (o: string) => `query($a: String, $b: String, $f: Int, $l: Int) { invoices(order: [${o}], after: $a, before: $b, first: $f, last: $l) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { number total dueDate } } } }`;
    // Names with quotes, backslashes, tabs and characters beyond ASCII; timestamps; nulls last.
    for (const extra of ['{ clients(order: [{name: "ASC"}]) { edges { cursor node { name } } } }', '{ clients(order: [{name: "DESC"}], last: 4) { pageInfo { startCursor endCursor } edges { cursor } } }',
      '{ payments(order: [{paidAt: "DESC"}]) { edges { cursor node { paidAt } } } }', '{ invoices(order: [{dueDate: "ASC"}], last: 5) { edges { cursor node { dueDate } } } }']) {
      expect(await agree('A', extra), extra).toBe(true);
    }
    for (const o of orders) {
      const all = (await gql(slow, tokens.A!, q(o), { f: 30 })).body.data.invoices.edges.map((e: { cursor: string }) => e.cursor) as string[];
      expect(all.length, o).toBeGreaterThan(10);
      for (const [i, c] of all.entries()) {
        if (i % 3) continue;
        expect(await agree('A', q(o), { a: c, f: 4 }), o).toBe(true);
        expect(await agree('A', q(o), { b: c, l: 4 }), o).toBe(true);
      }
    }
  });

  it('filters: exact, partial, lists, references, dates and timestamps, in literals and variables', async () => {
    const client0 = iris.Client![0]!;
    const queries: [string, Record<string, unknown>?][] = [
      ['{ invoices(status: "pending") { totalCount edges { node { number status } } } }'],
      ['{ invoices(status_list: ["pending", "cancelled"]) { totalCount edges { node { number status } } } }'],
      ['{ invoices(status_list: []) { totalCount } }'],
      ['{ invoices(number: "00001") { totalCount edges { node { number } } } }'],
      ['{ invoices(number: "%") { totalCount } }'],
      [`{ invoices(client: "${client0}") { totalCount edges { node { number client { name } } } } }`],
      [`{ invoices(client: "${client0.split('/').pop()}") { totalCount } }`],
      [`{ invoices(client: "${foreign.client}") { totalCount } }`],
      ['{ invoices(invoiceDate: [{after: "2026-02-01"}, {strictly_before: "2026-05-11"}]) { totalCount edges { node { invoiceDate } } } }'],
      ['{ invoices(dueDate: [{before: "2026-04-01"}]) { totalCount edges { node { dueDate } } } }'],
      ['{ payments(paidAt: [{before: "2026-02-15"}]) { totalCount edges { node { paidAt amount } } } }'],
      ['{ payments(paidAt: [{strictly_after: "2026-02-01"}]) { totalCount edges { node { paidAt } } } }'],
      ['{ payments(paidAt: [{after: "2026-02-01T10:30:00Z"}], method_list: ["card", "check"]) { totalCount edges { node { paidAt method } } } }'],
      ['{ clients(name: "glob") { edges { node { name } } } clients2: clients(name: "Ü") { totalCount } clients3: clients(currency: "eur") { totalCount } }'],
      ['query($s: String, $l: [String], $d: [InvoiceFilter_invoiceDate], $o: [InvoiceFilter_order], $n: Int, $a: String) { invoices(status: $s, status_list: $l, invoiceDate: $d, order: $o, first: $n, after: $a) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { number status invoiceDate } } } }',
        { s: 'draft', d: [{ after: '2026-01-01' }], o: [{ invoiceDate: 'DESC' }, { number: 'ASC' }], n: 3, a: encodeCursor(model.get('Invoice'), [{ field: 'invoiceDate', dir: 'desc' }, { field: 'number', dir: 'asc' }], { invoiceDate: '2026-04-13', number: null, id: '01890a5d-ac96-774b-bcce-b302099a8057' }) }],
      ['query($s: String, $l: [String], $d: [InvoiceFilter_invoiceDate], $o: [InvoiceFilter_order], $n: Int, $a: String) { invoices(status: $s, status_list: $l, invoiceDate: $d, order: $o, first: $n, after: $a) { totalCount edges { node { number } } } }', { l: ['pending', 'paid'] }],
      ['query($s: String, $l: [String], $d: [InvoiceFilter_invoiceDate], $o: [InvoiceFilter_order], $n: Int, $a: String) { invoices(status: $s, status_list: $l, invoiceDate: $d, order: $o, first: $n, after: $a) { totalCount edges { node { number } } } }', {}],
      ['query($m: String) { invoices { edges { node { number payments(method: $m) { totalCount edges { node { method amount } } } } } } }', { m: 'card' }],
    ];
    // A partial part whose page and bounded count are best read differently (engine/read/density.ts:
    // the order's walk for one, the keys for the other) is left to the resolvers; which way it goes
    // depends on the data and the database's statistics. Both paths must agree either way (agree checks).
    const partial = /\b(number|name): "/;
    for (const [q, v] of queries) {
      const compiled = await agree('A', q, v);
      if (!partial.test(q)) expect(compiled, q).toBe(true);
    }
  });

  it('item queries: IRIs, bare ids, missing and foreign records', async () => {
    const sel = '{ number client { name } payments { totalCount edges { node { amount } } } }';
    const missing = '/api/invoices/01890a5d-ac96-774b-bcce-b302099a8057';
    for (const id of [iris.Invoice![1]!, iris.Invoice![1]!.split('/').pop()!, iris.Invoice![1]!.toUpperCase().replace('/API/INVOICES/', '/api/invoices/'), missing, foreign.invoice!, '/api/invoices/not-a-uuid']) {
      expect(await agree('A', `query($id: ID!) { invoice(id: $id) ${sel} }`, { id }), id).toBe(true);
      expect(await agree('A', `{ invoice(id: ${JSON.stringify(id)}) ${sel} }`), id).toBe(true);
    }
    // An invoice whose client belongs to another company, a quote's invoice, the invoice's quote.
    expect(await agree('A', `{ invoice(id: "${iris.Invoice![10]}") { number client { name } } quotes { edges { node { number status invoice { number quote { number } } } } } }`)).toBe(true);
  });

  it('fragments, aliases, merged fields and literal directives', async () => {
    const queries = [
      '{ a: invoices(first: 2) { edges { node { ...F } } } b: invoices(last: 2) { edges { node { ... on Invoice { number } ...on Node { id } } } } } fragment F on Invoice { number client { ...C } } fragment C on Client { name }',
      '{ invoices(first: 3) { edges { node { number } } edges { cursor node { total number } } totalCount } }',
      '{ invoices(first: 3) { edges { node { number @skip(if: true) total @include(if: true) client @include(if: false) { name } } } } }',
      '{ invoices(first: 3) @skip(if: false) { totalCount } clients @skip(if: true) { totalCount } }',
      'query Named { invoices(first: 1) { totalCount } } query Other { clients { totalCount } }',
    ];
    for (const q of queries) expect(await agree('A', q, undefined, q.startsWith('query Named') ? 'Other' : undefined), q).toBe(true);
  });

  it('leaves what it does not compile to the normal path, which answers as before', async () => {
    const queries: [string, Record<string, unknown>?, string?][] = [
      ['{ node(id: "' + iris.Invoice![0] + '") { id ... on Invoice { number } } }'],
      ['{ __schema { queryType { name } } }'],
      ['{ __type(name: "Invoice") { name } }'],
      ['query($x: Boolean!) { invoices { totalCount @include(if: $x) } }', { x: true }],
      ['mutation { deleteTax(input: {id: "/api/taxes/01890a5d-ac96-774b-bcce-b302099a8057"}) { tax { name } } }'],
      ['{ invoices(first: 31) { totalCount } }'],
      ['{ invoices(after: "bogus") { totalCount } }'],
      ['{ invoices(order: [{number: "sideways"}]) { totalCount } }'],
      ['{ invoices(invoiceDate: [{after: "2026-13-45"}]) { totalCount } }'],
      ['{ invoice(id: "/api/clients/01890a5d-ac96-774b-bcce-b302099a8057") { number } }'],
      ['{ invoice(id: "nope") { number } }'],
      ['{ invoices { edges { node { nope } } } }'],
      ['{ invoices { ' + 'edges { node { lines { edges { node { invoice { client { invoices { edges { node { number } } } } } } } } } }' + ' } }'],
      ['query($n: Int) { invoices(first: $n) { totalCount } }', { n: 'many' }],
      ['query($n: Int!) { invoices(first: $n) { totalCount } }', {}],
      ['query($n: Int) { invoices(first: $n) { totalCount } }', { n: 31 }],
      ['query($a: String) { invoices(after: $a) { totalCount } }', { a: 'bogus' }],
      ['query($id: ID!) { invoice(id: $id) { number } }', { id: '/api/taxes/01890a5d-ac96-774b-bcce-b302099a8057' }],
      ['{ invoices { totalCount } } { clients { totalCount } }'],
      ['query A { invoices { totalCount } } query B { clients { totalCount } }'],
      ['{ invoices { totalCount }'],
    ];
    for (const [q, v, op] of queries) expect(await agree('A', q, v, op), q).toBe(false);
  });

  it('values the resolvers cannot serialise: the normal path answers, errors included', async () => {
    expect(await agree('C', '{ invoices { edges { node { number total } } } }')).toBe(false);
    expect(await agree('C', '{ invoices { edges { node { number lines { edges { node { position } } } } } } }')).toBe(false);
    expect(await agree('C', '{ recurringInvoices { edges { node { lines { description price } } } } }')).toBe(false);
    // Fields that are fine still compile.
    expect(await agree('C', '{ invoices { edges { node { number lines { edges { node { description price } } } } } } }')).toBe(true);
    expect(await agree('C', '{ recurringInvoices { edges { node { lines { qty } } } } }')).toBe(true);
  });
});

// ---- generated queries ------------------------------------------------------------------

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** A part of a query, rendered with the variables it declares. */
interface Part {
  render(v: Vars): string;
}
class Vars {
  defs: string[] = [];
  values: Record<string, unknown> = {};
  add(type: string, value: unknown): string {
    const name = `v${this.defs.length}`;
    this.defs.push(`$${name}: ${type}`);
    this.values[name] = value;
    return `$${name}`;
  }
}
const literal = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(literal).join(', ')}]` : v && typeof v === 'object' ? `{${Object.entries(v).map(([k, x]) => `${k}: ${literal(x)}`).join(', ')}}` : JSON.stringify(v);

function pool(r: ModelResource, name: string): unknown[] {
  const f = r.byName.get(name)!;
  if (f.kind === 'ref') return [...(iris[f.target!] ?? []).slice(0, 3), foreign.client, iris[f.target!]?.[0]?.split('/').pop(), '/api/invoices/not-a-uuid'];
  if (f.kind === 'enum') return [...(f.def as unknown as { values: string[] }).values, 'bogus'];
  if (f.filter === 'partial') return ['a', 'INV-00001', 'glob', 'Ü', '%', '_', "O'B", 'k\\s', ''];
  return ['EUR', 'usd', 'DE', 'none'];
}
const DATES = ['2026-01-15', '2026-03-01', '2026-02-15T12:00:00Z', '2026-02-01T10:30:00Z', '2026-02-30'];
const DIRS = ['ASC', 'DESC', 'asc', 'desc', 'ASC', 'DESC', 'sideways'];

/** `arb` with probability `p`, else null. */
const maybe = <T>(arb: fc.Arbitrary<T>, p: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: Math.round((1 - p) * 100), arbitrary: fc.constant(null) }, { weight: Math.round(p * 100), arbitrary: arb });

function argsOf(r: ModelResource, omit?: string): fc.Arbitrary<{ name: string; type: string; value: unknown }[]> {
  const args: fc.Arbitrary<{ name: string; type: string; value: unknown } | null>[] = [
    maybe(fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 6 }) }, { weight: 1, arbitrary: fc.constantFrom(30, 31, -1) }), 0.5).map((v) => (v === null ? null : { name: 'first', type: 'Int', value: v })),
    maybe(fc.integer({ min: 0, max: 6 }), 0.15).map((v) => (v === null ? null : { name: 'last', type: 'Int', value: v })),
    maybe(fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 40 }).map((k) => ({ cursor: k })) }, { weight: 1, arbitrary: fc.constant('bogus') }), 0.25).map((v) => (v === null ? null : { name: 'after', type: 'String', value: v })),
    maybe(fc.integer({ min: 0, max: 40 }).map((k) => ({ cursor: k })), 0.15).map((v) => (v === null ? null : { name: 'before', type: 'String', value: v })),
    maybe(fc.array(fc.record({ field: fc.constantFrom(...r.orders), dir: fc.constantFrom(...DIRS) }), { minLength: 1, maxLength: 2 }), 0.3)
      .map((v) => (v === null ? null : { name: 'order', type: `[${r.name}Filter_order]`, value: v.map((o) => ({ [o.field]: o.dir })) })),
  ];
  for (const f of r.filters) {
    if (f.name === omit) continue;
    if (f.filter === 'date') {
      args.push(maybe(fc.array(fc.record({ op: fc.constantFrom('after', 'before', 'strictly_after', 'strictly_before'), date: fc.constantFrom(...DATES) }), { minLength: 1, maxLength: 2 }), 0.15)
        .map((v) => (v === null ? null : { name: f.name, type: `[${r.name}Filter_${f.name}]`, value: v.map((b) => ({ [b.op]: b.date })) })));
    } else {
      const values = pool(r, f.name);
      args.push(maybe(fc.constantFrom(...values), 0.15).map((v) => (v === null ? null : { name: f.name, type: 'String', value: v })));
      args.push(maybe(fc.array(fc.constantFrom(...values), { maxLength: 3 }), 0.1).map((v) => (v === null ? null : { name: `${f.name}_list`, type: '[String]', value: v })));
    }
  }
  return fc.tuple(...args).map((xs) => {
    const given = xs.filter((x): x is { name: string; type: string; value: unknown } => x !== null);
    // Cursors under the order the arguments ask for (then the children's fallback order).
    const asked = (given.find((x) => x.name === 'order')?.value as Record<string, string>[] | undefined) ?? [];
    const order: Order[] = asked.flatMap((o) => Object.entries(o).map(([field, dir]) => ({ field, dir: dir.toLowerCase() === 'desc' ? ('desc' as const) : ('asc' as const) })));
    if (omit && r.byName.get('position') && !order.some((o) => o.field === 'position')) order.push({ field: 'position', dir: 'asc' });
    return given.map((x) => (x.value && typeof x.value === 'object' && 'cursor' in x.value ? { ...x, value: sampleCursor(r, order, (x.value as { cursor: number }).cursor) } : x));
  });
}

/** A cursor at a position made up from `k` (a value of each order field, or null; a known or unknown id). */
function sampleCursor(r: ModelResource, order: Order[], k: number): string {
  const rec: FieldValues = { id: [...(iris[r.name] ?? []).map((iri) => iri.split('/').pop()!), '00000000-0000-7000-8000-000000000000', 'ffffffff-ffff-7fff-bfff-ffffffffffff'][k % ((iris[r.name]?.length ?? 0) + 2)] };
  for (const o of order) {
    const f = r.byName.get(o.field);
    if (o.field === 'createdAt' || o.field === 'updatedAt') rec[o.field] = new Date(Date.UTC(2026, 0, 1 + k));
    else if (k % 5 === 4) rec[o.field] = null;
    else if (f?.kind === 'integer') rec[o.field] = k * 100;
    else if (f?.kind === 'decimal') rec[o.field] = k + 0.25;
    else if (f?.kind === 'date') rec[o.field] = `2026-0${1 + (k % 6)}-1${k % 10}`;
    else if (f?.kind === 'timestamp') rec[o.field] = new Date(Date.UTC(2026, 1, 1 + k, 10, 30));
    else rec[o.field] = `INV-${String(k).padStart(5, '0')}`;
  }
  return encodeCursor(r, order, rec);
}

function argumentsPart(args: { name: string; type: string; value: unknown }[], useVars: boolean): Part {
  return {
    render: (v) => (args.length ? `(${args.map((a) => `${a.name}: ${useVars ? v.add(a.type, a.value) : literal(a.value)}`).join(', ')})` : ''),
  };
}

const objects = new Map<string, fc.Arbitrary<Part>>();

function objectOf(r: ModelResource, depth: number): fc.Arbitrary<Part> {
  const key = `${r.name}:${depth}`;
  const known = objects.get(key);
  if (known) return known;
  const leaves = ['__typename', 'id', '_id', 'createdAt', 'updatedAt', ...r.fields.filter((f) => f.kind !== 'children' && f.kind !== 'ref' && f.kind !== 'list').map((f) => f.name)];
  for (const f of r.fields) if (f.kind === 'list') leaves.push(`${f.name} { description qty price tax { name rate } }`, `${f.name} { __typename price }`);
  const nested: fc.Arbitrary<Part>[] = [];
  if (depth > 0) {
    for (const f of r.fields) {
      if (f.kind === 'ref') nested.push(objectOf(model.get(f.target!), depth - 1).map((p) => ({ render: (v) => `${f.name} { ${p.render(v)} }` })));
      if (f.kind === 'children') nested.push(connectionOf(model.get(f.target!), depth - 1, (f.def as { via: string }).via).map((p) => ({ render: (v) => `${f.name}${p.render(v)}` })));
    }
  }
  const arb = fc
    .record({
      leaves: fc.subarray(leaves, { minLength: 1, maxLength: 6 }),
      nested: nested.length ? fc.array(fc.oneof(...nested), { maxLength: depth > 1 ? 2 : 1 }) : fc.constant([] as Part[]),
      alias: fc.boolean(),
      fragment: fc.constantFrom('none', 'none', 'inline', 'node'),
    })
    .map(({ leaves, nested, alias, fragment }): Part => ({
      render: (v) => {
        const parts = [...leaves.map((l, i) => (alias && i % 2 ? `l${i}: ${l}` : l)), ...nested.map((p, i) => `n${i}: ${p.render(v)}`)];
        const body = parts.join(' ');
        return fragment === 'inline' ? `... on ${r.name} { ${body} }` : fragment === 'node' ? `... on Node { id } ${body}` : body;
      },
    }));
  objects.set(key, arb);
  return arb;
}

function connectionOf(r: ModelResource, depth: number, omit?: string): fc.Arbitrary<Part> {
  return fc
    .record({
      args: argsOf(r, omit),
      vars: fc.boolean(),
      parts: fc.subarray(['totalCount', 'pageInfo', 'edges', '__typename'], { minLength: 1 }),
      info: fc.subarray(['startCursor', 'endCursor', 'hasNextPage', 'hasPreviousPage', '__typename'], { minLength: 1 }),
      edge: fc.subarray(['cursor', 'node', 'node', '__typename'], { minLength: 1 }),
      node: objectOf(r, depth),
    })
    .map(({ args, vars, parts, info, edge, node }) => ({
      render: (v) => {
        const sel = parts.map((p) => (p === 'pageInfo' ? `pageInfo { ${info.join(' ')} }` : p === 'edges' ? `edges { ${[...new Set(edge)].map((e) => (e === 'node' ? `node { ${node.render(v)} }` : e)).join(' ')} }` : p));
        return `${argumentsPart(args, vars).render(v)} { ${sel.join(' ')} }`;
      },
    }));
}

function rootOf(): fc.Arbitrary<Part> {
  const roots = model.resources.filter((r) => r.graphql.has('query') && !r.provider);
  const collection = fc.constantFrom(...roots).chain((r) => connectionOf(r, 2).map((p) => ({ render: (v: Vars) => `${r.plural}${p.render(v)}` })));
  const item = fc.constantFrom(...roots).chain((r) =>
    fc
      .record({ id: fc.constantFrom(...(iris[r.name] ?? []), ...(iris[r.name] ?? []), foreign.invoice!, `${r.iri}/01890a5d-ac96-774b-bcce-b302099a8057`, 'nope'), vars: fc.boolean(), object: objectOf(r, 2) })
      .map(({ id, vars, object }) => ({ render: (v: Vars) => `${lowerFirst(r.name)}(id: ${vars ? v.add('ID!', id) : JSON.stringify(id)}) { ${object.render(v)} }` })),
  );
  return fc.array(fc.oneof({ weight: 3, arbitrary: collection }, { weight: 2, arbitrary: item }), { minLength: 1, maxLength: 2 }).map((parts) => ({
    render: (v) => parts.map((p, i) => `r${i}: ${p.render(v)}`).join(' '),
  }));
}

describe('generated queries', () => {
  it('agree with the normal path', async () => {
    compiledCount = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        rootOf().map((root) => {
          const v = new Vars();
          const body = root.render(v);
          return v.defs.length ? { query: `query(${v.defs.join(', ')}) { ${body} }`, variables: v.values } : { query: `{ ${body} }` };
        }),
        async ({ query, variables }) => {
          runs++;
          await agree('A', query, variables);
        },
      ),
      { numRuns: Number(process.env.GRAPHQL_DIFF_RUNS ?? 150) },
    );
    // Many generated queries are valid and compiled; the rest check the fallback. (A partial text
    // filter whose page and count are best read differently goes to the resolvers: about 4 in 10
    // of the generated queries compile, so the bound leaves room for chance.)
    expect(compiledCount).toBeGreaterThan(runs * 0.25);
  }, 600_000);
});
