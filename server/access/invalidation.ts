// Token-cache invalidation through PostgreSQL, for instances sharing one PostgreSQL without Redis.
//
// The database itself announces every change that can make a cached principal wrong: triggers
// (drizzle/0001_token_cache_invalidation.sql) increment `token_cache_epoch` and
// `NOTIFY token_cache_invalidation, '<epoch>'` in the revoking statement's own transaction, so the
// notification is delivered when it commits, to every instance, whoever made the change (this
// service, another instance, the CLI, an operator's SQL).
//
// Each instance LISTENs on a dedicated connection (not one of the pool's). With TOKEN_CACHE=auto
// (the default) the cache is trusted only while that connection is known to be listening:
// - connect, LISTEN, then read the epoch once (on the same connection, so after LISTEN took
//   effect): from then on every change commits either before that read (the epoch shows it) or
//   after LISTEN (it is notified). The cache resumes under that epoch; a different epoch than
//   the one its entries were read under empties it, as the Redis path does;
// - a notification carries the new epoch: the cache empties (TokenCache.observe);
// - the connection closes (PostgreSQL restarted, the backend terminated, the network cut) or a
//   heartbeat (the epoch read again every few seconds) fails or times out: the cache is suspended
//   at once (every request reads its token from the database) and the listener reconnects, with
//   a growing delay (at most 1 s), until it has listened and read the epoch again;
// - having applied a notification, an instance says so (NOTIFY token_cache_applied, '<epoch>:<pid>:<instance>'),
//   and a request that revoked a token answers only once every instance listening on this
//   database (their connections are found in pg_stat_activity by application_name) has applied it,
//   or after at most a second: so the revoked token's next request fails everywhere. Instances are
//   known by an id of their own, not by their connection: one whose listening connection died
//   (terminated, cut) may not have noticed yet and still trust its cache, so a revocation waits
//   for it to listen again and say which epoch it resumed under (it does on every (re)connection);
//   an instance that stops says goodbye, and one that vanished without it is forgotten after one
//   such wait.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Db } from '../../engine/types.ts';
import { rowsOf } from '../db.ts';
import type { TokenCache } from './token-cache.ts';

export const INVALIDATION_CHANNEL = 'token_cache_invalidation';
const APPLIED_CHANNEL = 'token_cache_applied';
const APPLICATION_NAME = 'invoicing:token-cache';

export interface InvalidationOptions {
  databaseUrl: string;
  cache: TokenCache;
  log: FastifyBaseLogger;
  /** Suspend the cache while not listening (TOKEN_CACHE=auto); false: trust it all the same (TOKEN_CACHE=on, one instance). */
  strict: boolean;
  /** Time between heartbeats (ms). */
  heartbeatMs?: number;
  /** A heartbeat or a (re)connection not answered within this is a lost connection (ms). */
  timeoutMs?: number;
}

type Client = ReturnType<typeof postgres>;

export class InvalidationListener {
  private client: Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private closed = false;
  /** Whether the cache is being kept in step (listening, epoch read). */
  private listening = false;
  /** This instance, as the others know it. */
  private readonly instance = randomUUID();
  /** The other instances: their listening backend and the highest epoch they said they applied. */
  private applied = new Map<string, { pid: number; epoch: number }>();
  /** Which instance each backend listening for it belongs (or belonged) to; this one's own included. */
  private owners = new Map<number, string>();
  /** Called on every acknowledgement and every (re)connection: settle() re-checks. */
  private waiters = new Set<() => void>();
  private readonly heartbeatMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly o: InvalidationOptions) {
    this.heartbeatMs = o.heartbeatMs ?? 5000;
    this.timeoutMs = o.timeoutMs ?? 2000;
    if (o.strict) o.cache.suspend();
  }

  get synced(): boolean {
    return this.listening;
  }

  /** Connects and listens; resolves after the first attempt, whether it succeeded or not (it retries). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // A client per connection: a lost one is ended and never reused, so nothing it queued can
    // run on its successor.
    const client: Client = postgres(this.o.databaseUrl, {
      max: 1,
      max_lifetime: null,
      fetch_types: false,
      prepare: false,
      connect_timeout: Math.ceil(this.timeoutMs / 1000),
      onnotice: () => {},
      connection: { application_name: APPLICATION_NAME },
      // The hooks sql.listen is built on (postgres.js does not type them): sql.listen re-listens
      // after a reconnection by itself, but tells no one that notifications were missed meanwhile.
      ...({
        onnotify: (channel: string, payload: string) => {
          if (client === this.client) this.received(client, channel, payload);
        },
        onclose: () => {
          if (client === this.client) this.lost(new Error('the connection closed'));
        },
      } as object),
    });
    this.client = client;
    try {
      await this.within(client.unsafe(`listen ${INVALIDATION_CHANNEL}; listen ${APPLIED_CHANNEL}`));
      const [row] = await this.within(client.unsafe<{ epoch: string; pid: number }[]>('select (select epoch::text from token_cache_epoch where id = 1) as epoch, pg_backend_pid() as pid'));
      const epoch = Number(row?.epoch ?? 0);
      if (client !== this.client) return;
      this.owners.set(Number(row!.pid), this.instance);
      this.o.cache.resume(epoch);
      if (this.attempt > 0) this.o.log.info('Token cache: listening for revocations again, cache resumed');
      this.attempt = 0;
      this.listening = true;
      // Tell the others which epoch this instance now applies (a revocation may be waiting for it).
      this.acknowledge(client, epoch);
      for (const w of this.waiters) w();
      this.schedule(() => this.heartbeat(client), this.heartbeatMs);
    } catch (err) {
      if (client === this.client) this.lost(err);
    }
  }

  private received(client: Client, channel: string, payload: string): void {
    if (channel === INVALIDATION_CHANNEL) {
      const epoch = Number(payload);
      // Not listening yet: the cache is suspended, and resumes under an epoch read after this one.
      if (this.listening) {
        this.o.cache.observe(epoch);
        this.acknowledge(client, epoch);
      }
    } else if (channel === APPLIED_CHANNEL) {
      const [first, second, instance] = payload.split(':');
      if (first === 'bye') this.applied.delete(second!);
      else if (instance && instance !== this.instance) {
        const epoch = Number(first);
        const known = this.applied.get(instance);
        this.applied.set(instance, { pid: Number(second), epoch: Math.max(epoch, known?.epoch ?? -1) });
        this.owners.set(Number(second), instance);
      }
      for (const w of this.waiters) w();
    }
  }

  /** Says, to every instance, that this one has applied `epoch` (as `<epoch>:<pid>:<instance>`). */
  private acknowledge(client: Client, epoch: number): void {
    client.unsafe(`select pg_notify('${APPLIED_CHANNEL}', $1 || ':' || pg_backend_pid() || ':' || $2)`, [String(epoch), this.instance]).catch(() => {});
  }

  /** Resolves when `done()` holds (checked on every acknowledgement and reconnection) or at `deadline`. */
  private until(done: () => boolean, deadline: number): Promise<void> {
    if (done() || Date.now() >= deadline) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(t);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const t = setTimeout(finish, deadline - Date.now());
      this.waiters.add(check);
    });
  }

  /**
   * Waits until every other instance listening on this database has applied the changes committed
   * so far (at most `maxMs`). A request that revoked a token waits for it before answering.
   */
  async settle(maxMs = 1000): Promise<void> {
    const deadline = Date.now() + maxMs;
    // Not listening (the connection was lost and is coming back): wait for it, or there is no
    // way to hear the others.
    let epoch = 0;
    let pids: number[] = [];
    for (;;) {
      await this.until(() => this.closed || (this.listening && !!this.client), deadline);
      const client = this.client;
      if (!client || !this.listening || Date.now() >= deadline) return;
      try {
        const [row] = await this.within(
          // Text, not an int[]: this client fetches no types, so arrays would come as '{…}' strings.
          client.unsafe<{ epoch: string; pids: string }[]>(
            `select (select epoch::text from token_cache_epoch where id = 1) as epoch,
                    coalesce(string_agg(pid::text, ','), '') as pids
             from pg_stat_activity where datname = current_database() and application_name = $1 and pid <> pg_backend_pid()`,
            [APPLICATION_NAME],
          ),
        );
        epoch = Number(row!.epoch);
        pids = row!.pids ? row!.pids.split(',').map(Number) : [];
        break;
      } catch {
        // The connection died under the question (it is being replaced): ask again on the next.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    // Every listening backend belongs to an instance that applied the epoch, and every instance
    // known to listen applied it (one whose backend is gone is reconnecting: it says so when back).
    const applied = (instance: string | undefined) => instance === this.instance || (instance !== undefined && (this.applied.get(instance)?.epoch ?? -1) >= epoch);
    const done = () => pids.every((pid) => applied(this.owners.get(pid))) && [...this.applied.keys()].every(applied);
    await this.until(done, deadline);
    // Instances that neither applied it nor listen any more are gone without a goodbye.
    for (const [instance, o] of this.applied) if (o.epoch < epoch && !pids.includes(o.pid)) this.applied.delete(instance);
    const current = new Set([...this.applied.values()].map((o) => o.pid));
    for (const pid of this.owners.keys()) if (!pids.includes(pid) && !current.has(pid)) this.owners.delete(pid);
  }

  private async readEpoch(client: Client): Promise<number> {
    const rows = await this.within(client.unsafe<{ epoch: string }[]>('select epoch::text as epoch from token_cache_epoch where id = 1'));
    return Number(rows[0]?.epoch ?? 0);
  }

  private async heartbeat(client: Client): Promise<void> {
    try {
      const epoch = await this.readEpoch(client);
      if (client !== this.client) return;
      // A notification lost on the way (it cannot be, but costs nothing to check) shows here.
      this.o.cache.observe(epoch);
      this.schedule(() => this.heartbeat(client), this.heartbeatMs);
    } catch (err) {
      if (client === this.client) this.lost(err);
    }
  }

  /** The connection is gone or unresponsive: stop trusting the cache, drop the client, reconnect. */
  private lost(err: unknown): void {
    if (this.o.strict) this.o.cache.suspend();
    const client = this.client;
    this.client = undefined;
    if (this.listening || this.attempt === 0) {
      this.o.log.warn({ err }, `Token cache: the connection listening for revocations is lost; ${this.o.strict ? 'tokens are read from the database' : 'revocations made elsewhere are not seen (TOKEN_CACHE=on)'} until it is back`);
    }
    this.listening = false;
    void client?.end({ timeout: 0 }).catch(() => {});
    if (this.closed) return;
    const delay = Math.min(50 * 2 ** this.attempt++, 1000);
    this.schedule(() => this.connect(), delay);
  }

  private schedule(fn: () => Promise<void>, ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void fn(), ms);
    this.timer.unref();
  }

  private within<T>(p: Promise<T>): Promise<T> {
    let t: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(t));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    // Goodbye: no revocation waits for this instance any more.
    if (client && this.listening) {
      await this.within(client.unsafe(`select pg_notify('${APPLIED_CHANNEL}', 'bye:' || $1)`, [this.instance])).catch(() => {});
    }
    this.listening = false;
    this.client = undefined;
    for (const w of this.waiters) w();
    await client?.end({ timeout: 1 }).catch(() => {});
  }
}

/** Behind a transaction pooler without DATABASE_DIRECT_URL: how often each instance reads the revocation epoch (ms). */
export const REVOCATION_POLL_MS = 100;
/**
 * …and how long a read epoch is trusted (ms): a revocation committed at T is refused by every
 * instance from T + this on (their cache then answers only under an epoch read after T), and the
 * revoking request answers once that time has passed.
 */
export const REVOCATION_POLL_BOUND_MS = 300;

/**
 * Token-cache invalidation without LISTEN (behind a transaction pooler, no DATABASE_DIRECT_URL):
 * the instance reads `token_cache_epoch` every REVOCATION_POLL_MS through the pool, and its cache
 * answers only while the last epoch it read was read less than REVOCATION_POLL_BOUND_MS ago (a
 * read started after a revocation's commit sees it; a different epoch empties the cache). Polls
 * that fail or fall behind let that lapse: tokens are then read from the database until one succeeds.
 */
export class EpochPoller {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private failing = false;

  constructor(
    private readonly o: { db: Db; cache: TokenCache; log: FastifyBaseLogger; strict: boolean; pollMs?: number; boundMs?: number },
  ) {
    if (o.strict) o.cache.trustUntil(0);
  }

  private get boundMs(): number {
    return this.o.boundMs ?? REVOCATION_POLL_BOUND_MS;
  }

  async start(): Promise<void> {
    await this.poll();
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    const started = Date.now();
    try {
      const rows = rowsOf<{ epoch: string }>(await this.o.db.execute(sql`select epoch::text as epoch from token_cache_epoch where id = 1`));
      this.o.cache.observe(Number(rows[0]?.epoch ?? 0));
      if (this.o.strict) this.o.cache.trustUntil(started + this.boundMs);
      if (this.failing) this.o.log.info('Token cache: the revocation epoch is read again, cache resumed');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.o.log.warn({ err }, 'Token cache: could not read the revocation epoch; tokens are read from the database until it can');
      this.failing = true;
    }
    if (this.closed) return;
    this.timer = setTimeout(() => void this.poll(), Math.max(0, (this.o.pollMs ?? REVOCATION_POLL_MS) - (Date.now() - started)));
    this.timer.unref();
  }

  /** A token was revoked here (committed): answer once no instance can accept it any more. */
  async settle(): Promise<void> {
    await new Promise((r) => setTimeout(r, this.boundMs));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
