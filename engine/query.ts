// Collection queries in a transport-neutral form: filters, order and paging. REST parses its
// query string into this; GraphQL builds it from arguments.
import { ApiError } from './errors.ts';
import type { Model, ModelField, ModelResource } from './model.ts';
import type { Position } from './keyset.ts';
import type { FieldValues } from './types.ts';
import { isDate, refId } from './validate.ts';

export type ConditionOp = 'eq' | 'partial' | 'after' | 'before' | 'strictly_after' | 'strictly_before';

export interface Condition {
  readonly field: ModelField;
  readonly op: ConditionOp;
  /** Several values mean "any of them". A ref value that names no record is null (matches nothing). */
  readonly values: readonly (string | null)[];
  /**
   * A partial-match condition's values that are frequent in the company (engine/read/density.ts):
   * their page is read by walking the order with the filter rather than through the keys.
   */
  readonly dense?: readonly boolean[];
  /**
   * Whether each value's bounded count (MAX_COUNTED_MATCHES) looks up the keys, measured with
   * `dense` (engine/read/density.ts); absent, the count reads as the page does.
   */
  readonly countKeys?: readonly boolean[];
}

export interface Order {
  readonly field: string;
  readonly dir: 'asc' | 'desc';
}

export interface ListQuery {
  readonly where: readonly Condition[];
  readonly order: readonly Order[];
  readonly offset: number;
  readonly limit: number;
  /**
   * False when nobody reads the total (it then costs no count): `total` is only a lower bound.
   * A partial-match filter's total is null beyond MAX_COUNTED_MATCHES.
   */
  readonly count?: boolean;
  /**
   * Cursor mode (CONTRACT §10): the `limit` records after, or before, this cursor (engine/keyset.ts;
   * its edge cursor names the ends of the collection), read by seeking the order's index, never
   * by an offset; `offset` is then ignored. At most one of the two.
   */
  readonly after?: string;
  readonly before?: string;
  /** Also give the cursors of the page's first and last records (always given in cursor mode). */
  readonly cursors?: boolean;
}

/** What a page read gives besides its records, for its links (ListQuery `cursors`, cursor mode). */
export interface PageCursors {
  /** The cursors of the page's first and last records; absent on an empty page. */
  readonly first?: string;
  readonly last?: string;
  /** Cursor mode: whether records follow the page in the direction it was read (after: later ones; before: earlier ones). */
  readonly more?: boolean;
  /**
   * Cursor mode, a page read from a record's cursor: whether records lie behind the page, at or
   * beyond its cursor on the side it was not read from (after: earlier ones; before: later ones).
   */
  readonly behind?: boolean;
}

/**
 * `page` numbers reach the records up to this offset ((page − 1) × itemsPerPage); beyond it a
 * collection is read through cursors (`after`/`before`), whose cost does not grow with the depth.
 */
export const MAX_PAGE_OFFSET = 10_000;

/**
 * A collection read through a partial-match text filter is counted up to this many matches; beyond
 * it its size is unknown (null): counting every match of a frequent substring would cost what the
 * page does not return (CONTRACT §10).
 */
export const MAX_COUNTED_MATCHES = 10_000;

/** Whether a collection's size is bounded by MAX_COUNTED_MATCHES (it has a partial-match filter). */
export const countIsBounded = (where: readonly Condition[]): boolean => where.some((c) => c.op === 'partial');

/**
 * The direction of the id that ends every order (making it total): the last term's, so that one
 * (company, field, id) index serves the order read forwards or backwards.
 */
export const tieBreak = (order: readonly Order[]): 'asc' | 'desc' => order.at(-1)?.dir ?? 'asc';

export const DATE_OPS = ['after', 'before', 'strictly_after', 'strictly_before'] as const;

/** Builds one condition, validating the value; used by both adapters. */
export function condition(model: Model, f: ModelField, op: ConditionOp, raw: readonly unknown[]): Condition {
  const values = raw.map((v) => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw ApiError.badRequest(`Invalid value for filter "${f.name}".`);
    const s = String(v);
    if (s.includes('\u0000') || s.length > 1000) throw ApiError.badRequest(`Invalid value for filter "${f.name}".`);
    if (f.kind === 'ref') return refId(model, f.target!, s) ?? null;
    if (f.filter === 'date') {
      const day = s.slice(0, 10);
      if (!isDate(day)) throw ApiError.badRequest(`Invalid date "${s.slice(0, 40)}" for filter "${f.name}".`);
      return f.kind === 'timestamp' && s.length > 10 && !Number.isNaN(Date.parse(s)) ? new Date(s).toISOString() : day;
    }
    return s;
  });
  return { field: f, op, values };
}

/**
 * Parses REST query parameters (`status=a`, `status[]=a&status[]=b`, `invoiceDate[after]=…`,
 * `order[total]=desc`). Unknown parameters are ignored, as API Platform does.
 */
export function parseRestFilters(model: Model, r: ModelResource, params: URLSearchParams): { where: Condition[]; order: Order[] } {
  const grouped = new Map<string, { f: ModelField; op: ConditionOp; values: string[] }>();
  const order: Order[] = [];
  for (const [key, value] of params) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[([A-Za-z_]*)\])?$/.exec(key);
    if (!m) continue;
    const [, name, sub] = m as unknown as [string, string, string | undefined];
    if (name === 'order' && sub) {
      const dir = value.toLowerCase();
      if (dir !== 'asc' && dir !== 'desc') throw ApiError.badRequest(`Invalid direction "${value.slice(0, 20)}" for order[${sub}]: use asc or desc.`);
      if (r.orders.includes(sub)) order.push({ field: sub, dir });
      continue;
    }
    const f = r.byName.get(name);
    if (!f?.filter) continue;
    let op: ConditionOp;
    if (sub === undefined || sub === '') op = f.filter === 'partial' ? 'partial' : 'eq';
    else if (f.filter === 'date' && (DATE_OPS as readonly string[]).includes(sub)) op = sub as ConditionOp;
    else continue;
    const k = `${name}|${op}`;
    const g = grouped.get(k) ?? { f, op, values: [] };
    g.values.push(value);
    grouped.set(k, g);
  }
  const where = [...grouped.values()].map((g) => condition(model, g.f, g.op, g.values));
  return { where, order };
}

/**
 * A window over an ordered collection, as Relay cursors describe it: the records after `after`
 * and before `before` (keyset positions, engine/keyset.ts), then the first `first` of those, then
 * the last `last` of those. Unset bounds are open; engine/read/window.ts says how it is read.
 */
export interface Window {
  readonly after?: Position | undefined;
  readonly before?: Position | undefined;
  readonly first?: number | undefined;
  readonly last?: number | undefined;
}

export interface SliceQuery {
  readonly where: readonly Condition[];
  readonly order: readonly Order[];
  readonly window: Window;
  /** False when the caller needs neither the total nor the page info (they are then not read). */
  readonly count?: boolean;
}

/** A window's records, the collection's size, and whether records lie before and after the window. */
export interface Slice {
  readonly items: FieldValues[];
  /** Null when a partial-match filter matches more than MAX_COUNTED_MATCHES records. */
  readonly total: number | null;
  readonly hasPreviousPage: boolean;
  readonly hasNextPage: boolean;
}
