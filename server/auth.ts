// Token authentication for everything under /api: the `X-API-TOKEN` header and nothing else.
// A missing or unknown token is a 401 problem+json carrying `message`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Principal } from '../engine/context.ts';
import { ApiError } from '../engine/errors.ts';
import { problem } from '../formats/problem.ts';
import { lookupToken } from './tokens.ts';

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

export interface Authenticator {
  /** Resolves a token value to its principal (may be cached). */
  resolve(value: string): Promise<Principal | null>;
}

export const databaseAuthenticator = (db: Db): Authenticator => ({ resolve: (v) => lookupToken(db, v) });

function unauthorized(reply: FastifyReply, message: string, graphql: boolean) {
  const p = problem(new ApiError(401, message, { extra: { message } }));
  const body = graphql ? { ...p.body, errors: [{ message, extensions: { status: 401 } }] } : p.body;
  return reply.code(401).headers(graphql ? { 'content-type': 'application/json; charset=utf-8' } : p.headers).send(JSON.stringify(body));
}

export function installAuth(app: FastifyInstance, auth: Authenticator, opts: { isPublic?: (req: FastifyRequest, path: string) => boolean } = {}): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (!isApiPath(path) || isPublicApiPath(path) || opts.isPublic?.(req, path)) return;
    const graphql = path === '/api/graphql';
    const value = req.headers['x-api-token'];
    if (typeof value !== 'string' || value === '') return unauthorized(reply, 'No API token provided', graphql);
    const principal = await auth.resolve(value);
    if (!principal) return unauthorized(reply, 'Invalid API token', graphql);
    req.principal = principal;
  });
}
