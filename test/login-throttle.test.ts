// The sign-in throttle's store: shared through Redis when there is one, and in memory when Redis
// does not answer (the multi-instance test covers the sharing between instances).
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../server/web/throttle.ts';

const OPTIONS = { windowMs: 60_000, maxPerEmail: 3, maxPerIp: 10 };

describe('sign-in throttle', () => {
  it('counts in memory while Redis does not answer, and says so', async () => {
    // Nothing listens on port 1: every command fails at once.
    const redis = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    const failures: unknown[] = [];
    const now = 1_000_000;
    const throttle = new LoginThrottle(OPTIONS, () => now, { redis, prefix: 'test:', failed: (err) => failures.push(err) });
    for (let i = 0; i < 3; i++) {
      expect(await throttle.blockedFor('a@b.test', '10.0.0.1')).toBe(0);
      await throttle.failed('a@b.test', '10.0.0.1');
    }
    expect(await throttle.blockedFor('A@b.test ', '10.0.0.2')).toBe(60_000);
    expect(await throttle.blockedFor('other@b.test', '10.0.0.1')).toBe(0);
    await throttle.succeeded('a@b.test');
    expect(await throttle.blockedFor('a@b.test', '10.0.0.1')).toBe(0);
    expect(failures.length).toBeGreaterThan(0);
    redis.disconnect();
  });

  it('keeps the window on the caller’s clock in Redis', async () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    const prefix = `test:${process.pid}:${Date.now()}:`;
    let now = 5_000_000;
    const failures: unknown[] = [];
    const throttle = new LoginThrottle(OPTIONS, () => now, { redis, prefix, failed: (err) => failures.push(err) });
    try {
      for (let i = 0; i < 3; i++) await throttle.failed('c@b.test', '10.0.0.3');
      expect(await throttle.blockedFor('c@b.test', '10.0.0.4')).toBe(60_000);
      // Another throttle on the same Redis (another instance) sees the same count.
      const other = new LoginThrottle(OPTIONS, () => now, { redis, prefix, failed: (err) => failures.push(err) });
      now += 20_000;
      expect(await other.blockedFor('c@b.test', '10.0.0.5')).toBe(40_000);
      now += 40_000;
      expect(await other.blockedFor('c@b.test', '10.0.0.5')).toBe(0);
      await other.failed('c@b.test', '10.0.0.5');
      expect(await throttle.blockedFor('c@b.test', '10.0.0.5')).toBe(0);
      expect(failures).toEqual([]);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });
});
