// The pages' calls to /api, as any client makes them, authenticated by the sign-in session's cookie
// (CONTRACT §17): state-changing calls carry the page's CSRF token in X-CSRF-Token; a 401 means
// the session ended, so we go to sign-in. Plain JSON: a collection is an array, its total in
// X-Total-Count and the next page in the Link header.
let csrf = '';

export function setCsrf(token) {
  csrf = token;
}

export function csrfToken() {
  return csrf;
}

export class RequestError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `The server answered ${status}.`);
    this.status = status;
    this.violations = (problem && problem.violations) || [];
  }
}

/** Where the API is. */
export const API = '/api';

/** The body of a call to `path` (below /api), parsed. */
export async function api(path, options) {
  return (await call(path, options)).data;
}

/**
 * A page of a collection (or of a declared list): `{ items, total, next }`, `total` null when the
 * API does not count it, `next` the cursor of the next page or null.
 */
export async function apiPage(path) {
  const { data, res } = await call(path);
  const count = res.headers.get('x-total-count');
  const next = /<([^>]*)>;\s*rel="next"/.exec(res.headers.get('link') || '');
  return {
    items: Array.isArray(data) ? data : [],
    total: count === null ? null : Number(count),
    next: next ? new URL(next[1], window.location.href).searchParams.get('after') : null,
  };
}

async function call(path, { method = 'GET', body } = {}) {
  path = API + path;
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  // A PATCH is a JSON merge patch (RFC 7396), as the API asks.
  if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new RequestError(0, { detail: 'The server could not be reached. Check your connection and try again.' });
  }
  if (res.status === 401) {
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
    throw new RequestError(401, { detail: 'Your session has ended: sign in again.' });
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) throw new RequestError(res.status, data);
  return { data, res };
}

/**
 * Makes another of the user's companies the active one: the session's own form (the pages and
 * /api then act in that company), which brings the browser back to this page.
 */
export function switchCompany(companyId) {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = '/profile/switch-company';
  for (const [name, value] of Object.entries({ _csrf: csrf, companyId, next: window.location.pathname })) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.append(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
