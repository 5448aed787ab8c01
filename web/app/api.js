// The application's calls to /api, with the session cookie and the CSRF header (CONTRACT §17):
// REST for records and writes, GraphQL for a list's one request. A 401 means the session ended:
// the page goes to sign-in, which returns here.
let csrf = '';
export const setCsrf = (t) => {
  csrf = t;
};

export class ApiProblem extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title || problem.message)) || `The server answered ${status}.`);
    this.status = status;
    this.problem = problem;
    this.violations = (problem && problem.violations) || [];
  }
}

function signIn() {
  window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
}

/** A REST call: JSON in and out (problem+json on failure, thrown as ApiProblem). */
export async function rest(path, { method = 'GET', body, accept = 'application/json' } = {}) {
  const headers = { accept };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiProblem(0, { detail: 'The server could not be reached. Check your connection and try again.' });
  }
  if (res.status === 401) {
    signIn();
    throw new ApiProblem(401, { detail: 'Your session has ended: sign in again.' });
  }
  if (!accept.includes('json') && res.ok) return res;
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

/** A GraphQL query; its first error is thrown as an ApiProblem with the status it names. */
export async function graphql(query) {
  let res;
  try {
    res = await fetch('/api/graphql', { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': csrf }, credentials: 'same-origin', body: JSON.stringify({ query }) });
  } catch {
    throw new ApiProblem(0, { detail: 'The server could not be reached. Check your connection and try again.' });
  }
  if (res.status === 401) {
    signIn();
    throw new ApiProblem(401, { detail: 'Your session has ended: sign in again.' });
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
