// Pagination links shared by the formats: the same URLs with `page` changed, parameters sorted.
import type { CollectionView } from './types.ts';

export interface PageLinks {
  self: string;
  first: string;
  last: string;
  prev?: string;
  next?: string;
  lastPage: number;
}

export function pageUrl(view: CollectionView, page: number | null): string {
  const q = new URLSearchParams([...view.query].filter(([k]) => k !== 'page'));
  if (page !== null) q.set('page', String(page));
  q.sort();
  const s = q.toString().replace(/%5B/g, '[').replace(/%5D/g, ']');
  return s ? `${view.path}?${s}` : view.path;
}

export function pageLinks(view: CollectionView): PageLinks {
  const lastPage = Math.max(1, Math.ceil(view.total / view.itemsPerPage));
  return {
    self: pageUrl(view, view.query.has('page') ? view.page : null),
    first: pageUrl(view, 1),
    last: pageUrl(view, lastPage),
    ...(view.page > 1 ? { prev: pageUrl(view, Math.min(view.page - 1, lastPage)) } : {}),
    ...(view.page < lastPage ? { next: pageUrl(view, view.page + 1) } : {}),
    lastPage,
  };
}

/** RFC 8288 Link header and X-Total-Count, for formats without pagination metadata in the body. */
export function linkHeaders(view: CollectionView): Record<string, string> {
  const l = pageLinks(view);
  const parts = [`<${l.first}>; rel="first"`];
  if (l.prev) parts.push(`<${l.prev}>; rel="prev"`);
  if (l.next) parts.push(`<${l.next}>; rel="next"`);
  parts.push(`<${l.last}>; rel="last"`);
  return { link: parts.join(', '), 'x-total-count': String(view.total) };
}
