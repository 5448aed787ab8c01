// Keyset cursors (CONTRACT §10): a cursor names a position in an ordered collection by the
// values of the order's fields and the record's id, never by an offset, so the page after it is
// read by seeking an index — it costs what the first page costs — and stays right when records
// are added or removed before it. Self-contained: the adapters (REST `after`/`before`, GraphQL
// connections) encode a page's first and last records and hand decoded positions back here.
//
// Order semantics are PostgreSQL's defaults, which the collection reads use: ASC puts nulls
// last, DESC puts them first; every order ends with the id in the last term's direction
// (query.ts `tieBreak`), so it is total.
import { and, or, sql, type SQL } from 'drizzle-orm';
import { ApiError } from './errors.ts';
import { iso, literal } from './sql-text.ts';
import type { ModelResource } from './model.ts';
import { tieBreak, type Order } from './query.ts';
import type { AnyTable } from './tables.ts';
import { isDate, isUuid } from './validate.ts';
import type { FieldValues } from './types.ts';

/** A decoded cursor: the order fields' values, then the id. */
export interface Position {
  readonly values: readonly (string | number | null)[];
  readonly id: string;
}

type Kind = 'text' | 'integer' | 'decimal' | 'date' | 'timestamp' | 'uuid';

interface Term {
  readonly field: string;
  readonly dir: 'asc' | 'desc';
  readonly kind: Kind;
  readonly nullable: boolean;
}

/** The order's terms as the seek needs them (the id excluded). */
function termsOf(r: ModelResource, order: readonly Order[]): Term[] {
  return order.map((o) => {
    if (o.field === 'createdAt' || o.field === 'updatedAt') return { field: o.field, dir: o.dir, kind: 'timestamp', nullable: false };
    const f = r.byName.get(o.field);
    if (!f?.stored) throw new Error(`${r.name}.${o.field} cannot be an order field`);
    const d = f.def as { default?: unknown };
    const nullable = !(f.required || d.default !== undefined || (f.readOnly && f.kind === 'integer'));
    const kind: Kind = f.kind === 'integer' ? 'integer' : f.kind === 'decimal' ? 'decimal' : f.kind === 'date' ? 'date' : f.kind === 'timestamp' ? 'timestamp' : f.kind === 'ref' ? 'uuid' : 'text';
    return { field: o.field, dir: o.dir, kind, nullable };
  });
}

/** The order's signature inside a cursor: a cursor of another order is refused. */
const signature = (order: readonly Order[]): string => order.map((o) => `${o.field}${o.dir === 'desc' ? '-' : ''}`).join(',');

/** A value as a cursor holds it: decimals as their shortest text (records may hold them as numbers). */
function cursorValue(term: Term, v: unknown): string | number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (term.kind === 'decimal') return String(v);
  if (typeof v === 'number' || typeof v === 'string') return v;
  return String(v);
}

/** The opaque cursor of `rec` in `order`: base64url of [signature, values…, id]. */
export function encodeCursor(r: ModelResource, order: readonly Order[], rec: FieldValues): string {
  const terms = termsOf(r, order);
  const parts = [signature(order), ...terms.map((t) => cursorValue(t, rec[t.field])), String(rec.id)];
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/**
 * The same cursor computed by PostgreSQL (the compiled GraphQL reads), over the columns `col`
 * gives: the JSON text JSON.stringify writes, in base64url. Each value is written as the records
 * that encodeCursor reads hold it (engine/read/select-lists.ts): integers as numbers, decimals
 * as their shortest text (`trim_scale`), dates as text, timestamps as toISOString writes them.
 */
export function cursorSql(r: ModelResource, order: readonly Order[], col: (field: string) => SQL): SQL {
  const json = (v: SQL) => sql`coalesce(to_json(${v})::text, 'null')`;
  const value = (t: Term): SQL => {
    const c = col(t.field);
    switch (t.kind) {
      case 'integer':
        return sql`coalesce((${c})::text, 'null')`;
      case 'decimal':
        return json(sql`trim_scale(${c})::text`);
      case 'timestamp':
        return json(iso(c));
      default:
        return json(sql`(${c})::text`);
    }
  };
  const parts = [literal(JSON.stringify(signature(order))), ...termsOf(r, order).map(value), json(sql`(${col('id')})::text`)];
  const array = sql`('[' || ${sql.join(parts, sql` || ',' || `)} || ']')`;
  // PostgreSQL's base64 has padding and a line break every 76 characters; base64url has neither.
  return sql`translate(encode(convert_to(${array}, 'UTF8'), 'base64'), E'+/=\\n', '-_')`;
}

const MAX_CURSOR = 4096;

function valid(t: Term, v: unknown): v is string | number | null {
  if (v === null) return t.nullable;
  switch (t.kind) {
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'decimal':
      return typeof v === 'string' && /^-?\d{1,18}(\.\d{1,10})?$/.test(v);
    case 'date':
      return typeof v === 'string' && isDate(v);
    case 'timestamp':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(v) && !Number.isNaN(Date.parse(v));
    case 'uuid':
      return isUuid(v);
    case 'text':
      return typeof v === 'string' && v.length <= 1000 && !v.includes('\u0000');
  }
}

/** Reads a cursor for `order`; a malformed, forged or foreign (other order) cursor is a 400 naming `arg`. */
export function decodeCursor(r: ModelResource, order: readonly Order[], cursor: unknown, arg: string): Position {
  const bad = () => ApiError.badRequest(`"${arg}" is not a valid cursor for this collection and order: follow the cursors and links the API returns.`);
  if (typeof cursor !== 'string' || !cursor.length || cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const terms = termsOf(r, order);
  if (!Array.isArray(parts) || parts.length !== terms.length + 2 || parts[0] !== signature(order)) throw bad();
  const values = parts.slice(1, -1);
  const id = parts.at(-1);
  if (!isUuid(id) || !terms.every((t, i) => valid(t, values[i]))) throw bad();
  return { values: values as (string | number | null)[], id: id.toLowerCase() };
}

/**
 * The rows strictly after (`after`) or before (`before`) `pos` in `order`, as one predicate (the
 * bound on the far side of a window between two cursors; pages are read by `seekRead`). A uniform
 * direction with no null in the position is one row comparison; otherwise the lexicographic
 * expansion, with nulls where PostgreSQL sorts them. The position's values are written by `bind`
 * (called with each value and its index in [values…, id], in a fixed order): named placeholders,
 * for statements compiled once per shape. The shape of the SQL depends on the order and on which
 * values are null (`positionShape`).
 */
export function seekWith(r: ModelResource, t: AnyTable, order: readonly Order[], pos: Position, side: 'after' | 'before', bind: (v: string | number, i: number) => SQL): SQL {
  const branches = seekBranches(r, t, order, pos, side, bind);
  return branches.length ? sql`(${or(...branches)})` : sql`false`;
}

/**
 * The seek as disjoint branches, each a contiguous run of the order that an index on its
 * columns reads as one range (equal values on a prefix, then one bound or null test).
 */
function seekBranches(r: ModelResource, t: AnyTable, order: readonly Order[], pos: Position, side: 'after' | 'before', bind: (v: string | number, i: number) => SQL): SQL[] {
  const terms = [...termsOf(r, order), { field: 'id', dir: tieBreak(order), kind: 'uuid', nullable: false } as Term];
  const values = [...pos.values, pos.id];
  const col = (term: Term) => t[term.field] as unknown as SQL;
  /** Whether, at one term, nulls sort on the `side` of a non-null value: ASC puts them last. */
  const nullsBeyond = (term: Term) => (term.dir === 'asc') === (side === 'after');
  const beyond = (term: Term, v: string | number, i: number): SQL => ((term.dir === 'asc') === (side === 'after') ? sql`${col(term)} > ${bind(v, i)}` : sql`${col(term)} < ${bind(v, i)}`);
  const equal = (term: Term, v: string | number | null, i: number): SQL => (v === null ? sql`${col(term)} is null` : sql`${col(term)} = ${bind(v, i)}`);

  const disjuncts: SQL[] = [];
  const uniform = terms.every((x) => x.dir === terms[0]!.dir) && values.every((v) => v !== null);
  if (uniform) {
    const op = (terms[0]!.dir === 'asc') === (side === 'after') ? sql`>` : sql`<`;
    disjuncts.push(sql`(${sql.join(terms.map(col), sql`, `)}) ${op} (${sql.join(values.map((v, i) => bind(v!, i)), sql`, `)})`);
  }
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]!;
    const v = values[i]!;
    const prefix = terms.slice(0, i).map((x, j) => equal(x, values[j]!, j));
    let step: SQL | undefined;
    if (v === null) step = nullsBeyond(term) ? undefined : sql`${col(term)} is not null`;
    else if (uniform) step = term.nullable && nullsBeyond(term) ? sql`${col(term)} is null` : undefined;
    else {
      disjuncts.push(prefix.length ? and(...prefix, beyond(term, v, i))! : beyond(term, v, i));
      step = term.nullable && nullsBeyond(term) ? sql`${col(term)} is null` : undefined;
    }
    if (step) disjuncts.push(prefix.length ? and(...prefix, step)! : step);
  }
  return disjuncts;
}

/**
 * The rows beyond `pos` on `side` (all rows without a position) in `order` (`reverse`d or not),
 * at most `limit`: one read per branch of the seek, each ordered and limited so that it reads its
 * index range from its start, merged in order (a single branch is read as it is). `rows(cond)`
 * writes `select * from <the collection's table> where <its conditions> and cond`; the result
 * has the table's columns under the alias `as`.
 */
export function seekRead(
  r: ModelResource, t: AnyTable, order: readonly Order[], pos: Position | undefined, side: 'after' | 'before', bind: (v: string | number, i: number) => SQL,
  reverse: boolean, limit: SQL, rows: (cond: SQL) => SQL, as: SQL,
): SQL {
  const by = sql.join(orderBy(t, order, reverse), sql`, `);
  const branches = pos ? seekBranches(r, t, order, pos, side, bind) : [sql`true`];
  if (branches.length === 1) return sql`(${rows(branches[0]!)} order by ${by} limit ${limit}) as ${as}`;
  if (!branches.length) return sql`(${rows(sql`false`)}) as ${as}`;
  return sql`(select * from (${sql.join(branches.map((b) => sql`(${rows(b)} order by ${by} limit ${limit})`), sql` union all `)}) as ${as} order by ${by} limit ${limit}) as ${as}`;
}

/** What of a position changes the text of its seek: which of its values are null. */
export const positionShape = (pos: Position | undefined): string => (pos ? pos.values.map((v) => (v === null ? 'n' : 'v')).join('') : '-');

/**
 * Whether records lie at or beyond `pos` on `side` — those `seekWith` gives, or the cursor's own
 * record if it is still there — as SQL: one lookup per branch of the seek, read from the cursor
 * through the index in the order that meets the nearest such record first, and one by id. `rows(cond)`
 * writes `select 1 from <the collection> where <its conditions> and cond` over the columns of `t`.
 */
export function reachedWith(r: ModelResource, t: AnyTable, order: readonly Order[], pos: Position, side: 'after' | 'before', bind: (v: string | number, i: number) => SQL, rows: (cond: SQL) => SQL): SQL {
  const nearest = sql.join(orderBy(t, order, side === 'before'), sql`, `);
  // A scalar subquery, not `exists`: PostgreSQL drops the order and limit of an `exists`, and may
  // then scan the table for a match; ordered and limited, it reads the index from the cursor.
  const select = (cond: SQL) => sql`coalesce((${rows(cond)} order by ${nearest} limit 1), 0) = 1`;
  // One lookup per branch of the seek, each an index range; then the cursor's record by id.
  const branches = [...seekBranches(r, t, order, pos, side, bind), sql`${t.id} = ${bind(pos.id, pos.values.length)}`];
  return sql`(${sql.join(branches.map(select), sql` or `)})`;
}

/** The collection's ORDER BY, or its reverse (to read the page before a cursor, or the last page). */
export function orderBy(t: AnyTable, order: readonly Order[], reverse = false): SQL[] {
  const flip = (d: 'asc' | 'desc') => (reverse ? (d === 'asc' ? 'desc' : 'asc') : d);
  // Reversed, nulls keep their place relative to values: ASC NULLS LAST becomes DESC NULLS FIRST.
  const term = (c: unknown, d: 'asc' | 'desc') => sql`${c} ${sql.raw(flip(d) === 'asc' ? 'asc nulls last' : 'desc nulls first')}`;
  return [...order.map((o) => term(t[o.field], o.dir)), term(t.id, tieBreak(order))];
}

// ---- The REST adapter's additions: the edge cursor, and positions read by the page's statement ----

/**
 * The edge cursor: it names the ends of every collection, whatever its order. The page after it
 * is the first page, the page before it the last one, whatever the collection holds when it is
 * followed, so a client may start a cursor walk from either end with it. Shaped like the
 * records' cursors (base64url of a JSON array), and never one of them (theirs hold a signature,
 * values and an id).
 */
export const EDGE_CURSOR = Buffer.from(JSON.stringify(['edge'])).toString('base64url');

/** decodeCursor, or null for EDGE_CURSOR. */
export function decodePosition(r: ModelResource, order: readonly Order[], cursor: unknown, arg: string): Position | null {
  if (cursor === EDGE_CURSOR) return null;
  return decodeCursor(r, order, cursor, arg);
}

/**
 * A record's position as SQL over the columns of `t` (a JSON array of the order fields' values and
 * the id, written as a cursor holds them), so that the statement reading a page also gives the
 * cursors of its first and last records.
 */
export function positionJson(r: ModelResource, t: AnyTable, order: readonly Order[]): SQL {
  const value = (term: Term): SQL => {
    const c = t[term.field] as unknown as SQL;
    switch (term.kind) {
      case 'timestamp':
        return sql`to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      case 'decimal':
      case 'date':
        return sql`${c}::text`;
      default:
        return c;
    }
  };
  return sql`json_build_array(${sql.join([...termsOf(r, order).map(value), t.id as unknown as SQL], sql`, `)})`;
}

/** The cursor of a position read as positionJson (its JSON text, or the array the driver parsed). */
export function cursorOfPosition(r: ModelResource, order: readonly Order[], json: unknown): string {
  const parts = (typeof json === 'string' ? JSON.parse(json) : json) as unknown[];
  const rec: FieldValues = { id: parts.at(-1) as string };
  order.forEach((o, i) => (rec[o.field] = parts[i] as never));
  return encodeCursor(r, order, rec);
}
