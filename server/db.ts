// The database: embedded PostgreSQL (PGlite) in DATA_DIR when DATABASE_URL is unset, otherwise
// that server through postgres.js. Same migrations, same behaviour.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
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
  /** PostgreSQL through a transaction pooler: no session state outside a transaction (see wrapped). */
  readonly pooled: boolean;
  /**
   * Behind a transaction pooler: whether each transaction sets its statement timeout (false when
   * the server's own statement_timeout for this role and database already is the one configured).
   */
  readonly timeoutPerTransaction: boolean;
  /**
   * A URL whose connections are sessions of their own (LISTEN): DATABASE_DIRECT_URL, else
   * DATABASE_URL when it is no transaction pooler; undefined otherwise (and with PGlite).
   */
  readonly sessionUrl: string | undefined;
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
  /** The texts of the last statements counted (at most 64, oldest first; tests assert on what they read). */
  recentStatements(): string[];
  /** Applies pending migrations (serialised across instances with an advisory lock). */
  migrate(): Promise<void>;
  /** PGlite: its data directory as one uncompressed archive, for `OpenOptions.loadDataDir` (the tests' migrated starting point). */
  archive?(): Promise<Blob>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string;
  /** PGlite: start from this archive of a data directory (made by `Database.archive`) instead of an empty one. */
  loadDataDir?: Blob;
  maxConnections?: number;
  /** PostgreSQL: seconds to wait for a connection before failing (a request then gets a 503). */
  connectTimeoutSeconds?: number;
  /** PostgreSQL: the server cancels a statement running longer than this (ms; 0: never). */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: whether DATABASE_URL reaches it through a transaction pooler: `auto` (default)
   * finds out with a probe at open, `transaction` declares it, `none` declares it does not (and
   * refuses to open when the probe finds one).
   */
  pooler?: PoolerMode;
  /** PostgreSQL: a direct connection (DATABASE_DIRECT_URL) for migrations and LISTEN, when DATABASE_URL is a pooler. */
  directUrl?: string | undefined;
  /** Where the one-time notes of opening go (pooler detected). */
  log?: (message: string) => void;
}

export type PoolerMode = 'auto' | 'transaction' | 'none';

type Client = import('postgres').Sql;

/**
 * A statement that leaves state in the PostgreSQL session (a setting, a LISTEN, a session lock, a
 * named prepared statement, a temporary table, a cursor kept after commit). Behind a transaction
 * pooler the next statement may run in another session: what it set is missing there, or found
 * by another client's transaction. `SET LOCAL`, `set_config(…, true)`, `SET TRANSACTION` and the
 * `_xact_` advisory locks end with their transaction and are fine.
 */
export const SESSION_STATEMENT =
  /(?:^|;)\s*(?:set\s+(?!local\b|transaction\b|constraints\b)|reset\b|listen\b|unlisten\b|prepare\s|deallocate\b|discard\b|load\b|create\s+(?:(?:global|local)\s+)?temp(?:orary)?\s|declare\b[^;]*\bwith\s+hold\b)|\bpg_(?:try_)?advisory_(?:un)?lock(?:_shared|_all)?\s*\(|\bset_config\s*\([^()]*,\s*false\s*\)/i;

/** Refuses a statement that would use a session feature through a transaction pooler (see SESSION_STATEMENT). */
export function assertNoSessionState(text: string): void {
  if (SESSION_STATEMENT.test(text)) {
    throw new Error(
      `Refused behind a transaction pooler (DATABASE_POOLER=transaction): this statement keeps state in the PostgreSQL session, which the next statement may not share: ${text.slice(0, 200)}`,
    );
  }
}

interface Wrapping {
  /** Prepare every statement (direct connections): false behind a transaction pooler. */
  prepare: boolean;
  /** Behind a transaction pooler: refuse session statements, and give each transaction its statement timeout. */
  pooled?: { statementTimeoutMs: number };
}

/**
 * drizzle prepares only the queries it is given a name for; everything else would be parsed and
 * planned by PostgreSQL on every call. On a direct connection this makes postgres.js prepare every
 * statement (once per connection and query text), inside transactions too. Behind a transaction
 * pooler, where a prepared statement may be missing from (or different in) the next statement's
 * session, nothing is prepared (the client is made with `prepare: false`), every statement is
 * checked for session state, and every transaction sets its statement timeout as its first
 * statement (`set_config(…, true)`, pipelined with the transaction's first query).
 */
function wrapped(client: Client, w: Wrapping, inTransaction = false): Client {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'unsafe') {
        return (query: string, params?: unknown[], opts?: object) => {
          if (w.pooled) assertNoSessionState(query);
          return target.unsafe(query, params as never, w.prepare ? { ...opts, prepare: true } : opts);
        };
      }
      if (prop === 'begin' || prop === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: Client) => unknown;
          return (value as (...a: unknown[]) => unknown).apply(target, [
            ...args,
            (tx: Client) => {
              if (w.pooled && !inTransaction && w.pooled.statementTimeoutMs > 0) {
                // Not awaited: queued before the transaction's first statement. Should it fail,
                // the transaction is aborted and its next statement fails with it. A simple query
                // (no parameter: the value is an integer of ours): one exchange with the server,
                // where a parameter would take two (described, then bound).
                tx.unsafe(`set local statement_timeout = ${Math.trunc(w.pooled.statementTimeoutMs)}`).catch(() => {});
              }
              return fn(wrapped(tx, w, true));
            },
          ]);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Counts the statements drizzle runs: a logger is the one hook every query passes through. It
 * keeps a reference to the last 64 texts (no copy), for the tests that check what a request reads.
 */
function statementCounter() {
  let n = 0;
  const recent: string[] = new Array(64);
  return {
    logger: {
      logQuery: (text = '') => {
        recent[n++ % recent.length] = text;
      },
    },
    count: () => n,
    recent: () => (n <= recent.length ? recent.slice(0, n) : [...recent.slice(n % recent.length), ...recent.slice(0, n % recent.length)]),
  };
}

/**
 * The mark `patches/postgres+3.4.9.patch` leaves on the driver. The patch (applied by
 * patch-package in `postinstall`) fixes postgres.js's handling of a connection that closes under
 * load; without it a query can receive another query's result and a transaction's remaining
 * statements can run in autocommit. Change it here and in the patch together.
 */
export const POSTGRES_PATCH = 'postgres@3.4.9 invoicing-3';

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

/**
 * Whether `url` reaches PostgreSQL through a transaction pooler (PgBouncer `pool_mode =
 * transaction`, and the like), found out rather than assumed. One client sets a value in its
 * session outside a transaction; a second client then opens a transaction and holds it (so it
 * holds a server connection) while the first reads its value back. On a direct connection or
 * through a session pooler the first client's session is its own for as long as it is connected:
 * the second never sees the value and the first always does. Through a transaction pooler the
 * server connection the first client used is free as soon as its statement ends: either the
 * second client is given it (and sees the value) or, that connection kept idle, the first one
 * may be given another (its value is gone). Three rounds, and a pooler that always handed the
 * first client its connection back and never to anyone else would be indistinguishable from a
 * session: none does (PgBouncer reuses the connection freed last).
 */
export async function probeTransactionPooler(url: string, timeoutMs = 10_000): Promise<{ pooled: boolean; evidence: string }> {
  const { default: postgres } = await import('postgres');
  const options = { max: 1, prepare: false, fetch_types: false, onnotice: () => {}, connect_timeout: 5, connection: { application_name: 'invoicing:pooler-probe' } };
  const first = postgres(url, options);
  const second = postgres(url, options);
  let timer: NodeJS.Timeout | undefined;
  const probe = async (): Promise<{ pooled: boolean; evidence: string }> => {
    for (let round = 0; round < 3; round++) {
      const token = `${randomUUID()}:${round}`;
      const [set] = await first.unsafe<{ pid: number }[]>(`select pg_backend_pid() as pid, set_config('invoicing.pooler_probe', $1, false)`, [token]);
      const found = await second.begin(async (tx) => {
        const [held] = await tx.unsafe<{ pid: number; seen: string | null }[]>(`select pg_backend_pid() as pid, current_setting('invoicing.pooler_probe', true) as seen`);
        if (held!.seen === token || held!.pid === set!.pid) return `a second client was handed the first client's server session (backend ${held!.pid})`;
        const [again] = await first.unsafe<{ pid: number; seen: string | null }[]>(`select pg_backend_pid() as pid, current_setting('invoicing.pooler_probe', true) as seen`);
        if (again!.seen !== token || again!.pid !== set!.pid) return `a setting made outside a transaction was gone at the next statement (backend ${set!.pid}, then ${again!.pid})`;
        return undefined;
      });
      if (found) return { pooled: true, evidence: found };
    }
    return { pooled: false, evidence: 'each client kept its own session' };
  };
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`The database at DATABASE_URL did not answer the pooler probe within ${timeoutMs / 1000} s.`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await Promise.all([first.end({ timeout: 1 }), second.end({ timeout: 1 })]).catch(() => {});
  }
}

export async function openDatabase(o: OpenOptions): Promise<Database> {
  const counter = statementCounter();
  if (o.databaseUrl) {
    const { default: postgres } = await import('postgres');
    assertPatchedDriver(postgres);
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    const declared = o.pooler ?? 'auto';
    const log = o.log ?? (() => {});
    let pooled = declared === 'transaction';
    if (declared !== 'transaction') {
      const found = await probeTransactionPooler(o.databaseUrl);
      if (found.pooled && declared === 'none') {
        throw new Error(
          `DATABASE_URL reaches PostgreSQL through a transaction pooler (${found.evidence}), but DATABASE_POOLER=none says it does not. ` +
            'Set DATABASE_POOLER=transaction (or leave it unset: auto) to run behind it, optionally with DATABASE_DIRECT_URL for the features that need a session; ' +
            'or point DATABASE_URL at PostgreSQL itself (or at a session pooler).',
        );
      }
      pooled = found.pooled;
      if (pooled) log(`DATABASE_URL reaches PostgreSQL through a transaction pooler (${found.evidence}): running in pooler mode (DATABASE_POOLER=transaction declares it and skips this probe).`);
    }
    const statementTimeoutMs = o.statementTimeoutMs ?? 30_000;
    // Bounded waits: an unreachable server fails a request within connect_timeout, and a
    // statement stuck on a lock or a runaway query is cancelled by the server (57014 → 503).
    // Behind a transaction pooler nothing is sent as a startup parameter but the application's
    // name (PgBouncer refuses the others, and a session setting would not follow the statements
    // anyway): the statement timeout is set by each transaction (see wrapped). Nor does a
    // connection send a statement before the previous one's answer (`max_pipeline: 0`): with
    // pipelined statements through PgBouncer 1.18 an answer was lost (20 concurrent creations
    // through a pool of 10: one request never answered, nothing left running in PostgreSQL;
    // PgBouncer logged answers "from server when not linked"), as if it handed the server
    // connection back to its pool at the first statement's end with the next one on its way.
    const connect = (max: number, name: string, settings: Record<string, string> = {}) => postgres(o.databaseUrl!, {
      max,
      onnotice: () => {},
      connect_timeout: o.connectTimeoutSeconds ?? 5,
      // After failed connections the driver waits before the next attempt, and a request waits
      // with it: its default grows to 20 s. Capped at 0.5 s, an outage answers 503s promptly and
      // the service is back within half a second of the database.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
      ...(pooled
        ? { prepare: false, max_pipeline: 0, connection: { application_name: name } }
        : { connection: { application_name: name, statement_timeout: statementTimeoutMs, ...settings } }),
    } as never) as Client;
    const client = connect(o.maxConnections ?? 10, 'invoicing');
    // Behind a pooler, a statement per transaction sets the timeout, unless the server already
    // applies that one to every statement of this role and database (ALTER ROLE … SET
    // statement_timeout, as docs/deploying.md advises): then transactions set nothing.
    let timeoutPerTransaction = pooled && statementTimeoutMs > 0;
    if (timeoutPerTransaction) {
      const [row] = await client.unsafe<{ ms: string }[]>(`select setting as ms from pg_settings where name = 'statement_timeout'`);
      if (Number(row?.ms) === statementTimeoutMs) timeoutPerTransaction = false;
    }
    const w: Wrapping = pooled ? { prepare: false, pooled: { statementTimeoutMs: timeoutPerTransaction ? statementTimeoutMs : 0 } } : { prepare: true };
    const prepared = wrapped(client, w);
    const db = drizzle(prepared, { logger: counter.logger }) as unknown as Db;
    const sessionUrl = o.directUrl ?? (pooled ? undefined : o.databaseUrl);
    return {
      db,
      background: drizzle(prepared) as unknown as Db,
      kind: 'postgres',
      pooled,
      timeoutPerTransaction,
      sessionUrl,
      separate(name, max) {
        // A queue's table changes size by orders of magnitude between two analyses (emptied,
        // then a burst of writes): a prepared statement's generic plan, made when it was small,
        // would scan it whole at every claim. Planned at each execution, its plans follow its size.
        // Its commits do not wait for their WAL to reach the disk: they would queue behind the
        // requests' commits (and those behind them). What a crash of PostgreSQL could lose is the
        // last fraction of a second of background bookkeeping, never a request's write.
        // (Behind a transaction pooler neither is set: its statements are not prepared, so each is
        // planned at its execution anyway, and its commits wait for their WAL like the others.)
        const own = connect(max, name, { plan_cache_mode: 'force_custom_plan', synchronous_commit: 'off' });
        return { db: drizzle(wrapped(own, w)) as unknown as Db, close: () => own.end({ timeout: 5 }) };
      },
      // `fresh`: an unnamed statement, which PostgreSQL plans with its values at every execution.
      raw: async (text, params, fresh) => {
        counter.logger.logQuery(text);
        if (pooled) assertNoSessionState(text);
        return client.unsafe(text, params as never[], { prepare: !pooled && !fresh }) as unknown as Promise<Record<string, unknown>[]>;
      },
      statements: counter.count,
      recentStatements: counter.recent,
      async migrate() {
        if (o.directUrl || !pooled) {
          // One connection holds an advisory lock while it migrates, so instances starting
          // together apply each migration once.
          const one = postgres(o.directUrl ?? o.databaseUrl!, { max: 1, onnotice: () => {} });
          try {
            await one`select pg_advisory_lock(7263011)`;
            await migrate(drizzle(one), { migrationsFolder: migrations() });
            await one`select pg_advisory_unlock(7263011)`;
          } finally {
            await one.end({ timeout: 5 });
          }
          return;
        }
        // Behind a transaction pooler, without a direct connection: the whole migration (the
        // check of what is applied included) is one transaction holding a transaction-scoped
        // advisory lock; drizzle's own transaction runs inside it.
        const one = postgres(o.databaseUrl!, { max: 1, prepare: false, onnotice: () => {} });
        try {
          await one.begin(async (tx) => {
            await tx`select pg_advisory_xact_lock(7263011)`;
            // (drizzle reads the client's options, which a transaction's handle does not carry.)
            const inline = new Proxy(tx, {
              get: (t, p, r) => (p === 'begin' ? (fn: (c: unknown) => unknown) => fn(t) : p === 'options' ? one.options : Reflect.get(t, p, r)),
            });
            await migrate(drizzle(inline as unknown as Client), { migrationsFolder: migrations() });
          });
        } finally {
          await one.end({ timeout: 5 });
        }
      },
      async ping() {
        // Bounded: behind a pooler a statement can wait in its queue for a server connection
        // (PgBouncer's query_wait_timeout, 120 s by default) while PostgreSQL is away; the
        // readiness probe says so within the connect timeout instead.
        const ms = (o.connectTimeoutSeconds ?? 5) * 1000;
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            db.execute(sql`select 1`),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`The database did not answer within ${ms} ms.`)), ms);
            }),
          ]);
        } finally {
          clearTimeout(timer);
        }
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
  const options = { ...files, extensions, ...(o.loadDataDir ? { loadDataDir: o.loadDataDir } : {}) };
  const client = dir.startsWith('memory://') ? new PGlite(options) : new PGlite(dir, options);
  await client.waitReady;
  const db = drizzle(client, { logger: counter.logger }) as unknown as Db;
  return {
    db,
    background: drizzle(client) as unknown as Db,
    kind: 'pglite',
    pooled: false,
    timeoutPerTransaction: false,
    sessionUrl: undefined,
    separate: () => ({ db: drizzle(client) as unknown as Db, close: async () => {} }),
    raw: async (text, params) => {
      counter.logger.logQuery(text);
      return (await client.query<Record<string, unknown>>(text, params)).rows;
    },
    statements: counter.count,
    recentStatements: counter.recent,
    migrate: () => migrate(db as never, { migrationsFolder: migrations() }),
    archive: () => client.dumpDataDir('none'),
    async ping() {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
  };
}

export { rowsOf } from '../engine/types.ts';

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
