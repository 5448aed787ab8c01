// Per-company sequences behind `sequence` text fields (a document's number): the counter row in
// engine_sequences holds the last value given and, when the company chose one, its own prefix.
// The write statements (write/write-statements.ts) take numbers with these expressions; a
// company's settings read and change a sequence's prefix and next number here, with the rule
// that the next number is never one already given with that prefix.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { TextField } from './descriptor.ts';
import { ApiError, ViolationCode } from './errors.ts';
import type { ModelField, ModelResource } from './model.ts';
import { literal } from './sql-text.ts';
import type { Tables } from './tables.ts';
import { rowsOf, type Tx } from './types.ts';

const q = (name: string) => sql.identifier(name);

/** The largest counter value (a PostgreSQL integer). */
export const MAX_SEQUENCE = 2_147_483_647;

/** The counter's name in engine_sequences. */
export const sequenceName = (r: ModelResource, f: ModelField): string => `${r.name}.${f.name}`;

const declared = (f: ModelField) => (f.def as TextField).sequence!;

/** The descriptor's prefix, as SQL text. */
export const defaultPrefix = (f: ModelField): SQL => literal(declared(f).prefix);

/** The text of sequence field `f`'s number for counter value `v` with prefix `prefix`: `v` zero-padded. */
export function formattedNumber(f: ModelField, v: SQL, prefix: SQL): SQL {
  const n = Math.trunc(declared(f).pad);
  return sql`${prefix} || case when length(${v}::text) >= ${sql.raw(String(n))} then ${v}::text else lpad(${v}::text, ${sql.raw(String(n))}, '0') end`;
}

/**
 * The first counter value from `start` whose number no record of the company has: numbers a
 * user chose are skipped, so the counter never hands out a taken number. Each candidate is
 * probed by the (company, number) index: a correlated scalar subquery, which PostgreSQL cannot
 * turn into a join (an EXISTS it did: a hash of every number of the company, built at each
 * create by a plan that assumed few, on PGlite and wherever statistics lag).
 */
export function firstFreeNumber(r: ModelResource, f: ModelField, company: SQLWrapper, start: SQL, prefix: SQL): SQL {
  return sql`(with recursive f(n) as (select ${start} union all select f.n + 1 from f where (select true from ${q(r.table)} as taken where taken.company_id = ${company} and taken.${q(f.column)} = ${formattedNumber(f, sql`f.n`, prefix)} limit 1)) select max(f.n) from f)`;
}

/** The highest number the company's records have with `prefix` followed by digits only (0: none). */
function highestGiven(r: ModelResource, f: ModelField, company: SQLWrapper, prefix: SQL): SQL {
  const col = sql`${q(r.table)}.${q(f.column)}`;
  const rest = sql`substr(${col}, length(${prefix}) + 1)`;
  return sql`(select coalesce(max(${rest}::bigint), 0) from ${q(r.table)} where ${q(r.table)}.company_id = ${company} and left(${col}, length(${prefix})) = ${prefix} and ${rest} ~ '^[0-9]{1,18}$')`;
}

/** A company's setting of one sequence. */
export interface SequenceSetting {
  prefix: string;
  /** The counter value the next record takes (its number: prefix and this value zero-padded). */
  next: number;
}

/**
 * The prefix and next number of sequence field `f` of `r` as SQL expressions for the company
 * `company` (e.g. a column of the row that scopes records): subqueries, for one select.
 */
export function sequenceSettingSql(tables: Tables, r: ModelResource, f: ModelField, company: SQLWrapper): { prefix: SQL; next: SQL } {
  const s = tables.sequences;
  const row = sql`from ${s} as s where s.company_id = ${company} and s.name = ${literal(sequenceName(r, f))}`;
  const prefix = sql`coalesce((select s.prefix ${row}), ${defaultPrefix(f)})`;
  const start = sql`coalesce((select s.value ${row}), 0) + 1`;
  return { prefix, next: firstFreeNumber(r, f, company, start, prefix) };
}

/**
 * Changes a company's prefix and/or next number of a sequence, in `tx` (its counter row locked
 * until `tx` ends, as a create's number holds it). A next number at or below the highest number
 * already given with the (new) prefix is a 422 on `paths.next`; a prefix changed alone keeps the
 * counter, moved past the numbers already given with the new prefix.
 */
export async function setSequence(
  tx: Tx,
  tables: Tables,
  r: ModelResource,
  f: ModelField,
  companyId: string,
  change: { prefix?: string; next?: number },
  paths: { next: string },
): Promise<void> {
  const s = tables.sequences;
  const name = sequenceName(r, f);
  const company = sql`${companyId}::uuid`;
  await tx.execute(sql`insert into ${s} (company_id, name, value) values (${company}, ${name}, 0) on conflict (company_id, name) do nothing`);
  const [row] = rowsOf<{ value: number | string; prefix: string | null }>(await tx.execute(sql`select value, prefix from ${s} where company_id = ${company} and name = ${name} for update`));
  const prefix = change.prefix ?? row!.prefix ?? declared(f).prefix;
  const highest = Number(rowsOf<{ n: string | number }>(await tx.execute(sql`select ${highestGiven(r, f, company, sql`${prefix}::text`)} as n`))[0]!.n);
  let value = Number(row!.value);
  if (change.next !== undefined) {
    if (change.next <= highest) {
      const given = `${prefix}${String(highest).padStart(declared(f).pad, '0')}`;
      throw ApiError.validation([{ propertyPath: paths.next, message: `The number ${given} was given already: the next number must be ${highest + 1} or more.`, code: ViolationCode.range }]);
    }
    value = change.next - 1;
  } else if (change.prefix !== undefined) value = Math.max(value, Math.min(highest, MAX_SEQUENCE - 1));
  await tx.execute(sql`update ${s} set value = ${value}, prefix = ${change.prefix !== undefined ? change.prefix : row!.prefix} where company_id = ${company} and name = ${name}`);
}
