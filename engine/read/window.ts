// The window of a collection that a page asks for, computed in one place: the same arithmetic
// gives the offsets in JavaScript (the resolvers' page info, the engine's slices) and as SQL
// (the engine's windowed statement, the GraphQL compiler's pages), so every path reads the
// same records.
import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { countShape, countSql } from '../counts.ts';
import type { ModelResource } from '../model.ts';
import type { Condition, Window } from '../query.ts';

export type WindowKey = 'after' | 'before' | 'first' | 'last';
export const WINDOW_KEYS: readonly WindowKey[] = ['after', 'before', 'first', 'last'];

/** Numbers or SQL expressions: what the bounds are computed with. */
interface Arithmetic<T> {
  value(k: WindowKey): T;
  constant(n: number): T;
  add(a: T, b: T): T;
  subtract(a: T, b: T): T;
  min(a: T, b: T): T;
  max(a: T, b: T): T;
}

/**
 * The 0-based offsets [lower, upper) a window selects: the records after `after` and before
 * `before`, then the first `first` of those, then the last `last` of those, in a collection of
 * `total` records (undefined: of unknown size, for windows counted from the start).
 */
function bounds<T>(w: Window, total: T | undefined, a: Arithmetic<T>): { lower: T; upper: T } {
  const start = w.after !== undefined ? a.add(a.value('after'), a.constant(1)) : a.constant(0);
  let end = total;
  if (w.before !== undefined) end = end === undefined ? a.value('before') : a.min(a.value('before'), end);
  let upper = end;
  if (w.first !== undefined) upper = upper === undefined ? a.add(start, a.value('first')) : a.min(upper, a.add(start, a.value('first')));
  if (upper === undefined) throw new Error('A window of a collection of unknown size needs `first` or `before`.');
  const lower = w.last !== undefined ? a.max(start, a.subtract(upper, a.value('last'))) : start;
  return { lower, upper: a.max(lower, upper) };
}

const numbers = (w: Window): Arithmetic<number> => ({
  value: (k) => w[k]!,
  constant: (n) => n,
  add: (x, y) => x + y,
  subtract: (x, y) => x - y,
  min: Math.min,
  max: Math.max,
});

/** The offsets [lower, upper) a window selects in a collection of `total` records. */
export const windowBounds = (w: Window, total: number): { lower: number; upper: number } => bounds(w, total, numbers(w));

/**
 * Whether a window is counted from the start (`first` without `last`): then it is a plain offset
 * and limit, and reading it needs no count of the collection.
 */
export const countedFromStart = (w: Window): boolean => w.last === undefined && w.first !== undefined;

/** A window counted from the start as an offset and a limit. */
export function offsetAndLimit(w: Window): { offset: number; limit: number } {
  const { lower, upper } = bounds(w, undefined, numbers(w));
  return { offset: lower, limit: upper - lower };
}

/**
 * The same bounds as SQL: `value` writes a window value (a literal, or a placeholder), `total`
 * is the collection's size (undefined for a window counted from the start).
 */
export function windowBoundsSql(w: Window, total: SQL | undefined, value: (k: WindowKey) => SQL): { lower: SQL; upper: SQL } {
  return bounds<SQL>(w, total, {
    value,
    constant: (n) => sql.raw(String(n)),
    add: (x, y) => sql`(${x} + ${y})`,
    subtract: (x, y) => sql`(${x} - ${y})`,
    min: (x, y) => sql`least(${x}, ${y})`,
    max: (x, y) => sql`greatest(${x}, ${y})`,
  });
}

/**
 * The size of a company's collection, as SQL: from the counters kept by triggers when they can
 * answer (no filter, or only the state field's, engine/counts.ts), else counted with `count`
 * (the collection's records). Every path sizes its windows with it: the engine's pages, the
 * JSON pages and the GraphQL compiler's.
 */
export const collectionSize = (r: ModelResource, where: readonly Condition[], company: SQL | Placeholder | string, count: () => SQL): SQL => countSql(r, where, company) ?? count();

/** What of a collection's conditions decides how collectionSize reads it: part of a statement's shape. */
export const sizeShape = (r: ModelResource, where: readonly Condition[]): string => countShape(r, where);
