// /api as one fastify plugin, registered with its prefix (buildApp). Its hooks, in order:
// `admission` (token → principal, the rate limit, X-RateLimit-* headers) for every request that
// reaches it, 404s included, and the request history when the response is sent. Inside, three
// encapsulated parts, each with its own guard (server/access/auth.ts):
//   public   the entrypoint, the JSON-LD @context documents and the GraphiQL page: no token needed
//   rest     the REST routes of the model, all derived by http/rest.ts from descriptors (CRUD,
//            declared operations, documents, singletons), those of the resources the server
//            stores (the company profile, API tokens, people) too; X-API-TOKEN required; unknown
//            paths under /api
//   graphql  GraphQL over HTTP: X-API-TOKEN required, refusals in GraphQL's shape
// The documentation pages (/api/docs, /api/docs.json) are a sibling plugin (http/docs.ts), outside
// these hooks: no token, no rate limit.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Db } from '../engine/types.ts';
import type { Model } from '../engine/model.ts';
import type { Engine } from '../engine/operations.ts';
import type { Formats } from '../formats/negotiate.ts';
import { registerGraphiqlPage } from '../http/graphiql.ts';
import { registerGraphql } from '../http/graphql.ts';
import { documentationLink, registerContexts, registerEntrypoint, registerRest } from '../http/rest.ts';
import { admission, guard, principalOf, type Gatekeeper, type SessionAuth } from './access/auth.ts';
import { notFound, toApiError } from './errors.ts';
import { historyHook, type HistoryRecorder } from './history.ts';
import type { OperationServices } from '../engine/descriptor.ts';
import { installIdempotency } from './idempotency.ts';
import type { RunOperation } from '../engine/declared.ts';
import { readTitles } from '../engine/titles.ts';

/** Where the API is mounted: the prefix of every IRI the model gives its records. */
export const API_PREFIX = '/api';
export const GRAPHQL_PATH = '/graphql';

export interface ApiOptions {
  db: Db;
  engine: Engine;
  model: Model;
  formats: Formats;
  graphqlSchema: GraphQLSchema;
  /** GraphQL queries compiled into one SQL statement (config GRAPHQL_COMPILE). */
  compileGraphql: boolean;
  gate: Gatekeeper & { clock: () => number };
  history: HistoryRecorder;
  /** Runs the declared operations of the model's resources (engine/declared.ts). */
  run: RunOperation;
  /** What declared operations use of the server. */
  services: OperationServices;
  /** The web pages' sessions: their cookie authenticates too, with a CSRF token on writes (CONTRACT §17). */
  sessions?: SessionAuth;
}

export async function apiPlugin(app: FastifyInstance, o: ApiOptions): Promise<void> {
  app.decorateRequest('principal', null);
  app.decorateRequest('admission', null);
  app.decorateRequest('admittedAt', 0);
  // Every /api response names the Hydra documentation (Link rel=apiDocumentation), errors too.
  app.addHook('onRequest', documentationLink());
  app.addHook('onRequest', admission(o.gate, o.sessions));
  app.addHook('onResponse', historyHook(o.history));
  // Idempotency-Key on the REST writes and GraphQL mutations (their routes say so in their config).
  installIdempotency(app, { engine: o.engine, formats: o.formats, clock: o.gate.clock });

  await app.register(async (pub) => {
    pub.addHook('onRequest', guard({ authenticate: false }));
    registerContexts(pub, { models: [o.model] });
    registerEntrypoint(pub, { model: o.model, formats: o.formats });
    // Other methods on the entrypoint are unknown routes, answered without asking for a token.
    pub.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/', handler: notFound });
    registerGraphiqlPage(pub, { path: GRAPHQL_PATH });
  });

  await app.register(async (rest) => {
    rest.addHook('onRequest', guard({ authenticate: true }));
    rest.setNotFoundHandler(notFound);
    registerRoutes(rest, o);
  });

  await app.register(async (graphql) => {
    graphql.addHook('onRequest', guard({ authenticate: true, shape: 'graphql' }));
    await registerGraphql(graphql, { engine: o.engine, schema: o.graphqlSchema, principal: principalOf, toApiError, path: GRAPHQL_PATH, compile: o.compileGraphql });
  });
}

/** The authenticated REST routes of /api, relative to the prefix: every one derived from a descriptor. */
function registerRoutes(rest: FastifyInstance, o: ApiOptions): void {
  // CSV of every collection and report (CONTRACT §21): referenced records named by their titles.
  const csv = { titles: (p: Parameters<typeof readTitles>[1], r: Parameters<typeof readTitles>[2], ids: readonly string[]) => readTitles(o.db, p, r, ids) };
  registerRest(rest, { engine: o.engine, formats: o.formats, principal: principalOf, run: o.run, services: o.services, csv });
}
