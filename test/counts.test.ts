// Exact totals that stay cheap (CONTRACT §10): collection sizes per company, and per state for
// resources with states, are kept by the statements that insert, delete and change state
// (engine/counts.ts). They never drift from count(*) under concurrent writes, the API's totals
// are read from them, and `counts:rebuild` recounts them.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countsRebuild } from '../server/cli/commands.ts';
import { rowsOf } from '../server/db.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let a: Client;
let b: Client;
let clientA: string;
let clientB: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  a = client(t, await tokenFor(t, { email: 'a@counts.test', company: 'Counts A' }));
  b = client(t, await tokenFor(t, { email: 'b@counts.test', company: 'Counts B' }));
  clientA = (await a.post('/api/clients', { name: 'Acme' })).body['@id'];
  clientB = (await b.post('/api/clients', { name: 'Globex' })).body['@id'];
});
afterAll(() => t.close());

const rows = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await t.db.database.db.execute(q));
const countOf = async (q: ReturnType<typeof sql>) => (await rows<{ n: number }>(q))[0]!.n;

/** Every counter key next to what count(*) says, for every resource that has rows or counters. */
async function drift(): Promise<{ resource: string; company: string; key: string; kept: number; actual: number }[]> {
  const kept = await rows<{ resource: string; company: string; key: string; n: number }>(
    sql`select resource, company_id::text as company, key, sum(n)::int as n from engine_counts group by 1, 2, 3`,
  );
  const actual = new Map<string, number>();
  const tablesOf: Record<string, { table: string; state?: string }> = {
    Client: { table: 'clients' }, Invoice: { table: 'invoices', state: 'status' }, InvoiceLine: { table: 'invoice_lines' },
    Quote: { table: 'quotes', state: 'status' }, Payment: { table: 'payments' },
  };
  for (const [resource, { table, state }] of Object.entries(tablesOf)) {
    for (const r of await rows<{ company: string; n: number }>(sql`select company_id::text as company, count(*)::int as n from ${sql.identifier(table)} group by 1`)) {
      actual.set(`${resource}|${r.company}|*`, r.n);
    }
    if (!state) continue;
    for (const r of await rows<{ company: string; s: string; n: number }>(sql`select company_id::text as company, ${sql.identifier(state)} as s, count(*)::int as n from ${sql.identifier(table)} group by 1, 2`)) {
      actual.set(`${resource}|${r.company}|${state}:${r.s}`, r.n);
    }
  }
  const out = [];
  const seen = new Set<string>();
  for (const k of kept) {
    const key = `${k.resource}|${k.company}|${k.key}`;
    seen.add(key);
    if (!(k.resource in tablesOf)) continue;
    if (k.n !== (actual.get(key) ?? 0)) out.push({ resource: k.resource, company: k.company, key: k.key, kept: k.n, actual: actual.get(key) ?? 0 });
  }
  for (const [key, n] of actual) {
    if (seen.has(key)) continue;
    const [resource, company, k] = key.split('|') as [string, string, string];
    out.push({ resource, company, key: k, kept: 0, actual: n });
  }
  return out;
}

const line = (price: number) => ({ description: 'Work', qty: 1, price });

describe('collection sizes kept by the writes', () => {
  it('never drift from count(*) under concurrent creates, deletes and status changes, in two companies', async () => {
    const created: { api: Client; iri: string }[] = [];
    const create = async (api: Client, c: string, n: number) => {
      const r = await api.post('/api/invoices', { client: c, lines: [line(1000 + n), line(n + 1)] });
      expect(r.status).toBe(201);
      created.push({ api, iri: r.body['@id'] });
      return r.body['@id'] as string;
    };
    // Round 1: creates in both companies at once.
    await Promise.all(Array.from({ length: 24 }, (_, i) => create(i % 3 ? a : b, i % 3 ? clientA : clientB, i)));
    // Round 2: status changes, deletes and more creates, all at once.
    const ops: Promise<unknown>[] = [];
    created.forEach(({ api, iri }, i) => {
      if (i % 4 === 0) ops.push(api.delete(iri).then((r) => expect(r.status).toBe(204)));
      else if (i % 4 === 1) ops.push(api.patch(iri, { status: 'pending' }).then((r) => expect(r.status).toBe(200)));
      else if (i % 4 === 2) ops.push(api.patch(iri, { status: 'cancelled' }).then((r) => expect(r.status).toBe(200)));
    });
    for (let i = 0; i < 12; i++) ops.push(create(i % 2 ? a : b, i % 2 ? clientA : clientB, 100 + i));
    await Promise.all(ops);
    // Round 3: cancelled → draft and deleted, pending → cancelled, concurrently.
    const list = await a.get('/api/invoices?itemsPerPage=100');
    await Promise.all(
      (list.body.member as { '@id': string; status: string }[]).map((inv) =>
        inv.status === 'cancelled' ? a.delete(inv['@id']) : inv.status === 'pending' ? a.patch(inv['@id'], { status: 'cancelled' }) : Promise.resolve(),
      ),
    );
    expect(await drift()).toEqual([]);

    // The API's totals agree with count(*), unfiltered, by status and with any other filter.
    const all = await countOf(sql`select count(*)::int as n from invoices i join companies c on c.id = i.company_id where c.name = 'Counts A'`);
    const drafts = await countOf(sql`select count(*)::int as n from invoices i join companies c on c.id = i.company_id where c.name = 'Counts A' and status = 'draft'`);
    const closed = await countOf(sql`select count(*)::int as n from invoices i join companies c on c.id = i.company_id where c.name = 'Counts A' and status in ('draft', 'cancelled')`);
    expect(drafts).toBeGreaterThan(0);
    expect(closed).toBeGreaterThan(drafts);
    expect((await a.get('/api/invoices')).body.totalItems).toBe(all);
    expect((await a.get('/api/invoices?status=draft')).body.totalItems).toBe(drafts);
    expect((await a.get('/api/invoices?status[]=draft&status[]=cancelled&status[]=nonsense')).body.totalItems).toBe(closed);
    expect((await a.get('/api/invoices?status=nonsense')).body.totalItems).toBe(0);
    const g = await a.post('/api/graphql', { query: '{ all: invoices(first: 1) { totalCount } drafts: invoices(status: "draft", last: 2) { totalCount } }' }, { contentType: 'application/json' });
    expect(g.body.data).toEqual({ all: { totalCount: all }, drafts: { totalCount: drafts } });
  });

  it('are what the API reports, and counts:rebuild recounts them from the rows', async () => {
    const all = await countOf(sql`select count(*)::int as n from invoices i join companies c on c.id = i.company_id where c.name = 'Counts B'`);
    // Skew B's kept counts: the totals follow them (they are read, not counted)...
    await t.db.database.db.execute(sql`update engine_counts set n = n + 1000 where resource = 'Invoice' and key = '*' and company_id = (select id from companies where name = 'Counts B')`);
    const slots = (await rows<{ n: number }>(sql`select count(*)::int as n from engine_counts where resource = 'Invoice' and key = '*' and company_id = (select id from companies where name = 'Counts B')`))[0]!.n;
    expect((await b.get('/api/invoices')).body.totalItems).toBe(all + 1000 * slots);
    expect(await drift()).not.toEqual([]);
    // ...a filter the counters do not serve is counted, and stays exact...
    expect((await b.get('/api/invoices?number=INV')).body.totalItems).toBe(all);
    // ...and the rebuild puts every key right.
    expect(await countsRebuild({ db: t.db.database.db })).toMatch(/Invoice: \d+/);
    expect(await drift()).toEqual([]);
    expect((await b.get('/api/invoices')).body.totalItems).toBe(all);
  });

  it("go with their company: a company deleted by SQL takes its records and their counters, and leaves the others' as they were", async () => {
    const c = client(t, await tokenFor(t, { email: 'c@counts.test', company: 'Counts C' }));
    const initech = (await c.post('/api/clients', { name: 'Initech' })).body['@id'];
    for (let i = 0; i < 3; i++) expect((await c.post('/api/invoices', { client: initech, lines: [line(100 + i), line(7)] })).status).toBe(201);
    expect((await c.post('/api/quotes', { client: initech, lines: [line(500)] })).status).toBe(201);
    const id = (await rows<{ id: string }>(sql`select id::text as id from companies where name = 'Counts C'`))[0]!.id;
    const counters = () => rows<{ company: string; resource: string; key: string; n: number }>(sql`select company_id::text as company, resource, key, sum(n)::int as n from engine_counts group by 1, 2, 3 order by 1, 2, 3`);
    const before = await counters();
    expect(before.filter((r) => r.company === id).length).toBeGreaterThan(0);
    // The cascade deletes the company's rows, and their statement-level triggers count those
    // deletions: for a company that is gone, whose counters' foreign key refused them once.
    await t.db.database.db.execute(sql`delete from companies where id = ${id}`);
    expect(await countOf(sql`select count(*)::int as n from invoices where company_id = ${id}`)).toBe(0);
    expect(await countOf(sql`select count(*)::int as n from clients where company_id = ${id}`)).toBe(0);
    expect(await counters()).toEqual(before.filter((r) => r.company !== id));
    expect(await drift()).toEqual([]);
  });
});
