// The write path's SQL, built once per shape and run as raw text with named values: building
// statements with drizzle on every request (and mapping every value to the driver) was most of a
// create's CPU, and one round trip per statement most of its latency.
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Model, ModelField, ModelResource } from '../model.ts';
import { columnDefault, columnSqlType, shadowingCte } from '../drizzle-internals.ts';
import { literal } from '../sql-text.ts';
import type { Tables } from '../tables.ts';
import { keepInsert } from '../idempotency.ts';
import { defaultPrefix, firstFreeNumber, formattedNumber, sequenceName } from '../sequences.ts';

const q = (name: string) => sql.identifier(name);

/** What decides the text of a create statement; values travel as named placeholders. */
export interface CreateShape {
  /** Stored fields given a value, in the order of the placeholders `v0`, `v1`, … */
  readonly columns: readonly ModelField[];
  /** Sequence fields that take the next number of their counter. */
  readonly numbered: readonly ModelField[];
  /** Embedded children fields with rows to insert, as JSON arrays in `c0`, `c1`, … */
  readonly children: readonly ModelField[];
  /** The result is kept under an Idempotency-Key (`k_…` values, see engine/idempotency.ts). */
  readonly keep?: boolean;
}

export const createShapeKey = (r: ModelResource, s: CreateShape): string =>
  `create|${r.name}|${s.columns.map((f) => f.name).join(',')}|${s.numbered.map((f) => f.name).join(',')}|${s.children.map((f) => f.name).join(',')}${s.keep ? '|keep' : ''}`;

export interface WriteStatements {
  /**
   * Reads the records behind references to several resources at once, limited to the company
   * (`company`): one JSON array column per target, named by its index, of the rows whose id is
   * one of `ids<index>_0` … `ids<index>_<size - 1>`.
   */
  refs(targets: readonly { resource: ModelResource; size: number }[]): SQL;
  /**
   * Inserts a record (`id`, `company`, `now` and the shape's values), its embedded children and
   * the next numbers of its sequences in one statement, which PostgreSQL runs atomically, and
   * returns the record as `rawColumnsOf(r, true)` shapes it.
   */
  /** `events`: a CTE recording the write's events; `handed`: the select-list column returning what that CTE (named as given) recorded. */
  create(r: ModelResource, shape: CreateShape, events?: SQL, handed?: (recorded: SQL) => SQL): SQL;
  /**
   * Sets the columns of record `id` to `v0`, `v1`, …, its sequence fields `numbered` to the next
   * numbers of their counters (as a create does), and its updatedAt to `now`.
   */
  update(r: ModelResource, columns: readonly ModelField[], numbered: readonly ModelField[]): SQL;
  /**
   * Writes the children of owner `owner` through their ref field `via`: deletes the existing ones
   * (`replace`) and inserts the JSON array `rows` (`insert`), in one statement.
   */
  children(child: ModelResource, via: string, replace: boolean, insert: boolean): SQL;
}

export function writeStatements(model: Model, tables: Tables, rawColumnsOf: (r: ModelResource, embedded: boolean) => SQL): WriteStatements {
  const company = sql.placeholder('company');

  /**
   * Takes the counter's next value (creating the counter at the first free one) and returns it
   * with the company's prefix (engine/sequences.ts). The counter's row stays locked until the
   * statement's transaction ends, so numbers are handed out in commit order, and a write that
   * fails returns its number: no gaps.
   */
  function nextValue(r: ModelResource, f: ModelField): SQL {
    const s = tables.sequences;
    const name = literal(sequenceName(r, f));
    const fallback = defaultPrefix(f);
    // The inserted value is evaluated even when the counter exists (and the update applies): the
    // search from 1 runs only for a new counter.
    const first = sql`case when exists (select 1 from ${s} where company_id = ${company} and name = ${name}) then 0 else ${firstFreeNumber(r, f, company, sql`1`, fallback)} end`;
    return sql`insert into ${s} as s (company_id, name, value) values (${company}, ${name}, ${first})
      on conflict (company_id, name) do update set value = ${firstFreeNumber(r, f, company, sql`s.value + 1`, sql`coalesce(s.prefix, ${fallback})`)} returning value, coalesce(prefix, ${fallback}) as prefix`;
  }

  /** The number a `nextValue` CTE gave. */
  const formatted = (f: ModelField): SQL => formattedNumber(f, sql`value`, sql`prefix`);

  const column = (r: ModelResource, name: string): PgColumn => tables.get(r)[name] as unknown as PgColumn;

  /**
   * Inserts the rows of one embedded field from a JSON array of objects keyed by field name (plus
   * id, companyId, createdAt, updatedAt). The CTE takes the child table's name, so the record's
   * select list (whose children subquery reads that table) sees the rows inserted here.
   */
  function childrenInsert(child: ModelResource, placeholder: string, returning: boolean): SQL {
    const t = tables.get(child);
    const fields = [
      { key: 'id', column: 'id', name: 'id' },
      { key: 'companyId', column: 'company_id', name: 'companyId' },
      ...child.stored.map((f) => ({ key: f.name, column: f.column, name: f.name })),
      { key: 'createdAt', column: 'created_at', name: 'createdAt' },
      { key: 'updatedAt', column: 'updated_at', name: 'updatedAt' },
    ];
    const defs = fields.map((c) => sql`${q(c.key)} ${sql.raw(columnSqlType(column(child, c.name)))}`);
    const values = fields.map((c) => {
      const d = columnDefault(column(child, c.name));
      return d ? sql`coalesce(x.${q(c.key)}, ${d})` : sql`x.${q(c.key)}`;
    });
    return sql`insert into ${t} (${sql.join(fields.map((c) => q(c.column)), sql`, `)})
      select ${sql.join(values, sql`, `)} from json_to_recordset(${sql.placeholder(placeholder)}::text::json) as x(${sql.join(defs, sql`, `)})${returning ? sql` returning *` : sql``}`;
  }

  /** Placeholder `v<i>` as the value of column `f` (JSON columns travel as text). */
  const value = (f: ModelField, i: number): SQL => (f.kind === 'list' || f.kind === 'textList' ? sql`${sql.placeholder(`v${i}`)}::text::jsonb` : sql`${sql.placeholder(`v${i}`)}`);

  return {
    refs(targets) {
      // A list of placeholders rather than one array: PostgreSQL plans `id = any($1)` anew on
      // every execution (its generic plan guesses the array's size), `id in ($1, $2)` once.
      const parts = targets.map(({ resource, size }, i) => {
        const t = tables.get(resource);
        const ids = Array.from({ length: size }, (_, k) => sql.placeholder(`ids${i}_${k}`));
        return sql`(select coalesce(json_agg(x), '[]'::json) from (select ${rawColumnsOf(resource, false)} from ${t}
          where ${t.companyId} = ${company} and ${t.id} in (${sql.join(ids, sql`, `)})) as x) as ${q(String(i))}`;
      });
      return sql`select ${sql.join(parts, sql`, `)}`;
    },

    create(r, shape, events, handed) {
      const t = tables.get(r);
      const ctes: SQL[] = shape.numbered.map((f, i) => sql`${q(`__n${i}`)} as (${nextValue(r, f)})`);
      const columns = [q('id'), q('company_id'), ...shape.columns.map((f) => q(f.column)), ...shape.numbered.map((f) => q(f.column)), q('created_at'), q('updated_at')];
      const values = [
        sql.placeholder('id'),
        company,
        ...shape.columns.map(value),
        ...shape.numbered.map((f, i) => sql`(select ${formatted(f)} from ${q(`__n${i}`)})`),
        sql.placeholder('now'),
        sql.placeholder('now'),
      ];
      // The CTEs take the tables' names: the select list below reads the inserted rows through them.
      ctes.push(shadowingCte(r.table, sql`insert into ${t} (${sql.join(columns, sql`, `)}) values (${sql.join(values, sql`, `)}) returning *`));
      shape.children.forEach((f, i) => ctes.push(shadowingCte(model.get(f.target!).table, childrenInsert(model.get(f.target!), `c${i}`, true))));
      // The events (engine/events.ts) read the record and its children through the CTEs above.
      const recorded = sql`${q('__events')}`;
      if (events) ctes.push(sql`${recorded} as (${events})`);
      // The kept result is the record as this statement returns it, in the same statement: kept
      // exactly when the record is written (a taken key fails the whole statement).
      if (shape.keep) ctes.push(sql`${q('__kept')} as (${keepInsert(tables.idempotency, sql`select row_to_json(x)::text from (select ${rawColumnsOf(r, true)} from ${q(r.table)}) as x`)})`);
      return sql`with ${sql.join(ctes, sql`, `)} select ${rawColumnsOf(r, true)}${events && handed ? sql`, ${handed(recorded)}` : sql``} from ${q(r.table)}`;
    },

    update(r, columns, numbered) {
      const t = tables.get(r);
      const set = [
        ...columns.map((f, i) => sql`${q(f.column)} = ${value(f, i)}`),
        ...numbered.map((f, i) => sql`${q(f.column)} = (select ${formatted(f)} from ${q(`__n${i}`)})`),
        sql`${q('updated_at')} = ${sql.placeholder('now')}`,
      ];
      const ctes = numbered.map((f, i) => sql`${q(`__n${i}`)} as (${nextValue(r, f)})`);
      return sql`${ctes.length ? sql`with ${sql.join(ctes, sql`, `)} ` : sql``}update ${t} set ${sql.join(set, sql`, `)} where ${t.id} = ${sql.placeholder('id')}`;
    },

    children(child, via, replace, insert) {
      const t = tables.get(child);
      const remove = sql`delete from ${t} where ${q(child.byName.get(via)!.column)} = ${sql.placeholder('owner')}`;
      if (!insert) return remove;
      // The delete sees the rows as they were before the statement: never the inserted ones.
      return replace ? sql`with removed as (${remove}) ${childrenInsert(child, 'rows', false)}` : childrenInsert(child, 'rows', false);
    },
  };
}
