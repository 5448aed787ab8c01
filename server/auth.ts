// Token authentication for everything under /api: the `X-API-TOKEN` header and nothing else.
// A missing or unknown token is a 401 problem+json carrying `message`. The rate limit is
// checked here too, so that 401s count (CONTRACT §9).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../engine/context.ts';
import { ApiError } from '../engine/errors.ts';
import { problem } from '../formats/problem.ts';
import { rateLimitHeaders, tooManyRequests, type Verdict } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Paths under /api that need no token: the entrypoint, @context documents and the docs. */
export function isPublicApiPath(path: string): boolean {
  return path === '/api' || path === '/api/' || path.startsWith('/api/contexts/') || path === '/api/docs' || path.startsWith('/api/docs.') || path.startsWith('/api/docs/');
}

export const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');

export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new ApiError(401, 'No API token provided', { extra: { message: 'No API token provided' } });
  return req.principal;
}

/** Docs pages: no token, no rate limit. */
export const isDocsPath = (path: string): boolean => path === '/api/docs' || path.startsWith('/api/docs.') || path.startsWith('/api/docs/');

/** Resolves the caller and counts the request against the rate limit (see gate.ts). */
export interface Gatekeeper {
  admit(value: string | undefined, ip: string): Promise<{ principal: Principal | null; verdict: Verdict; at: number }>;
}

function unauthorized(reply: FastifyReply, message: string, graphql: boolean) {
  const p = problem(new ApiError(401, message, { extra: { message } }));
  const body = graphql ? { ...p.body, errors: [{ message, extensions: { status: 401 } }] } : p.body;
  return reply.code(401).headers(graphql ? { 'content-type': 'application/json; charset=utf-8' } : p.headers).send(JSON.stringify(body));
}

/**
 * One onRequest hook for /api: resolve the token, count the request (by token when valid, else
 * by IP; docs pages excepted), set the X-RateLimit-* headers, then 429, 401 or on to the
 * handler. A request whose token is valid keeps its principal even when refused with 429, so
 * that it is recorded in the token's history (history.ts).
 */
export function installAuth(app: FastifyInstance, gate: Gatekeeper, opts: { isPublic?: (req: FastifyRequest, path: string) => boolean } = {}): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('admittedAt', 0);
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (!isApiPath(path) || isDocsPath(path)) return;
    const header = req.headers['x-api-token'];
    const value = typeof header === 'string' && header !== '' ? header : undefined;
    const { principal, verdict, at } = await gate.admit(value, req.ip);
    reply.headers(rateLimitHeaders(verdict));
    req.principal = principal;
    if (principal) req.admittedAt = at;
    const graphql = path === '/api/graphql';
    if (!verdict.allowed) {
      const p = problem(tooManyRequests(verdict));
      const body = graphql ? { ...p.body, errors: [{ message: p.body.detail, extensions: { status: 429 } }] } : p.body;
      return reply.code(429).headers(p.headers).send(JSON.stringify(body));
    }
    if (isPublicApiPath(path) || opts.isPublic?.(req, path)) return;
    if (!value) return unauthorized(reply, 'No API token provided', graphql);
    if (!principal) return unauthorized(reply, 'Invalid API token', graphql);
  });
}
