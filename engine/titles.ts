// What a record is called where an IRI would not do (a CSV cell, CONTRACT §21): its number when
// its resource has one, else its name (or the first of the usual title fields), else its id; read
// for many records at once, by key, scoped to the caller's company.
import { sql } from 'drizzle-orm';
import type { ModelField, ModelResource } from './model.ts';
import { rowsOf, type Db, type Principal } from './types.ts';

const TITLES = ['number', 'name', 'label', 'title', 'email', 'reference'];

/** The field naming a record of `r` for people, or undefined (the id then). */
export function titleField(r: ModelResource): ModelField | undefined {
  for (const n of TITLES) {
    const f = r.byName.get(n);
    if (f && f.stored && f.kind === 'text') return f;
  }
  return undefined;
}

/** The titles of records of `r` by id (ids of another company, or unknown, are left out). */
export async function readTitles(db: Db, p: Principal, r: ModelResource, ids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const f = titleField(r);
  const unique = [...new Set(ids)];
  if (!unique.length) return out;
  if (!f || r.provider) {
    for (const id of unique) out.set(id, id);
    return out;
  }
  const rows = rowsOf<{ id: string; title: string | null }>(
    await db.execute(sql`select id::text as id, ${sql.identifier(f.column)} as title from ${sql.identifier(r.table)}
      where company_id = ${p.company.id} and id = any(${`{${unique.join(',')}}`}::uuid[])`),
  );
  for (const row of rows) out.set(row.id, row.title ?? row.id);
  return out;
}
