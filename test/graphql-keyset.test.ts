// GraphQL connections page by keyset cursors (CONTRACT §10, engine/keyset.ts), through real
// requests on both paths — compiled (the default) and the resolvers (GRAPHQL_COMPILE=off), on one
// database: paging forwards and backwards visits every record exactly once under every order of
// invoices while records come and go between pages; `last` alone gives the end; the page info is
// right at both ends; nested connections page the same way; a garbage cursor is a 400, never a
// 5xx; and on PostgreSQL the statement serving a page deep in a collection reads about the page's
// rows, not the rows before it.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../engine/keyset.ts';
import type { Order } from '../engine/query.ts';
import { rowsOf } from '../server/db.ts';
import { model } from '../server/model.ts';
import { call, client, freshDatabase, startTestServer, tokenFor, type Res, type TestDatabase, type TestServer } from './helpers.ts';
import { DEEP_CURSOR_CASES, explainRead, insertInvoices, invoiceCursorAt } from './support/explain.ts';

const ENV = { RATE_LIMIT_MAX: '1000000' };
const r = model.get('Invoice');

let db: TestDatabase;
let fast: TestServer; // compiled reads
let slow: TestServer; // GRAPHQL_COMPILE=off: the resolvers
let token: string;
let companyId: string;
let clientId: string;
const seen: { text: string; params: unknown[] }[] = [];
let serial = 1000;

const gql = (s: TestServer, query: string, variables?: Record<string, unknown>): Promise<Res> =>
  call(s, 'POST', '/api/graphql', { token, body: { query, variables }, contentType: 'application/json' });

async function data(s: TestServer, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await gql(s, query, variables);
  expect(res.status, res.text).toBe(200);
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
}

/** `n` invoices inserted in SQL, with ties and nulls in every order field. */
async function insert(n: number, company = companyId, client_ = clientId): Promise<void> {
  const from = serial;
  serial += n;
  await insertInvoices(db.database, company, client_, from, n);
}

async function ids(company = companyId): Promise<string[]> {
  return rowsOf<{ id: string }>(await db.database.db.execute(sql`select id::text as id from invoices where company_id = ${company}`)).map((x) => x.id);
}

const PAGE = `query($first: Int, $last: Int, $after: String, $before: String, $order: [InvoiceFilter_order]) {
  invoices(first: $first, last: $last, after: $after, before: $before, order: $order) {
    totalCount pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { cursor node { _id number total } }
  }
}`;

type Conn = { totalCount: number; pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean }; edges: { cursor: string; node: { _id: string } }[] };

const page = async (s: TestServer, v: Record<string, unknown>): Promise<Conn> => (await data(s, PAGE, v)).invoices;

const ORDERS: Order[][] = [
  [],
  ...r.orders.flatMap((field) => (['asc', 'desc'] as const).map((dir) => [{ field, dir }])),
  [{ field: 'dueDate', dir: 'asc' }, { field: 'total', dir: 'desc' }],
];
const orderArg = (order: Order[]) => order.map((o) => ({ [o.field]: o.dir.toUpperCase() }));
const label = (order: Order[]) => order.map((o) => `${o.field} ${o.dir}`).join(', ') || 'the default order';
const SERVERS = ['compiled', 'resolvers'] as const;
const server = (which: (typeof SERVERS)[number]) => (which === 'compiled' ? fast : slow);

beforeAll(async () => {
  db = await freshDatabase();
  const raw = db.database.raw;
  // The same database, recording the statements the servers run (for EXPLAIN).
  const recording = { ...db, database: { ...db.database, raw: (text: string, params: unknown[]) => (seen.push({ text, params }), raw(text, params)) } };
  fast = await startTestServer(ENV, { db: recording });
  slow = await startTestServer({ ...ENV, GRAPHQL_COMPILE: 'off' }, { db: recording });
  token = await tokenFor(fast, { email: 'owner@keyset-gql.test', company: 'Keyset GraphQL' });
  const c = await client(fast, token).post('/api/clients', { name: 'Acme' });
  expect(c.status, c.text).toBe(201);
  clientId = c.body.id;
  companyId = rowsOf<{ id: string }>(await db.database.db.execute(sql`select company_id::text as id from clients where id = ${clientId}`))[0]!.id;
  await insert(40);
});
afterAll(async () => {
  await fast?.close();
  await slow?.close();
  await db?.drop();
});

describe('paging invoices by keyset cursor', () => {
  for (const order of ORDERS) {
    for (const which of SERVERS) {
      for (const direction of ['forwards', 'backwards'] as const) {
        it(`visits every record exactly once ${direction} under ${label(order)} (${which}), with inserts and deletes between pages`, async () => {
          const s = server(which);
          const start = new Set(await ids());
          const deleted = new Set<string>();
          const visited: string[] = [];
          let cursor: string | null = null;
          for (let i = 0; i < 40; i++) {
            const v = direction === 'forwards' ? { first: 7, after: cursor } : { last: 7, before: cursor };
            const conn = await page(s, { ...v, order: orderArg(order) });
            expect(conn.totalCount).toBe((await ids()).length);
            const got = conn.edges.map((e) => e.node._id);
            visited.push(...(direction === 'forwards' ? got : [...got].reverse()));
            expect(conn.pageInfo.startCursor).toBe(conn.edges[0]?.cursor ?? null);
            expect(conn.pageInfo.endCursor).toBe(conn.edges.at(-1)?.cursor ?? null);
            // The side we came from always has records (only one is deleted per page).
            if (direction === 'forwards') expect(conn.pageInfo.hasPreviousPage).toBe(cursor !== null);
            else expect(conn.pageInfo.hasNextPage).toBe(cursor !== null);
            const more = direction === 'forwards' ? conn.pageInfo.hasNextPage : conn.pageInfo.hasPreviousPage;
            if (!more) break;
            cursor = direction === 'forwards' ? conn.pageInfo.endCursor : conn.pageInfo.startCursor;
            // Between pages: one new invoice, and one deleted (sometimes the cursor's own record).
            await insert(1);
            const victims = (await ids()).filter((id) => start.has(id) && !deleted.has(id));
            const victim = i % 3 === 0 ? got.at(direction === 'forwards' ? -1 : 0)! : victims[(i * 7) % victims.length]!;
            deleted.add(victim);
            await db.database.db.execute(sql`delete from invoices where id = ${victim}`);
          }
          expect(new Set(visited).size, 'a record was visited twice').toBe(visited.length);
          const kept = [...start].filter((id) => !deleted.has(id));
          const missing = kept.filter((id) => !visited.includes(id));
          expect(missing, 'records present all along were skipped').toEqual([]);
        });
      }
    }
  }
});

describe('the ends of a collection and the page info', () => {
  for (const order of [[], [{ field: 'number', dir: 'asc' }], [{ field: 'dueDate', dir: 'desc' }]] as Order[][]) {
    it(`last alone gives the end, and the page info is right at both ends, under ${label(order)}, on both paths alike`, async () => {
      const o = orderArg(order);
      const answers: Record<string, unknown>[] = [];
      for (const which of SERVERS) {
        const s = server(which);
        const all: Conn['edges'] = [];
        let after: string | null = null;
        for (;;) {
          const conn = await page(s, { first: 30, after, order: o });
          all.push(...conn.edges);
          if (!conn.pageInfo.hasNextPage) break;
          after = conn.pageInfo.endCursor;
        }
        const total = (await ids()).length;
        expect(all.length).toBe(total);
        const first = await page(s, { first: 5, order: o });
        expect(first.edges).toEqual(all.slice(0, 5));
        expect(first.pageInfo).toEqual({ startCursor: all[0]!.cursor, endCursor: all[4]!.cursor, hasNextPage: true, hasPreviousPage: false });
        const last = await page(s, { last: 5, order: o });
        expect(last.edges).toEqual(all.slice(-5));
        expect(last.pageInfo).toEqual({ startCursor: all.at(-5)!.cursor, endCursor: all.at(-1)!.cursor, hasNextPage: false, hasPreviousPage: true });
        const pastEnd = await page(s, { first: 5, after: all.at(-1)!.cursor, order: o });
        expect(pastEnd).toEqual({ totalCount: total, edges: [], pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: true } });
        const beforeStart = await page(s, { last: 5, before: all[0]!.cursor, order: o });
        expect(beforeStart.edges).toEqual([]);
        expect(beforeStart.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
        const toEnd = await page(s, { first: 5, after: all.at(-4)!.cursor, order: o });
        expect(toEnd.edges).toEqual(all.slice(-3));
        expect(toEnd.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
        const between = await page(s, { after: all[3]!.cursor, before: all[9]!.cursor, order: o });
        expect(between.edges).toEqual(all.slice(4, 9));
        expect(between.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
        // Relay: `first` and `last` together are the last `last` of the first `first`.
        const both = await page(s, { first: 6, last: 2, after: all[1]!.cursor, order: o });
        expect(both.edges).toEqual(all.slice(6, 8));
        expect(both.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
        const lastBefore = await page(s, { last: 3, before: all[3]!.cursor, order: o });
        expect(lastBefore.edges).toEqual(all.slice(0, 3));
        expect(lastBefore.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
        answers.push({ all, first, last, pastEnd, beforeStart, toEnd, between, both, lastBefore });
      }
      // The same cursors and pages whichever path serves the query.
      expect(answers[0]).toEqual(answers[1]);
    });
  }
});

describe('nested connections', () => {
  it("page an invoice's lines by cursor, forwards and backwards, in any order, on both paths alike", async () => {
    const api = client(fast, token);
    const lines = Array.from({ length: 12 }, (_, k) => ({ description: `Line ${k}`, qty: 1, price: 100 + k, position: (k * 5) % 12 }));
    const inv = await api.post('/api/invoices', { client: `/api/clients/${clientId}`, invoiceDate: '2026-05-05', lines });
    expect(inv.status, inv.text).toBe(201);
    const q = `query($id: ID!, $first: Int, $last: Int, $after: String, $before: String, $order: [InvoiceLineFilter_order]) { invoice(id: $id) {
      lines(first: $first, last: $last, after: $after, before: $before, order: $order) { totalCount pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { cursor node { description position } } }
    } }`;
    const byPosition = [...lines].sort((a, b) => a.position - b.position).map((l) => l.description);
    for (const [order, expected] of [[undefined, byPosition], [[{ position: 'DESC' }], [...byPosition].reverse()]] as const) {
      const answers: unknown[] = [];
      for (const which of SERVERS) {
        const s = server(which);
        const forwards: string[] = [];
        const cursors: string[] = [];
        let after: string | null = null;
        for (let i = 0; i < 10; i++) {
          const conn: any = (await data(s, q, { id: inv.body['@id'], first: 5, after, order })).invoice.lines;
          expect(conn.totalCount).toBe(12);
          expect(conn.pageInfo.hasPreviousPage).toBe(after !== null);
          forwards.push(...conn.edges.map((e: any) => e.node.description));
          cursors.push(...conn.edges.map((e: any) => e.cursor));
          if (!conn.pageInfo.hasNextPage) break;
          after = conn.pageInfo.endCursor;
        }
        expect(forwards).toEqual(expected);
        const backwards: string[] = [];
        let before: string | null = null;
        for (let i = 0; i < 10; i++) {
          const conn: any = (await data(s, q, { id: inv.body['@id'], last: 5, before, order })).invoice.lines;
          expect(conn.pageInfo.hasNextPage).toBe(before !== null);
          backwards.unshift(...conn.edges.map((e: any) => e.node.description));
          if (!conn.pageInfo.hasPreviousPage) break;
          before = conn.pageInfo.startCursor;
        }
        expect(backwards).toEqual(expected);
        answers.push(cursors);
      }
      expect(answers[0]).toEqual(answers[1]);
    }
  });
});

describe('garbage cursors', () => {
  it('answer an error with status 400 in the GraphQL error shape naming the argument, never a 5xx, on both paths', async () => {
    const clientCursor = encodeCursor(model.get('Client'), [{ field: 'name', dir: 'asc' }], { name: 'Acme', id: clientId });
    const otherOrder = encodeCursor(r, [{ field: 'total', dir: 'desc' }], { total: 100, id: clientId });
    const forge = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const total = [{ total: 'DESC' }];
    // Cursors with the order each one claims (absent: the default order, which none of them is for).
    const garbage: [string, unknown?][] = [
      ['not a cursor'], [''], ['MA=='], ['MTA'], ['💥'], ['x'.repeat(5000)], [clientCursor], [otherOrder], [otherOrder, [{ total: 'ASC' }]],
      [forge(['', 'not-a-uuid'])], [forge([''])], [forge({ a: 1 })], [forge(['', 42])], [forge(['total-', 'text', clientId]), total], [forge(['total-', 1.5, clientId]), total],
      [forge(['total-', 100, clientId, 'extra']), total], [forge(['invoiceDate', '2026-02-30', clientId]), [{ invoiceDate: 'ASC' }]],
      [forge(['number', 'a\u0000b', clientId]), [{ number: 'ASC' }]], [forge(['number', null, clientId]), [{ number: 'DESC' }]], [Buffer.from('{"broken').toString('base64url')],
    ];
    for (const which of SERVERS) {
      for (const [i, [cursor, order]] of garbage.entries()) {
        const arg = i % 2 ? 'after' : 'before';
        for (const res of [
          await gql(server(which), PAGE, { [arg]: cursor, order }),
          await gql(server(which), `{ invoices(${arg}: ${JSON.stringify(cursor)}${order ? `, order: ${JSON.stringify(order).replace(/"(\w+)":/g, '$1:')}` : ''}) { edges { cursor } } }`),
          await gql(server(which), `query($c: String) { invoices(first: 1) { edges { node { lines(${arg}: $c) { totalCount } } } } }`, { c: cursor }),
        ]) {
          // An error in the execution of a field: HTTP 200 as graphql-over-http has it, the status in extensions.
          expect(res.status, `${which} ${cursor.slice(0, 60)}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          expect(res.body.errors, `${which} ${cursor.slice(0, 60)}: ${res.text.slice(0, 300)}`).toBeDefined();
          expect(res.body.errors[0].message).toMatch(new RegExp(`"${arg}" is not a valid cursor`));
          expect(res.body.errors[0].extensions).toEqual({ status: 400 });
        }
      }
    }
  });
});

describe('cost', () => {
  it.skipIf(!process.env.DATABASE_URL)('a page deep in a collection reads the rows it returns, not those before it (EXPLAIN ANALYZE, both paths)', async () => {
    const deep = await tokenFor(fast, { email: 'deep@keyset-gql.test', company: 'Deep' });
    const c = await client(fast, deep).post('/api/clients', { name: 'Deep client' });
    const deepCompany = rowsOf<{ id: string }>(await db.database.db.execute(sql`select company_id::text as id from clients where id = ${c.body.id}`))[0]!.id;
    await insert(4000, deepCompany, c.body.id);
    await db.database.db.execute(sql`analyze invoices`);
    // Nullable fields too: their seek has a branch for the nulls, read as a range of its own; and
    // the number, nullable and unique, through its (company, number, id) index.
    const cases: { order: Order[]; at: number }[] = [...DEEP_CURSOR_CASES, { order: [{ field: 'number', dir: 'desc' }], at: 1500 }];
    for (const { order, at } of cases) {
      const cursor = await invoiceCursorAt(db.database, deepCompany, order, at);
      const query = `{ invoices(first: 30, after: ${JSON.stringify(cursor)}${order.length ? `, order: [{${order[0]!.field}: "${order[0]!.dir.toUpperCase()}"}]` : ''}) { totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { number total client { name } } } } }`;
      for (const which of SERVERS) {
        seen.length = 0;
        const res = await call(server(which), 'POST', '/api/graphql', { token: deep, body: { query }, contentType: 'application/json' });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.invoices.edges).toHaveLength(30);
        expect(res.body.data.invoices.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
        expect(res.body.data.invoices.totalCount).toBe(4000);
        const statements = seen.filter((s) => /"invoices"/.test(s.text) && !/api_tokens|request_log/.test(s.text));
        expect(statements.length, which).toBeGreaterThan(0);
        let read = 0;
        for (const st of statements) read += (await explainRead(db.database, st, 'invoices')).read;
        // The page (30 rows and the one that tells whether more follow) and one row for hasPreviousPage.
        expect(read, `${which} under ${label(order)}, at ${at}`).toBeLessThanOrEqual(40);
      }
    }
  });
});
