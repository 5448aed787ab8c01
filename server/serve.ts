// Starting and stopping the service: database, migrations, app secret, HTTP, and a graceful
// shutdown that finishes requests in flight and flushes buffered writes.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { basename } from 'node:path';
import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { OperationServices } from '../engine/descriptor.ts';
import { buildApp } from './app.ts';
import { isSingleExecutable } from './assets.ts';
import { adminSocketPath } from './lock.ts';
import { startAdminSocket } from './cli/admin-socket.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db.ts';
import { REVOCATION_POLL_BOUND_MS } from './access/invalidation.ts';
import { startScheduler } from './scheduler.ts';
import type { Clock } from './access/rate-limit.ts';
import { settings, users } from './schema.ts';

export interface Running {
  fastify: FastifyInstance;
  database: Database;
  /** What the engine's hooks and operations use of the server (tests change the webhooks' URL policy). */
  services: OperationServices;
  url: string;
  stop(): Promise<void>;
}

async function ensureAppSecret(database: Database, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const db = database.db;
  const [row] = await db.select().from(settings).where(eq(settings.key, 'app_secret'));
  if (row) return row.value;
  const secret = randomBytes(32).toString('base64url');
  await db.insert(settings).values({ key: 'app_secret', value: secret }).onConflictDoNothing();
  const [stored] = await db.select().from(settings).where(eq(settings.key, 'app_secret'));
  return stored!.value;
}

/** What openDatabase needs from the configuration. */
export function databaseOptions(config: Config) {
  return {
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    pooler: config.databasePooler,
    dataDir: config.dataDir,
    connectTimeoutSeconds: config.databaseConnectTimeout,
    statementTimeoutMs: config.databaseStatementTimeout,
  };
}

/**
 * Behind a transaction pooler, said once at start: what runs differently, and the statement
 * timeout of statements outside a transaction (the server's own: a session setting cannot follow them).
 */
async function poolerNotes(database: Database, config: Config, log: FastifyInstance['log']): Promise<void> {
  const [row] = (await database.raw(`select current_setting('statement_timeout') as timeout`, [])) as [{ timeout: string }];
  log.info(
    database.timeoutPerTransaction
      ? `Behind a transaction pooler: statements are not prepared, each transaction sets its statement timeout (${config.databaseStatementTimeout} ms); ` +
          `statements outside a transaction run under the server's statement_timeout (${row?.timeout ?? '?'}; set it for the role to ${config.databaseStatementTimeout} ms — ALTER ROLE … SET statement_timeout = ${config.databaseStatementTimeout} — and transactions need not set it).`
      : `Behind a transaction pooler: statements are not prepared; the server's statement_timeout (${row?.timeout ?? '?'}) is the one configured and applies to every statement.`,
  );
  if (!database.sessionUrl) {
    log.info(
      `Behind a transaction pooler without DATABASE_DIRECT_URL: token revocations made on other instances are seen by polling (within ${REVOCATION_POLL_BOUND_MS} ms) instead of LISTEN, ` +
        'and migrations run in one transaction under a transaction-scoped lock. Set DATABASE_DIRECT_URL (PostgreSQL itself, not the pooler) to listen instead.',
    );
  }
}

export async function startServer(config: Config, opts: { database?: Database; adminSocket?: boolean; clock?: Clock } = {}): Promise<Running> {
  const notes: string[] = [];
  const database = opts.database ?? (await openDatabase({ ...databaseOptions(config), maxConnections: config.databasePoolSize, log: (m) => notes.push(m) }));
  await database.migrate();
  const secret = await ensureAppSecret(database, config.appSecret);
  const { fastify, engine, webhooks, mail, services } = await buildApp({ config, database, clock: opts.clock, secret });
  for (const note of notes) fastify.log.info(note);
  if (database.pooled) await poolerNotes(database, config, fastify.log);
  const [{ n }] = (await database.db.select({ n: count() }).from(users)) as [{ n: number }];
  // The admin socket is up before "Server listening" is logged: whoever waits for that line can
  // run CLI commands at once (and read the first-run hint, logged right after it).
  let admin: Server | undefined;
  if (opts.adminSocket && database.kind === 'pglite') admin = await startAdminSocket(adminSocketPath(config.dataDir), { db: database.db, engine });
  try {
    await fastify.listen({ port: config.port, host: config.host });
  } catch (err) {
    admin?.close();
    throw err;
  }
  const address = fastify.server.address();
  const url = typeof address === 'object' && address ? `http://${config.host}:${address.port}` : `http://${config.host}:${config.port}`;
  if (Number(n) === 0) {
    const cli = isSingleExecutable() ? basename(process.execPath) : 'npm run cli --';
    fastify.log.info(`No user exists yet. Open ${url}/setup in a browser, or run: ${cli} user:create --email you@example.com --password '…' --company "Your company"`);
  }

  if (config.webhooks.worker) webhooks.start();
  if (config.mail.worker) mail.start();
  const scheduler = config.scheduler ? startScheduler({ db: database.db, engine, log: fastify.log }) : undefined;

  let stopping: Promise<void> | undefined;
  return {
    fastify,
    database,
    services,
    url,
    stop() {
      stopping ??= (async () => {
        admin?.close();
        // Keep-alive connections that finish their request after close() began would stay open
        // for fastify's keepAliveTimeout (72 s): close each one as soon as it is idle.
        const sweep = setInterval(() => fastify.server.closeIdleConnections(), 50);
        try {
          await fastify.close();
        } finally {
          clearInterval(sweep);
        }
        await scheduler?.stop();
        if (!opts.database) await database.close();
      })();
      return stopping;
    },
  };
}
