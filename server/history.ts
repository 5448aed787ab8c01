// Request history and usage counters, off the request's hot path.
//
// A request that passed token authentication (whatever its status, 429 included) is appended to
// an in-memory queue when its response is sent. Every `intervalMs` (or as soon as a batch is
// full) the queue is written by one statement, which is its own transaction: history rows with an
// INSERT … SELECT unnest(…), usage_count/last_used_at and the monthly counter aggregated per
// token, all in one round trip; and, for tokens whose count crossed a hundred past `keep`, a trim
// that keeps the `keep` newest rows (a second statement, about once per hundred requests). A batch that fails stays queued and is retried with a backoff; stop() flushes what is
// left. Entries of tokens revoked meanwhile are dropped (their history is gone by definition).
//
// What can be lost: the queue of a process that is killed without SIGTERM (at most about one
// interval's worth), and, only if the database stays away long enough for the queue to reach
// `maxQueued` entries, the oldest queued entries (logged).
import type { FastifyBaseLogger, FastifyInstance, onResponseHookHandler } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Db } from '../engine/types.ts';
import { pgArray, rowsOf } from './db.ts';

export interface HistoryEntry {
  tokenId: string;
  /** When the request arrived (ms). */
  at: number;
  method: string;
  endpoint: string;
  status: number;
  ipAddress: string | null;
  userAgent: string | null;
}

export interface HistoryOptions {
  intervalMs?: number;
  batchSize?: number;
  maxQueued?: number;
  /** History rows kept per token (at least). */
  keep?: number;
  /** Relax fsync for these writes (PostgreSQL): a crash may lose the last fraction of a second. */
  asyncCommit?: boolean;
}

/** The month (YYYY-MM, UTC) of a time in ms, computed once per month boundary crossed. */
const months = { from: 0, to: -1, name: '' };
function month(at: number): string {
  if (at < months.from || at >= months.to) {
    const d = new Date(at);
    months.from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    months.to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    months.name = d.toISOString().slice(0, 7);
  }
  return months.name;
}

export class HistoryRecorder {
  private queue: HistoryEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private dropped = 0;
  private closed = false;
  private readonly o: Required<HistoryOptions>;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    o: HistoryOptions = {},
  ) {
    this.o = { intervalMs: 100, batchSize: 2000, maxQueued: 500_000, keep: 1000, asyncCommit: false, ...o };
  }

  get pending(): number {
    return this.queue.length;
  }

  record(e: HistoryEntry): void {
    if (this.queue.length >= this.o.maxQueued) {
      // Drop the oldest 1 % at once, so that a full queue costs O(1) per request amortised.
      const n = Math.max(1, Math.floor(this.o.maxQueued / 100));
      this.queue.splice(0, n);
      this.dropped += n;
      this.log.error({ dropped: this.dropped }, 'Request history queue is full (database unavailable?): dropped the oldest entries');
    }
    this.queue.push(e);
    if (this.queue.length >= this.o.batchSize) this.schedule(0);
    else this.schedule(this.o.intervalMs);
  }

  private schedule(delay: number): void {
    if (this.closed || (this.timer && delay > 0)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((err) => {
        this.failures++;
        const backoff = Math.min(250 * 2 ** Math.min(this.failures - 1, 5), 5000);
        this.log.warn({ err, pending: this.queue.length, retryInMs: backoff }, 'Could not write request history; will retry');
        this.schedule(backoff);
      });
    }, delay);
    this.timer.unref();
  }

  /** Writes everything queued so far. Rejects (keeping the entries) when the database fails. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => {});
    if (!this.queue.length) return;
    this.flushing = this.drain();
    try {
      await this.flushing;
      this.failures = 0;
    } finally {
      this.flushing = null;
    }
  }

  private async drain(): Promise<void> {
    let left = this.queue.length;
    while (left > 0 && this.queue.length > 0) {
      const batch = this.queue.splice(0, Math.min(left, this.o.batchSize));
      try {
        await this.write(batch);
      } catch (err) {
        this.queue.unshift(...batch);
        throw err;
      }
      left -= batch.length;
    }
  }

  /**
   * One statement per batch (one round trip, its own transaction, no BEGIN/COMMIT): it locks the
   * batch's tokens in a fixed order (two instances flushing at once cannot deadlock) and keeps the
   * entries of those that still exist, inserts their history rows, adds to the monthly counters
   * and updates usage_count/last_used_at, returning the new counts. A trim follows only when a
   * token's count crossed a hundred past `keep` (about once per hundred requests of a token).
   */
  private async write(batch: HistoryEntry[]): Promise<void> {
    const ids = [...new Set(batch.map((e) => e.tokenId))].sort();
    // Per token: its count, its latest request and its count per month (a batch spans one month,
    // rarely two).
    const perToken = new Map<string, { n: number; last: number; months: Map<string, number> }>();
    for (const e of batch) {
      let t = perToken.get(e.tokenId);
      if (!t) perToken.set(e.tokenId, (t = { n: 0, last: e.at, months: new Map() }));
      t.n++;
      if (e.at > t.last) t.last = e.at;
      const m = month(e.at);
      t.months.set(m, (t.months.get(m) ?? 0) + 1);
    }
    const tokenIds = [...perToken.keys()];
    const months: [string, string, number][] = [];
    for (const [id, t] of perToken) for (const [m, n] of t.months) months.push([id, m, n]);
    // asyncCommit: the statement's own (implicit) transaction commits without waiting for its WAL.
    const relaxed = this.o.asyncCommit ? sql`, (select set_config('synchronous_commit', 'off', true)) as "__c"` : sql``;
    const counts = rowsOf<{ id: string; usage_count: string | number }>(
      await this.db.execute(sql`
        with "live" as (select t.id from api_tokens t${relaxed} where t.id = any(${pgArray(ids)}::uuid[]) order by t.id for no key update of t),
        "history" as (
          insert into api_token_history (token_id, date, method, endpoint, status, ip_address, user_agent)
          select u.token_id, to_timestamp(u.ms / 1000.0), u.method, u.endpoint, u.status, u.ip_address, u.user_agent
          from unnest(${pgArray(batch.map((e) => e.tokenId))}::uuid[], ${pgArray(batch.map((e) => e.at))}::float8[],
            ${pgArray(batch.map((e) => e.method))}::text[], ${pgArray(batch.map((e) => e.endpoint))}::text[], ${pgArray(batch.map((e) => e.status))}::int[],
            ${pgArray(batch.map((e) => e.ipAddress))}::text[], ${pgArray(batch.map((e) => e.userAgent))}::text[]) as u(token_id, ms, method, endpoint, status, ip_address, user_agent)
          where u.token_id in (select id from "live")),
        "monthly" as (
          insert into api_token_monthly (token_id, month, count)
          select x.token_id, x.month, x.count
          from unnest(${pgArray(months.map((m) => m[0]))}::uuid[], ${pgArray(months.map((m) => m[1]))}::text[], ${pgArray(months.map((m) => m[2]))}::bigint[]) as x(token_id, month, count)
          where x.token_id in (select id from "live")
          on conflict (token_id, month) do update set count = api_token_monthly.count + excluded.count)
        update api_tokens t set usage_count = t.usage_count + d.n, last_used_at = greatest(t.last_used_at, d.last)
        from unnest(${pgArray(tokenIds)}::uuid[], ${pgArray(tokenIds.map((id) => perToken.get(id)!.n))}::bigint[],
          ${pgArray(tokenIds.map((id) => new Date(perToken.get(id)!.last).toISOString()))}::timestamptz[]) as d(id, n, last)
        where t.id = d.id and d.id in (select id from "live")
        returning t.id, t.usage_count`),
    );

    // Trim a token's history each time its count passes a multiple of 100 beyond `keep`.
    const keep = this.o.keep;
    const trim = counts
      .filter((c) => {
        const now = Number(c.usage_count);
        const before = now - perToken.get(c.id)!.n;
        return now > keep && Math.floor(now / 100) > Math.floor(before / 100);
      })
      .map((c) => c.id);
    if (trim.length) {
      await this.db.execute(sql`
        delete from api_token_history h
        using (select c.id, (select x.date from api_token_history x where x.token_id = c.id order by x.date desc offset ${keep - 1} limit 1) as cutoff
               from unnest(${pgArray(trim)}::uuid[]) as c(id)) c
        where h.token_id = c.id and h.date < c.cutoff`);
    }
  }

  /** Stops the timer and writes what is left, retrying for up to `timeoutMs`. */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + timeoutMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      try {
        await this.flush();
        return;
      } catch (err) {
        if (Date.now() + delay > deadline) {
          this.log.error({ err, lost: this.queue.length }, 'Could not write the remaining request history before stopping');
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the gate: when the request was admitted (ms). */
    admittedAt: number;
  }
}

/**
 * The /api plugin's onResponse hook: records every request that passed token authentication
 * (server/access/auth.ts `admission`), whatever its status, once its response has been sent.
 */
export function historyHook(recorder: HistoryRecorder): onResponseHookHandler {
  return (req, reply, done) => {
    const p = req.principal;
    if (p?.tokenId && req.admittedAt) {
      const ua = req.headers['user-agent'];
      const q = req.url.indexOf('?');
      recorder.record({
        tokenId: p.tokenId,
        at: req.admittedAt,
        method: req.method,
        endpoint: (q === -1 ? req.url : req.url.slice(0, q)).slice(0, 2048),
        status: reply.statusCode,
        ipAddress: req.ip ?? null,
        userAgent: typeof ua === 'string' ? ua.slice(0, 512) : null,
      });
    }
    done();
  };
}

/** Writes what is queued when the server closes. */
export function closeHistoryOnClose(app: FastifyInstance, recorder: HistoryRecorder): void {
  app.addHook('onClose', async () => {
    // Responses sent just before closing have run their onResponse hook by now.
    await new Promise((r) => setImmediate(r));
    await recorder.close();
  });
}
