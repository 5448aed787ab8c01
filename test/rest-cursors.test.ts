// REST collections at scale (CONTRACT §10): `after`/`before` keyset cursors in every format, the
// cursor links (first, previous, next, last), the bound on page numbers (MAX_PAGE_OFFSET) and
// the page-mode links that switch to cursors before it, and what a cursor page costs.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_CURSOR, encodeCursor } from '../engine/keyset.ts';
import { MAX_PAGE_OFFSET } from '../engine/query.ts';
import { uuidv7 } from '../engine/uuid.ts';
import { rowsOf } from '../server/db.ts';
import { model, tables } from '../server/model.ts';
import type { Order } from '../engine/query.ts';
import { client, freshDatabase, startTestServer, tokenFor, type Client, type Res, type TestDatabase, type TestServer } from './helpers.ts';
import { DEEP_CURSOR_CASES, explainRead, insertInvoices, invoiceCursorAt } from './support/explain.ts';

let t: TestServer;
let db: TestDatabase;
let api: Client;
let companyId: string;
let clientId: string;
const r = model.get('Invoice');
const table = tables.get(r);
const seen: { text: string; params: unknown[] }[] = [];

/** A deterministic generator, so a failure can be replayed. */
let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

async function insertOne(): Promise<string> {
  const id = uuidv7();
  await db.database.db.insert(table).values({
    id, companyId, client: clientId, status: 'draft', discountType: 'none', discountValue: '0',
    number: rnd() < 0.3 ? null : `N-${Math.floor(rnd() * 1e6)}-${id.slice(-4)}`,
    invoiceDate: pick(['2026-01-01', '2026-01-02', '2026-01-03']),
    dueDate: rnd() < 0.3 ? null : pick(['2026-02-01', '2026-02-02', '2026-03-01']),
    total: pick([0, 100, 100, 250, 999]),
  } as never);
  return id;
}

beforeAll(async () => {
  db = await freshDatabase();
  const raw = db.database.raw;
  // The same database, recording the statements the engine runs.
  const recording = { ...db.database, raw: (text: string, params: unknown[]) => (seen.push({ text, params }), raw(text, params)) };
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' }, { db: { ...db, database: recording } });
  api = client(t, await tokenFor(t, { email: 'owner@cursors.test', company: 'Cursor Co' }));
  clientId = (await api.post('/api/clients', { name: 'Acme' })).body.id;
  companyId = rowsOf<{ id: string }>(await db.database.db.execute(sql`select company_id::text as id from clients where id = ${clientId}`))[0]!.id;
  for (let i = 0; i < 40; i++) await insertOne();
});
afterAll(async () => {
  await t?.close();
  await db?.drop();
});

type FormatName = 'jsonld' | 'hal' | 'jsonapi' | 'json';
const ACCEPT: Record<FormatName, string> = { jsonld: 'application/ld+json', hal: 'application/hal+json', jsonapi: 'application/vnd.api+json', json: 'application/json' };
type Rel = 'first' | 'previous' | 'next' | 'last';

/** RFC 8288 links of a Link header, by rel. */
function linkHeader(h: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (h ?? '').matchAll(/<([^>]*)>; rel="([^"]+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

/** A collection response's links and member ids, whatever the format. */
function read(format: FormatName, res: Res): { links: Partial<Record<Rel, string>>; ids: string[] } {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const b = res.body;
  switch (format) {
    case 'jsonld':
      return { links: { first: b.view?.first, previous: b.view?.previous, next: b.view?.next, last: b.view?.last }, ids: b.member.map((m: { id: string }) => m.id) };
    case 'hal':
      return { links: { first: b._links.first?.href, previous: b._links.prev?.href, next: b._links.next?.href, last: b._links.last?.href }, ids: (b._embedded?.item ?? []).map((m: { id: string }) => m.id) };
    case 'jsonapi':
      return { links: { first: b.links.first, previous: b.links.prev, next: b.links.next, last: b.links.last }, ids: b.data.map((m: { attributes: { _id: string } }) => m.attributes._id) };
    case 'json': {
      const l = linkHeader(res.headers.get('link') ?? undefined);
      return { links: { first: l.first, previous: l.prev, next: l.next, last: l.last }, ids: b.map((m: { id: string }) => m.id) };
    }
  }
}

const get = (format: FormatName, path: string) => api.get(path, { headers: { accept: ACCEPT[format] } });

/** The whole collection in the order of `query`, in one request per 100. */
async function all(query: string): Promise<string[]> {
  const res = await api.get(`/api/invoices?itemsPerPage=100${query}`);
  expect(res.body.totalItems).toBeLessThanOrEqual(100);
  return res.body.member.map((m: { id: string }) => m.id);
}

const ORDERS = ['', '&order[total]=desc', '&order[dueDate]=asc', '&order[number]=desc', '&order[invoiceDate]=asc&order[total]=desc', '&order[createdAt]=desc'];

describe('REST cursor pagination', () => {
  for (const order of ORDERS) {
    for (const [format, rel] of [['jsonld', 'next'], ['hal', 'previous'], ['jsonapi', 'next'], ['json', 'previous'], ['jsonld', 'previous']] as const) {
      it(`${format}: following ${rel} from ${rel === 'next' ? 'first' : 'last'} visits every record once under "${order || 'the default order'}", with inserts and deletes between pages`, async () => {
        const start = new Set(await all(order));
        const deleted = new Set<string>();
        const visited: string[] = [];
        let path: string | undefined = `/api/invoices?itemsPerPage=6${order}&${rel === 'next' ? 'after' : 'before'}=${EDGE_CURSOR}`;
        let pages = 0;
        while (path) {
          const page = read(format, await get(format, path));
          if (rel === 'next') visited.push(...page.ids);
          else visited.unshift(...page.ids);
          // Every page carries first and last; the end it started from has no link beyond it.
          expect(page.links.first).toContain(`after=${EDGE_CURSOR}`);
          expect(page.links.last).toContain(`before=${EDGE_CURSOR}`);
          if (pages === 0) expect(page.links[rel === 'next' ? 'previous' : 'next']).toBeUndefined();
          for (const l of Object.values(page.links)) if (l) expect(l).toContain('itemsPerPage=6');
          path = page.links[rel];
          if (++pages > 30) throw new Error('too many pages');
          // Between pages: one record removed anywhere, one added anywhere.
          const victim = pick([...start]);
          await db.database.db.delete(table).where(eq(table.id, victim));
          deleted.add(victim);
          await insertOne();
        }
        expect(new Set(visited).size).toBe(visited.length); // never twice
        for (const id of start) if (!deleted.has(id)) expect(visited).toContain(id); // every survivor
        const now = await all(order);
        const survivors = visited.filter((id) => now.includes(id));
        expect(survivors).toEqual(now.filter((id) => survivors.includes(id))); // in the collection's order
      });
    }
  }

  it('links in every format: first/last name the edges, next/previous the page\'s records, filters and order kept', async () => {
    const order = [{ field: 'total', dir: 'desc' as const }];
    const ids = await all('&order[total]=desc&status=draft');
    const base = '/api/invoices?itemsPerPage=5&order[total]=desc&status=draft';
    for (const format of ['jsonld', 'hal', 'jsonapi', 'json'] as const) {
      const first = read(format, await get(format, `${base}&after=${EDGE_CURSOR}`));
      expect(first.ids).toEqual(ids.slice(0, 5));
      const cursorOf = async (id: string) => {
        const [rec] = await db.database.db.select().from(table).where(eq(table.id, id));
        return encodeCursor(r, order, rec as never);
      };
      expect(first.links).toEqual({
        first: `${base.replace('?', '?after=' + EDGE_CURSOR + '&')}`,
        last: `${base.replace('?', '?before=' + EDGE_CURSOR + '&')}`,
        next: `${base.replace('?', `?after=${await cursorOf(ids[4]!)}&`)}`,
        previous: undefined,
      });
      const second = read(format, await get(format, first.links.next!));
      expect(second.ids).toEqual(ids.slice(5, 10));
      expect(second.links.previous).toBe(base.replace('?', `?before=${await cursorOf(ids[5]!)}&`));
      const back = read(format, await get(format, second.links.previous!));
      expect(back.ids).toEqual(ids.slice(0, 5));
      expect(back.links.previous).toBeUndefined(); // nothing before the first page
      const last = read(format, await get(format, first.links.last!));
      expect(last.ids).toEqual(ids.slice(-5));
      expect(last.links.next).toBeUndefined();
      expect(last.links.previous).toBe(base.replace('?', `?before=${await cursorOf(ids.at(-5)!)}&`));
    }
  });

  it('totals stay exact in cursor mode; JSON-LD view and JSON:API meta', async () => {
    const total = (await api.get('/api/invoices')).body.totalItems;
    const ld = await api.get(`/api/invoices?before=${EDGE_CURSOR}&itemsPerPage=3`);
    expect(ld.body.totalItems).toBe(total);
    expect(ld.body.view).toMatchObject({ '@id': `/api/invoices?before=${EDGE_CURSOR}&itemsPerPage=3`, '@type': 'PartialCollectionView' });
    const json = await get('json', `/api/invoices?after=${EDGE_CURSOR}&itemsPerPage=3`);
    expect(json.headers.get('x-total-count')).toBe(String(total));
    const ja = await get('jsonapi', `/api/invoices?page[after]=${EDGE_CURSOR}&page[itemsPerPage]=3`);
    expect(ja.body.meta).toEqual({ totalItems: total, itemsPerPage: 3 });
    expect(ja.body.links.self).toBe(`/api/invoices?after=${EDGE_CURSOR}&itemsPerPage=3`);
    const xml = await api.get(`/api/invoices?after=${EDGE_CURSOR}&itemsPerPage=3`, { headers: { accept: 'application/xml' } });
    expect(xml.status).toBe(200);
    expect(linkHeader(xml.headers.get('link') ?? '').next).toContain('after=');
    expect(xml.headers.get('x-total-count')).toBe(String(total));
  });

  it('previous (next before a cursor) is offered exactly when records lie behind the page, in every format', async () => {
    const zero = '00000000-0000-0000-0000-000000000000';
    const last = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    for (const [query, order, low, high] of [
      ['', [], { id: zero }, { id: last }],
      ['&order[total]=desc', [{ field: 'total', dir: 'desc' }], { total: 1e9, id: zero }, { total: -1, id: last }],
      ['&order[dueDate]=asc', [{ field: 'dueDate', dir: 'asc' }], { dueDate: '2000-01-01', id: zero }, { dueDate: null, id: last }],
    ] as const) {
      const ids = await all(query);
      // Positions before the first record and past the last one, of no record.
      const before = encodeCursor(r, order as never, low as never);
      const beyond = encodeCursor(r, order as never, high as never);
      for (const format of ['jsonld', 'hal', 'jsonapi', 'json'] as const) {
        const first = read(format, await get(format, `/api/invoices?itemsPerPage=5${query}&after=${before}`));
        expect(first.ids).toEqual(ids.slice(0, 5));
        expect(first.links.previous, `${format} ${query}`).toBeUndefined();
        expect(first.links.next).toBeDefined();
        const end = read(format, await get(format, `/api/invoices?itemsPerPage=5${query}&before=${beyond}`));
        expect(end.ids).toEqual(ids.slice(-5));
        expect(end.links.next, `${format} ${query}`).toBeUndefined();
        expect(end.links.previous).toBeDefined();
        // From a record's own cursor, that record lies behind the page.
        const [rec] = await db.database.db.select().from(table).where(eq(table.id, ids[0]!));
        const second = read(format, await get(format, `/api/invoices?itemsPerPage=5${query}&after=${encodeCursor(r, order as never, rec as never)}`));
        expect(second.ids).toEqual(ids.slice(1, 6));
        expect(second.links.previous).toBeDefined();
      }
    }
  });

  it('an empty page beside a cursor links back to the end it is beyond', async () => {
    const ids = await all('');
    const [rec] = await db.database.db.select().from(table).where(eq(table.id, ids.at(-1)!));
    const beyond = read('jsonld', await api.get(`/api/invoices?itemsPerPage=4&after=${encodeCursor(r, [], rec as never)}`));
    expect(beyond.ids).toEqual([]);
    expect(beyond.links.next).toBeUndefined();
    expect(beyond.links.previous).toBe(`/api/invoices?before=${EDGE_CURSOR}&itemsPerPage=4`);
    expect((await api.get(`/api/invoices?itemsPerPage=4&after=${encodeCursor(r, [], rec as never)}`)).body.totalItems).toBe(ids.length);
  });
});

describe('page numbers and their bound', () => {
  it(`a page past ${MAX_PAGE_OFFSET} records is a 400 that points to the cursor links`, async () => {
    for (const format of ['jsonld', 'json', 'hal', 'jsonapi'] as const) {
      const res = await get(format, '/api/invoices?itemsPerPage=30&page=335'); // offset 10,020
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ status: 400, type: '/errors/400' });
      expect(res.body.detail).toMatch(/cursor links/);
    }
    expect((await api.get('/api/invoices?itemsPerPage=30&page=334')).status).toBe(200); // offset 9,990
    expect((await api.get('/api/invoices?itemsPerPage=100&page=101')).status).toBe(200); // offset 10,000
    expect((await api.get('/api/invoices?itemsPerPage=100&page=102')).status).toBe(400);
  });

  it('page-mode next and last switch to cursor links where a page number would pass the bound', async () => {
    // Another company with 10,150 invoices: with 100 a page, page 101 (offset 10,000) is the last
    // page number allowed, page 102 holds the last 50.
    const other = client(t, await tokenFor(t, { email: 'owner@deep.test', company: 'Deep Co' }));
    const c = (await other.post('/api/clients', { name: 'Deep client' })).body.id as string;
    await db.database.db.execute(sql`insert into invoices (id, company_id, number, client_id, status, invoice_date, discount_type, discount_value, total)
      select gen_random_uuid(), i.company_id, 'D-' || lpad(g::text, 6, '0'), i.id, 'draft', date '2026-01-01' + (g % 300), 'none', 0, g % 1000
      from clients i, generate_series(1, 10150) g where i.id = ${c}`);
    const q = '/api/invoices?itemsPerPage=100&order[number]=asc';
    const end = `/api/invoices?before=${EDGE_CURSOR}&itemsPerPage=100&order[number]=asc`;
    const p100 = read('jsonld', await other.get(`${q}&page=100`));
    expect(p100.links).toEqual({ first: `${q}&page=1`, previous: `${q}&page=99`, next: `${q}&page=101`, last: end });
    for (const format of ['jsonld', 'hal', 'jsonapi', 'json'] as const) {
      const p101 = await other.get(`${q}&page=101`, { headers: { accept: ACCEPT[format] } });
      const { links, ids } = read(format, p101);
      expect(ids.length).toBe(100);
      const last = (await db.database.db.select().from(table).where(eq(table.id, ids.at(-1)!)))[0];
      const next = `/api/invoices?after=${encodeCursor(r, [{ field: 'number', dir: 'asc' }], last as never)}&itemsPerPage=100&order[number]=asc`;
      expect(links).toEqual({ first: `${q}&page=1`, previous: `${q}&page=100`, next, last: end });
      // Following them: the last 50, and the last page is the same 50.
      const after = read(format, await other.get(next, { headers: { accept: ACCEPT[format] } }));
      expect(after.ids.length).toBe(50);
      expect(after.ids).toEqual(read(format, await other.get(end, { headers: { accept: ACCEPT[format] } })).ids.slice(-50));
      expect(after.links.next).toBeUndefined();
    }
    expect((await other.get(`${q}&page=102`)).status).toBe(400);
    const ld = (await other.get(`${q}&page=101`)).body;
    expect(ld.totalItems).toBe(10150);
  });

  it('page, after and before do not mix; garbage cursors are a 400 naming the parameter', async () => {
    const cases: [string, RegExp][] = [
      [`/api/invoices?page=2&after=${EDGE_CURSOR}`, /"page" and "after"/],
      [`/api/invoices?page=1&before=${EDGE_CURSOR}`, /"page" and "before"/],
      [`/api/invoices?after=${EDGE_CURSOR}&before=${EDGE_CURSOR}`, /"after" and "before"/],
      ['/api/invoices?after=garbage', /"after"/],
      ['/api/invoices?before=', /"before"/],
      ['/api/invoices?after=%00%01', /"after"/],
      [`/api/invoices?after=${Buffer.from('["x",1,"y"]').toString('base64url')}`, /"after"/],
      [`/api/invoices?before=${'A'.repeat(5000)}`, /"before"/],
      [`/api/api-tokens?after=${EDGE_CURSOR}`, /"after"/],
    ];
    const ids = await all('&order[total]=desc');
    const [rec] = await db.database.db.select().from(table).where(eq(table.id, ids[0]!));
    // A cursor of another order.
    cases.push([`/api/invoices?order[number]=asc&after=${encodeCursor(r, [{ field: 'total', dir: 'desc' }], rec as never)}`, /"after"/]);
    for (const [path, detail] of cases) {
      for (const format of ['jsonld', 'jsonapi'] as const) {
        const res = await get(format, path);
        expect(res.status, path).toBe(400);
        expect(res.body.detail, path).toMatch(detail);
      }
    }
  });
});

describe('what a cursor page costs', () => {
  const statementsOf = async (path: string, accept = 'application/ld+json') => {
    await api.get(path, { headers: { accept } }); // warm: statement texts compiled, token cached
    seen.length = 0;
    const res = await api.get(path, { headers: { accept } });
    expect(res.status).toBe(200);
    return seen.filter((s) => /"invoices"/.test(s.text)).length;
  };

  it('a page after a cursor runs as many statements as the first page, in every format', async () => {
    const ids = await all('&order[total]=desc');
    const [rec] = await db.database.db.select().from(table).where(eq(table.id, ids[10]!));
    const cursor = encodeCursor(r, [{ field: 'total', dir: 'desc' }], rec as never);
    for (const accept of Object.values(ACCEPT)) {
      const first = await statementsOf('/api/invoices?order[total]=desc&itemsPerPage=5', accept);
      expect(first).toBe(1);
      expect(await statementsOf(`/api/invoices?order[total]=desc&itemsPerPage=5&after=${cursor}`, accept)).toBe(first);
      expect(await statementsOf(`/api/invoices?order[total]=desc&itemsPerPage=5&before=${cursor}`, accept)).toBe(first);
      expect(await statementsOf(`/api/invoices?order[total]=desc&itemsPerPage=5&before=${EDGE_CURSOR}`, accept)).toBe(first);
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the statement behind ?after= and ?before= (PostgreSQL)', () => {
  it('reads about a page of invoices through the index, not the thousands before (or after) the cursor, under nullable orders at and past their nulls too', async () => {
    const deep = client(t, await tokenFor(t, { email: 'owner@seek.test', company: 'Seek Co' }));
    const c = (await deep.post('/api/clients', { name: 'Seek client' })).body.id as string;
    const company = rowsOf<{ id: string }>(await db.database.db.execute(sql`select company_id::text as id from clients where id = ${c}`))[0]!.id;
    await insertInvoices(db.database, company, c, 1, 4000);
    await db.database.db.execute(sql`analyze invoices`);
    // A quarter of the numbers and a third of the due dates are null: ASC puts them last (3,000…
    // and 2,667…), DESC first. Cursors in the values, in the nulls, and just past them.
    const cases: { order: Order[]; at: number }[] = [
      ...DEEP_CURSOR_CASES,
      { order: [{ field: 'dueDate', dir: 'asc' }], at: 2667 },
      { order: [{ field: 'dueDate', dir: 'desc' }], at: 1333 },
      { order: [{ field: 'number', dir: 'asc' }], at: 3000 },
      { order: [{ field: 'number', dir: 'desc' }], at: 1000 },
      { order: [{ field: 'number', dir: 'desc' }], at: 2500 },
    ];
    for (const { order, at } of cases) {
      const query = order.map((o) => `order[${o.field}]=${o.dir}`).join('&');
      const cursor = await invoiceCursorAt(db.database, company, order, at);
      // JSON-LD is read by listJson, HAL by list.
      for (const [accept, side] of [[ACCEPT.jsonld, 'after'], [ACCEPT.hal, 'after'], [ACCEPT.jsonld, 'before'], [ACCEPT.hal, 'before']] as const) {
        const path = `/api/invoices?${query}&itemsPerPage=30&${side}=${cursor}`;
        await deep.get(path, { headers: { accept } });
        seen.length = 0;
        const res = await deep.get(path, { headers: { accept } });
        expect(res.status).toBe(200);
        expect(res.body.totalItems).toBe(4000);
        const page = read(accept === ACCEPT.hal ? 'hal' : 'jsonld', res);
        expect(page.ids, path).toHaveLength(30);
        // Records lie on both sides of the page: previous and next are both offered (exactly).
        expect(page.links.previous, path).toBeDefined();
        expect(page.links.next, path).toBeDefined();
        const statements = seen.filter((s) => /"invoices"/.test(s.text) && !/api_tokens|request_log/.test(s.text));
        expect(statements, seen.map((s) => s.text).join('\n')).toHaveLength(1);
        const { read: n, plan } = await explainRead(db.database, statements[0]!, 'invoices');
        // The page and the record that says more follow (31), and a few single-row lookups that say
        // records lie behind the page: never the thousands before the cursor, nor a sort of the nulls.
        expect(n, `${path} (${order.map((o) => `${o.field} ${o.dir}`).join(', ') || 'default order'} at ${at}): ${JSON.stringify(plan)}`).toBeLessThanOrEqual(40);
      }
    }
  });
});
