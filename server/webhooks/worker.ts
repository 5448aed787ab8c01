// Delivers webhook events after commit (CONTRACT §11). Each instance claims due deliveries with
// one statement (FOR UPDATE SKIP LOCKED), which also counts the attempt and moves the delivery's
// next attempt one lease ahead: two instances never claim the same attempt, and an attempt whose
// instance died is taken over when its lease ends, so a delivery is never lost (at least once).
// Attempts run concurrently up to a bound; shutdown stops claiming and waits for those running.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../engine/types.ts';
import { addressProblem } from '../../resources/rules/webhook-url.ts';
import { rowsOf } from '../db.ts';
import { signedHeaders } from './signing.ts';

export interface WebhookSettings {
  /** Delays before the 2nd, 3rd, … attempt, in ms; after the last the delivery is failed. */
  retrySchedule: readonly number[];
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
  /** An endpoint whose deliveries all failed for this long is set inactive. */
  disableAfterMs: number;
}

interface Claimed {
  id: string;
  event_id: string;
  body: string;
  attempts: number;
  webhook_id: string;
  url: string;
  secret: string;
}

/** The outcome of one attempt. */
interface Outcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

const MAX_ERROR = 500;
/**
 * Writes wake the worker at most this often while its last look found the queue empty: under a
 * load of writes (most with no webhook listening) a look per write would be a statement per write.
 */
const WAKE_GAP_MS = 20;

export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private ticking = false;
  private again = false;
  /** When the next look is due (Infinity: none scheduled), and when the last one began. */
  private dueAt = Infinity;
  private lastLookAt = 0;
  /** The last look claimed all it asked for: more may be due, so a finished attempt looks again at once. */
  private backlog = false;

  constructor(private readonly db: Db, private readonly settings: WebhookSettings, private readonly log: FastifyBaseLogger) {}

  /** How long a claimed attempt is its instance's before another may take it over. */
  private get leaseMs(): number {
    return this.settings.timeoutMs + 15_000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Look for due deliveries soon (after a write, a retry, a ping, a finished attempt). */
  wake(): void {
    if (this.stopped) return;
    const now = Date.now();
    const at = this.backlog ? now : Math.max(now, this.lastLookAt + Math.min(WAKE_GAP_MS, this.settings.pollMs));
    this.scheduleBy(at - now);
  }

  /** Stops claiming, then waits for the attempts in flight (each ends within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Looks in `ms` unless a look is due sooner. */
  private scheduleBy(ms: number): void {
    if (Date.now() + ms < this.dueAt) this.schedule(ms);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.dueAt = Infinity;
      void this.tick();
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    this.lastLookAt = Date.now();
    let claimed: Claimed[] = [];
    try {
      const free = this.settings.concurrency - this.running.size;
      if (free > 0) {
        claimed = await this.claim(free);
        this.backlog = claimed.length === free;
      }
    } catch (e) {
      this.log.warn({ err: e }, 'webhooks: could not claim deliveries (will retry)');
    } finally {
      this.ticking = false;
    }
    for (const c of claimed) {
      const p = this.deliver(c).catch((e) => this.log.warn({ err: e, delivery: c.id }, 'webhooks: could not record an attempt (it will be made again after its lease)'));
      this.running.add(p);
      void p.finally(() => {
        this.running.delete(p);
        this.wake();
      });
    }
    if (this.stopped) return;
    // Woken while looking: look again. Otherwise the next look is the poll, or sooner when a write
    // or a finished attempt wakes the worker (at once while there is a backlog).
    if (this.again) {
      this.again = false;
      this.scheduleBy(0);
    } else this.scheduleBy(this.settings.pollMs);
  }

  private async claim(n: number): Promise<Claimed[]> {
    const lease = `${this.leaseMs} milliseconds`;
    return rowsOf<Claimed>(await this.db.execute(sql`
      with due as (
        select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id and w.active
        where d.status = 'pending' and d.next_attempt_at <= now()
        order by d.next_attempt_at limit ${n}
        for update of d skip locked)
      update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = now() + ${lease}::interval, updated_at = now()
      from due, webhooks w where d.id = due.id and w.id = d.webhook_id
      returning d.id, d.event_id, d.body, d.attempts, d.webhook_id, w.url, w.secret`));
  }

  private async deliver(c: Claimed): Promise<void> {
    const claimedAt = Date.now();
    const outcome = await this.attempt(c);
    const schedule = this.settings.retrySchedule;
    const last = c.attempts > schedule.length;
    const status = outcome.ok ? 'succeeded' : last ? 'failed' : 'pending';
    const delay = outcome.ok || last ? null : schedule[c.attempts - 1]!;
    // Guarded by the attempt count: a takeover after a lost lease is not overwritten.
    const record = () => this.db.execute(sql`
      update webhook_deliveries set status = ${status},
        next_attempt_at = ${delay === null ? sql`null` : sql`now() + ${`${delay} milliseconds`}::interval`},
        last_status = ${outcome.status}, last_error = ${outcome.error}, last_duration_ms = ${outcome.durationMs}, updated_at = now()
      where id = ${c.id} and attempts = ${c.attempts}`);
    // The database may be away (an outage, a restart): the outcome is kept and recorded again
    // until the lease nears its end, so that an attempt the receiver answered is not made twice
    // after a short outage. Past that (or on shutdown) the lease's end makes the attempt again.
    for (let wait = 250; ; wait = Math.min(wait * 2, 2000)) {
      try {
        await record();
        break;
      } catch (e) {
        if (this.stopped || Date.now() + wait > claimedAt + this.leaseMs - 2000) throw e;
        this.log.warn({ err: e, delivery: c.id }, 'webhooks: could not record an attempt (will try again)');
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    if (!outcome.ok) await this.disableIfFailing(c.webhook_id);
  }

  /**
   * Sets inactive an endpoint that has failed every attempt for `disableAfterMs`: it has a
   * delivery that old not yet succeeded, no delivery succeeded since, and was not edited since
   * (an endpoint set active again, or given a new URL, gets a new period).
   */
  private async disableIfFailing(webhookId: string): Promise<void> {
    const since = sql`now() - ${`${this.settings.disableAfterMs} milliseconds`}::interval`;
    const days = Math.round(this.settings.disableAfterMs / 86_400_000);
    const reason = `Every delivery failed for ${days >= 1 ? `${days} days` : `${Math.round(this.settings.disableAfterMs / 1000)} seconds`}.`;
    await this.db.execute(sql`
      update webhooks set active = false, disabled_reason = ${reason}, updated_at = now()
      where id = ${webhookId} and active and updated_at <= ${since}
        and exists (select 1 from webhook_deliveries d where d.webhook_id = ${webhookId} and d.attempts > 0 and d.status <> 'succeeded' and d.created_at <= ${since})
        and not exists (select 1 from webhook_deliveries d where d.webhook_id = ${webhookId} and d.status = 'succeeded' and d.updated_at > ${since})`);
  }

  /** One POST: signed, at most `timeoutMs`, to an address the URL policy allows, no redirects. */
  private attempt(c: Claimed): Promise<Outcome> {
    const started = Date.now();
    const done = (ok: boolean, status: number | null, error: string | null): Outcome => ({ ok, status, error: error?.slice(0, MAX_ERROR) ?? null, durationMs: Date.now() - started });
    return new Promise<Outcome>((resolve) => {
      let url: URL;
      try {
        url = new URL(c.url);
      } catch {
        return resolve(done(false, null, 'The URL is not valid.'));
      }
      // An address in the URL is not looked up, so it is checked here (names in checkedLookup).
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      const problem = isIP(literal) ? addressProblem(literal) : undefined;
      if (problem) return resolve(done(false, null, problem));
      const headers = { ...signedHeaders(c.secret, c.event_id, c.body), 'content-length': String(Buffer.byteLength(c.body)) };
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      const finish = (o: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const req = send(url, { method: 'POST', headers, lookup: checkedLookup, agent: false }, (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // The body is read (up to a bound) and dropped: only the status counts.
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 65_536) res.destroy();
        });
        res.on('end', () => finish(done(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`)));
        res.on('error', () => finish(done(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : `HTTP ${status}`)));
        res.on('close', () => finish(done(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : `HTTP ${status}`)));
      });
      const timer = setTimeout(() => {
        finish(done(false, null, `No response within ${this.settings.timeoutMs / 1000} s.`));
        req.destroy();
      }, this.settings.timeoutMs);
      req.on('error', (e: Error) => finish(done(false, null, e.message)));
      req.end(c.body);
    });
  }
}

/** dns.lookup that refuses addresses the URL policy forbids (checked on the address connected to). */
function checkedLookup(hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const problem = addressProblem(a.address);
      if (problem) return callback(Object.assign(new Error(problem), { code: 'EADDRNOTALLOWED' }), []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}
