// The database: embedded PostgreSQL (PGlite) in DATA_DIR when DATABASE_URL is unset, otherwise
// that server through postgres.js. Same migrations, same behaviour.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PGliteOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { Db, RawQuery } from '../engine/types.ts';
import { assetDir, readAsset } from './assets.ts';

/** The migrations directory (extracted from the binary when running as one). */
const migrations = () => assetDir('migrations');

type PgliteFiles = Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule' | 'fsBundle'>;
let pgliteFiles: Promise<PgliteFiles> | undefined;

/**
 * PGlite's WebAssembly modules and file-system bundle, handed to it rather than read by it from
 * its package directory (which the single executable does not have); compiled once per process.
 */
function pgliteAssets(): Promise<PgliteFiles> {
  pgliteFiles ??= (async () => ({
    pgliteWasmModule: await WebAssembly.compile(readAsset('pglite', 'pglite.wasm')),
    initdbWasmModule: await WebAssembly.compile(readAsset('pglite', 'initdb.wasm')),
    fsBundle: new Blob([readAsset('pglite', 'pglite.data')]),
  }))();
  pgliteFiles.catch(() => (pgliteFiles = undefined));
  return pgliteFiles;
}

export interface Database {
  readonly db: Db;
  /** The same connection(s) for work that is not part of a request (batched history writes), not counted. */
  readonly background: Db;
  readonly kind: 'pglite' | 'postgres';
  /**
   * Connections of their own for background work that must not wait behind the requests' queries
   * (the webhook worker): on PostgreSQL a pool of at most `max` connections named `name`, opened
   * on first use, each statement planned at its execution (`plan_cache_mode`); on PGlite the one
   * connection. `close()` ends it (not the database).
   */
  separate(name: string, max: number): { db: Db; close(): Promise<void> };
  /** Plain rows for a SQL text (prepared on PostgreSQL); counted with the statements. */
  readonly raw: RawQuery;
  /** SQL statements run through drizzle since the database was opened (tests assert on it). */
  statements(): number;
  /** Applies pending migrations (serialised across instances with an advisory lock). */
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string;
  maxConnections?: number;
  /** PostgreSQL: seconds to wait for a connection before failing (a request then gets a 503). */
  connectTimeoutSeconds?: number;
  /** PostgreSQL: the server cancels a statement running longer than this (ms; 0: never). */
  statementTimeoutMs?: number;
}

type Client = import('postgres').Sql;

/**
 * drizzle prepares only the queries it is given a name for; everything else would be parsed and
 * planned by PostgreSQL on every call. This makes postgres.js prepare every statement (once per
 * connection and query text), inside transactions too.
 */
function preparing(client: Client): Client {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'unsafe') return (query: string, params?: unknown[], opts?: object) => target.unsafe(query, params as never, { ...opts, prepare: true });
      if (prop === 'begin' || prop === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: Client) => unknown;
          return (value as (...a: unknown[]) => unknown).apply(target, [...args, (tx: Client) => fn(preparing(tx))]);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Counts the statements drizzle runs: a logger is the one hook every query passes through. */
function statementCounter() {
  let n = 0;
  return { logger: { logQuery: () => void n++ }, count: () => n };
}

/**
 * The mark `patches/postgres+3.4.9.patch` leaves on the driver. The patch (applied by
 * patch-package in `postinstall`) fixes postgres.js's handling of a connection that closes under
 * load; without it a query can receive another query's result and a transaction's remaining
 * statements can run in autocommit. Change it here and in the patch together.
 */
export const POSTGRES_PATCH = 'postgres@3.4.9 invoicing-2';

/** Refuses a postgres.js that does not carry our patch (an `npm install` without its postinstall, another version). */
export function assertPatchedDriver(driver: unknown): void {
  const mark = (driver as { invoicingPatch?: unknown }).invoicingPatch;
  if (mark === POSTGRES_PATCH) return;
  throw new Error(
    `The PostgreSQL driver (postgres.js) is not patched${mark ? ` with this version's fixes (it carries "${String(mark)}")` : ''}: ` +
      'patches/postgres+3.4.9.patch fixes connections that close under load, where the unpatched driver can hand one ' +
      "query another query's result or run the rest of a transaction in autocommit. Run `npm ci` (its postinstall applies " +
      'the patch with patch-package; see patches/README.md); the server will not use DATABASE_URL without it.',
  );
}

export async function openDatabase(o: OpenOptions): Promise<Database> {
  const counter = statementCounter();
  if (o.databaseUrl) {
    const { default: postgres } = await import('postgres');
    assertPatchedDriver(postgres);
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    // Bounded waits: an unreachable server fails a request within connect_timeout, and a
    // statement stuck on a lock or a runaway query is cancelled by the server (57014 → 503).
    const connect = (max: number, name: string, settings: Record<string, string> = {}) => postgres(o.databaseUrl!, {
      max,
      onnotice: () => {},
      connect_timeout: o.connectTimeoutSeconds ?? 5,
      // After failed connections the driver waits before the next attempt, and a request waits
      // with it: its default grows to 20 s. Capped at 0.5 s, an outage answers 503s promptly and
      // the service is back within half a second of the database.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
      connection: { application_name: name, statement_timeout: o.statementTimeoutMs ?? 30_000, ...settings },
    });
    const client = connect(o.maxConnections ?? 10, 'invoicing');
    const prepared = preparing(client);
    const db = drizzle(prepared, { logger: counter.logger }) as unknown as Db;
    return {
      db,
      background: drizzle(prepared) as unknown as Db,
      kind: 'postgres',
      separate(name, max) {
        // A queue's table changes size by orders of magnitude between two analyses (emptied,
        // then a burst of writes): a prepared statement's generic plan, made when it was small,
        // would scan it whole at every claim. Planned at each execution, its plans follow its size.
        // Its commits do not wait for their WAL to reach the disk: they would queue behind the
        // requests' commits (and those behind them). What a crash of PostgreSQL could lose is the
        // last fraction of a second of background bookkeeping, never a request's write.
        const own = connect(max, name, { plan_cache_mode: 'force_custom_plan', synchronous_commit: 'off' });
        return { db: drizzle(preparing(own)) as unknown as Db, close: () => own.end({ timeout: 5 }) };
      },
      // `fresh`: an unnamed statement, which PostgreSQL plans with its values at every execution.
      raw: (text, params, fresh) => {
        counter.logger.logQuery();
        return client.unsafe(text, params as never[], { prepare: !fresh }) as unknown as Promise<Record<string, unknown>[]>;
      },
      statements: counter.count,
      async migrate() {
        // One connection holds an advisory lock while it migrates, so instances starting
        // together apply each migration once.
        const one = postgres(o.databaseUrl!, { max: 1, onnotice: () => {} });
        try {
          await one`select pg_advisory_lock(7263011)`;
          await migrate(drizzle(one), { migrationsFolder: migrations() });
          await one`select pg_advisory_unlock(7263011)`;
        } finally {
          await one.end({ timeout: 5 });
        }
      },
      async ping() {
        await db.execute(sql`select 1`);
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const dir = o.dataDir ?? './data';
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const files = await pgliteAssets();
  // pg_trgm (trigram indexes for partial text filters), from its bundle among the assets.
  const extensions = { pg_trgm: { name: 'pg_trgm', setup: async () => ({ bundlePath: pathToFileURL(join(assetDir('pglite-extensions'), 'pg_trgm.tar.gz')) }) } };
  const client = dir.startsWith('memory://') ? new PGlite({ ...files, extensions }) : new PGlite(dir, { ...files, extensions });
  await client.waitReady;
  const db = drizzle(client, { logger: counter.logger }) as unknown as Db;
  return {
    db,
    background: drizzle(client) as unknown as Db,
    kind: 'pglite',
    separate: () => ({ db: drizzle(client) as unknown as Db, close: async () => {} }),
    raw: async (text, params) => {
      counter.logger.logQuery();
      return (await client.query<Record<string, unknown>>(text, params)).rows;
    },
    statements: counter.count,
    migrate: () => migrate(db as never, { migrationsFolder: migrations() }),
    async ping() {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
  };
}

/** Rows of a raw `execute` result, whichever driver produced it. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** A PostgreSQL array literal, so a whole column travels as one parameter with any driver. */
export function pgArray(values: readonly (string | number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (i) out += ',';
    // Numbers go bare; text is quoted, with its backslashes and quotes escaped (a payload's JSON
    // has many: a replacement pattern, not a function called for each).
    if (v === null) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else out += v.includes('"') || v.includes('\\') ? `"${v.replace(/[\\"]/g, '\\$&')}"` : `"${v}"`;
  }
  return `${out}}`;
}
