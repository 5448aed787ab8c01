// Which partial-match values are frequent in the asking company, measured before the read: the
// planner cannot tell. Its estimates of the trigram keys multiply the frequencies of a part's
// pieces and of the company as if they were unrelated (they are not: every key names the company,
// and the pieces of a part come together), so a part every record of a small company holds looks
// rare beside a big company, and its page would be read from every match (the trigram keys)
// instead of from the first records in order. A look at the company's first records in the
// collection's default order (a few hundred index entries and rows, whatever the company's size)
// says how frequent each value is; a frequent one is read without the trigram keys, by walking
// the order's index and filtering (engine/read/conditions.ts).
import { sql } from 'drizzle-orm';
import type { ModelResource } from '../model.ts';
import type { Condition } from '../query.ts';
import type { Statements } from '../statements.ts';
import type { AnyTable } from '../tables.ts';
import { hasTrigrams } from '../trigrams.ts';
import type { Db } from '../types.ts';

/** How many of the company's first records (by id) the look reads. */
export const DENSITY_SAMPLE = 1000;
/** A value found this often among them (3 %: a page of 30 within the first 1,000) is frequent. */
export const DENSE_HITS = 30;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `where` with each partial-match condition's `dense` flags set, by one statement over the
 * company's first DENSITY_SAMPLE records; unchanged (no statement) without such a condition.
 */
export async function withDensity(db: Db, statements: Statements, r: ModelResource, t: AnyTable, company: string, where: readonly Condition[]): Promise<readonly Condition[]> {
  const probed = where.filter((c) => c.op === 'partial' && c.values.some((v) => v !== null && hasTrigrams(v)));
  if (!probed.length) return where;
  const values: Record<string, unknown> = { company };
  const parts: { c: Condition; v: string; name: string }[] = [];
  for (const c of probed) for (const v of c.values.filter((x): x is string => x !== null)) parts.push({ c, v, name: `p${parts.length}` });
  for (const p of parts) values[p.name] = `%${escapeLike(p.v)}%`;
  const build = () => {
    const counts = parts.map(
      (p) => sql`(select count(*)::int from (select 1 from "__first" where ${sql.identifier(p.c.field.column)} ilike ${sql.placeholder(p.name)} limit ${sql.raw(String(DENSE_HITS))}) as "__h") as ${sql.identifier(p.name)}`,
    );
    return sql`with "__first" as materialized (select * from ${t} where ${t.companyId} = ${sql.placeholder('company')} order by ${t.id} limit ${sql.raw(String(DENSITY_SAMPLE))})
      select ${sql.join(counts, sql`, `)}`;
  };
  const key = `density|${r.name}|${parts.map((p) => p.c.field.name).join(',')}`;
  const [row] = await statements.run(db, { key, build }, values);
  return where.map((c) => {
    if (!probed.includes(c)) return c;
    const mine = parts.filter((p) => p.c === c);
    return { ...c, dense: mine.map((p) => Number(row?.[p.name] ?? 0) >= DENSE_HITS) };
  });
}
