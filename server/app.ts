// The fastify application: formats, authentication, the REST routes derived from the model,
// health checks, and one error handler.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createEngine, type Engine } from '../engine/operations.ts';
import { registerRest } from '../engine/rest.ts';
import { contextDoc } from '../engine/openapi.ts';
import { contextDocument } from '../formats/jsonld.ts';
import { defaultFormats, negotiateType } from '../formats/negotiate.ts';
import { ApiError } from '../engine/errors.ts';
import { databaseAuthenticator, installAuth, principalOf, type Authenticator } from './auth.ts';
import type { Config } from './config.ts';
import type { Database } from './db.ts';
import { installDocs } from './docs.ts';
import { installErrorHandling } from './errors.ts';
import { model, tables } from './model.ts';

export interface AppOptions {
  config: Config;
  database: Database;
  logger?: FastifyServerOptions['logger'];
}

export interface App {
  fastify: FastifyInstance;
  engine: Engine;
}

/** Log options: token values never reach a log line. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers["x-api-token"]', 'req.headers.cookie', 'req.headers.authorization', 'headers["x-api-token"]'], censor: '[redacted]' },
  };
}

export async function buildApp(o: AppOptions): Promise<App> {
  const app = Fastify({
    logger: o.logger ?? loggerOptions(o.config.logLevel),
    trustProxy: o.config.trustProxy,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  const engine = createEngine(o.database.db, model, tables);
  const formats = defaultFormats();

  // JSON-based request media types all parse as JSON (with prototype-poisoning protection).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/ld+json', 'application/merge-patch+json', 'application/vnd.api+json'], { parseAs: 'string' }, jsonParser);

  installErrorHandling(app);
  const authenticator: Authenticator = databaseAuthenticator(o.database.db);
  installAuth(app, authenticator);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await o.database.ping();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', detail: 'The database is not reachable.' });
    }
  });

  // Documentation first: @fastify/swagger collects the routes registered after it.
  await installDocs(app, { model, formats });

  const contextTypes = ['application/ld+json', 'application/json'];
  app.get<{ Params: { name: string } }>(
    '/api/contexts/:name',
    { onRequest: async (req) => void negotiateType(req.headers.accept, contextTypes), config: { openapi: contextDoc() } },
    async (req, reply) => {
      const doc = contextDocument(model, req.params.name, `${req.protocol}://${req.host}`);
      if (!doc) throw ApiError.notFound();
      return reply.type(`${negotiateType(req.headers.accept, contextTypes)}; charset=utf-8`).send(JSON.stringify(doc));
    },
  );

  registerRest(app, { engine, formats, principal: principalOf });
  return { fastify: app, engine };
}
