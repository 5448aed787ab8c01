// Collections at scale (CONTRACT §10): the statements the engine generates for a partial text
// filter are served by the trigram index derived from the descriptor, and an order field by its
// (company, field, id) index; EXPLAIN on the very statements a request ran says so.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { client, freshDatabase, startTestServer, tokenFor, type Client, type TestDatabase, type TestServer } from './helpers.ts';

let t: TestServer;
let db: TestDatabase;
let api: Client;
const seen: { text: string; params: unknown[] }[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  const raw = db.database.raw;
  // The same database, recording the statements the engine runs.
  const recording = { ...db.database, raw: (text: string, params: unknown[], fresh?: boolean) => (seen.push({ text, params }), raw(text, params, fresh)) };
  t = await startTestServer({}, { db: { ...db, database: recording } });
  api = client(t, await tokenFor(t, { email: 'owner@scale.test', company: 'Scale Test' }));
  const c = (await api.post('/api/clients', { name: 'Acme' })).body.id as string;
  // Enough invoices that reading them all would cost more than the indexes.
  await db.database.db.execute(sql`insert into invoices (id, company_id, number, client_id, status, invoice_date, discount_type, discount_value, total)
    select gen_random_uuid(), i.company_id, 'INV-' || lpad(g::text, 6, '0'), i.id, 'draft', date '2026-01-01' + (g % 300), 'none', 0, (g * 7919) % 100000
    from clients i, generate_series(1, 20000) g where i.id = ${c}`);
  await db.database.db.execute(sql`analyze`);
});
afterAll(async () => {
  await t.close();
  await db.drop();
});

/** The plan of the statement a request ran that matches `pick`, as JSON text. */
async function planOf(path: string, pick: (text: string) => boolean): Promise<string> {
  seen.length = 0;
  const r = await api.get(path);
  expect(r.status).toBe(200);
  const st = seen.find((s) => pick(s.text));
  expect(st, `no statement matched among:\n${seen.map((s) => s.text).join('\n')}`).toBeDefined();
  const rows = await db.database.raw(`explain (format json) ${st!.text}`, st!.params);
  return JSON.stringify(rowsOf(rows));
}

describe('indexes derived from the descriptors', () => {
  it('a partial text filter (ILIKE) is served by the trigram index', async () => {
    const r = await api.get('/api/invoices?number=19997');
    expect(r.body.totalItems).toBe(1); // INV-019997 alone, near the end of the default order
    const plan = await planOf('/api/invoices?number=19997', (s) => /ilike/i.test(s) && !/__first/.test(s));
    expect(plan).toContain('invoices_company_number_keys_idx');
  });

  it('an order field is read through its (company, field, id) index, not sorted from a scan', async () => {
    const plan = await planOf('/api/invoices?order%5Btotal%5D=desc', (s) => /order by/i.test(s));
    // The page's rows come straight from the index scan under the limit: no sort of the collection.
    expect(plan).toMatch(/"Node Type":"Limit"[^\]]*?"Plans":\[\{"Node Type":"Index Scan"[^}]*"Index Name":"invoices_company_total_idx"/);
  });

  it('the total of an unfiltered or state-filtered collection is read from the counters, not counted', async () => {
    for (const path of ['/api/invoices', '/api/invoices?status=draft']) {
      const plan = await planOf(path, (s) => /order by/i.test(s));
      expect(plan).toContain('engine_counts');
      // The invoices are read once, for the page; the count reads none.
      expect(plan.match(/"Relation Name":"invoices"/g)).toHaveLength(1);
      expect((await api.get(path)).body.totalItems).toBe(20000);
    }
  });
});
