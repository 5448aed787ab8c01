// Sign-in throttling against password guessing: failed attempts are counted per email address
// and per client IP in fixed windows; past the limit, sign-in is refused (even with the right
// password) until the window ends. A successful sign-in clears its email's count. Counts live in
// this process's memory (bounded): each instance throttles on its own.
export interface ThrottleOptions {
  windowMs: number;
  maxPerEmail: number;
  maxPerIp: number;
  maxKeys?: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { windowMs: 15 * 60_000, maxPerEmail: 5, maxPerIp: 30 };

export class LoginThrottle {
  private readonly counts = new Map<string, { n: number; until: number }>();

  constructor(
    private readonly o: ThrottleOptions = DEFAULT_THROTTLE,
    private readonly clock: () => number = Date.now,
  ) {}

  private keys(email: string, ip: string): [string, number][] {
    return [
      [`e:${email.trim().toLowerCase()}`, this.o.maxPerEmail],
      [`i:${ip}`, this.o.maxPerIp],
    ];
  }

  /** Milliseconds until an attempt is allowed again, or 0 when it is allowed now. */
  blockedFor(email: string, ip: string): number {
    const now = this.clock();
    let wait = 0;
    for (const [key, max] of this.keys(email, ip)) {
      const c = this.counts.get(key);
      if (c && c.until > now && c.n >= max) wait = Math.max(wait, c.until - now);
    }
    return wait;
  }

  failed(email: string, ip: string): void {
    const now = this.clock();
    for (const [key] of this.keys(email, ip)) {
      const c = this.counts.get(key);
      if (c && c.until > now) c.n++;
      else {
        if (this.counts.size >= (this.o.maxKeys ?? 100_000)) this.sweep(now);
        this.counts.set(key, { n: 1, until: now + this.o.windowMs });
      }
    }
  }

  succeeded(email: string): void {
    this.counts.delete(`e:${email.trim().toLowerCase()}`);
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
