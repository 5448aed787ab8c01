// Starting and stopping the service: database, migrations, app secret, HTTP, and a graceful
// shutdown that finishes requests in flight and flushes buffered writes.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { basename } from 'node:path';
import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { isSingleExecutable } from './assets.ts';
import { adminSocketPath } from './lock.ts';
import { startAdminSocket } from './admin-socket.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db.ts';
import { startScheduler } from './scheduler.ts';
import type { Clock } from './rate-limit.ts';
import { settings, users } from './schema.ts';

export interface Running {
  fastify: FastifyInstance;
  database: Database;
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

export async function startServer(config: Config, opts: { database?: Database; adminSocket?: boolean; clock?: Clock } = {}): Promise<Running> {
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: config.databasePoolSize, connectTimeoutSeconds: config.databaseConnectTimeout, statementTimeoutMs: config.databaseStatementTimeout }));
  await database.migrate();
  const secret = await ensureAppSecret(database, config.appSecret);
  const { fastify, engine, webhooks } = await buildApp({ config, database, clock: opts.clock, secret });
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
  const scheduler = config.scheduler ? startScheduler({ db: database.db, engine, log: fastify.log }) : undefined;

  let stopping: Promise<void> | undefined;
  return {
    fastify,
    database,
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
