// The state of the database as a value: row counts and a checksum of every business table (and
// of the tenancy tables), so a test can prove that a rejected request changed nothing at all.
// Request history and usage counters are left out: every authenticated request changes them.
import { sql } from 'drizzle-orm';
import type { Db } from '../../engine/types.ts';
import { rowsOf } from '../../server/db.ts';
import { model } from '../../server/model.ts';

const SYSTEM = ['companies', 'users', 'memberships', 'settings'];

/** Every table a write through the API could touch, with the columns that identify a row's content. */
export const businessTables = (): string[] => [...model.resources.filter((r) => !r.provider).map((r) => r.table), 'engine_sequences', ...SYSTEM];

export interface DbState {
  [table: string]: { rows: number; sum: string };
}

/** One statement: for each table, its row count and the md5 of its rows in a fixed order. */
export async function dbState(db: Db): Promise<DbState> {
  const tables = [...businessTables(), 'api_tokens'];
  const parts = tables.map((t) => {
    // api_tokens: its identity only (usage_count and last_used_at move with every request).
    const row = t === 'api_tokens' ? sql.raw(`(x.id, x.user_id, x.company_id, x.name, x.description, x.token_hash)::text`) : sql.raw('x::text');
    return sql`select ${t} as t, count(*)::int as n, coalesce(md5(string_agg(${row}, '|' order by ${row})), '') as s from ${sql.identifier(t)} x`;
  });
  const rows = rowsOf<{ t: string; n: number; s: string }>(await db.execute(sql.join(parts, sql` union all `)));
  const out: DbState = {};
  for (const r of rows) out[r.t] = { rows: Number(r.n), sum: r.s };
  return out;
}
