// Relay cursor connections: a cursor is an opaque keyset position (engine/keyset.ts) — the
// record's values under the collection's order and its id — never an offset, so the page after
// it costs what the first page costs and stays right when records come and go before it.
import { ApiError } from '../errors.ts';
import { decodeCursor, encodeCursor } from '../keyset.ts';
import type { ModelResource } from '../model.ts';
import type { Order, Slice, Window } from '../query.ts';
import type { FieldValues } from '../types.ts';

export const MAX_PAGE = 30;
export const DEFAULT_PAGE = 30;

export function checkPageSize(value: unknown, arg: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_PAGE) {
    throw ApiError.badRequest(`Argument "${arg}" must be between 0 and ${MAX_PAGE}, got ${String(value).slice(0, 20)}.`);
  }
  return value;
}

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/**
 * The window that connection arguments ask for in `order`; neither `first` nor `last` means the
 * first 30. A cursor that is not one of this collection's under this order is a 400.
 */
export function windowOf(r: ModelResource, order: readonly Order[], args: PageArgs): Window {
  const first = checkPageSize(args.first, 'first');
  const last = checkPageSize(args.last, 'last');
  const after = args.after == null ? undefined : decodeCursor(r, order, args.after, 'after');
  const before = args.before == null ? undefined : decodeCursor(r, order, args.before, 'before');
  return { after, before, first: first === undefined && last === undefined ? DEFAULT_PAGE : first, last };
}

export interface Connection {
  edges: { node: FieldValues; cursor: string }[];
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
  /** Null when a partial-match filter matches more than MAX_COUNTED_MATCHES records (CONTRACT §10). */
  totalCount: number | null;
}

export function connection(r: ModelResource, order: readonly Order[], s: Slice): Connection {
  const edges = s.items.map((node) => ({ node, cursor: encodeCursor(r, order, node) }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
      hasNextPage: s.hasNextPage,
      hasPreviousPage: s.hasPreviousPage,
    },
    totalCount: s.total,
  };
}
