// Which partial-match values are read through the company's keys (engine/trigrams.ts) and which by
// walking the collection's order with the filter, for the page and for the bounded count, measured
// before the read: the planner cannot tell. Its estimates of a part of three characters or more
// multiply the frequencies of the part's pieces as if they were unrelated (they come together), so
// a part every record of a company holds can look rare to it.
//
// One small statement answers, whatever the company's size:
// - a look at the company's first records in id order (the default order's first records: what
//   the walk meets first), up to DENSITY_SAMPLE of them: how many (S) it takes to meet the value's
//   first DENSE_HITS matches, or how many (`hits`) are among them all;
// - how many records hold each of the value's keys, from the index's statistics (ANALYZE keeps the
//   most common keys with their frequencies; the keys begin with the company, so these are the
//   company's figures): the least of them bounds the matches, their sum is what the lookup reads.
//   When a key is not among the most common (a rare key, or a small company's beside a big one's,
//   which fill the list), the statistics do not say, and the look decides alone.
// Then, with S the records looked at and M the matches so bounded:
// - the page walks the order when the value is frequent among the first records (DENSE_HITS
//   found), or, for a value of one key (three characters or fewer, whose key's records are its
//   matches), when its matches are more than the walk would read to fill a page (M >
//   DENSE_HITS × S / hits); it looks up the keys otherwise (the records the lookup gives are sorted
//   for the page, so it reads M rows);
// - the bounded count looks up the keys unless walking to its bound (MAX_COUNTED_MATCHES + 1
//   matches, ≈ (MAX + 1) × S / hits rows) reads fewer rows than the lookup (its postings,
//   POSTINGS_PER_ROW to a row, and up to MAX + 1 rows).
// Without those figures (the table never analysed, or a key not among the most common) the page's
// rule is the first alone and the count reads as the page does.
import { sql } from 'drizzle-orm';
import type { ModelResource } from '../model.ts';
import { MAX_COUNTED_MATCHES, type Condition } from '../query.ts';
import type { Statements } from '../statements.ts';
import type { AnyTable } from '../tables.ts';
import { hasKeys, keysIndexName, partKeys } from '../trigrams.ts';
import { escapeLike } from './conditions.ts';
import type { Db } from '../types.ts';

/** How many of the company's first records (by id) the look reads. */
export const DENSITY_SAMPLE = 1000;
/** A value found this often among them (3 %: a page of 30 within the first 1,000) is frequent. */
export const DENSE_HITS = 30;
/** How many index postings cost about what one row costs (a posting is a few bytes of a compressed list). */
export const POSTINGS_PER_ROW = 20;

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** What the look found of one value. */
export interface Density {
  /** Records looked at: the company's first, up to the DENSE_HITS-th match (at most DENSITY_SAMPLE). */
  sample: number;
  /** Matches among them (at most DENSE_HITS). */
  hits: number;
  /** Records that hold the value's rarest key, and all its keys' records, by the statistics (null without). */
  matchesAtMost: number | null;
  postings: number | null;
  /** Whether the value is one key (three characters or fewer): its records are its matches, not a bound of them. */
  single: boolean;
}

/** How a value is read: through the keys for the page, for the count (see above). */
export function choose(d: Density): { pageKeys: boolean; countKeys: boolean } {
  const { sample, hits, matchesAtMost: m, postings } = d;
  const walkPage = hits > 0 ? (DENSE_HITS * sample) / hits : Infinity;
  // Only a single key's records are its matches; the least of several keys' can be many times them
  // (0042: 4,182 records hold 042, 300 numbers hold 0042), and a walk chosen on it reads on.
  const pageKeys = hits < DENSE_HITS && (m === null || !d.single || m <= walkPage);
  if (m === null || postings === null) return { pageKeys, countKeys: pageKeys };
  const bound = MAX_COUNTED_MATCHES + 1;
  const walkCount = hits > 0 ? (bound * sample) / hits : Infinity;
  const keysCount = postings / POSTINGS_PER_ROW + Math.min(m, bound);
  return { pageKeys, countKeys: keysCount <= walkCount };
}

/**
 * `where` with each partial-match condition's `dense` (the page walks the order) and `countKeys`
 * (the count looks up the keys) set, by one statement; unchanged (no statement) without such a
 * condition.
 */
export async function withDensity(db: Db, statements: Statements, r: ModelResource, t: AnyTable, company: string, where: readonly Condition[]): Promise<readonly Condition[]> {
  const probed = where.filter((c) => c.op === 'partial' && c.values.some((v) => v !== null && hasKeys(v)));
  if (!probed.length) return where;
  const values: Record<string, unknown> = { company };
  const parts: { c: Condition; i: number; v: string; name: string }[] = [];
  for (const c of probed) c.values.filter((x): x is string => x !== null).forEach((v, i) => hasKeys(v) && parts.push({ c, i, v, name: `p${parts.length}` }));
  for (const p of parts) {
    values[p.name] = `%${escapeLike(p.v)}%`;
    values[`k${p.name}`] = p.v;
  }
  const build = () => {
    const looks = parts.map((p) => {
      // The first DENSE_HITS matches and the place of the last of them; fewer: the records looked at.
      const hits = sql`(select case when count(*) < ${sql.raw(String(DENSE_HITS))} then array[count(*), (select count(*) from "__first")] else array[count(*), max("__n")] end
          from (select "__n" from "__first" where ${sql.identifier(p.c.field.column)} ilike ${sql.placeholder(p.name)} limit ${sql.raw(String(DENSE_HITS))}) as "__h") as ${sql.identifier(p.name)}`;
      // The keys' frequencies among the index's most common elements, and how many of the keys
      // are not among them (their frequency is unknown: the list keeps the commonest keys of all
      // companies, mostly the big ones').
      const stats = sql`(select array[min(x), sum(x), count(*) filter (where x is null)] from (select s.f[array_position(s.e, k)] * s.n as x
          from (select st.most_common_elems::text::text[] as e, st.most_common_elem_freqs as f, greatest(c.reltuples, 0)::float8 as n
            from pg_stats st, pg_class c where st.schemaname = current_schema() and st.tablename = ${sql.raw(literal(keysIndexName(r.table, p.c.field.column)))}
            and c.relname = ${sql.raw(literal(r.table))} and c.relnamespace = current_schema()::regnamespace and st.most_common_elems is not null limit 1) as s,
          unnest(${partKeys(sql.placeholder('company'), sql.placeholder(`k${p.name}`))}) as k) as "__k") as ${sql.identifier(`s${p.name}`)}`;
      return sql`${hits}, ${stats}`;
    });
    return sql`with "__first" as materialized (select *, row_number() over (order by ${t.id}) as "__n" from ${t} where ${t.companyId} = ${sql.placeholder('company')} order by ${t.id} limit ${sql.raw(String(DENSITY_SAMPLE))})
      select ${sql.join(looks, sql`, `)}`;
  };
  const key = `density|${r.name}|${parts.map((p) => p.c.field.name).join(',')}`;
  const [row] = await statements.run(db, { key, build }, values);
  return where.map((c) => {
    if (!probed.includes(c)) return c;
    const given = c.values.filter((x): x is string => x !== null);
    const chosen = given.map((_, i) => {
      const p = parts.find((x) => x.c === c && x.i === i);
      if (!p) return { pageKeys: false, countKeys: false };
      const [hits, sample] = parsePair(row?.[p.name]);
      const [m, postings, unknown] = parsePair(row?.[`s${p.name}`]);
      // A key not among the most common: the statistics do not say (the look decides alone).
      const known = unknown === 0 && m !== null;
      return choose({ sample: sample ?? 0, hits: hits ?? 0, matchesAtMost: known ? m : null, postings: known ? postings : null, single: [...p.v].length <= 3 });
    });
    return { ...c, dense: chosen.map((x) => !x.pageKeys), countKeys: chosen.map((x) => x.countKeys) };
  });
}

/** A few figures (`array[a, b, …]`) as the drivers return it (an array, or PostgreSQL's text of one). */
function parsePair(v: unknown): [number | null, number | null, number | null] {
  const xs = Array.isArray(v) ? v : typeof v === 'string' ? v.replace(/[{}]/g, '').split(',') : [];
  const num = (x: unknown) => (x === null || x === undefined || x === 'NULL' || x === '' ? null : Number(x));
  return [num(xs[0]), num(xs[1]), num(xs[2])];
}
