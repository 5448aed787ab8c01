// The page's calls to its own session endpoints (/profile/api/…). State-changing calls carry the
// session's CSRF token in X-CSRF-Token; a 401 means the session ended, so we go to sign-in.
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

export async function api(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
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
  return data;
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.append(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
