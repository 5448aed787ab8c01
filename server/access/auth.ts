// Authentication and the rate limit, as hooks of the /api plugin (server/api.ts): the
// `X-API-TOKEN` header, or, for the web pages alone (CONTRACT §17), the sign-in session's cookie
// with the page's CSRF token in `X-CSRF-Token` on every write. A token, when sent, decides alone. `admission` runs first for every request of the plugin
// (its public routes and 404s included) and counts it, so that 401s count too (CONTRACT §9);
// each part of the plugin then adds a `guard`: 429 over the limit, and, where a token is needed,
// 401 (problem+json carrying `message`) without a valid one. Which routes need a token is
// decided by the plugin a route is registered in, never by its path.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Principal } from '../../engine/types.ts';
import { ApiError } from '../../engine/errors.ts';
import { problem } from '../../formats/problem.ts';
import { rateLimitHeaders, tooManyRequests, type Verdict } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /**
     * Set by `admission`: whether a token was sent, the rate limit's verdict, and for a request
     * authenticated by the session cookie whether its write lacked a valid CSRF token.
     */
    admission: { tokenSent: boolean; verdict: Verdict; csrfRefused?: boolean } | null;
  }
}

export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new ApiError(401, 'No API token provided', { extra: { message: 'No API token provided' } });
  return req.principal;
}

type Admitted = { principal: Principal | null; verdict: Verdict; at: number };

/** Resolves the caller and counts the request against the rate limit (see gate.ts). */
export interface Gatekeeper {
  admit(value: string | undefined, ip: string): Promise<Admitted>;
  /** The same, when it can be decided without waiting (a cached token); undefined otherwise. */
  admitNow?(value: string | undefined, ip: string): Admitted | undefined;
  /** Counts a request of a principal known otherwise (a web session): keyed by its user. */
  admitPrincipal(principal: Principal, ip: string): Promise<Admitted>;
}

/** The web pages' sign-in sessions, as /api reads them (server/web/sessions.ts). */
export interface SessionAuth {
  /** The cookie that carries the session. */
  readonly cookie: string;
  /** The principal of a live session (its user in the active company), and what its CSRF token binds to. */
  resolve(cookieValue: string): Promise<{ principal: Principal; binding: string } | null>;
  checkCsrf(binding: string, submitted: unknown): boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of cookie `name` in a Cookie header, or undefined. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Origin header, when the browser sent one, names this host. */
export function sameHost(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === req.host;
  } catch {
    return false;
  }
}

/**
 * Who is calling and whether the window has room: resolves the token (a valid one gives the
 * principal), counts the request (by token when valid, else by IP) and sets the X-RateLimit-*
 * headers. Refuses nothing itself (see `guard`); a request whose token is valid keeps its
 * principal even when refused with 429, so that it is recorded in the token's history (history.ts).
 */
export function admission(gate: Gatekeeper, sessions?: SessionAuth): onRequestHookHandler {
  const admit = (req: FastifyRequest, reply: FastifyReply, value: string | undefined, { principal, verdict, at }: Admitted, csrfRefused?: boolean) => {
    reply.headers(rateLimitHeaders(verdict));
    req.principal = principal;
    req.admission = { tokenSent: value !== undefined, verdict, ...(csrfRefused ? { csrfRefused } : {}) };
    if (principal) req.admittedAt = at;
  };
  // Without a token, a session cookie of the web pages: its user in the active company, counted
  // per user; a write also needs the page's CSRF token (and, when the browser names one, our origin).
  const bySession = async (req: FastifyRequest, reply: FastifyReply, cookie: string) => {
    const s = await sessions!.resolve(cookie);
    if (!s) return admit(req, reply, undefined, await gate.admit(undefined, req.ip));
    const csrfRefused = !SAFE_METHODS.has(req.method) && !(sameHost(req) && sessions!.checkCsrf(s.binding, req.headers['x-csrf-token']));
    admit(req, reply, undefined, await gate.admitPrincipal(s.principal, req.ip), csrfRefused);
  };
  // A callback hook: a request whose token is cached is admitted without a promise.
  return (req, reply, done) => {
    const header = req.headers['x-api-token'];
    const value = typeof header === 'string' && header !== '' ? header : undefined;
    const cookie = value === undefined && sessions ? cookieValue(req.headers.cookie, sessions.cookie) : undefined;
    if (cookie) {
      bySession(req, reply, cookie).then(() => done(), done);
      return;
    }
    const now = gate.admitNow?.(value, req.ip);
    if (now) {
      admit(req, reply, value, now);
      return done();
    }
    gate.admit(value, req.ip).then((a) => {
      admit(req, reply, value, a);
      done();
    }, done);
  };
}

/** How a part of the API words its refusals: problem+json, or with GraphQL's `errors` added. */
export type RefusalShape = 'problem' | 'graphql';

/**
 * A part of /api's gate, after `admission`: 429 when the window is full, then, with
 * `authenticate`, 401 without a valid token.
 */
export function guard(o: { authenticate: boolean; shape?: RefusalShape }): onRequestHookHandler {
  const graphql = o.shape === 'graphql';
  // A callback hook (no promise per request); a refusal is sent and the chain stops there.
  return (req, reply, done) => {
    const a = req.admission;
    if (!a) return done(new Error('guard() runs after admission()'));
    if (!a.verdict.allowed) {
      const p = problem(tooManyRequests(a.verdict));
      const body = graphql ? { ...p.body, errors: [{ message: p.body.detail, extensions: { status: 429 } }] } : p.body;
      reply.code(429).headers(p.headers).send(JSON.stringify(body));
      return;
    }
    if (!o.authenticate) return done();
    if (a.csrfRefused) return forbidden(reply, 'A write with the session cookie needs the X-CSRF-Token header of its page: reload the page and try again.', graphql);
    if (req.principal) return done();
    unauthorized(reply, a.tokenSent ? 'Invalid API token' : 'No API token provided', graphql);
  };
}

function forbidden(reply: FastifyReply, detail: string, graphql: boolean) {
  const p = problem(new ApiError(403, detail));
  const body = graphql ? { ...p.body, errors: [{ message: detail, extensions: { status: 403 } }] } : p.body;
  return reply.code(403).headers(graphql ? { 'content-type': 'application/json; charset=utf-8' } : p.headers).send(JSON.stringify(body));
}

function unauthorized(reply: FastifyReply, message: string, graphql: boolean) {
  const p = problem(new ApiError(401, message, { extra: { message } }));
  const body = graphql ? { ...p.body, errors: [{ message, extensions: { status: 401 } }] } : p.body;
  return reply.code(401).headers(graphql ? { 'content-type': 'application/json; charset=utf-8' } : p.headers).send(JSON.stringify(body));
}
