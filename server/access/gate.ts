// The gate every rate-limited /api request passes: who is calling (token → principal, cached)
// and whether the window has room (keyed by token when valid, else by client IP).
//
// Without Redis: the in-memory store; the token cache is invalidated directly on revocation and,
// on PostgreSQL, by the database's notifications (invalidation.ts).
// With Redis: the shared store; its one round trip also carries the revocation epoch (see
// token-cache.ts). When Redis fails, requests are neither refused nor failed: the instance
// limits with its own memory store and reads tokens from the database (no cache) until Redis
// answers again.
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Principal } from '../../engine/types.ts';
import type { Config } from '../config.ts';
import { EpochPoller, InvalidationListener } from './invalidation.ts';
import { MemoryStore, RedisStore, type Clock, type RateLimitOptions, type Verdict } from './rate-limit.ts';
import { TokenCache, type Resolved } from './token-cache.ts';
import type { SharedThrottle } from '../web/throttle.ts';

export interface Admission {
  principal: Principal | null;
  verdict: Verdict;
  /** When the request was admitted (the gate's clock, ms). */
  at: number;
}

export interface GateOptions {
  db: Db;
  config: Pick<Config, 'rateLimit' | 'redisUrl' | 'redisPrefix' | 'tokenCache'>;
  kind: 'pglite' | 'postgres';
  /** PostgreSQL: a URL whose connections are sessions of their own, to LISTEN on (Database.sessionUrl); none: poll. */
  sessionUrl: string | undefined;
  /** Uncounted connections for the epoch polls (Database.background). */
  background: Db;
  log: FastifyBaseLogger;
  clock?: Clock;
}

/** Whom a request counts against: its token, else (a web session) its user, else its IP. */
const keyOf = (principal: Principal | null, ip: string) => (principal ? (principal.tokenId ? `t:${principal.tokenId}` : `u:${principal.userId}`) : `ip:${ip}`);

export class Gate {
  readonly tokens: TokenCache;
  readonly clock: Clock;
  private readonly memory: MemoryStore;
  private readonly redis: Redis | undefined;
  private readonly shared: RedisStore | undefined;
  /** PostgreSQL without Redis: revocations announced by the database (or, behind a transaction pooler without a direct connection, polled). */
  private readonly invalidations: InvalidationListener | EpochPoller | undefined;
  /** Redis is failing: limit locally and do not trust (or fill) the token cache. */
  private degraded = false;
  /** When each kind of Redis warning was last logged (at most one per kind every 10 s). */
  private readonly lastWarning = new Map<string, number>();
  private pendingEpochBumps = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: GateOptions) {
    this.clock = o.clock ?? Date.now;
    this.memory = new MemoryStore(o.config.rateLimit);
    if (o.config.redisUrl) {
      this.redis = new Redis(o.config.redisUrl, {
        lazyConnect: true,
        // Fail fast while disconnected, so a request never waits on Redis coming back.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: 1000,
        retryStrategy: (n) => Math.min(100 * n, 2000),
      });
      this.redis.on('error', (err) => this.warn(err, 'Redis error'));
      this.shared = new RedisStore(this.redis, o.config.rateLimit, o.config.redisPrefix);
    }
    // Every revocation reaches every instance (see token-cache.ts), so the cache is on unless turned off.
    const cache = o.config.tokenCache !== 'off';
    this.tokens = new TokenCache(o.db, { ttlMs: cache ? 30_000 : 0, maxEntries: 10_000 });
    if (cache && o.kind === 'postgres' && !this.redis) {
      // TOKEN_CACHE=on trusts the cache even while the notifications cannot be heard.
      const strict = o.config.tokenCache === 'auto';
      this.invalidations = o.sessionUrl
        ? new InvalidationListener({ databaseUrl: o.sessionUrl, cache: this.tokens, log: o.log, strict })
        : new EpochPoller({ db: o.background, cache: this.tokens, log: o.log, strict });
    }
  }

  async start(): Promise<void> {
    await this.invalidations?.start();
    if (!this.redis) return;
    try {
      await this.redis.connect();
    } catch (err) {
      this.degrade(err);
    }
  }

  private warnEvery10s(kind: string, err: unknown, text: string): void {
    const now = Date.now();
    if (now - (this.lastWarning.get(kind) ?? 0) < 10_000) return;
    this.lastWarning.set(kind, now);
    this.o.log.warn({ err }, text);
  }

  private warn(err: unknown, msg: string): void {
    this.warnEvery10s('gate', err, `${msg}: rate limits are per instance and tokens are read from the database until Redis answers again`);
  }

  private degrade(err: unknown): void {
    if (!this.degraded) this.tokens.clear();
    this.degraded = true;
    this.warn(err, 'Redis unavailable');
  }

  /**
   * A rate limit of its own (another window and maximum, its keys under `name`), in the same
   * stores as the API's: shared through Redis when configured, per instance otherwise or while
   * Redis fails. Client links use it (60 requests a minute per IP).
   */
  limiter(name: string, o: RateLimitOptions): (key: string) => Promise<Verdict> {
    const memory = new MemoryStore(o);
    const shared = this.redis ? new RedisStore(this.redis, o, `${this.o.config.redisPrefix}${name}:`) : undefined;
    return async (key) => {
      const now = this.clock();
      if (shared && !this.degraded) {
        try {
          return await shared.hit(key, now);
        } catch (err) {
          this.degrade(err);
        }
      }
      return memory.hitSync(key, now);
    };
  }

  /** Redis for the sign-in throttle (server/web/throttle.ts), when configured. */
  sharedThrottle(): SharedThrottle | undefined {
    if (!this.redis || !this.shared) return undefined;
    return {
      redis: this.redis,
      prefix: this.o.config.redisPrefix,
      failed: (err) => this.warnEvery10s('sign-in', err, 'Redis unavailable: sign-in failures are counted per instance until it answers again'),
    };
  }

  /**
   * The admission decided at once, when it needs neither the database nor Redis (no shared store,
   * and no token or a cached one); undefined otherwise (admit).
   */
  admitNow(value: string | undefined, ip: string): Admission | undefined {
    if (this.shared) return undefined;
    const r = value ? this.tokens.cached(value) : null;
    if (r === undefined) return undefined;
    const at = this.clock();
    const principal = r?.principal ?? null;
    return { principal, verdict: this.memory.hitSync(keyOf(principal, ip), at), at };
  }

  async admit(value: string | undefined, ip: string): Promise<Admission> {
    const at = this.clock();
    if (!this.shared) {
      const r = value ? await this.tokens.resolve(value) : null;
      const principal = r?.principal ?? null;
      return { principal, verdict: this.memory.hitSync(keyOf(principal, ip), at), at };
    }
    let r: Resolved | null = value ? await this.tokens.resolve(value, { bypass: this.degraded }) : null;
    for (let attempt = 0; ; attempt++) {
      const principal = r?.principal ?? null;
      // The third attempt sends no tag: a principal read twice in a row during revocations is
      // as fresh as the database can say.
      const tag = r && !this.degraded && attempt < 2 ? r.epoch : undefined;
      let answer;
      try {
        answer = await this.shared.hit(keyOf(principal, ip), at, tag);
      } catch (err) {
        this.degrade(err);
        const fresh = value ? await this.tokens.resolve(value, { bypass: true }) : null;
        const p = fresh?.principal ?? null;
        return { principal: p, verdict: this.memory.hitSync(keyOf(p, ip), at), at };
      }
      this.tokens.observe(answer.epoch);
      if (!answer.stale) {
        if (this.degraded) this.recover();
        return { principal, verdict: answer, at };
      }
      // The principal was read before the latest revocation: read the token again.
      r = await this.tokens.resolve(value!);
    }
  }

  /** A request of a principal known without a token (a web session): counted per user. */
  async admitPrincipal(principal: Principal, ip: string): Promise<Admission> {
    const at = this.clock();
    const key = keyOf(principal, ip);
    if (!this.shared) return { principal, verdict: this.memory.hitSync(key, at), at };
    try {
      const answer = await this.shared.hit(key, at);
      this.tokens.observe(answer.epoch);
      if (this.degraded) this.recover();
      return { principal, verdict: answer, at };
    } catch (err) {
      this.degrade(err);
      return { principal, verdict: this.memory.hitSync(key, at), at };
    }
  }

  private recover(): void {
    this.degraded = false;
    this.o.log.info('Redis answers again: shared rate limits and the token cache are back');
  }

  /** A token was deleted: forget it here, and tell every instance (see changed). */
  async revoked(tokenId: string): Promise<void> {
    await this.changed((p) => p.tokenId === tokenId);
  }

  /**
   * What the principals `which` selects were read with has changed (a token revoked, a role
   * changed, the company's registration that principals carry): forget them here, and tell every
   * instance through the Redis epoch (without Redis, PostgreSQL has told them at commit: wait
   * until the notification is through).
   */
  async changed(which: (p: Principal) => boolean): Promise<void> {
    this.tokens.forgetWhere(which);
    await this.invalidations?.settle();
    if (!this.redis) return;
    this.pendingEpochBumps++;
    await this.bumpEpoch();
  }

  private async bumpEpoch(): Promise<void> {
    if (!this.redis || !this.shared || this.pendingEpochBumps === 0) return;
    try {
      const epoch = await this.redis.incr(this.shared.epochKey);
      this.pendingEpochBumps = 0;
      this.tokens.observe(epoch);
    } catch (err) {
      // Other instances read tokens from the database while they cannot reach Redis either;
      // keep trying so that those that can learn of the revocation as soon as possible.
      this.warn(err, 'Could not publish a token revocation to Redis');
      if (!this.closed && !this.retryTimer) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          void this.bumpEpoch();
        }, 500);
        this.retryTimer.unref();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.invalidations?.close();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pendingEpochBumps) await this.bumpEpoch();
    if (this.redis) {
      try {
        await this.redis.quit();
      } catch {
        this.redis.disconnect();
      }
    }
  }
}
