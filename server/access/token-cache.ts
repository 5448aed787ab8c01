// Per-instance token cache: sha256(token) → principal, LRU with a TTL, so the hot path does not
// read the database for every request.
//
// A revocation (or any change that makes a cached principal wrong: a role changed, a membership
// removed, the company's VAT registration changed) must still take effect everywhere:
// - on this instance, the revoking request drops the entry directly;
// - with Redis, a revocation increments an epoch in Redis; every cached entry carries the epoch
//   known when it was read from the database, and the rate limiter's script (the one Redis round
//   trip each request makes anyway) answers "stale" for an entry older than the current epoch;
//   the instance then empties its cache and reads the token again (an epoch that went back,
//   Redis having lost its data, counts as a change too);
// - on PostgreSQL without Redis, the database keeps the epoch itself and notifies every instance
//   of each change at commit (server/access/invalidation.ts); while an instance is not listening, its
//   cache is suspended (every request reads its token) until it has listened and read the epoch;
// - with PGlite (one process) every change goes through this process: the direct drop suffices.
import type { Db, Principal } from '../../engine/types.ts';
import { touch, type Touched } from './lru.ts';
import { hashToken, lookupTokenHash, TOKEN_PREFIX } from './tokens.ts';

export interface Resolved {
  principal: Principal;
  /** Revocation epoch known when the principal was read from the database. */
  epoch: number;
}

interface Entry extends Resolved, Touched {
  expires: number;
}

export interface TokenCacheOptions {
  /** 0 disables caching. */
  ttlMs: number;
  maxEntries: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  /** The highest revocation epoch this instance has seen. */
  private epoch = 0;
  /** Revocations made through this instance so far. */
  private generation = 0;
  /** False while revocations might go unseen (see suspend). */
  private live = true;
  /** The cache answers only before this time (ms; polling the revocation epoch: see EpochPoller). */
  private trusted = Infinity;

  constructor(
    private readonly db: Db,
    private readonly o: TokenCacheOptions,
  ) {}

  get enabled(): boolean {
    return this.o.ttlMs > 0;
  }

  /**
   * The principal of a token value when the cache can answer now (fresh, cache in use), null for
   * a value that is no token at all; undefined when only the database can say (resolve).
   */
  cached(value: string): Resolved | null | undefined {
    if (!value.startsWith(TOKEN_PREFIX) || value.length > 200) return null;
    return this.enabled && this.live && Date.now() < this.trusted ? this.hit(hashToken(value)) : undefined;
  }

  private hit(hash: string): Resolved | undefined {
    const hit = this.entries.get(hash);
    if (!hit) return undefined;
    const now = Date.now();
    if (hit.expires <= now || hit.epoch !== this.epoch) {
      this.entries.delete(hash);
      return undefined;
    }
    touch(this.entries, hash, hit, now);
    return hit;
  }

  /** The principal of a token value, from the cache when fresh, else from the database. */
  async resolve(value: string, opts: { bypass?: boolean } = {}): Promise<Resolved | null> {
    if (!value.startsWith(TOKEN_PREFIX) || value.length > 200) return null;
    const hash = hashToken(value);
    const caching = this.enabled && this.live && !opts.bypass && Date.now() < this.trusted;
    if (caching) {
      const hit = this.hit(hash);
      if (hit) return hit;
    }
    const epoch = this.epoch;
    const generation = this.generation;
    const principal = await lookupTokenHash(this.db, hash);
    if (!principal) return null;
    const resolved: Resolved = { principal, epoch };
    // A revocation on this instance while we were reading: what we read may predate it.
    if (caching && this.live && epoch === this.epoch && generation === this.generation && Date.now() < this.trusted) {
      if (this.entries.size >= this.o.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      const now = Date.now();
      this.entries.set(hash, { ...resolved, expires: now + this.o.ttlMs, touched: now });
    }
    return resolved;
  }

  /** Learns the shared revocation epoch; any change (a revocation, or Redis lost its data) empties the cache. */
  observe(epoch: number): void {
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.entries.clear();
    }
  }

  /**
   * Revocations might go unseen from now on: every token is read from the database, and nothing
   * read meanwhile is kept. The entries stay, unused: `resume` keeps them only if the epoch has
   * not moved (no change was committed meanwhile).
   */
  suspend(): void {
    this.live = false;
    this.generation++;
  }

  /** Revocations are seen again, the shared epoch being `epoch` (read after they were): cache again. */
  resume(epoch: number): void {
    this.observe(epoch);
    this.live = true;
  }

  /** The cache may answer until `time` (ms since the epoch), no later: the revocation epoch was last read a bound before it. */
  trustUntil(time: number): void {
    this.trusted = time;
  }

  /** Whether the cache is in use (enabled, not suspended, its epoch read recently enough). */
  get active(): boolean {
    return this.enabled && this.live && Date.now() < this.trusted;
  }

  /** Drops the entries of the principals `which` selects (a change made on this instance). */
  forgetWhere(which: (p: Principal) => boolean): void {
    this.generation++;
    for (const [hash, e] of this.entries) if (which(e.principal)) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
