// The GraphQL API at /api/graphql through HTTP: queries, relations, filters, cursor pagination,
// mutations with the engine's validation, tenancy, authentication, limits, and statement counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../engine/keyset.ts';
import { model } from '../server/model.ts';
import { call, client, startTestServer, tokenFor, type Client, type Res, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: string;
let viewer: string;
let other: string;
let rest: Client;
const iris: Record<string, string> = {};

function gql(token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<Res> {
  return call(t, 'POST', '/api/graphql', { token, body: { query, variables }, contentType: 'application/json' });
}

/** A query that must succeed: returns `data`. */
async function ok(token: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await gql(token, query, variables);
  expect(res.status, res.text).toBe(200);
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
}

beforeAll(async () => {
  t = await startTestServer();
  admin = await tokenFor(t, { email: 'admin@a.test', company: 'A' });
  viewer = await tokenFor(t, { email: 'viewer@a.test', company: 'A', role: 'viewer' });
  other = await tokenFor(t, { email: 'admin@b.test', company: 'B' });
  rest = client(t, admin);
  const post = async (path: string, body: unknown) => {
    const res = await rest.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.body['@id'] as string;
  };
  iris.client = await post('/api/clients', { name: 'Globex', currency: 'EUR' });
  iris.client2 = await post('/api/clients', { name: 'Initech', currency: 'USD' });
  iris.tax = await post('/api/taxes', { name: 'VAT', rate: 20 });
  iris.contact = await post('/api/contacts', { client: iris.client, firstName: 'Ada', email: 'ada@globex.test' });
  iris.address = await post('/api/addresses', { client: iris.client, city: 'Berlin', country: 'DE' });
  iris.invoice = await post('/api/invoices', {
    client: iris.client, invoiceDate: '2026-01-10', dueDate: '2026-02-10', notes: 'first',
    lines: [{ description: 'Design', qty: 2.5, price: 4000, tax: iris.tax, position: 0 }, { description: 'Hosting', price: 1500, position: 1 }],
  });
  iris.invoice2 = await post('/api/invoices', { client: iris.client2, invoiceDate: '2026-03-05', lines: [{ description: 'Audit', price: 9000 }] });
  expect((await rest.patch(iris.invoice2, { status: 'pending' })).status).toBe(200);
  iris.payment = await post('/api/payments', { invoice: iris.invoice2, amount: 1000, method: 'card' });
  iris.quote = await post('/api/quotes', { client: iris.client, lines: [{ description: 'Offer', qty: 1, price: 700 }] });
  iris.recurring = await post('/api/recurring-invoices', { client: iris.client, frequency: 'monthly', startDate: '2026-01-31', lines: [{ description: 'Support', qty: 1.25, price: 2000, tax: iris.tax }] });
  const b = client(t, other);
  iris.otherClient = (await b.post('/api/clients', { name: 'Umbrella' })).body['@id'];
  iris.otherInvoice = (await b.post('/api/invoices', { client: iris.otherClient, lines: [{ description: 'Secret', price: 1 }] })).body['@id'];
  expect(iris.otherInvoice).toMatch(/^\/api\/invoices\//);
});
afterAll(() => t.close());

describe('queries', () => {
  const resources = [
    ['client', 'clients', 'client'],
    ['contact', 'contacts', 'contact'],
    ['address', 'addresses', 'address'],
    ['tax', 'taxes', 'tax'],
    ['invoice', 'invoices', 'invoice'],
    ['quote', 'quotes', 'quote'],
    ['recurringInvoice', 'recurringInvoices', 'recurring'],
    ['payment', 'payments', 'payment'],
  ] as const;

  it.each(resources)('%s: the item by IRI and the collection', async (item, plural, key) => {
    const iri = iris[key]!;
    const data = await ok(admin, `query($id: ID!) { ${item}(id: $id) { id _id createdAt updatedAt } ${plural} { totalCount edges { cursor node { id } } } }`, { id: iri });
    expect(data[item].id).toBe(iri);
    expect(iri.endsWith(`/${data[item]._id}`)).toBe(true);
    expect(Date.parse(data[item].createdAt)).not.toBeNaN();
    expect(data[plural].edges.map((e: any) => e.node.id)).toContain(iri);
    expect(data[plural].totalCount).toBe(data[plural].edges.length);
  });

  it('invoice and quote lines have their own collection and item queries', async () => {
    const data = await ok(admin, '{ invoiceLines(order: [{position: "ASC"}]) { totalCount edges { node { id description invoice { id } } } } quoteLines { totalCount edges { node { id description quote { id } } } } }');
    expect(data.invoiceLines.totalCount).toBe(3);
    expect(data.quoteLines.edges[0].node).toMatchObject({ description: 'Offer', quote: { id: iris.quote } });
    const line = data.invoiceLines.edges.find((e: any) => e.node.description === 'Design').node;
    expect(line.id).toMatch(/^\/api\/invoice-lines\//);
    expect(line.invoice.id).toBe(iris.invoice);
    const one = await ok(admin, 'query($id: ID!) { invoiceLine(id: $id) { description qty price tax { name rate } } }', { id: line.id });
    expect(one.invoiceLine).toEqual({ description: 'Design', qty: 2.5, price: 4000, tax: { name: 'VAT', rate: 20 } });
  });

  it('selects to-one relations as objects and to-many relations as connections', async () => {
    const data = await ok(admin, `query($id: ID!) { invoice(id: $id) {
      number status invoiceDate dueDate notes
      client { name currency contacts { totalCount edges { node { firstName } } } addresses { edges { node { countryName } } } }
      lines { totalCount edges { node { description qty price position tax { name rate type } } } }
      payments { totalCount }
    } }`, { id: iris.invoice });
    const inv = data.invoice;
    expect(inv).toMatchObject({ status: 'draft', invoiceDate: '2026-01-10', dueDate: '2026-02-10', notes: 'first' });
    expect(inv.number).toMatch(/^INV-\d{6}$/);
    expect(inv.client).toEqual({ name: 'Globex', currency: 'EUR', contacts: { totalCount: 1, edges: [{ node: { firstName: 'Ada' } }] }, addresses: { edges: [{ node: { countryName: 'Germany' } }] } });
    expect(inv.lines.totalCount).toBe(2);
    expect(inv.lines.edges.map((e: any) => e.node)).toEqual([
      { description: 'Design', qty: 2.5, price: 4000, position: 0, tax: { name: 'VAT', rate: 20, type: 'exclusive' } },
      { description: 'Hosting', qty: 1, price: 1500, position: 1, tax: null },
    ]);
    expect(inv.payments.totalCount).toBe(0);

    const c = await ok(admin, `query($id: ID!) { client(id: $id) {
      invoices { totalCount edges { node { id } } } quotes { totalCount } recurringInvoices { totalCount } payments { totalCount }
    } }`, { id: iris.client2 });
    expect(c.client).toEqual({ invoices: { totalCount: 1, edges: [{ node: { id: iris.invoice2 } }] }, quotes: { totalCount: 0 }, recurringInvoices: { totalCount: 0 }, payments: { totalCount: 1 } });

    const p = await ok(admin, 'query($id: ID!) { payment(id: $id) { amount method currency paidAt invoice { id status } client { name } } }', { id: iris.payment });
    expect(p.payment).toMatchObject({ amount: 1000, method: 'card', currency: 'USD', invoice: { id: iris.invoice2, status: 'pending' }, client: { name: 'Initech' } });
    expect(p.payment.paidAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
  });

  it('serves a recurring invoice\'s lines as a plain list with their tax as an object', async () => {
    const data = await ok(admin, 'query($id: ID!) { recurringInvoice(id: $id) { frequency interval dueInDays status lines { description qty price tax { id name } } } }', { id: iris.recurring });
    expect(data.recurringInvoice).toEqual({
      frequency: 'monthly', interval: 1, dueInDays: 14, status: 'draft',
      lines: [{ description: 'Support', qty: 1.25, price: 2000, tax: { id: iris.tax, name: 'VAT' } }],
    });
  });

  it('resolves any record through node(id:)', async () => {
    const data = await ok(admin, `query($a: ID!, $b: ID!) {
      a: node(id: $a) { id ... on Invoice { number } }
      b: node(id: $b) { id __typename ... on Client { name } }
    }`, { a: iris.invoice, b: iris.client });
    expect(data.a.id).toBe(iris.invoice);
    expect(data.a.number).toMatch(/^INV-/);
    expect(data.b).toEqual({ id: iris.client, __typename: 'Client', name: 'Globex' });
  });

  it('returns null for a missing or deleted record, and an error for an IRI of another type', async () => {
    const missing = await ok(admin, '{ invoice(id: "/api/invoices/01890000-0000-7000-8000-000000000000") { id } node(id: "/api/clients/01890000-0000-7000-8000-000000000000") { id } }');
    expect(missing).toEqual({ invoice: null, node: null });
    const wrong = await gql(admin, 'query($id: ID!) { invoice(id: $id) { id } }', { id: iris.client });
    expect(wrong.status).toBe(200);
    expect(wrong.body.data.invoice).toBeNull();
    expect(wrong.body.errors[0].message).toBe(`Item "${iris.client}" did not match expected type "Invoice".`);
    const garbage = await gql(admin, '{ node(id: "/nope/1") { id } }');
    expect(garbage.body.errors[0].message).toBe('No route matches "/nope/1".');
  });

  it('serves queries through GET and refuses mutations there', async () => {
    const q = encodeURIComponent('query($id: ID!) { client(id: $id) { name } }');
    const v = encodeURIComponent(JSON.stringify({ id: iris.client }));
    const res = await call(t, 'GET', `/api/graphql?query=${q}&variables=${v}`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { client: { name: 'Globex' } } });
    const m = encodeURIComponent('mutation { deleteClient(input: {id: "x"}) { client { id } } }');
    const refused = await call(t, 'GET', `/api/graphql?query=${m}`, { token: admin });
    expect(refused.status).toBe(405);
    expect(refused.body.errors[0].message).toMatch(/POST/);
  });

  it('answers malformed requests with 400 in the GraphQL error shape', async () => {
    const bad = await call(t, 'POST', '/api/graphql', { token: admin, rawBody: '{"query": ', contentType: 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.status).toBe(400);
    const none = await call(t, 'POST', '/api/graphql', { token: admin, body: { variables: {} }, contentType: 'application/json' });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].message).toMatch(/no GraphQL query/);
    const syntax = await gql(admin, '{ clients { ');
    expect(syntax.status).toBe(200);
    expect(syntax.body.errors[0].message).toMatch(/^Syntax Error/);
    expect(syntax.body.data).toBeUndefined();
  });
});

describe('filters and order', () => {
  it('filters with arguments given as variables', async () => {
    const data = await ok(admin, `query($status: String, $client: String, $number: String, $after: String) {
      byStatus: invoices(status: $status) { totalCount edges { node { id } } }
      byClient: invoices(client: $client) { totalCount edges { node { id } } }
      byNumber: invoices(number: $number) { totalCount }
      byDate: invoices(invoiceDate: [{after: $after}]) { totalCount edges { node { id invoiceDate } } }
      byList: invoices(status_list: ["draft", "pending"]) { totalCount }
      none: invoices(status: "paid") { totalCount edges { node { id } } pageInfo { startCursor endCursor hasNextPage hasPreviousPage } }
    }`, { status: 'pending', client: iris.client, number: 'inv-', after: '2026-02-01' });
    expect(data.byStatus).toEqual({ totalCount: 1, edges: [{ node: { id: iris.invoice2 } }] });
    expect(data.byClient).toEqual({ totalCount: 1, edges: [{ node: { id: iris.invoice } }] });
    expect(data.byNumber.totalCount).toBe(2);
    expect(data.byDate).toEqual({ totalCount: 1, edges: [{ node: { id: iris.invoice2, invoiceDate: '2026-03-05' } }] });
    expect(data.byList.totalCount).toBe(2);
    expect(data.none).toEqual({ totalCount: 0, edges: [], pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false } });
  });

  it('combines date bounds and orders ascending or descending', async () => {
    const data = await ok(admin, `{
      window: invoices(invoiceDate: [{after: "2026-01-10"}, {strictly_before: "2026-03-05"}]) { edges { node { id } } }
      desc: invoices(order: [{invoiceDate: "DESC"}]) { edges { node { invoiceDate } } }
      asc: invoices(order: [{invoiceDate: "asc"}]) { edges { node { invoiceDate } } }
      partial: clients(name: "GLOB") { edges { node { name } } }
    }`);
    expect(data.window.edges).toEqual([{ node: { id: iris.invoice } }]);
    expect(data.desc.edges.map((e: any) => e.node.invoiceDate)).toEqual(['2026-03-05', '2026-01-10']);
    expect(data.asc.edges.map((e: any) => e.node.invoiceDate)).toEqual(['2026-01-10', '2026-03-05']);
    expect(data.partial.edges).toEqual([{ node: { name: 'Globex' } }]);
  });

  it('filters nested connections too', async () => {
    const data = await ok(admin, 'query($id: ID!) { client(id: $id) { pending: invoices(status: "pending") { totalCount } draft: invoices(status: "draft") { totalCount } } }', { id: iris.client2 });
    expect(data.client).toEqual({ pending: { totalCount: 1 }, draft: { totalCount: 0 } });
  });

  it('refuses a bad filter value or order direction with an error naming it', async () => {
    const date = await gql(admin, '{ invoices(invoiceDate: [{after: "yesterday"}]) { totalCount } }');
    expect(date.body.errors[0]).toMatchObject({ message: 'Invalid date "yesterday" for filter "invoiceDate".', extensions: { status: 400 } });
    const dir = await gql(admin, '{ invoices(order: [{number: "UP"}]) { totalCount } }');
    expect(dir.body.errors[0].message).toBe('Invalid direction "UP" for order "number": use ASC or DESC.');
    const unknown = await gql(admin, '{ invoices(order: [{notes: "ASC"}]) { totalCount } }');
    expect(unknown.body.errors[0].message).toMatch(/notes/);
  });
});

describe('cursor pagination', () => {
  let paging: string;
  const names = Array.from({ length: 23 }, (_, i) => `Client ${String(i + 1).padStart(2, '0')}`);

  beforeAll(async () => {
    paging = await tokenFor(t, { email: 'pager@p.test', company: 'Paging' });
    const api = client(t, paging);
    for (const name of [...names].reverse()) expect((await api.post('/api/clients', { name })).status).toBe(201);
  });

  const page = `query($first: Int, $last: Int, $after: String, $before: String) {
    clients(first: $first, last: $last, after: $after, before: $before, order: [{name: "ASC"}]) {
      totalCount edges { cursor node { name } } pageInfo { startCursor endCursor hasNextPage hasPreviousPage }
    }
  }`;

  it('visits every record exactly once forwards', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const { clients } = await ok(paging, page, { first: 5, after });
      expect(clients.totalCount).toBe(23);
      seen.push(...clients.edges.map((e: any) => e.node.name));
      expect(clients.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!clients.pageInfo.hasNextPage) break;
      after = clients.pageInfo.endCursor;
    }
    expect(seen).toEqual(names);
  });

  it('visits every record exactly once backwards', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    for (let i = 0; i < 10; i++) {
      const { clients } = await ok(paging, page, { last: 5, before });
      seen.unshift(...clients.edges.map((e: any) => e.node.name));
      expect(clients.pageInfo.hasNextPage).toBe(before !== null);
      if (!clients.pageInfo.hasPreviousPage) break;
      before = clients.pageInfo.startCursor;
    }
    expect(seen).toEqual(names);
  });

  it('gives opaque keyset cursors: the order\'s values and the id, never an offset', async () => {
    const keyed = page.replace('node { name }', 'node { name _id }');
    const { clients } = await ok(paging, keyed, { first: 2 });
    const order = [{ field: 'name', dir: 'asc' as const }];
    const cursorOf = (n: { name: string; _id: string }) => encodeCursor(model.get('Client'), order, { name: n.name, id: n._id });
    expect(clients.edges.map((e: any) => e.cursor)).toEqual(clients.edges.map((e: any) => cursorOf(e.node)));
    expect(clients.pageInfo).toEqual({ startCursor: clients.edges[0].cursor, endCursor: clients.edges[1].cursor, hasNextPage: true, hasPreviousPage: false });
    const last = await ok(paging, keyed, { last: 3 });
    expect(last.clients.edges.map((e: any) => e.node.name)).toEqual(names.slice(20));
    expect(last.clients.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const all = (await ok(paging, keyed, { first: 30 })).clients.edges as { cursor: string }[];
    const between = await ok(paging, page, { after: all[1]!.cursor, before: all[5]!.cursor });
    expect(between.clients.edges.map((e: any) => e.node.name)).toEqual(names.slice(2, 5));
    expect(between.clients.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const none = await ok(paging, page, { first: 0 });
    expect(none.clients).toMatchObject({ totalCount: 23, edges: [] });
  });

  it('pages nested connections per parent', async () => {
    const data = await ok(admin, `query($id: ID!) { invoice(id: $id) {
      a: lines(first: 1) { totalCount edges { cursor node { description } } pageInfo { hasNextPage endCursor } }
      c: lines(last: 1) { edges { node { description } } }
    } }`, { id: iris.invoice });
    const first = data.invoice.a.edges[0].cursor;
    expect(data.invoice.a).toEqual({ totalCount: 2, edges: [{ cursor: first, node: { description: 'Design' } }], pageInfo: { hasNextPage: true, endCursor: first } });
    expect(data.invoice.c.edges).toEqual([{ node: { description: 'Hosting' } }]);
    const next = await ok(admin, `query($id: ID!, $after: String) { invoice(id: $id) { b: lines(first: 1, after: $after) { edges { cursor node { description } } pageInfo { hasNextPage hasPreviousPage } } } }`, { id: iris.invoice, after: first });
    expect(next.invoice.b).toEqual({ edges: [{ cursor: expect.any(String), node: { description: 'Hosting' } }], pageInfo: { hasNextPage: false, hasPreviousPage: true } });
    expect(next.invoice.b.edges[0].cursor).not.toBe(first);
  });

  it('refuses a malformed cursor, or one of another order, naming the argument', async () => {
    const res = await gql(paging, page, { first: 5, after: 'not a cursor' });
    expect(res.body.errors[0].message).toMatch(/^"after" is not a valid cursor/);
    const { clients } = await ok(paging, page, { first: 1 });
    const foreign = await gql(paging, page.replace('{name: "ASC"}', '{name: "DESC"}'), { last: 5, before: clients.edges[0].cursor });
    expect(foreign.body.errors[0].message).toMatch(/^"before" is not a valid cursor/);
  });
});

interface MutationCase {
  type: string;
  plural: string;
  create: () => Record<string, unknown>;
  update: () => Record<string, unknown>;
  select: string;
  check: (node: any) => void;
  invalid: { mode: 'create' | 'update'; input: () => Record<string, unknown>; message: string; path: string };
}

const mutationCases: MutationCase[] = [
  {
    type: 'Client', plural: 'clients', create: () => ({ name: 'Hooli', website: 'https://hooli.test' }), update: () => ({ notes: 'VIP', status: 'archived' }),
    select: 'name currency website notes status', check: (n) => expect(n).toEqual({ name: 'Hooli', currency: 'USD', website: 'https://hooli.test', notes: 'VIP', status: 'archived' }),
    invalid: { mode: 'create', input: () => ({ name: '  ' }), path: 'name', message: 'name: This value should not be blank.' },
  },
  {
    type: 'Contact', plural: 'contacts', create: () => ({ client: iris.client, firstName: 'Grace', email: 'grace@globex.test' }), update: () => ({ phone: '+1 555' }),
    select: 'firstName email phone client { id }', check: (n) => expect(n).toEqual({ firstName: 'Grace', email: 'grace@globex.test', phone: '+1 555', client: { id: iris.client } }),
    invalid: { mode: 'update', input: () => ({ email: 'not-an-email' }), path: 'email', message: 'email: This value is not a valid e-mail.' },
  },
  {
    type: 'Address', plural: 'addresses', create: () => ({ client: iris.client, street1: '1 Rue', city: 'Paris', country: 'fr' }), update: () => ({ zip: '75001' }),
    select: 'city country countryName zip', check: (n) => expect(n).toEqual({ city: 'Paris', country: 'FR', countryName: 'France', zip: '75001' }),
    invalid: { mode: 'create', input: () => ({ client: iris.client, country: 'XX' }), path: 'country', message: 'country: This value is not a valid country.' },
  },
  {
    type: 'Tax', plural: 'taxes', create: () => ({ name: 'Reduced', rate: 7.5, type: 'inclusive' }), update: () => ({ rate: 5.25 }),
    select: 'name rate type', check: (n) => expect(n).toEqual({ name: 'Reduced', rate: 5.25, type: 'inclusive' }),
    invalid: { mode: 'create', input: () => ({ name: 'Too much', rate: 101 }), path: 'rate', message: 'rate: This value should be less than or equal to 100.' },
  },
  {
    type: 'Invoice', plural: 'invoices', create: () => ({ client: iris.client, invoiceDate: '2026-05-01', dueDate: '2026-05-31' }), update: () => ({ notes: 'Thanks', dueDate: '2026-06-30' }),
    select: 'status currency notes dueDate client { name }', check: (n) => expect(n).toEqual({ status: 'draft', currency: 'EUR', notes: 'Thanks', dueDate: '2026-06-30', client: { name: 'Globex' } }),
    invalid: { mode: 'create', input: () => ({ client: iris.client, invoiceDate: '2026-05-01', dueDate: '2026-04-01' }), path: 'dueDate', message: 'dueDate: This value should be greater than or equal to invoiceDate (2026-05-01).' },
  },
  {
    type: 'InvoiceLine', plural: 'invoiceLines', create: () => ({ invoice: iris.invoice, description: 'Extra', price: 250, qty: 3, position: 5 }), update: () => ({ qty: 1.5, tax: iris.tax }),
    select: 'description qty price position invoice { id } tax { name }', check: (n) => expect(n).toEqual({ description: 'Extra', qty: 1.5, price: 250, position: 5, invoice: { id: iris.invoice }, tax: { name: 'VAT' } }),
    invalid: { mode: 'update', input: () => ({ qty: 0 }), path: 'qty', message: 'qty: This value should be greater than 0.' },
  },
  {
    type: 'Quote', plural: 'quotes', create: () => ({ client: iris.client2, validUntil: '2099-01-01' }), update: () => ({ terms: '30 days' }),
    select: 'status terms currency number', check: (n) => expect(n).toMatchObject({ status: 'draft', terms: '30 days', currency: 'USD', number: expect.stringMatching(/^QUO-/) }),
    invalid: { mode: 'update', input: () => ({ status: 'accepted' }), path: 'status', message: 'status: The transition from "draft" to "accepted" is not allowed. Allowed: "sent", "cancelled".' },
  },
  {
    type: 'QuoteLine', plural: 'quoteLines', create: () => ({ quote: iris.quote, description: 'Option', price: 99 }), update: () => ({ description: 'Option B' }),
    select: 'description qty price quote { id }', check: (n) => expect(n).toEqual({ description: 'Option B', qty: 1, price: 99, quote: { id: iris.quote } }),
    invalid: { mode: 'create', input: () => ({ quote: iris.quote, description: 'x'.repeat(1001), price: 1 }), path: 'description', message: 'description: This value is too long. It should have 1000 characters or less.' },
  },
  {
    type: 'RecurringInvoice', plural: 'recurringInvoices', create: () => ({ client: iris.client, frequency: 'weekly', startDate: '2026-02-01', lines: [{ description: 'Retainer', price: 5000, tax: iris.tax }] }), update: () => ({ interval: 2 }),
    select: 'frequency interval startDate lines { description qty price tax { name } }',
    check: (n) => expect(n).toEqual({ frequency: 'weekly', interval: 2, startDate: '2026-02-01', lines: [{ description: 'Retainer', qty: 1, price: 5000, tax: { name: 'VAT' } }] }),
    invalid: { mode: 'create', input: () => ({ client: iris.client, frequency: 'hourly', startDate: '2026-02-01' }), path: 'frequency', message: 'frequency: The value you selected is not a valid choice. Allowed: "daily", "weekly", "monthly", "yearly".' },
  },
];

describe('mutations', () => {
  it.each(mutationCases)('$type: create, update and delete through the engine', async (c) => {
    const key = c.type.charAt(0).toLowerCase() + c.type.slice(1);
    const created = await ok(admin, `mutation($input: create${c.type}Input!) { create${c.type}(input: $input) { ${key} { id _id } clientMutationId } }`, { input: { ...c.create(), clientMutationId: 'c-1' } });
    const iri = created[`create${c.type}`][key].id as string;
    expect(iri).toMatch(/^\/api\/[a-z-]+\/[0-9a-f-]{36}$/);
    expect(created[`create${c.type}`].clientMutationId).toBe('c-1');

    const updated = await ok(admin, `mutation($input: update${c.type}Input!) { update${c.type}(input: $input) { ${key} { id ${c.select} } clientMutationId } }`, { input: { id: iri, ...c.update() } });
    const node = updated[`update${c.type}`][key];
    expect(node.id).toBe(iri);
    delete node.id;
    c.check(node);
    expect(updated[`update${c.type}`].clientMutationId).toBeNull();

    // The same record read back through its item query.
    const read = await ok(admin, `query($id: ID!) { ${key}(id: $id) { ${c.select} } }`, { id: iri });
    c.check(read[key]);

    const deleted = await ok(admin, `mutation($input: delete${c.type}Input!) { delete${c.type}(input: $input) { ${key} { id } clientMutationId } }`, { input: { id: iri, clientMutationId: 'd-1' } });
    expect(deleted[`delete${c.type}`]).toEqual({ [key]: { id: iri }, clientMutationId: 'd-1' });
    expect((await ok(admin, `query($id: ID!) { ${key}(id: $id) { id } }`, { id: iri }))[key]).toBeNull();
  });

  it.each(mutationCases)('$type: a validation error names the field, with status 422 and violations', async (c) => {
    const key = c.type.charAt(0).toLowerCase() + c.type.slice(1);
    let input = c.invalid.input();
    if (c.invalid.mode === 'update') {
      const created = await ok(admin, `mutation($input: create${c.type}Input!) { create${c.type}(input: $input) { ${key} { id } } }`, { input: c.create() });
      input = { id: created[`create${c.type}`][key].id, ...input };
    }
    const before = await ok(admin, `{ ${c.plural} { totalCount } }`);
    const mode = c.invalid.mode;
    const res = await gql(admin, `mutation($input: ${mode}${c.type}Input!) { ${mode}${c.type}(input: $input) { ${key} { id } } }`, { input });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ [`${mode}${c.type}`]: null });
    expect(res.body.errors).toHaveLength(1);
    const e = res.body.errors[0];
    expect(e.message).toBe(c.invalid.message);
    expect(e.path).toEqual([`${mode}${c.type}`]);
    expect(e.extensions).toEqual({ status: 422, violations: [{ path: c.invalid.path, message: c.invalid.message.slice(c.invalid.path.length + 2) }] });
    const after = await ok(admin, `{ ${c.plural} { totalCount } }`);
    expect(after).toEqual(before);
    // The second run of the same document is compiled by the JIT: same answer.
    const again = await gql(admin, `mutation($input: ${mode}${c.type}Input!) { ${mode}${c.type}(input: $input) { ${key} { id } } }`, { input });
    expect(again.body).toEqual(res.body);
  });

  it('Payment: create only, with the engine\'s rules', async () => {
    const data = await ok(admin, `mutation($input: createPaymentInput!) { createPayment(input: $input) { payment { id amount method currency client { id } invoice { id } } clientMutationId } }`,
      { input: { invoice: iris.invoice2, amount: 500, method: 'bank_transfer', clientMutationId: 'p' } });
    expect(data.createPayment).toMatchObject({ payment: { amount: 500, method: 'bank_transfer', currency: 'USD', client: { id: iris.client2 }, invoice: { id: iris.invoice2 } }, clientMutationId: 'p' });
    const zero = await gql(admin, 'mutation { createPayment(input: {invoice: "' + iris.invoice2 + '", amount: 0}) { payment { id } } }');
    expect(zero.body.errors[0]).toMatchObject({ message: 'amount: This value should be greater than or equal to 1.', extensions: { status: 422 } });
    for (const op of ['updatePayment', 'deletePayment']) {
      const res = await gql(admin, `mutation { ${op}(input: {id: "${iris.payment}"}) { clientMutationId } }`);
      expect(res.body.errors[0].message).toMatch(new RegExp(`^Cannot query field "${op}" on type "Mutation".`));
    }
  });

  it('reports each violation as an error of its own, each listing them all', async () => {
    const res = await gql(admin, 'mutation { createTax(input: {name: "", rate: 200}) { tax { id } } }');
    const violations = [{ path: 'name', message: 'This value should not be blank.' }, { path: 'rate', message: 'This value should be less than or equal to 100.' }];
    expect(res.body.data).toEqual({ createTax: null });
    expect(res.body.errors.map((e: any) => e.message)).toEqual(['name: This value should not be blank.', 'rate: This value should be less than or equal to 100.']);
    for (const e of res.body.errors) expect(e.extensions).toEqual({ status: 422, violations });
  });

  it('reports a reference to a missing record as a violation, and conflicts with their status', async () => {
    const res = await gql(admin, 'mutation { createContact(input: {client: "/api/clients/01890000-0000-7000-8000-000000000000", firstName: "X", email: "x@x.test"}) { contact { id } } }');
    expect(res.body.errors[0].extensions).toEqual({ status: 422, violations: [{ path: 'client', message: 'Item not found for "/api/clients/01890000-0000-7000-8000-000000000000".' }] });
    const conflict = await gql(admin, `mutation { deleteClient(input: {id: "${iris.client2}"}) { client { id } } }`);
    expect(conflict.status).toBe(200);
    expect(conflict.body.errors[0].extensions.status).toBe(409);
    expect(conflict.body.data.deleteClient).toBeNull();
  });
});

describe('tenancy', () => {
  it('answers null for another company\'s record and never lists it', async () => {
    const data = await ok(admin, `query($i: ID!, $c: ID!, $cf: String) {
      invoice(id: $i) { id } client(id: $c) { id } node(id: $i) { id }
      invoices(first: 30) { totalCount edges { node { id } } }
      clients(first: 30) { edges { node { id invoices { edges { node { id } } } } } }
      invoiceLines(first: 30) { edges { node { description } } }
      byClient: invoices(client: $cf) { totalCount }
    }`, { i: iris.otherInvoice, c: iris.otherClient, cf: iris.otherClient });
    expect(data.invoice).toBeNull();
    expect(data.client).toBeNull();
    expect(data.node).toBeNull();
    const ids = JSON.stringify(data);
    expect(ids).not.toContain(iris.otherInvoice);
    expect(ids).not.toContain(iris.otherClient);
    expect(ids).not.toContain('Secret');
    expect(data.byClient.totalCount).toBe(0);
    // And the other company sees its own.
    const b = await ok(other, '{ invoices { totalCount edges { node { id client { name } } } } }');
    expect(b.invoices).toEqual({ totalCount: 1, edges: [{ node: { id: iris.otherInvoice, client: { name: 'Umbrella' } } }] });
  });

  it('refuses writes to another company\'s records as if they did not exist', async () => {
    const res = await gql(admin, `mutation($id: ID!) { updateClient(input: {id: $id, name: "Hacked"}) { client { id } } }`, { id: iris.otherClient });
    expect(res.body.errors[0]).toMatchObject({ message: `Item "${iris.otherClient}" not found.`, extensions: { status: 404 } });
    const del = await gql(admin, `mutation($id: ID!) { deleteInvoice(input: {id: $id}) { invoice { id } } }`, { id: iris.otherInvoice });
    expect(del.body.errors[0].extensions.status).toBe(404);
    const ref = await gql(admin, `mutation($c: String!) { createInvoice(input: {client: $c}) { invoice { id } } }`, { c: iris.otherClient });
    expect(ref.body.errors[0].extensions.violations[0].path).toBe('client');
    const still = await ok(other, 'query($id: ID!) { client(id: $id) { name } }', { id: iris.otherClient });
    expect(still.client.name).toBe('Umbrella');
  });
});

describe('authentication and roles', () => {
  it('answers 401 with message and errors without a valid token', async () => {
    for (const token of [undefined, 'inv_not_a_real_token']) {
      const res = await gql(token, '{ clients { totalCount } }');
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.message).toBe(token ? 'Invalid API token' : 'No API token provided');
      expect(res.body.errors[0].message).toBe(res.body.message);
    }
    const get = await call(t, 'GET', '/api/graphql?query=%7B__typename%7D');
    expect(get.status).toBe(401);
  });

  it('serves GraphiQL to a browser without a token', async () => {
    const res = await call(t, 'GET', '/api/graphql', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('/graphiql/graphiql.js');
    expect(res.text).not.toMatch(/https?:\/\//);
    for (const asset of ['graphiql.js', 'graphiql.css', 'react.js', 'react-dom.js', 'init.js', 'schema.json']) {
      const a = await call(t, 'GET', `/graphiql/${asset}`);
      expect(a.status, asset).toBe(200);
    }
    expect((await call(t, 'GET', '/graphiql/../package.json')).status).toBe(404);
  });

  it('lets a viewer read but answers 403 to a viewer\'s mutation', async () => {
    const data = await ok(viewer, '{ clients { totalCount } }');
    expect(data.clients.totalCount).toBeGreaterThan(0);
    const res = await gql(viewer, 'mutation { createClient(input: {name: "Nope"}) { client { id } } }');
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.status).toBe(403);
    expect(res.body.data).toEqual({ createClient: null });
    const update = await gql(viewer, `mutation { updateClient(input: {id: "${iris.client}", notes: "x"}) { client { id } } }`);
    expect(update.status).toBe(403);
    expect((await ok(admin, '{ clients(name: "Nope") { totalCount } }')).clients.totalCount).toBe(0);
  });
});

describe('limits', () => {
  it('refuses first/last outside 0–30 naming the argument, literal or variable', async () => {
    for (const [q, v, arg] of [
      ['{ clients(first: 31) { totalCount } }', undefined, 'first'],
      ['{ clients(last: -1) { totalCount } }', undefined, 'last'],
      ['query($n: Int) { invoices { edges { node { lines(first: $n) { totalCount } } } } }', { n: 100 }, 'first'],
    ] as const) {
      const res = await gql(admin, q, v as Record<string, unknown> | undefined);
      expect(res.status).toBe(200);
      expect(res.body.errors[0].message).toBe(`Argument "${arg}" must be between 0 and 30, got ${q.includes('-1') ? -1 : v ? 100 : 31}.`);
      expect(res.body.data).toBeUndefined();
    }
  });

  it('refuses queries deeper than 10 levels before running them', async () => {
    const ok10 = '{ clients(first: 2) { edges { node { invoices(first: 2) { edges { node { lines { edges { node { description } } } } } } } } } }';
    expect((await gql(admin, ok10)).body.errors).toBeUndefined();
    const deep = '{ clients { edges { node { invoices { edges { node { lines { edges { node { tax { name } } } } } } } } } } }';
    const res = await gql(admin, deep);
    expect(res.body.errors[0].message).toBe('The query is too deep: "clients" nests 11 levels of fields, and at most 10 are allowed.');
    expect(res.body.data).toBeUndefined();
    const viaFragments = await gql(admin, `{ clients { ...C } } fragment C on ClientCursorConnection { edges { node { invoices { ...I } } } }
      fragment I on InvoiceCursorConnection { edges { node { lines { edges { node { invoice { client { name } } } } } } } }`);
    expect(viaFragments.body.errors[0].message).toMatch(/too deep.*12 levels/);
  });

  it('refuses queries above the cost limit before running them', async () => {
    const statements = t.db.database.statements();
    const res = await gql(admin, '{ clients { edges { node { invoices { edges { node { lines { edges { node { description qty price } } } } } } } } } }');
    expect(res.body.errors[0].message).toMatch(/^The query is too expensive: it may resolve \d+ fields, and at most 25000 are allowed/);
    expect(res.body.data).toBeUndefined();
    // Only the token lookup ran: nothing was read.
    expect(t.db.database.statements() - statements).toBeLessThanOrEqual(2);
    const smaller = await gql(admin, '{ clients(first: 5) { edges { node { invoices { edges { node { lines { edges { node { description qty price } } } } } } } } } }');
    expect(smaller.body.errors).toBeUndefined();
  });

  it('refuses too many aliases', async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ');
    const res = await gql(admin, `{ ${fields} }`);
    expect(res.body.errors[0].message).toBe('The query uses 31 aliases, and at most 30 are allowed.');
  });

  it('supports introspection, including the standard introspection query', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const full = await ok(admin, getIntrospectionQuery());
    const names = full.__schema.types.map((x: any) => x.name);
    for (const n of ['Node', 'Invoice', 'InvoiceCursorConnection', 'InvoiceEdge', 'InvoicePageInfo', 'createInvoiceInput', 'updateInvoicePayload', 'InvoiceFilter_invoiceDate', 'InvoiceFilter_order', 'RecurringInvoiceLinesItem']) expect(names).toContain(n);
    expect(names).not.toContain('ApiToken');
    const type = await ok(admin, '{ __type(name: "Invoice") { interfaces { name } fields { name type { name kind ofType { name } } } } }');
    const fields = Object.fromEntries(type.__type.fields.map((f: any) => [f.name, f.type]));
    expect(type.__type.interfaces).toEqual([{ name: 'Node' }]);
    expect(fields.id).toEqual({ name: null, kind: 'NON_NULL', ofType: { name: 'ID' } });
    expect(fields.total).toEqual({ name: null, kind: 'NON_NULL', ofType: { name: 'Money' } });
    expect(fields.discountValue).toEqual({ name: null, kind: 'NON_NULL', ofType: { name: 'Float' } });
    expect(fields.client).toEqual({ name: 'Client', kind: 'OBJECT', ofType: null });
    expect(fields.lines).toEqual({ name: null, kind: 'NON_NULL', ofType: { name: 'InvoiceLineCursorConnection' } });
  });

  it('refuses introspection that expands types within types', async () => {
    const res = await gql(admin, '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }');
    expect(res.body.errors[0].message).toMatch(/^The introspection query nests 3 expansions of types/);
    const viaOfType = await gql(admin, '{ __type(name: "Invoice") { fields { type { ofType { fields { name } } } } } }');
    expect(viaOfType.body.errors[0].message).toMatch(/nests 2 expansions/);
  });
});

describe('SQL statements per request', () => {
  let counting: string;
  beforeAll(async () => {
    counting = await tokenFor(t, { email: 'count@c.test', company: 'Counting' });
    const api = client(t, counting);
    const tax = (await api.post('/api/taxes', { name: 'T', rate: 10 })).body['@id'];
    const clients: string[] = [];
    for (let i = 0; i < 5; i++) clients.push((await api.post('/api/clients', { name: `Count ${i}` })).body['@id']);
    for (let i = 0; i < 25; i++) {
      const res = await api.post('/api/invoices', { client: clients[i % 5], lines: [{ description: `a${i}`, price: 100, tax, position: 0 }, { description: `b${i}`, price: 200, position: 1 }] });
      expect(res.status).toBe(201);
    }
  });

  async function statementsFor(query: string, variables: Record<string, unknown>): Promise<{ n: number; data: any }> {
    const before = t.db.database.statements();
    const data = await ok(counting, query, variables);
    return { n: t.db.database.statements() - before, data };
  }

  it('depend on the query\'s shape, not on the number of rows', async () => {
    const query = `query($n: Int) { invoices(first: $n) { totalCount edges { node {
      number client { name currency } lines { totalCount edges { node { description price tax { name } } } } payments { totalCount }
    } } } }`;
    const five = await statementsFor(query, { n: 5 });
    const all = await statementsFor(query, { n: 25 });
    expect(five.data.invoices.edges).toHaveLength(5);
    expect(all.data.invoices.edges).toHaveLength(25);
    expect(all.data.invoices.edges.every((e: any) => e.node.client.name.startsWith('Count ') && e.node.lines.totalCount === 2 && e.node.lines.edges[0].node.tax.name === 'T')).toBe(true);
    expect(all.n).toBe(five.n);
    // One compiled statement (plus the token lookup where tokens are not cached); the resolvers
    // would run one per level and relation (test/graphql-compiled.test.ts compares both).
    expect(all.n).toBeLessThanOrEqual(2);
    // Again: same data, same statements.
    const again = await statementsFor(query, { n: 25 });
    expect(again.data).toEqual(all.data);
    expect(again.n).toBe(all.n);
  });

  it('stay constant for to-many connections under many parents', async () => {
    const query = `query($n: Int) { clients(first: $n) { edges { node { name invoices(first: 3, order: [{number: "DESC"}]) { totalCount edges { node { number lines(first: 1) { edges { node { description } } } } } } } } } }`;
    const one = await statementsFor(query, { n: 1 });
    const five = await statementsFor(query, { n: 5 });
    expect(five.data.clients.edges).toHaveLength(5);
    for (const e of five.data.clients.edges) {
      expect(e.node.invoices.totalCount).toBe(5);
      expect(e.node.invoices.edges).toHaveLength(3);
      const numbers = e.node.invoices.edges.map((x: any) => x.node.number);
      expect([...numbers].sort().reverse()).toEqual(numbers);
      expect(e.node.invoices.edges[0].node.lines.edges).toHaveLength(1);
    }
    expect(five.n).toBe(one.n);
  });
});

describe('money above 32 bits', () => {
  it('carries amounts past 2,147,483,647 minor units as integers', async () => {
    const token = await tokenFor(t, { email: 'big@m.test', company: 'Big money' });
    const api = client(t, token);
    const c = (await api.post('/api/clients', { name: 'Whale' })).body['@id'];
    const created = await api.post('/api/invoices', { client: c, lines: [{ description: 'Tower', price: 5_000_000_000, qty: 2 }] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.total).toBe(10_000_000_000);
    const res = await call(t, 'POST', '/api/graphql', { token, body: { query: `{ invoice(id: "${created.body['@id']}") { total lines { edges { node { price } } } } }` }, contentType: 'application/json' });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.invoice).toEqual({ total: 10_000_000_000, lines: { edges: [{ node: { price: 5_000_000_000 } }] } });
  });
});

describe('a connection read without its size', () => {
  it('pages the same records whether or not totalCount and pageInfo are selected', async () => {
    const token = await tokenFor(t, { email: 'edges@e.test', company: 'Edges only' });
    const api = client(t, token);
    for (let i = 0; i < 7; i++) expect((await api.post('/api/clients', { name: `Edge ${i}` })).status).toBe(201);
    const q = async (query: string) => (await call(t, 'POST', '/api/graphql', { token, body: { query }, contentType: 'application/json' })).body;
    const second = (await q('{ clients(first: 2, order: [{name: "ASC"}]) { pageInfo { endCursor } } }')).data.clients.pageInfo.endCursor;
    const bare = await q(`{ clients(first: 3, after: "${second}", order: [{name: "ASC"}]) { edges { cursor node { name } } } }`);
    const full = await q(`{ clients(first: 3, after: "${second}", order: [{name: "ASC"}]) { totalCount pageInfo { hasNextPage } edges { cursor node { name } } } }`);
    expect(bare.errors).toBeUndefined();
    expect(bare.data.clients.edges).toEqual(full.data.clients.edges);
    expect(bare.data.clients.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['Edge 2', 'Edge 3', 'Edge 4']);
    expect(full.data.clients).toMatchObject({ totalCount: 7, pageInfo: { hasNextPage: true } });
  });
});
