// The rate limit: an exact sliding window ("at most `max` requests in any `windowMs`"), a
// sliding log of the accepted requests' times per key. Refused requests are not logged, so a
// client that keeps retrying is let in again as soon as its oldest request leaves the window.
//
// Two stores with one contract: in memory (a ring buffer per key, O(1) per request, no I/O) for
// a single instance, and Redis (one Lua script per request, a ZSET per key) shared by every
// instance. The Redis script also returns the token-revocation epoch (see token-cache.ts), so
// instances learn of a revocation in the same round trip.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ApiError } from '../../engine/errors.ts';
import { touch, type Touched } from './lru.ts';

export type Clock = () => number;

export interface RateLimitOptions {
  max: number;
  windowMs: number;
}

export interface Verdict {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** When the oldest request in the window leaves it (ms): the next slot frees up then. */
  resetAt: number;
  /** For a refused request: how long until a request is allowed again (ms). */
  retryAfterMs: number;
}

/** A Redis answer can also say "your cached principal is older than the last revocation". */
export type StoreAnswer = Verdict & { epoch: number; stale: boolean };

export interface RateLimitStore {
  /** Counts a request for `key` at `now` (ms) when the window has room. */
  hit(key: string, now: number, epochTag?: number): Promise<StoreAnswer>;
}

function verdict(o: RateLimitOptions, allowed: boolean, count: number, oldest: number, now: number): Verdict {
  const resetAt = (count > 0 ? oldest : now) + o.windowMs;
  return { allowed, limit: o.max, remaining: Math.max(0, o.max - count), resetAt, retryAfterMs: allowed ? 0 : Math.max(0, resetAt - now) };
}

/** The last `max` accepted request times of one key, oldest first, in a ring that grows on demand. */
class Ring implements Touched {
  buf: Float64Array;
  head = 0;
  size = 0;
  /** When the key last moved to the recent end of the store's LRU order (ms). */
  touched = -Infinity;
  constructor(capacity: number) {
    this.buf = new Float64Array(capacity);
  }
  oldest(): number {
    return this.buf[this.head]!;
  }
  shift(): void {
    this.head = (this.head + 1) % this.buf.length;
    this.size--;
  }
  push(t: number, max: number): void {
    if (this.size === this.buf.length) {
      // Grow (at most to `max`) keeping the order.
      const next = new Float64Array(Math.min(max, this.buf.length * 2));
      for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) % this.buf.length]!;
      this.buf = next;
      this.head = 0;
    }
    this.buf[(this.head + this.size) % this.buf.length] = t;
    this.size++;
  }
}

/**
 * In-memory sliding log. Each key keeps at most `max` times; expired ones are dropped from the
 * front, so a request costs O(1) amortised. The number of keys is bounded (least recently used
 * keys are evicted first: a Map keeps insertion order and a used key is re-inserted, at most once
 * a second).
 */
export class MemoryStore implements RateLimitStore {
  private readonly keys = new Map<string, Ring>();
  constructor(
    private readonly o: RateLimitOptions,
    private readonly maxKeys = 50_000,
  ) {}

  hitSync(key: string, now: number): Verdict {
    const { max, windowMs } = this.o;
    let ring = this.keys.get(key);
    if (!ring) {
      ring = new Ring(Math.max(1, Math.min(max, 16)));
      if (this.keys.size >= this.maxKeys) this.evict(now);
    }
    touch(this.keys, key, ring, now);
    const horizon = now - windowMs;
    while (ring.size > 0 && ring.oldest() <= horizon) ring.shift();
    const allowed = ring.size < max;
    if (allowed) ring.push(now, max);
    return verdict(this.o, allowed, ring.size, ring.size ? ring.oldest() : now, now);
  }

  async hit(key: string, now: number): Promise<StoreAnswer> {
    return { ...this.hitSync(key, now), epoch: 0, stale: false };
  }

  /**
   * Evicts a key whose window is empty among the least recently used few, else the least
   * recently used one.
   */
  private evict(now: number): void {
    const horizon = now - this.o.windowMs;
    let lru: string | undefined;
    let n = 0;
    for (const [k, r] of this.keys) {
      lru ??= k;
      if (r.size === 0 || r.buf[(r.head + r.size - 1) % r.buf.length]! <= horizon) {
        this.keys.delete(k);
        return;
      }
      if (++n >= 8) break;
    }
    if (lru !== undefined) this.keys.delete(lru);
  }

  get size(): number {
    return this.keys.size;
  }
}

// KEYS[1]: the key's ZSET of accepted request times; KEYS[2]: the revocation epoch.
// ARGV: now (ms), window (ms), max, a unique member, the caller's epoch tag ('' for none).
// A caller whose cached principal was read under another epoch gets {-1, …}: nothing is
// counted, it re-reads the token from the database and asks again.
const SCRIPT = `
local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= epoch then return {-1, 0, '0', epoch} end
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local allowed = 0
if n < max then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  n = n + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, n, oldest[2] or ARGV[1], epoch}
`;

type Hit = (k1: string, k2: string, now: number, windowMs: number, max: number, member: string, tag: string) => Promise<[number, number, string, number]>;

/** The Redis sliding log, shared by every instance using the same Redis and key prefix. */
export class RedisStore implements RateLimitStore {
  private seq = 0;
  private readonly instance = randomBytes(6).toString('base64url');
  private readonly run: Hit;

  constructor(
    redis: Redis,
    private readonly o: RateLimitOptions,
    private readonly prefix: string,
  ) {
    if (!('slidingWindowHit' in redis)) redis.defineCommand('slidingWindowHit', { numberOfKeys: 2, lua: SCRIPT });
    const r = redis as unknown as { slidingWindowHit: Hit };
    this.run = (...a) => r.slidingWindowHit(...a);
  }

  get epochKey(): string {
    return `${this.prefix}revocation-epoch`;
  }

  async hit(key: string, now: number, epochTag?: number): Promise<StoreAnswer> {
    const t = Math.floor(now);
    const member = `${t}:${this.instance}:${(this.seq = (this.seq + 1) % 1e9)}`;
    const [allowed, count, oldest, epoch] = await this.run(`${this.prefix}rl:${key}`, this.epochKey, t, this.o.windowMs, this.o.max, member, epochTag === undefined ? '' : String(epochTag));
    if (allowed === -1) return { allowed: false, limit: this.o.max, remaining: 0, resetAt: t, retryAfterMs: 0, epoch: Number(epoch), stale: true };
    return { ...verdict(this.o, allowed === 1, Number(count), Number(oldest), t), epoch: Number(epoch), stale: false };
  }
}

/** The headers every /api response carries. Reset is in Unix seconds, rounded up. */
export function rateLimitHeaders(v: Verdict): Record<string, string> {
  return {
    'x-ratelimit-limit': String(v.limit),
    'x-ratelimit-remaining': String(v.remaining),
    'x-ratelimit-reset': String(Math.ceil(v.resetAt / 1000)),
  };
}

/** The 429 for a refused request: problem+json with Retry-After in whole seconds, at least 1. */
export function tooManyRequests(v: Verdict): ApiError {
  const seconds = Math.max(1, Math.ceil(v.retryAfterMs / 1000));
  return new ApiError(429, `Rate limit exceeded: at most ${v.limit} requests in any window. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
    title: 'Too Many Requests',
    headers: { 'retry-after': String(seconds) },
  });
}
