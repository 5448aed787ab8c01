// The application's calls to /api, with the session cookie and the CSRF header (CONTRACT §17):
// REST for records and writes, GraphQL for a list's one request. A 401 means the session ended:
// the page goes to sign-in, which returns here.
import { t } from './lib.js';

let csrf = '';
export const setCsrf = (token) => {
  csrf = token;
};

export class ApiProblem extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title || problem.message)) || t('api.status', { status }));
    this.status = status;
    this.problem = problem;
    this.violations = (problem && problem.violations) || [];
  }
}

function signIn() {
  window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
}

/** A REST call: JSON in and out (problem+json on failure, thrown as ApiProblem); `raw` answers the Response. */
export async function rest(path, { method = 'GET', body, accept = 'application/json', raw = false } = {}) {
  const headers = { accept };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiProblem(0, { detail: t('api.unreachable') });
  }
  if (res.status === 401) {
    signIn();
    throw new ApiProblem(401, { detail: t('api.signedOut') });
  }
  if ((raw || !accept.includes('json')) && res.ok) return res;
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiProblem(res.status, data);
  return data;
}

/**
 * A page of a collection in plain JSON: `{ items, total, next }`, `total` from X-Total-Count
 * (null when the API does not count), `next` the cursor of the Link header's next page or null.
 */
export async function restPage(path) {
  const res = await rest(path, { raw: true });
  const text = await res.text();
  const data = text ? JSON.parse(text) : [];
  const count = res.headers.get('x-total-count');
  const next = /<([^>]*)>;\s*rel="next"/.exec(res.headers.get('link') || '');
  return { items: Array.isArray(data) ? data : [], total: count === null ? null : Number(count), next: next ? new URL(next[1], location.href).searchParams.get('after') : null };
}

/** A body that is not JSON (a file): PUT it as its media type. */
export async function upload(path, file, { method = 'PUT' } = {}) {
  let res;
  try {
    res = await fetch(path, { method, headers: { accept: 'application/json', 'content-type': file.type, 'x-csrf-token': csrf }, credentials: 'same-origin', body: file });
  } catch {
    throw new ApiProblem(0, { detail: t('api.unreachable') });
  }
  if (res.status === 401) {
    signIn();
    throw new ApiProblem(401, { detail: t('api.signedOut') });
  }
  if (!res.ok) throw new ApiProblem(res.status, await res.json().catch(() => null));
}

/** A form of the session's own pages (not /api) posted for a JSON answer: a problem is thrown as an ApiProblem. */
export async function postForm(path, fields) {
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': csrf }, credentials: 'same-origin', body: new URLSearchParams(fields).toString() });
  } catch {
    throw new ApiProblem(0, { detail: t('api.unreachable') });
  }
  if (!res.ok) throw new ApiProblem(res.status, await res.json().catch(() => null));
}

/** A GraphQL query; its first error is thrown as an ApiProblem with the status it names. */
export async function graphql(query) {
  let res;
  try {
    res = await fetch('/api/graphql', { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': csrf }, credentials: 'same-origin', body: JSON.stringify({ query }) });
  } catch {
    throw new ApiProblem(0, { detail: t('api.unreachable') });
  }
  if (res.status === 401) {
    signIn();
    throw new ApiProblem(401, { detail: t('api.signedOut') });
  }
  const body = await res.json().catch(() => null);
  const error = body?.errors?.[0];
  if (error || !res.ok) throw new ApiProblem(error?.extensions?.status ?? res.status, { detail: error?.message ?? body?.message ?? body?.detail });
  return body.data;
}

/** Downloads a document of a record (the read route, negotiated by Accept) as a file. */
export async function download(iri, mediaType, filename) {
  const res = await rest(iri, { accept: mediaType });
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
