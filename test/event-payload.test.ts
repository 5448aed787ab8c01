// A webhook payload is built by one definition (engine/payload.ts), whether the database writes it
// (a write's own statement, or the fallback when a delivery is claimed) or the server does (after
// the commit, a ping): the same bytes, so a receiver's signature check sees no difference.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { payloadSql, payloadText } from '../engine/payload.ts';
import { rowsOf } from '../server/db.ts';
import { freshDatabase, type TestDatabase } from './helpers.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(() => t.drop());

it('writes the same text in SQL and in JS, for awkward record text too', async () => {
  const at = '2026-11-27T06:40:01.123Z';
  const data = JSON.stringify({ id: 'x', name: 'Müller & "Söhne"\\ \n\t€', n: 12, none: null, list: [1, { a: 'b' }] });
  for (const type of ['invoice.paid', 'webhook.ping']) {
    const [row] = rowsOf<{ body: string }>(await t.database.db.execute(sql`select ${payloadSql(sql`${type}::text`, sql`${at}::text`, sql`${data}::json`)} as body`));
    const js = payloadText(type, at, data);
    expect(row!.body).toBe(js);
    expect(JSON.parse(js)).toEqual({ type, timestamp: at, data: JSON.parse(data) });
  }
});
