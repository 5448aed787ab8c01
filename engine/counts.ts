// Exact collection sizes that cost the same at a million records as at ten: per company and
// resource, the number of records (key `*`) and, for a resource with states, the number in each
// state (`<field>:<state>`), kept in `engine_counts` by statement-level triggers, so the
// statements that insert, delete and change state update them in the same transaction and no
// write runs one statement more. A key is spread over COUNT_SLOTS rows (the writing backend
// picks one) so concurrent writers of one company do not queue on a single row; readers sum
// the slots. Derived from the model: every resource gets it, and `countSql` says which
// collection reads it can serve (no filter, or only the state field's filter).
import { getTableName, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Model, ModelResource } from './model.ts';
import type { Condition } from './query.ts';
import type { Scope } from './tables.ts';

export const COUNTS_TABLE = 'engine_counts';
export const COUNT_SLOTS = 8;
const ALL = '*';

const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The state field's column and its values, when the resource has states. */
function stateOf(r: ModelResource): { name: string; column: string; values: readonly string[] } | undefined {
  if (!r.states) return undefined;
  const f = r.byName.get(String(r.states.field));
  if (!f || f.def.kind !== 'enum') return undefined;
  return { name: f.name, column: f.column, values: f.def.values };
}

/**
 * The counter keys whose sum is the size of the collection `where` selects, or undefined when
 * the counters cannot answer (any filter other than one on the state field with known values).
 */
export function countKeys(r: ModelResource, where: readonly Condition[]): string[] | undefined {
  if (where.length === 0) return [ALL];
  if (where.length !== 1) return undefined;
  const c = where[0]!;
  const s = stateOf(r);
  if (!s || c.field.name !== s.name || c.op !== 'eq') return undefined;
  const wanted = new Set(c.values.filter((v): v is string => v !== null));
  // An unknown state matches no record; the keys are descriptor constants, never request text.
  return s.values.filter((v) => wanted.has(v)).map((v) => `${s.name}:${v}`);
}

/**
 * The collection's size as a scalar subquery on the counters, or undefined when they cannot
 * answer. The keys are written into the statement (they come from the descriptor), so callers
 * that cache statements by shape add `countShape` to their key.
 */
export function countSql(r: ModelResource, where: readonly Condition[], company: SQL | Placeholder | string): SQL | undefined {
  const keys = countKeys(r, where);
  if (!keys) return undefined;
  if (!keys.length) return sql`0`;
  return sql`(select coalesce(sum(n), 0) from ${sql.identifier(COUNTS_TABLE)} where company_id = ${company} and resource = ${sql.raw(literal(r.name))} and key in (${sql.raw(keys.map(literal).join(', '))}))`;
}

/** What `countSql` wrote into a statement, for statement caches keyed by shape. */
export function countShape(r: ModelResource, where: readonly Condition[]): string {
  return countKeys(r, where)?.join('+') ?? 'scan';
}

const fn = (r: ModelResource) => `${COUNTS_TABLE}_${r.table}`;

/** The keys one row adds to, as SQL over that row's columns. */
function keysOf(r: ModelResource): string {
  const s = stateOf(r);
  return s ? `(values (${literal(ALL)}), (${literal(`${s.name}:`)} || "${s.column}")) as k(key)` : `(values (${literal(ALL)})) as k(key)`;
}

/**
 * Adds the signed counts of a transition table to the counters, in a fixed order (no deadlocks).
 * With `alive` (a condition on `delta.company_id`), only the companies it holds for are counted.
 */
function applyDelta(r: ModelResource, rows: string, alive = ''): string {
  return `insert into ${COUNTS_TABLE} (company_id, resource, key, slot, n)
      select company_id, ${literal(r.name)}, key, pg_backend_pid() % ${COUNT_SLOTS}, sum(d) from (${rows}) as delta
      group by company_id, key having sum(d) <> 0${alive ? ` and ${alive}` : ''} order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = ${COUNTS_TABLE}.n + excluded.n`;
}

/**
 * DDL for the counters: one trigger function per resource and its statement-level triggers,
 * idempotent (`create or replace`, `drop … if exists`), then the counts of the rows already
 * there. The checked-in migration carries it (drizzle/generate.ts).
 */
export function countsDdl(model: Model, scope: Scope): string[] {
  const out: string[] = [];
  // A deletion counts only for a company still there: when a company is deleted, the cascade
  // deletes its records (and its counters), and their count would refer to the company gone.
  const alive = `exists (select 1 from "${getTableName(scope.table)}" as scope where scope."${scope.column.name}" = delta.company_id)`;
  for (const r of model.resources) {
    if (r.provider) continue; // no table (engine/custom.ts)
    const plus = `select company_id, key, 1 as d from new_rows, lateral ${keysOf(r)} where key is not null`;
    const minus = `select company_id, key, -1 as d from old_rows, lateral ${keysOf(r)} where key is not null`;
    const state = stateOf(r);
    out.push(`create or replace function ${fn(r)}() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${applyDelta(r, plus)};
  elsif tg_op = 'DELETE' then
    ${applyDelta(r, minus, alive)};
  else
    ${applyDelta(r, `${plus} union all ${minus}`)};
  end if;
  return null;
end $$`);
    out.push(`drop trigger if exists ${fn(r)}_insert on "${r.table}"`);
    out.push(`create trigger ${fn(r)}_insert after insert on "${r.table}" referencing new table as new_rows for each statement execute function ${fn(r)}()`);
    out.push(`drop trigger if exists ${fn(r)}_delete on "${r.table}"`);
    out.push(`create trigger ${fn(r)}_delete after delete on "${r.table}" referencing old table as old_rows for each statement execute function ${fn(r)}()`);
    out.push(`drop trigger if exists ${fn(r)}_update on "${r.table}"`);
    // Only a state change moves a record between keys; a resource without states needs no update trigger.
    if (state) {
      out.push(`create trigger ${fn(r)}_update after update on "${r.table}" referencing new table as new_rows old table as old_rows for each statement execute function ${fn(r)}()`);
    }
    out.push(...rebuildCountsSql(r));
  }
  return out;
}

/** Recounts one resource from its rows (the migration, and `invoicing counts:rebuild`). */
export function rebuildCountsSql(r: ModelResource): string[] {
  return [
    // Writers wait until the recount commits; readers do not.
    `lock table "${r.table}" in share row exclusive mode`,
    `delete from ${COUNTS_TABLE} where resource = ${literal(r.name)}`,
    `insert into ${COUNTS_TABLE} (company_id, resource, key, slot, n)
      select company_id, ${literal(r.name)}, key, 0, count(*) from "${r.table}", lateral ${keysOf(r)} where key is not null group by company_id, key`,
  ];
}
