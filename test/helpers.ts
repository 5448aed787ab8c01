// Test harness: a real server on a fresh database per test file — an in-memory PGlite, or, when
// DATABASE_URL is set, a new database on that PostgreSQL server, dropped afterwards.
//
// Through a transaction pooler: with TEST_POOLER_URL (PgBouncer in `pool_mode = transaction`, in
// front of the PostgreSQL at DATABASE_URL, reaching any database by name), the database is still
// created and dropped directly, but the servers and databases the tests open reach it through the
// pooler (they detect it); TEST_POOLER_DIRECT=1 gives them DATABASE_DIRECT_URL too.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { loadConfig, type Config } from '../server/config.ts';
import { openDatabase, type Database } from '../server/db.ts';
import { startServer, type Running } from '../server/serve.ts';
import { tokenCreate, userCreate } from '../server/cli/commands.ts';
import { checkEinvoice } from './support/einvoice-validate.ts';

export interface TestDatabase {
  database: Database;
  /** The URL the service uses (DATABASE_URL): the pooler's with TEST_POOLER_URL. */
  url: string | undefined;
  /** PostgreSQL itself, for the tests' own connections (inspection, faults); undefined with PGlite. */
  directUrl: string | undefined;
  /** The service's database settings, for a server started as a child process. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** The settings of a test database for openDatabase (the pooler's URL, and the direct one with TEST_POOLER_DIRECT=1). */
export function databaseOptionsOf(d: Pick<TestDatabase, 'url' | 'directUrl'>): { databaseUrl: string | undefined; directUrl: string | undefined } {
  const pooled = !!process.env.TEST_POOLER_URL && d.url !== d.directUrl;
  return { databaseUrl: d.url, directUrl: pooled && process.env.TEST_POOLER_DIRECT === '1' ? d.directUrl : undefined };
}

/**
 * The run's migrated starting point (test/global-setup.ts) when running under vitest: a template
 * database on PostgreSQL, a data directory's archive on PGlite. Outside vitest (the benches), none.
 */
async function migrated(): Promise<{ template?: string; archive?: Blob }> {
  if (!process.env.VITEST) return {};
  const { inject } = await import('vitest');
  const template = inject('testDatabaseTemplate');
  const archivePath = inject('testDataDirArchive');
  if (template) return { template };
  if (archivePath) {
    archive ??= readFile(archivePath).then((bytes) => new Blob([bytes]));
    return { archive: await archive };
  }
  return {};
}
let archive: Promise<Blob> | undefined;

/** A fresh, migrated database for one test file (on the PostgreSQL server at `adminUrl` when given). */
export async function freshDatabase(adminUrl?: string): Promise<TestDatabase> {
  const admin = adminUrl ?? process.env.DATABASE_URL;
  const start = await migrated();
  if (!admin) {
    const database = await openDatabase({ dataDir: 'memory://', ...(start.archive ? { loadDataDir: start.archive } : {}) });
    if (!start.archive) await database.migrate();
    return { database, url: undefined, directUrl: undefined, env: {}, drop: () => database.close() };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  // A copy of the run's template on the run's own server; migrated here on another.
  const template = admin === process.env.DATABASE_URL ? start.template : undefined;
  await sql.unsafe(template ? `create database ${name} template ${template}` : `create database ${name}`);
  const named = (base: string) => {
    const u = new URL(base);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const directUrl = named(admin);
  const url = process.env.TEST_POOLER_URL ? named(process.env.TEST_POOLER_URL) : directUrl;
  const options = databaseOptionsOf({ url, directUrl });
  const database = await openDatabase({ ...options, maxConnections: 10 });
  if (!template) await database.migrate();
  return {
    database,
    url,
    directUrl,
    env: { DATABASE_URL: url, ...(options.directUrl ? { DATABASE_DIRECT_URL: options.directUrl } : {}) },
    async drop() {
      await database.close();
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}

export interface TestServer {
  url: string;
  running: Running;
  db: TestDatabase;
  config: Config;
  close(): Promise<void>;
}

/**
 * A real server on a fresh database. `o.db` shares an existing database instead (the caller
 * drops it); `o.clock` is the rate limiter's and request history's clock.
 */
export async function startTestServer(env: Record<string, string> = {}, o: { db?: TestDatabase; clock?: () => number } = {}): Promise<TestServer> {
  const db = o.db ?? (await freshDatabase());
  const options = databaseOptionsOf(db);
  const config = { ...loadConfig({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', SCHEDULER: 'off', ...env }), port: 0, databaseUrl: options.databaseUrl, databaseDirectUrl: options.directUrl };
  const running = await startServer(config, { database: db.database, ...(o.clock ? { clock: o.clock } : {}) });
  return {
    url: running.url,
    running,
    db,
    config,
    async close() {
      await running.stop();
      if (!o.db) await db.drop();
    },
  };
}

/** Creates a user in a company (created when new) and returns a token value for them. */
export async function tokenFor(t: TestServer, o: { email: string; company: string; role?: string; currency?: string; name?: string }): Promise<string> {
  const ctx = { db: t.db.database.db };
  await userCreate(ctx, { email: o.email, password: 'password123', company: o.company, role: o.role ?? 'admin', currency: o.currency ?? 'USD' });
  return (await tokenCreate(ctx, { email: o.email, company: o.company, name: o.name ?? `t-${randomBytes(4).toString('hex')}` })).trim();
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  accept?: string;
  contentType?: string;
}

/** One HTTP request to the test server; JSON bodies are parsed when the response is JSON. */
export async function call(t: { url: string }, method: string, path: string, o: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers['x-api-token'] = o.token;
  if (o.accept) headers.accept = o.accept;
  let body: string | undefined;
  if (o.rawBody !== undefined) body = o.rawBody;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] = o.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json');
  const res = await fetch(t.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
  // Every e-invoice a test gets must pass the official artefacts and our EN 16931 checker.
  if (res.status === 200) await checkEinvoice(res.headers.get('content-type'), text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export function client(t: { url: string }, token: string) {
  return {
    token,
    get: (path: string, o: CallOptions = {}) => call(t, 'GET', path, { token, ...o }),
    post: (path: string, body: unknown, o: CallOptions = {}) => call(t, 'POST', path, { token, body, ...o }),
    patch: (path: string, body: unknown, o: CallOptions = {}) => call(t, 'PATCH', path, { token, body, ...o }),
    put: (path: string, body: unknown, o: CallOptions = {}) => call(t, 'PUT', path, { token, body, ...o }),
    delete: (path: string, o: CallOptions = {}) => call(t, 'DELETE', path, { token, ...o }),
  };
}
export type Client = ReturnType<typeof client>;

/** A TCP port nothing listens on now, chosen by the OS (random guesses collided under load). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
