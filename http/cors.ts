// CORS for browser clients on other origins (CONTRACT §22: API Platform Admin served elsewhere),
// by @fastify/cors: only under /api, only for the configured origins (CORS_ORIGINS), whose value is
// echoed; the headers such a client reads (Link to the documentation and pages, Location of a
// created record, ETag, X-Total-Count) are exposed. Preflights are answered by the plugin's own
// route outside /api's hooks, so they need no token. Not registered when no origin is configured.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

const ALLOWED_HEADERS = ['Accept', 'Content-Type', 'X-API-TOKEN', 'Authorization', 'If-Match', 'If-None-Match', 'Idempotency-Key'];
const EXPOSED_HEADERS = ['Link', 'Location', 'Content-Location', 'ETag', 'X-Total-Count', 'Retry-After'];

/**
 * CORS on `app` (the root instance, before any route) for `origins`. The routes set their own
 * `Vary: Accept` after the plugin's `Vary: Origin`: a hook on send puts Origin back (only when
 * CORS is configured, so no request pays for it otherwise).
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  await app.register(cors, corsOptions(origins));
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.headers.origin === undefined) return payload;
    const vary = reply.getHeader('vary');
    if (vary === undefined) reply.header('vary', 'Origin');
    else if (!/\borigin\b/i.test(String(vary))) reply.header('vary', `${String(vary)}, Origin`);
    return payload;
  });
}

export function corsOptions(origins: readonly string[], prefix = '/api'): FastifyCorsOptions {
  const options: FastifyCorsOptions = {
    origin: [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  };
  const none: FastifyCorsOptions = { origin: false };
  return {
    delegator: (req, cb) => {
      const path = req.url ?? '';
      cb(null, path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`) || path.startsWith(`${prefix}.`) ? options : none);
    },
  } as FastifyCorsOptions;
}
