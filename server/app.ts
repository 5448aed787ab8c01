// The fastify application: the engine and formats, the /api plugin (server/api.ts) with the
// documentation beside it, GraphiQL's files, the web pages, health checks, and one error handler.
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { ApiError } from '../engine/errors.ts';
import { buildGraphqlSchema } from '../engine/graphql/schema.ts';
import { createEngine, type Engine } from '../engine/operations.ts';
import { defaultFormats } from '../formats/negotiate.ts';
import { problem, PROBLEM } from '../formats/problem.ts';
import { registerCors } from '../http/cors.ts';
import { registerDocs, registerOpenapi } from '../http/docs.ts';
import { htmlPage, registerGraphiqlAssets } from '../http/graphiql.ts';
import { API_PREFIX, apiPlugin, GRAPHQL_PATH } from './api.ts';
import { assetDir, readAsset } from './assets.ts';
import type { Config } from './config.ts';
import type { Database } from './db.ts';
import { installErrorHandling, toApiError } from './errors.ts';
import { Gate } from './access/gate.ts';
import { closeHistoryOnClose, HistoryRecorder } from './history.ts';
import { model, tables } from './model.ts';
import type { Clock } from './access/rate-limit.ts';
import { settleHistory, tokenActivity, tokenStorage } from './access/token-storage.ts';
import type { OperationServices } from '../engine/descriptor.ts';
import type { Principal } from '../engine/types.ts';
import { companyStorage } from './company.ts';
import { configuredServices } from './services.ts';
import { invitationStorage, memberStorage } from './people.ts';
import { documentRenderers } from './documents/index.ts';
import { registerWeb } from './web/routes.ts';
import { SessionStore, sessionAuth } from './web/sessions.ts';
import { webhookOutbox } from './webhooks/outbox.ts';
import { deliveryLog } from './webhooks/deliveries.ts';
import { operationRunner } from '../engine/declared.ts';
import { WebhookWorker } from './webhooks/worker.ts';
import { LINK_RATE_LIMIT, registerLinkRoutes } from './links/public.ts';
import { paymentProvider } from './links/payments.ts';
import { EmailWorker } from './email/worker.ts';
import { systemPrincipals } from './access/principals.ts';

const VERSION = (JSON.parse(readAsset('app', 'package.json').toString('utf8')) as { version: string }).version;

export interface AppOptions {
  config: Config;
  database: Database;
  logger?: FastifyServerOptions['logger'];
  /** The rate limiter's and request history's clock (tests inject one). */
  clock?: Clock;
  /** The app secret (server/serve.ts ensureAppSecret); a random one per process when absent. */
  secret?: string;
}

export interface App {
  fastify: FastifyInstance;
  engine: Engine;
  gate: Gate;
  history: HistoryRecorder;
  webhooks: WebhookWorker;
  /** The mail channel of the same delivery mechanism (server/delivery/queue.ts). */
  mail: EmailWorker;
  /** What the engine's hooks and operations use of the server (the webhooks' URL policy among them). */
  services: OperationServices;
}

/** Log options: token values never reach a log line. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers["x-api-token"]', 'req.headers.cookie', 'req.headers.authorization', 'headers["x-api-token"]'], censor: '[redacted]' },
  };
}

/** The answer to a request the HTTP parser refused, written on the socket as Node would. */
function clientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'The request took too long to arrive.']
      : err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'The request line and headers are larger than the server accepts.']
        : [400, 'The request is not valid HTTP.'];
  this.log.debug({ code: err.code }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(problem(new ApiError(status, detail)).body);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: ${PROBLEM}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

export async function buildApp(o: AppOptions): Promise<App> {
  const app = Fastify({
    logger: o.logger ?? loggerOptions(o.config.logLevel),
    trustProxy: o.config.trustProxy,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200, constraints: { page: htmlPage } },
    // Errors the HTTP parser raises before fastify sees a request (headers too large, a
    // malformed request line) are problem+json too; the raw bytes, token included, are never logged.
    clientErrorHandler: clientError,
    // Errors raised before routing (a malformed URL, a bad content type) are problem+json too.
    frameworkErrors: (error, _req, reply: FastifyReply) => {
      const p = problem(toApiError(error) ?? ApiError.badRequest('Bad request.'));
      return reply.code(p.status).headers(p.headers).send(JSON.stringify(p.body));
    },
  });
  // What hooks, declared operations and the resources the server stores use of it: those of the
  // configuration first (server/services.ts: client links' PUBLIC_URL, the webhooks' URL policy,
  // the company profile's storage, the mail queue), the rest filled in below (they use the engine).
  const services = configuredServices(o.database.db, o.config, { wake: () => mail.wake() }) as OperationServices;
  // Webhooks: events written with each change (the outbox), delivered by the worker after commit.
  // The worker has connections of its own: under load its claims and records would otherwise
  // wait behind every request's queries, and deliveries fall behind the writes.
  const deliveryDb = o.database.separate('invoicing:webhooks', 2);
  const webhooks = new WebhookWorker(deliveryDb.db, o.config.webhooks, app.log, services.webhookUrls);
  // Where the worker runs, the deliveries of this server's writes are handed to it at their commit.
  const outbox = webhookOutbox(model, o.config.webhooks.worker ? webhooks : undefined);
  const engine = createEngine(o.database.db, model, tables, { raw: o.database.raw, outbox, services });
  // A delivery recorded without a body whose body was never saved gets it from the record as it is.
  webhooks.bodies = async (c) => (c.record_id ? engine.eventBody(c.type, c.company_id, c.record_id, new Date(c.created_at).toISOString()) : null);
  // E-mail: the mail channel of the same delivery mechanism, on the same connections.
  const documents = documentRenderers(engine, o.database.db);
  const mail = new EmailWorker(deliveryDb.db, o.config.mail, app.log, engine, documents, systemPrincipals(o.database.db));
  if (!o.config.mail.smtpUrl) app.log.warn('SMTP_URL is not set: e-mails are kept with status "held" and never sent. Set SMTP_URL (and MAIL_FROM) to send them.');
  // Stopped when the server closes: claims stop, attempts in flight finish (pending ones stay queued).
  app.addHook('onClose', async () => {
    await Promise.all([webhooks.stop(), mail.stop()]);
    await deliveryDb.close();
  });
  const formats = defaultFormats();

  // JSON-based request media types all parse as JSON (with prototype-poisoning protection).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/ld+json', 'application/merge-patch+json', 'application/vnd.api+json'], { parseAs: 'string' }, jsonParser);

  installErrorHandling(app);
  // Browser clients on other origins (API Platform Admin): CORS for the configured ones only.
  if (o.config.corsOrigins.length) await registerCors(app, o.config.corsOrigins);
  // The gate of /api: token → principal (cached), rate limit (see server/api.ts).
  // Behind a transaction pooler without a session to LISTEN on, the token cache is trusted only
  // while its last read of the revocation epoch is recent (300 ms): those reads get a connection
  // of their own (opened when first used), or under load they would queue behind the requests'
  // statements, the cache lapse, and every request read its token from the database.
  const epochDb = o.database.pooled && !o.database.sessionUrl ? o.database.separate('invoicing:token-epoch', 1) : undefined;
  const gate = new Gate({ db: o.database.db, config: o.config, kind: o.database.kind, sessionUrl: o.database.sessionUrl, background: epochDb?.db ?? o.database.background, log: app.log, clock: o.clock });
  await gate.start();
  app.addHook('onClose', async () => {
    await gate.close();
    await epochDb?.close();
  });
  const history = new HistoryRecorder(o.database.background, app.log, { asyncCommit: o.database.kind === 'postgres' });
  closeHistoryOnClose(app, history);

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
  await registerOpenapi(app, { model, formats, version: VERSION });
  const swaggerUi = { dir: assetDir('swagger-ui'), logo: readAsset('swagger-ui', 'logo.svg') };
  await app.register(async (docs) => registerDocs(docs, { path: `${API_PREFIX}/docs`, swaggerUi, hydra: { entrypoint: model } }));

  // Invitations' and password resets' e-mails: their links, and the mail worker that sends them.
  const peopleMail = { publicUrl: o.config.publicUrl, sending: o.config.mail.smtpUrl !== undefined, from: o.config.mail.from, wake: () => mail.wake() };
  // What declared operations and the resources stored by the server use of it: the webhooks'
  // delivery log and queue, the API tokens' activity, the storage of tokens and people.
  const settle = () => settleHistory(history, app);
  const revoked = (tokenId: string) => gate.revoked(tokenId);
  const changed = (which: (p: Principal) => boolean) => gate.changed(which);
  Object.assign(services, {
    deliveries: deliveryLog({ db: o.database.db, engine, wake: () => webhooks.wake() }),
    documents,
    tokens: tokenActivity({ db: o.database.db, settle, clock: gate.clock }),
    // Reads see this instance's requests so far; a revocation is told to every instance.
    apiTokenStorage: tokenStorage({ settle, revoked }),
    memberStorage: memberStorage({ revoked, changed }),
    // A change of the registration the principals carry is told to every instance.
    companyStorage: companyStorage({ changed }),
    invitationStorage: invitationStorage(peopleMail),
  } satisfies Partial<OperationServices>);
  const run = operationRunner(engine, o.database.db, services);
  // The web pages' sign-in sessions: the pages' own routes and /api (with a CSRF token on writes) read them.
  const sessions = new SessionStore(o.database.db, o.secret ?? o.config.appSecret ?? randomBytes(32).toString('base64url'), gate.clock);
  const graphqlSchema = buildGraphqlSchema(model, engine, { run });
  await app.register(apiPlugin, {
    prefix: API_PREFIX,
    db: o.database.db,
    engine,
    model,
    formats,
    graphqlSchema,
    compileGraphql: o.config.graphqlCompile,
    gate,
    history,
    run,
    services,
    sessions: sessionAuth(sessions),
  });
  registerGraphiqlAssets(app, { schema: graphqlSchema, endpoint: API_PREFIX + GRAPHQL_PATH, readAsset });

  // The web pages (sign-in, settings) in their own context: their cookie parsing and forms stay out of /api.
  await registerWeb(app, {
    db: o.database.db,
    sessions,
    clock: gate.clock,
    sharedThrottle: gate.sharedThrottle(),
    model,
    people: peopleMail,
    // What the server's state means for a resource's pages (CONTRACT §15: held e-mails).
    notices: o.config.mail.smtpUrl ? {} : { Email: 'E-mails are held: SMTP_URL is not set, so no message leaves this server. Set SMTP_URL (and MAIL_FROM) and create the e-mail again.' },
  });

  // Client links (/d/<token>) and the payment provider's notifications, outside /api.
  await registerLinkRoutes(app, {
    db: o.database.db,
    engine,
    services,
    publicUrl: o.config.publicUrl,
    limit: gate.limiter('links', LINK_RATE_LIMIT),
    provider: paymentProvider(o.config.payments),
    log: app.log,
  });
  return { fastify: app, engine, gate, history, webhooks, mail, services };
}
