// Relay cursor connections as API Platform serves them: a cursor is the base64 of the record's
// 0-based offset in the filtered, ordered collection.
import { ApiError } from '../errors.ts';
import type { FieldValues } from '../types.ts';
import type { Slice, Window } from '../query.ts';
import { windowBounds } from '../read/window.ts';

export const MAX_PAGE = 30;
export const DEFAULT_PAGE = 30;

export const encodeCursor = (offset: number): string => Buffer.from(String(offset)).toString('base64');

export function decodeCursor(cursor: unknown, arg: string): number {
  if (typeof cursor !== 'string') throw ApiError.badRequest(`Argument "${arg}" must be a cursor string.`);
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  if (!/^\d{1,9}$/.test(text) || encodeCursor(Number(text)) !== cursor) throw ApiError.badRequest(`Argument "${arg}" is not a valid cursor: "${cursor.slice(0, 40)}".`);
  return Number(text);
}

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

/** The window that connection arguments ask for; neither `first` nor `last` means the first 30. */
export function windowOf(args: PageArgs): Window {
  const first = checkPageSize(args.first, 'first');
  const last = checkPageSize(args.last, 'last');
  const after = args.after == null ? undefined : decodeCursor(args.after, 'after');
  const before = args.before == null ? undefined : decodeCursor(args.before, 'before');
  return { after, before, first: first === undefined && last === undefined ? DEFAULT_PAGE : first, last };
}

export interface Connection {
  edges: { node: FieldValues; cursor: string }[];
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
  totalCount: number;
}

export function connection(s: Slice, w: Window): Connection {
  const edges = s.items.map((node, i) => ({ node, cursor: encodeCursor(s.offsets[i]!) }));
  const { lower, upper } = windowBounds(w, s.total);
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
      hasNextPage: upper < s.total,
      hasPreviousPage: lower > 0 && s.total > 0,
    },
    totalCount: s.total,
  };
}
