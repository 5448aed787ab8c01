// The database: embedded PostgreSQL (PGlite) in DATA_DIR when DATABASE_URL is unset, otherwise
// that server through postgres.js. Same migrations, same behaviour.
import { mkdirSync } from 'node:fs';
import type { PGliteOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { Db } from '../engine/context.ts';
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
}

/** Counts the statements drizzle runs: a logger is the one hook every query passes through. */
function statementCounter() {
  let n = 0;
  return { logger: { logQuery: () => void n++ }, count: () => n };
}

export async function openDatabase(o: OpenOptions): Promise<Database> {
  const counter = statementCounter();
  if (o.databaseUrl) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    const client = postgres(o.databaseUrl, { max: o.maxConnections ?? 10, onnotice: () => {}, connection: { application_name: 'invoicing' } });
    const db = drizzle(client, { logger: counter.logger }) as unknown as Db;
    return {
      db,
      background: drizzle(client) as unknown as Db,
      kind: 'postgres',
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
  const client = dir.startsWith('memory://') ? new PGlite(files) : new PGlite(dir, files);
  await client.waitReady;
  const db = drizzle(client, { logger: counter.logger }) as unknown as Db;
  return {
    db,
    background: drizzle(client) as unknown as Db,
    kind: 'pglite',
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
