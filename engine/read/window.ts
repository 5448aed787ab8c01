// The window of a page, computed in one place. A window (engine/query.ts) is read by keyset
// (engine/keyset.ts): forwards from `after` with limit first + 1, or — `last` alone — backwards
// from `before` (or from the end) with limit last + 1, never with an offset; the extra row says
// whether more records follow. The rules below decide, from the rows read and from whether
// records lie past the cursors, which rows make the page and the page info. They are written
// once over numbers (the engine's slices) and once over SQL (the GraphQL compiler's pages)
// through the same functions, so every path answers alike.
import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { countShape, countSql } from '../counts.ts';
import { positionShape, type Position } from '../keyset.ts';
import type { ModelResource } from '../model.ts';
import { countIsBounded, MAX_COUNTED_MATCHES, type Condition, type Window } from '../query.ts';

/** How a window is read: in the collection's order or reversed, and how many rows at most. */
export function reading(w: Window): { reverse: boolean; limit: number } {
  if (w.first === undefined && w.last === undefined) throw new Error('A window needs `first` or `last`.');
  const reverse = w.first === undefined;
  return { reverse, limit: (reverse ? w.last! : w.first!) + 1 };
}

/**
 * The window of a REST cursor page (CONTRACT §10): `limit` records after the cursor, or before it
 * (the cursor may be the collection's edge: no position).
 */
export function cursorWindow(side: 'after' | 'before', pos: Position | undefined, limit: number): Window {
  return side === 'after' ? { after: pos, first: limit } : { before: pos, last: limit };
}

/** Whether the rows read for a window include the one past it: more records follow in the reading direction. */
export const readPast = (w: Window, read: number): boolean => read >= reading(w).limit;

/** What the rules compute with: the window's numbers and the rows read, as numbers or SQL. */
interface Logic<N, B> {
  value(k: 'first' | 'last'): N;
  min(a: N, b: N): N;
  subtract(a: N, b: N): N;
  greater(a: N, b: N): B;
  atMost(a: N, b: N): B;
  and(a: B, b: B): B;
  or(a: B, b: B): B;
}

/**
 * The page of a window, given `read`, the number of rows read (in reading order, at most
 * reading(w).limit), `rn`, a row's 1-based place among them, and whether records lie at or
 * before `after` (`behindAfter`) and at or after `before` (`pastBefore`), absent without them.
 * Forwards, the rows are the first `first` (and one more) of those after `after`: the page is
 * their last `last`. Backwards, they are the last `last` (and one more) before `before`.
 */
function rules<N, B>(w: Window, o: Logic<N, B>) {
  const { reverse } = reading(w);
  const withPast = (b: B, past: B | undefined) => (past === undefined ? b : o.or(b, past));
  return {
    keep(rn: N, read: N): B {
      if (reverse) return o.atMost(rn, o.value('last'));
      const inFirst = o.atMost(rn, o.value('first'));
      return w.last === undefined ? inFirst : o.and(inFirst, o.greater(rn, o.subtract(o.min(read, o.value('first')), o.value('last'))));
    },
    hasNextPage(read: N, pastBefore: B | undefined, no: B): B {
      return reverse ? (pastBefore ?? no) : withPast(o.greater(read, o.value('first')), pastBefore);
    },
    hasPreviousPage(read: N, behindAfter: B | undefined, no: B): B {
      if (reverse) return withPast(o.greater(read, o.value('last')), behindAfter);
      if (w.last === undefined) return behindAfter ?? no;
      return withPast(o.greater(o.min(read, o.value('first')), o.value('last')), behindAfter);
    },
  };
}

/**
 * The page of rows read for a window (in reading order): its items in the collection's order and
 * its page info. `behindAfter`/`pastBefore`: whether records lie at or before `after`, at or
 * after `before` (read only when the window has them).
 */
export function pageOf<T>(w: Window, rows: readonly T[], behindAfter: boolean, pastBefore: boolean): { items: T[]; hasPreviousPage: boolean; hasNextPage: boolean } {
  const r = rules<number, boolean>(w, {
    value: (k) => w[k]!,
    min: Math.min,
    subtract: (a, b) => a - b,
    greater: (a, b) => a > b,
    atMost: (a, b) => a <= b,
    and: (a, b) => a && b,
    or: (a, b) => a || b,
  });
  const items = rows.filter((_, i) => r.keep(i + 1, rows.length));
  if (reading(w).reverse) items.reverse();
  return {
    items,
    hasPreviousPage: r.hasPreviousPage(rows.length, w.after ? behindAfter : undefined, false),
    hasNextPage: r.hasNextPage(rows.length, w.before ? pastBefore : undefined, false),
  };
}

/**
 * The same rules as SQL: `value` writes the window's `first`/`last` (placeholders), `rn` and
 * `read` are the row's place and the number of rows read, `behindAfter`/`pastBefore` the
 * `exists` of the records past the cursors.
 */
export function pageSql(w: Window, value: (k: 'first' | 'last') => SQL) {
  const r = rules<SQL, SQL>(w, {
    value,
    min: (a, b) => sql`least(${a}, ${b})`,
    subtract: (a, b) => sql`(${a} - ${b})`,
    greater: (a, b) => sql`(${a} > ${b})`,
    atMost: (a, b) => sql`(${a} <= ${b})`,
    and: (a, b) => sql`(${a} and ${b})`,
    or: (a, b) => sql`(${a} or ${b})`,
  });
  return {
    keep: (rn: SQL, read: SQL): SQL => r.keep(rn, read),
    hasNextPage: (read: SQL, pastBefore: SQL | undefined): SQL => r.hasNextPage(read, pastBefore, sql`false`),
    hasPreviousPage: (read: SQL, behindAfter: SQL | undefined): SQL => r.hasPreviousPage(read, behindAfter, sql`false`),
  };
}

/** What of a window changes the text of the statement that reads it (its values aside). */
export const windowShape = (w: Window): string =>
  `${w.first === undefined ? '' : 'f'}${w.last === undefined ? '' : 'l'}:${w.after ? positionShape(w.after) : '-'}:${w.before ? positionShape(w.before) : '-'}`;

/**
 * The number of records `matching` selects (SQL `select … from … where …`), as SQL: exact, or,
 * under a partial-match text filter, up to MAX_COUNTED_MATCHES and null beyond (the scan stops at
 * the first match past the bound, CONTRACT §10).
 */
export function countOf(where: readonly Condition[], matching: SQL): SQL {
  if (!countIsBounded(where)) return sql`(select count(*) from (${matching}) as "__c")`;
  return sql`(select nullif(least(count(*), ${sql.raw(String(MAX_COUNTED_MATCHES + 1))}), ${sql.raw(String(MAX_COUNTED_MATCHES + 1))}) from (${matching} limit ${sql.raw(String(MAX_COUNTED_MATCHES + 1))}) as "__c")`;
}

/**
 * The size of a company's collection, as SQL: from the counters kept by triggers when they can
 * answer (no filter, or only the state field's, engine/counts.ts), else counted by countOf over
 * `matching` (the collection's records, `select … from … where …`); null beyond the bound of a
 * partial-match filter. Every path sizes its collections with it: the engine's pages, the JSON
 * pages and the GraphQL compiler's.
 */
export const collectionSize = (r: ModelResource, where: readonly Condition[], company: SQL | Placeholder | string, matching: () => SQL): SQL =>
  countSql(r, where, company) ?? countOf(where, matching());

/** What of a collection's conditions decides how collectionSize reads it: part of a statement's shape. */
export const sizeShape = (r: ModelResource, where: readonly Condition[]): string => countShape(r, where);
