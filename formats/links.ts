// Pagination links shared by the formats: the same URLs with `page` (or the cursor) changed,
// parameters sorted. Collections read through keyset cursors (CONTRACT §10) get cursor links in
// cursor mode, and in page mode where a page number would pass the bound on offsets.
import { MAX_COUNTED_MATCHES } from '../engine/query.ts';
import type { CollectionView } from './types.ts';

export interface PageLinks {
  self: string;
  first: string;
  last: string;
  prev?: string;
  next?: string;
  /** Whether the collection has several pages (first and last are worth showing): always in cursor mode. */
  paged: boolean;
  /** Cursor mode: there is no page number. */
  cursorMode: boolean;
}

/** What the documents say of a collection's total (CONTRACT §10). */
export const TOTAL_NOTE = `The number of items over all pages; absent when a partial-match text filter matches more than ${MAX_COUNTED_MATCHES.toLocaleString('en-US')} (the links still page through them).`;

const CURSOR_PARAMS = new Set(['page', 'after', 'before']);

function urlWith(view: CollectionView, set?: [string, string]): string {
  const q = new URLSearchParams([...view.query].filter(([k]) => !CURSOR_PARAMS.has(k)));
  if (set) q.set(set[0], set[1]);
  q.sort();
  const s = q.toString().replace(/%5B/g, '[').replace(/%5D/g, ']');
  return s ? `${view.path}?${s}` : view.path;
}

export function pageUrl(view: CollectionView, page: number | null): string {
  return urlWith(view, page !== null ? ['page', String(page)] : undefined);
}

/** The collection's URL (filters, order, itemsPerPage kept) reading the page after or before `cursor`. */
export const cursorUrl = (view: CollectionView, side: 'after' | 'before', cursor: string): string => urlWith(view, [side, cursor]);

export function pageLinks(view: CollectionView): PageLinks {
  const c = view.cursors;
  if (c?.side) return cursorLinks(view, c.side);
  // An unknown total (a partial-match filter matching more than MAX_COUNTED_MATCHES records) has
  // no last page number: `last` is the edge cursor's page, which needs none.
  const lastPage = view.total === null ? null : Math.max(1, Math.ceil(view.total / view.itemsPerPage));
  // Past the bound a page number would be a 400: the links go on with cursors instead.
  const numbered = (page: number) => !c || (page - 1) * view.itemsPerPage <= c.maxOffset;
  const links: PageLinks = {
    self: pageUrl(view, view.query.has('page') ? view.page : null),
    first: pageUrl(view, 1),
    last: lastPage !== null && numbered(lastPage) ? pageUrl(view, lastPage) : c ? cursorUrl(view, 'before', c.edge) : pageUrl(view, view.page),
    paged: lastPage === null || lastPage > 1,
    cursorMode: false,
  };
  if (view.page > 1) links.prev = pageUrl(view, lastPage === null ? view.page - 1 : Math.min(view.page - 1, lastPage));
  // Unknown total: more than MAX_COUNTED_MATCHES records, so a next page surely follows one that
  // ends within them; past them, the next page is the one after this page's last record.
  const more = lastPage === null ? view.page * view.itemsPerPage <= MAX_COUNTED_MATCHES || c?.last !== undefined : view.page < lastPage;
  if (more) {
    if (numbered(view.page + 1) && (lastPage !== null || view.page * view.itemsPerPage <= MAX_COUNTED_MATCHES)) links.next = pageUrl(view, view.page + 1);
    else if (c?.last) links.next = cursorUrl(view, 'after', c.last);
  }
  return links;
}

/**
 * Cursor mode: `first` and `last` are the edge cursor's pages; `next` follows the page's last
 * record and `previous` precedes its first. A page read after its cursor has a previous page
 * when records lie at or before the cursor (none from the edge), and a next one when more records
 * were read than it holds; the other way round for a page read before its cursor, both known from
 * the page's statement. An empty page links back to the end it is beyond (`previous` → last,
 * `next` → first).
 */
function cursorLinks(view: CollectionView, side: 'after' | 'before'): PageLinks {
  const c = view.cursors!;
  const links: PageLinks = {
    self: urlWith(view, [side, side === 'after' ? view.query.get('after')! : view.query.get('before')!]),
    first: cursorUrl(view, 'after', c.edge),
    last: cursorUrl(view, 'before', c.edge),
    paged: true,
    cursorMode: true,
  };
  const forwards = side === 'after';
  const hasPrev = forwards ? c.behind : c.more;
  const hasNext = forwards ? c.more : c.behind;
  if (c.first !== undefined && c.last !== undefined) {
    if (hasPrev) links.prev = cursorUrl(view, 'before', c.first);
    if (hasNext) links.next = cursorUrl(view, 'after', c.last);
  } else if (!c.fromEdge) {
    if (forwards) links.prev = links.last;
    else links.next = links.first;
  }
  return links;
}

/**
 * RFC 8288 Link header and X-Total-Count, for formats without pagination metadata in the body;
 * X-Total-Count is absent when the total is unknown (CONTRACT §10).
 */
export function linkHeaders(view: CollectionView): Record<string, string> {
  const l = pageLinks(view);
  const parts = [`<${l.first}>; rel="first"`];
  if (l.prev) parts.push(`<${l.prev}>; rel="prev"`);
  if (l.next) parts.push(`<${l.next}>; rel="next"`);
  parts.push(`<${l.last}>; rel="last"`);
  return { link: parts.join(', '), ...(view.total === null ? {} : { 'x-total-count': String(view.total) }) };
}
