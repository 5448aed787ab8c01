// Sign-in throttling against password guessing: failed attempts are counted per email address
// and per client IP in fixed windows; past the limit, sign-in is refused (even with the right
// password) until the window ends. A successful sign-in clears its email's count.
//
// With Redis (REDIS_URL), the counts are shared by every instance, so a guesser gains nothing by
// spreading attempts over them. Without Redis, or while Redis does not answer, each instance
// counts in its own memory (bounded).
import type { Redis } from 'ioredis';

export interface ThrottleOptions {
  windowMs: number;
  maxPerEmail: number;
  maxPerIp: number;
  maxKeys?: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { windowMs: 15 * 60_000, maxPerEmail: 5, maxPerIp: 30 };

/** Where the counts are shared, and what to do when that store fails. */
export interface SharedThrottle {
  redis: Redis;
  prefix: string;
  /** The store failed: the caller falls back to memory for this attempt. */
  failed(err: unknown): void;
}

interface Count {
  n: number;
  until: number;
}

// One failed attempt on one key: a new window when the last one ended (its end kept in the
// value, so the caller's clock decides), else one more. The key expires with its window.
const FAIL = `
local now = tonumber(ARGV[1])
local ends = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
if ends <= now then
  redis.call('HSET', KEYS[1], 'n', 1, 'u', now + tonumber(ARGV[2]))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 1
end
return redis.call('HINCRBY', KEYS[1], 'n', 1)
`;

// One attempt counted and judged at once (a cap that holds under concurrent requests): as FAIL,
// answering the count with this attempt and the window's end.
const TAKE = `
local now = tonumber(ARGV[1])
local ends = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
if ends <= now then
  ends = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'n', 1, 'u', ends)
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return {1, ends}
end
return {redis.call('HINCRBY', KEYS[1], 'n', 1), ends}
`;

export class LoginThrottle {
  private readonly counts = new Map<string, Count>();

  constructor(
    private readonly o: ThrottleOptions = DEFAULT_THROTTLE,
    private readonly clock: () => number = Date.now,
    private readonly shared?: SharedThrottle,
  ) {
    if (shared && !('loginThrottleFail' in shared.redis)) shared.redis.defineCommand('loginThrottleFail', { numberOfKeys: 1, lua: FAIL });
    if (shared && !('loginThrottleTake' in shared.redis)) shared.redis.defineCommand('loginThrottleTake', { numberOfKeys: 1, lua: TAKE });
  }

  private keys(email: string, ip: string): [string, number][] {
    return [
      [`e:${email.trim().toLowerCase()}`, this.o.maxPerEmail],
      [`i:${ip}`, this.o.maxPerIp],
    ];
  }

  private redisKey(key: string): string {
    return `${this.shared!.prefix}login:${key}`;
  }

  /** The current windows of these keys, from Redis when shared (null: Redis failed). */
  private async read(keys: string[]): Promise<(Count | undefined)[] | null> {
    if (!this.shared) return keys.map((k) => this.counts.get(k));
    try {
      const pipeline = this.shared.redis.pipeline();
      for (const k of keys) pipeline.hmget(this.redisKey(k), 'n', 'u');
      const results = (await pipeline.exec()) ?? [];
      return results.map(([err, v]) => {
        if (err) throw err;
        const [n, u] = v as [string | null, string | null];
        return n === null || u === null ? undefined : { n: Number(n), until: Number(u) };
      });
    } catch (err) {
      this.shared.failed(err);
      return null;
    }
  }

  /** Milliseconds until an attempt is allowed again, or 0 when it is allowed now. */
  async blockedFor(email: string, ip: string): Promise<number> {
    const now = this.clock();
    const keys = this.keys(email, ip);
    const counts = (await this.read(keys.map(([k]) => k))) ?? keys.map(([k]) => this.counts.get(k));
    let wait = 0;
    keys.forEach(([, max], i) => {
      const c = counts[i];
      if (c && c.until > now && c.n >= max) wait = Math.max(wait, c.until - now);
    });
    return wait;
  }

  async failed(email: string, ip: string): Promise<void> {
    const now = this.clock();
    if (this.shared) {
      const redis = this.shared.redis as unknown as { loginThrottleFail(key: string, now: number, windowMs: number): Promise<number> };
      try {
        await Promise.all(this.keys(email, ip).map(([k]) => redis.loginThrottleFail(this.redisKey(k), now, this.o.windowMs)));
        return;
      } catch (err) {
        this.shared.failed(err);
      }
    }
    for (const [key] of this.keys(email, ip)) {
      const c = this.counts.get(key);
      if (c && c.until > now) c.n++;
      else {
        if (this.counts.size >= (this.o.maxKeys ?? 100_000)) this.sweep(now);
        this.counts.set(key, { n: 1, until: now + this.o.windowMs });
      }
    }
  }

  /**
   * Counts this attempt and answers whether it is within the caps, in one step (no check then
   * count that concurrent requests could all pass): milliseconds to wait when it is over a cap
   * (the attempt refused), 0 when it is allowed.
   */
  async take(email: string, ip: string): Promise<number> {
    const now = this.clock();
    const keys = this.keys(email, ip);
    let counts: Count[] | null = null;
    if (this.shared) {
      const redis = this.shared.redis as unknown as { loginThrottleTake(key: string, now: number, windowMs: number): Promise<[number, number]> };
      try {
        counts = (await Promise.all(keys.map(([k]) => redis.loginThrottleTake(this.redisKey(k), now, this.o.windowMs)))).map(([n, until]) => ({ n: Number(n), until: Number(until) }));
      } catch (err) {
        this.shared.failed(err);
      }
    }
    // In memory: counted and read with no await between, so no other request comes in between.
    counts ??= keys.map(([key]) => {
      let c = this.counts.get(key);
      if (c && c.until > now) c.n++;
      else {
        if (this.counts.size >= (this.o.maxKeys ?? 100_000)) this.sweep(now);
        c = { n: 1, until: now + this.o.windowMs };
        this.counts.set(key, c);
      }
      return { ...c };
    });
    let wait = 0;
    keys.forEach(([, max], i) => {
      const c = counts[i]!;
      if (c.n > max) wait = Math.max(wait, c.until - now);
    });
    return wait;
  }

  async succeeded(email: string): Promise<void> {
    const key = `e:${email.trim().toLowerCase()}`;
    this.counts.delete(key);
    if (!this.shared) return;
    try {
      await this.shared.redis.del(this.redisKey(key));
    } catch (err) {
      this.shared.failed(err);
    }
  }

  private sweep(now: number): void {
    for (const [k, c] of this.counts) if (c.until <= now) this.counts.delete(k);
    // Still full: forget the oldest windows (a Map iterates in insertion order).
    for (const k of this.counts.keys()) {
      if (this.counts.size < (this.o.maxKeys ?? 100_000)) break;
      this.counts.delete(k);
    }
  }
}
