// Text search at scale (CONTRACT §10): one database holds a small company and a big one. A
// partial-match filter is served by the trigram index that begins with the company, so the small
// company's search reads none of the big one's rows; the first page of a frequent or a rare
// substring reads about a page's worth of rows, not the company's; and the total of a partial
// match is counted up to 10,000 matches: beyond, every format leaves it out (GraphQL: null) while
// the links go on working. EXPLAIN ANALYZE of the very statements the requests ran says what
// they read (row counts, which do not depend on the machine).
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COUNTED_MATCHES } from '../engine/query.ts';
import { rowsOf } from '../server/db.ts';
import { call, client, freshDatabase, startTestServer, tokenFor, type Client, type TestDatabase, type TestServer } from './helpers.ts';

const SMALL = 300;
const BIG = 15_000; // more than MAX_COUNTED_MATCHES, so a substring of every number is not counted

let t: TestServer;
let db: TestDatabase;
let small: Client;
let big: Client;
const companies: Record<'small' | 'big', string> = { small: '', big: '' };
const seen: { text: string; params: unknown[] }[] = [];

/**
 * `n` invoices numbered INV-000001… in the order of their ids (the collection's default order);
 * those of `rare` end with "Zq" (the only q and the only zq of the company).
 */
async function companyWithInvoices(email: string, name: string, n: number, key: number, rare: number[]): Promise<Client> {
  const api = client(t, await tokenFor(t, { email, company: name }));
  const c = (await api.post('/api/clients', { name: 'Acme' })).body.id as string;
  await db.database.db.execute(sql`insert into invoices (id, company_id, number, client_id, status, invoice_date, discount_type, discount_value, total)
    select (lpad(to_hex(g), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(${key}::int), 12, '0'))::uuid, i.company_id, 'INV-' || lpad(g::text, 6, '0'), i.id, case when g % 2 = 0 then 'paid' else 'draft' end, date '2026-01-01' + (g % 300), 'none', 0, (g * 7919) % 100000
    from clients i, generate_series(1, ${n}) g where i.id = ${c}`);
  await db.database.db.execute(sql`update invoices set number = number || 'Zq' where client_id = ${c} and number in (${sql.join(rare.map((g) => sql`${`INV-${String(g).padStart(6, '0')}`}`), sql`, `)})`);
  return api;
}

beforeAll(async () => {
  db = await freshDatabase();
  const raw = db.database.raw;
  // The same database, recording the statements the engine runs.
  const recording = { ...db.database, raw: (text: string, params: unknown[], fresh?: boolean) => (seen.push({ text, params }), raw(text, params, fresh)) };
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' }, { db: { ...db, database: recording } });
  small = await companyWithInvoices('owner@small.test', 'Small', SMALL, 1, [150]);
  big = await companyWithInvoices('owner@big.test', 'Big', BIG, 2, [4321, 9876, 12345]);
  for (const [k, name] of [['small', 'Small'], ['big', 'Big']] as const) {
    companies[k] = rowsOf<{ id: string }>(await db.database.db.execute(sql`select id::text as id from companies where name = ${name}`))[0]!.id;
  }
  // As autovacuum would: the planner's statistics, and the GIN index's own (its entry and posting counts).
  await db.database.db.execute(sql`vacuum analyze invoices`);
}, 300_000);
afterAll(async () => {
  await t.close();
  await db.drop();
});

/** The matches of `part` in a company, counted independently of the engine. */
async function matches(company: 'small' | 'big', part: string): Promise<number> {
  const like = `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from invoices where company_id = ${companies[company]} and number ilike ${like}`))[0]!.n;
}

interface Read {
  node: string;
  /** Rows (or, for an index alone, entries) the node produced or discarded, over all its loops. */
  rows: number;
}

/** What every scan node of a plan read: rows kept, and rows removed by its filter or recheck. */
function readsOf(plan: Record<string, unknown>, out: Read[] = []): Read[] {
  const type = String(plan['Node Type']);
  if (/Scan/.test(type) && (plan['Relation Name'] === 'invoices' || plan['Index Name'])) {
    const loops = Number(plan['Actual Loops'] ?? 1);
    const rows = (Number(plan['Actual Rows'] ?? 0) + Number(plan['Rows Removed by Filter'] ?? 0) + Number(plan['Rows Removed by Index Recheck'] ?? 0)) * loops;
    out.push({ node: `${type} ${String(plan['Index Name'] ?? plan['Relation Name'])}`, rows });
  }
  for (const p of (plan.Plans as Record<string, unknown>[] | undefined) ?? []) readsOf(p, out);
  return out;
}

/**
 * Runs the request, then EXPLAIN ANALYZE of each of its statements that carry the partial filter
 * (the look at the company's first records, engine/read/density.ts, then the page's).
 */
async function readsOfRequest(send: () => Promise<{ status: number }>): Promise<Read[]> {
  return (await readsByStatement(send)).flatMap((s) => s.reads);
}

/** The same, statement by statement: the density look (`density`) apart from the reads of the page and its count. */
async function readsByStatement(send: () => Promise<{ status: number }>): Promise<{ density: boolean; text: string; reads: Read[] }[]> {
  seen.length = 0;
  expect((await send()).status).toBe(200);
  const sts = seen.filter((s) => / ilike /i.test(s.text));
  expect(sts.length, `no statement with ILIKE among:\n${seen.map((s) => s.text).join('\n')}`).toBeGreaterThan(0);
  const out: { density: boolean; text: string; reads: Read[] }[] = [];
  for (const st of sts) {
    const [row] = await db.database.raw(`explain (analyze, format json) ${st.text}`, st.params, true);
    const json = Object.values(row!)[0];
    const plan = (typeof json === 'string' ? JSON.parse(json) : json) as { Plan: Record<string, unknown> }[];
    out.push({ density: st.text.includes('"__first"'), text: st.text, reads: readsOf(plan[0]!.Plan) });
  }
  return out;
}

const rowsRead = (reads: readonly Read[]) => reads.reduce((s, r) => s + r.rows, 0);

const gqlPage = (part: string, withTotal: boolean) =>
  `{ invoices(number: ${JSON.stringify(part)}, first: 30) { ${withTotal ? 'totalCount ' : ''}edges { node { number } } } }`;

describe('the company-first trigram index', () => {
  it("the small company's search reads none of the big company's rows, frequent, rare or short", async () => {
    for (const part of ['INV-0', '0042', '00', '7', '12', 'q', 'Zq']) {
      const reads = await readsOfRequest(() => small.get(`/api/invoices?number=${encodeURIComponent(part)}`));
      expect(reads.length).toBeGreaterThan(0);
      // Each scan (the page's, the count's) reads at most the small company's records (a GIN
      // bitmap scan's count may say one more than the postings it returned).
      for (const r of reads) expect(r.rows, `${part}: ${r.node}`).toBeLessThanOrEqual(SMALL + 1);
    }
  });

  it("the big company's first page reads about a page of rows, for a frequent and a rare substring", async () => {
    // GraphQL without totalCount: no count, only the look at the first 1,000 records and the page.
    for (const part of ['INV-0', 'INV-00', '14999', '13579']) {
      const reads = await readsOfRequest(() => big.post('/api/graphql', { query: gqlPage(part, false) }, { contentType: 'application/json', accept: 'application/json' }));
      const total = reads.reduce((s, r) => s + r.rows, 0);
      // A plan that reads the company (or filters the whole index) reads ~15,000.
      expect(total, `${part}: ${JSON.stringify(reads)}`).toBeLessThan(2500);
      if (/^\d+$/.test(part)) {
        // A rare part: the company's trigram keys give its own candidates, about its matches.
        const keys = reads.find((r) => /invoices_company_number_keys_idx/.test(r.node));
        expect(keys, `${part}: ${JSON.stringify(reads)}`).toBeDefined();
        expect(keys!.rows).toBeLessThanOrEqual((await matches('big', part)) + 5);
      }
    }
  });
});

describe('parts of one or two characters: keys of their own', () => {
  // A part of one or two characters is one key (engine/trigrams.ts): a rare one is looked up, not
  // searched for through the company's records; a frequent one is paged by walking the order and
  // counted through its key (its matches, up to the bound), or by walking to the bound when
  // nearly every record holds it.
  it('a rare part of one or two characters reads its matches, not the company', async () => {
    for (const [who, api, n] of [['big', big, 3], ['small', small, 1]] as const) {
      for (const part of ['q', 'Zq', 'Q', 'zQ']) {
        expect(await matches(who, part)).toBe(n);
        const sts = await readsByStatement(() => api.get(`/api/invoices?number=${encodeURIComponent(part)}`));
        const list = sts.filter((s) => !s.density);
        expect(list.length).toBe(1);
        const reads = list[0]!.reads;
        // The page's lookup and the count's: each the key's postings and the rows they give. (The
        // planner may AND the small company's own entries of a company index with the key: a
        // company of 300 among 15,300 records looks selective to it; never the big one's.)
        expect(reads.some((r) => /invoices_company_number_keys_idx/.test(r.node)), `${who} ${part}: ${JSON.stringify(reads)}`).toBe(true);
        const own = reads.filter((r) => /keys_idx|Heap Scan invoices/.test(r.node));
        expect(rowsRead(own), `${who} ${part}: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(4 * (n + 1));
        if (who === 'big') expect(rowsRead(reads), `${who} ${part}: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(4 * (n + 1));
        for (const r of reads) expect(r.rows, `${who} ${part}: ${r.node}`).toBeLessThanOrEqual(who === 'big' ? n + 1 : SMALL + 1);
        const r = await api.get(`/api/invoices?number=${encodeURIComponent(part)}`);
        expect(r.body.totalItems).toBe(n);
        expect(r.body.member.every((m: { number: string }) => m.number.endsWith('Zq'))).toBe(true);
      }
    }
  });

  it('a frequent part of one or two characters: a page walked in order, a count through the key or up to the bound', async () => {
    // 12: about one number in twenty; 7: one in two; 00: more than the bound.
    for (const part of ['12', '7', '00']) {
      const expected = await matches('big', part);
      const sts = await readsByStatement(() => big.get(`/api/invoices?number=${encodeURIComponent(part)}`));
      const list = sts.filter((s) => !s.density);
      expect(list.length).toBe(1);
      const reads = list[0]!.reads;
      // The page (a walk of the first records in order, or the key's postings and rows when
      // they are fewer than the walk would read) and the count (the key's postings and rows, or
      // the walk up to the bound): each bounded by the matches it counts, never the company.
      const counted = Math.min(expected, MAX_COUNTED_MATCHES + 1);
      expect(rowsRead(reads), `${part} (${expected} matches): ${JSON.stringify(reads)}`).toBeLessThanOrEqual(4 * counted + 1000);
      if (expected < BIG / 2) expect(rowsRead(reads), `${part}: ${JSON.stringify(reads)}`).toBeLessThan(BIG);
      const r = await big.get(`/api/invoices?number=${encodeURIComponent(part)}`);
      expect(r.body.member).toHaveLength(30);
      if (expected <= MAX_COUNTED_MATCHES) expect(r.body.totalItems, part).toBe(expected);
      else expect(r.body).not.toHaveProperty('totalItems');
    }
    // '12' (one in twenty) is counted through its key: the walk to its last match would read the company.
    const twelve = (await readsByStatement(() => big.get('/api/invoices?number=12'))).filter((s) => !s.density)[0]!.reads;
    expect(twelve.some((r) => /invoices_company_number_keys_idx/.test(r.node)), JSON.stringify(twelve)).toBe(true);
  });

  it('the same part, the same answers as a scan of the company, in both companies', async () => {
    for (const [who, api] of [['big', big], ['small', small]] as const) {
      for (const part of ['1', '12', '0', 'n', 'I', 'V-', 'q', 'zq', '%', '_', '\\']) {
        const expected = await matches(who, part);
        const r = await api.get(`/api/invoices?number=${encodeURIComponent(part)}&itemsPerPage=5`);
        expect(r.status).toBe(200);
        if (expected <= MAX_COUNTED_MATCHES) expect(r.body.totalItems, `${who} ${part}`).toBe(expected);
        else expect(r.body).not.toHaveProperty('totalItems');
        const like = `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        const first = rowsOf<{ number: string }>(
          await db.database.db.execute(sql`select number from invoices where company_id = ${companies[who]} and number ilike ${like} order by id limit 5`),
        ).map((x) => x.number);
        expect(r.body.member.map((m: { number: string }) => m.number), `${who} ${part}`).toEqual(first);
      }
    }
  });

  it("the migration's index gives the rows already there their keys (a data migration)", async () => {
    // The index of 0018 built again over the rows in place, as the migration builds it.
    const create = readFileSync(new URL('../drizzle/0018_text_keys.sql', import.meta.url), 'utf8')
      .split('--> statement-breakpoint')
      .map((x) => x.trim())
      .find((x) => x.startsWith('CREATE INDEX "invoices_company_number_keys_idx"'))!;
    expect(create).toBeDefined();
    await db.database.db.execute(sql`drop index invoices_company_number_keys_idx`);
    await db.database.db.execute(sql.raw(create));
    await db.database.db.execute(sql`analyze invoices`);
    const sts = await readsByStatement(() => big.get('/api/invoices?number=zq'));
    const reads = sts.filter((s) => !s.density)[0]!.reads;
    expect(reads.some((r) => /invoices_company_number_keys_idx/.test(r.node))).toBe(true);
    expect((await big.get('/api/invoices?number=zq')).body.totalItems).toBe(3);
  });
});

describe('bounded totals of partial-match filters', () => {
  it(`counts up to ${MAX_COUNTED_MATCHES.toLocaleString('en-US')} matches exactly, short patterns included`, async () => {
    for (const part of ['0042', 'INV-01', '99', '42', '%', '_']) {
      const expected = await matches('big', part);
      expect(expected).toBeLessThanOrEqual(MAX_COUNTED_MATCHES);
      const r = await big.get(`/api/invoices?number=${encodeURIComponent(part)}`);
      expect(r.body.totalItems, part).toBe(expected);
      const g = await big.post('/api/graphql', { query: gqlPage(part, true) }, { contentType: 'application/json', accept: 'application/json' });
      expect(g.body.data.invoices.totalCount, part).toBe(expected);
    }
  });

  it('beyond the bound the total is left out in every format, and GraphQL totalCount is null', async () => {
    expect(await matches('big', 'INV')).toBe(BIG);
    const path = '/api/invoices?number=inv';
    const ld = await big.get(path);
    expect(ld.status).toBe(200);
    expect(ld.body).not.toHaveProperty('totalItems');
    expect(ld.body.member).toHaveLength(30);
    expect(ld.body.view.next).toBe('/api/invoices?number=inv&page=2');
    const hal = await big.get(path, { accept: 'application/hal+json' });
    expect(hal.body).not.toHaveProperty('totalItems');
    expect(hal.body._links.next.href).toBe('/api/invoices?number=inv&page=2');
    const jsonapi = await big.get(path, { accept: 'application/vnd.api+json' });
    expect(jsonapi.body.meta).not.toHaveProperty('totalItems');
    expect(jsonapi.body.meta.itemsPerPage).toBe(30);
    expect(jsonapi.body.links.next).toBeDefined();
    for (const accept of ['application/json', 'application/xml']) {
      const r = await call(t, 'GET', path, { token: big.token, accept });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-total-count'), accept).toBeNull();
      expect(r.headers.get('link'), accept).toContain('rel="next"');
    }
    const g = await big.post('/api/graphql', { query: gqlPage('inv', true) }, { contentType: 'application/json', accept: 'application/json' });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.invoices.totalCount).toBeNull();
    expect(g.body.data.invoices.edges).toHaveLength(30);
    // Within the bound the same search of the small company is exact.
    expect((await small.get(path)).body.totalItems).toBe(SMALL);
    expect((await call(t, 'GET', path, { token: small.token, accept: 'application/json' })).headers.get('x-total-count')).toBe(String(SMALL));
  });

  it('the links of an uncounted search still page through it: next, last, and past the page bound', async () => {
    const path = '/api/invoices?number=inv&itemsPerPage=100';
    const first = await big.get(path);
    const second = await big.get(first.body.view.next);
    expect(second.body.member[0].number).toBe('INV-000101');
    // `last` names the end by the edge cursor: the last 100 numbers.
    expect(first.body.view.last).toMatch(/before=/);
    const last = await big.get(first.body.view.last);
    expect(last.status).toBe(200);
    expect(last.body.member.at(-1).number).toBe(`INV-${String(BIG).padStart(6, '0')}`);
    expect(last.body.member).toHaveLength(100);
    // The deepest numbered page links on by cursor, and the chain reaches the end.
    const deep = await big.get(`${path}&page=101`);
    expect(deep.status).toBe(200);
    expect(deep.body.member[0].number).toBe('INV-010001');
    let next: string | undefined = deep.body.view.next;
    expect(next).toMatch(/after=/);
    let seenNumbers = deep.body.member.length as number;
    while (next) {
      const p = await big.get(next);
      expect(p.status).toBe(200);
      seenNumbers += p.body.member.length;
      next = p.body.view.next;
    }
    expect(seenNumbers).toBe(BIG - 10_000);
  });

  it('an exact filter keeps its exact total beyond the bound, from the counters', async () => {
    const r = await big.get('/api/invoices?status=paid');
    expect(r.body.totalItems).toBe(BIG / 2);
    const g = await big.post('/api/graphql', { query: '{ invoices(first: 1) { totalCount } }' }, { contentType: 'application/json', accept: 'application/json' });
    expect(g.body.data.invoices.totalCount).toBe(BIG);
  });
});
