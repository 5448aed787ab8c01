// A plan made while a table was small must not stay a plan that reads the whole table once it has
// grown. PL/pgSQL keeps its statements' plans for the session, and PGlite never analyses: the
// embedded lines' version trigger joined its transition table with the owners' table, planned
// while that table held a few rows, and went on reading every invoice at each write of lines; the
// create's numbering hashed every number of the company to find the next free one.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  api = client(t, await tokenFor(t, { email: 'grow@plans.test', company: 'Growing' }));
  clientIri = (await api.post('/api/clients', { name: 'Acme' })).body['@id'];
});
afterAll(async () => {
  await t.close();
});

/** Rows and index entries of `invoices` read so far (the server's backends report within a second or so). */
async function scanned(): Promise<{ rows: number; entries: number }> {
  await new Promise((r) => setTimeout(r, 1500));
  return rowsOf<{ rows: number; entries: number }>(await t.db.database.db.execute(sql`select
    (select coalesce(seq_tup_read, 0)::int from pg_stat_user_tables where relname = 'invoices') as rows,
    (select coalesce(sum(idx_tup_read), 0)::int from pg_stat_user_indexes where relname = 'invoices') as entries`))[0]!;
}

it("writing an invoice's lines reads its invoice by key, however many invoices there are", async () => {
  const create = async (i: number) => {
    const lines = [1, 2, 3, 4, 5].map((k) => ({ description: `Line ${i}.${k}`, qty: k, price: 100 + i }));
    const res = await api.post('/api/invoices', { client: clientIri, lines });
    expect(res.status, res.text).toBe(201);
    return res.body['@id'] as string;
  };
  // While the table is small: every statement of the write path gets planned.
  const first = [];
  for (let i = 0; i < 12; i++) first.push(await create(i));
  await t.db.database.db.execute(sql`insert into invoices (id, company_id, number, client_id, status, invoice_date, discount_type, discount_value)
    select gen_random_uuid(), c.company_id, 'OLD-' || g, c.id, 'draft', date '2026-01-01', 'none', 0 from clients c, generate_series(1, 5000) g where c.name = 'Acme'`);
  const before = await scanned();
  for (let i = 0; i < 10; i++) await create(100 + i);
  expect((await api.patch(first[0]!, { lines: [{ description: 'Changed', price: 5 }, { description: 'Added', price: 6 }] })).status).toBe(200);
  // Eleven writes of lines: not one read of the 5,000 invoices each, by scan or by index.
  const after = await scanned();
  expect(after.rows - before.rows).toBeLessThan(5000);
  expect(after.entries - before.entries).toBeLessThan(5000);
});
