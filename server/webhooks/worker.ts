// Delivers webhook events after commit (CONTRACT §11). A write of this server hands its
// deliveries over at its commit (take(): the insert counted the first attempt and leased it to
// this worker, see server/webhooks/outbox.ts). Everything else (retries, deliveries handed back,
// those of an instance that died or of the CLI) is claimed with one statement (FOR UPDATE SKIP
// LOCKED), which also counts the attempt and leases the delivery (`leased_until`): two instances
// never make the same attempt, and an attempt whose instance died is taken over when its lease
// ends, so a delivery is never lost (at least once). The lease is a column of its own, in no
// index: a claim is a HOT update that writes no index entry. Attempts run concurrently up to a
// bound; their outcomes are recorded in batches. Shutdown stops claiming, hands back what it had
// not attempted, and waits for the attempts running and their records.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { Agent } from 'undici';
import { memo } from '../../engine/memo.ts';
import type { Db } from '../../engine/types.ts';
import { addressProblem } from '../../resources/rules/webhook-url.ts';
import { pgArray, rowsOf } from '../db.ts';
import { payloadText } from './outbox.ts';
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

export interface Claimed {
  id: string;
  event_id: string;
  type: string;
  company_id: string;
  /** The event's record (null for a ping). */
  record_id: string | null;
  created_at: string | Date;
  /** Null: recorded without a body, which was never saved (see `bodies`). */
  body: string | null;
  attempts: number;
  webhook_id: string;
  url: string;
  secret: string;
  /** The body was made by this process and is saved with the attempt's outcome. */
  fresh?: boolean;
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
 * A wake (a retry or ping asked for, deliveries handed back) looks at most this often while the
 * last look found the queue empty: a burst of them is one look, not one statement each.
 */
const WAKE_GAP_MS = 100;

/**
 * Outcomes recorded together: up to this many are waited for, at most RECORD_GATHER_MS. A record
 * costs PostgreSQL about the same for one outcome as for tens (planning it is most of its cost),
 * so deliveries made one at a time (a write every few milliseconds) are recorded in tens too.
 */
const RECORD_BATCH = 64;
const RECORD_GATHER_MS = 50;

/** An attempt made, waiting to be recorded. */
interface Made {
  c: Claimed;
  outcome: Outcome;
  /** Past this (the lease's end, less a margin) the record is given up: the lease makes the attempt again. */
  recordBy: number;
}

/**
 * How many leases' worth of attempts one look may claim while there is a backlog: the claimed
 * wait in memory for a free slot, so a look and a record serve many attempts, not one each.
 */
const ROUNDS = 4;

/**
 * The attempts' HTTP client: undici's handler API, which costs less CPU per exchange than
 * node:http's client (bench/http-floor.ts: 0.11 against 0.13–0.15 ms, client and receiver).
 * Connections to receivers are kept open a few seconds between attempts (a busy endpoint is not
 * dialled again for each event); redirects are never followed.
 * The address policy is checked when a connection is made (checkedLookup, given to net.connect
 * and tls.connect) and, for an address in the URL, before each attempt.
 */
const dispatcher = new Agent({ keepAliveTimeout: 5000, connect: { lookup: checkedLookup } as object });
/** The most of a response's body read (and dropped: only the status counts). */
const MAX_RESPONSE_BODY = 65_536;

export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  /** Claimed, not yet attempted; attempts in flight; attempts made, not yet recorded. */
  private buffer: { c: Claimed; leaseEnd: number }[] = [];
  private inFlight = 0;
  private made: Made[] = [];
  private recording: Promise<void> | undefined;
  private idle: (() => void)[] = [];
  private stopped = true;
  private ticking = false;
  private again = false;
  /** When the next look is due (Infinity: none scheduled), and when the last one began. */
  private dueAt = Infinity;
  private lastLookAt = 0;
  /** The last look claimed all it asked for: more may be due, so the next look is at once and larger. */
  private backlog = false;
  /** Handed over by writes beyond what the worker may hold: going back to the queue. */
  private overflow: { c: Claimed; leaseEnd: number }[] = [];
  private returning = false;

  /**
   * The payload of a delivery recorded without a body whose body was never saved (its write's
   * server stopped before the first attempt's outcome was recorded): the record as it is now
   * (null when it is gone).
   */
  bodies: ((c: Claimed) => Promise<string | null>) | undefined;

  constructor(private readonly db: Db, private readonly settings: WebhookSettings, private readonly log: FastifyBaseLogger) {}

  /** How long claimed attempts are their instance's before another may take them over: `rounds` of attempts, each within the timeout. */
  private leaseMs(rounds = 1): number {
    return rounds * this.settings.timeoutMs + 15_000;
  }

  /**
   * The lease of deliveries handed over by this server's writes (server/webhooks/outbox.ts): as
   * long as that of a claim of the most this worker holds, since it takes at most that many.
   */
  get handOffLeaseMs(): number {
    return this.leaseMs(ROUNDS);
  }

  /**
   * Takes the deliveries a write of this server recorded, once it has committed: their first
   * attempt is counted and leased to this worker by the insert (as a claim would), so they are
   * attempted without a claim. Those beyond what the worker may hold go back to the queue.
   * `fresh`: their bodies were made by this process (server/webhooks/outbox.ts) and are saved
   * with the first attempt's outcome, or when they are handed back.
   */
  take(rows: Record<string, unknown>[], fresh: boolean): void {
    // The lease began at the insert, a moment ago: counted from a little earlier.
    const leaseEnd = Date.now() + this.handOffLeaseMs - 1000;
    const room = this.stopped ? 0 : ROUNDS * this.settings.concurrency - this.buffer.length - this.inFlight;
    for (let i = 0; i < rows.length; i++) {
      const c = rows[i] as unknown as Claimed;
      c.fresh = fresh;
      if (i < room) this.buffer.push({ c, leaseEnd });
      else this.overflow.push({ c, leaseEnd });
    }
    if (this.overflow.length) void this.returnOverflow();
    this.pump();
  }

  /**
   * Hands back what take() had no room for, in one statement for all waiting, then looks for it.
   * The database may be away: tried again until the lease nears its end (which returns them too).
   */
  private async returnOverflow(): Promise<void> {
    if (this.returning) return;
    this.returning = true;
    try {
      for (let wait = 250; this.overflow.length; ) {
        const batch = this.overflow.splice(0);
        try {
          await this.handBackRows(batch.map((b) => b.c), true);
          wait = 250;
        } catch (e) {
          const kept = this.stopped ? [] : batch.filter((b) => b.leaseEnd - 2000 > Date.now() + wait);
          this.log.warn({ err: e, deliveries: batch.length, kept: kept.length }, 'webhooks: could not hand back deliveries (will try again; their lease returns them otherwise)');
          this.overflow.unshift(...kept);
          if (kept.length) await new Promise((r) => setTimeout(r, wait));
          wait = Math.min(wait * 2, 2000);
        }
      }
    } finally {
      this.returning = false;
      this.settle();
      this.wake();
    }
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

  /**
   * Stops claiming, hands back what was claimed but not attempted, then waits for the attempts in
   * flight (each ends within the timeout) and for their records.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.dueAt = Infinity;
    // A look under way hands back what it claims itself (see tick).
    await this.handBack();
    while (this.busy()) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private busy(): boolean {
    return this.ticking || this.inFlight > 0 || this.made.length > 0 || this.recording !== undefined || this.returning;
  }

  private settle(): void {
    if (this.busy()) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Deliveries claimed but not attempted go back to the queue, due now, their attempt uncounted. */
  private async handBack(): Promise<void> {
    await this.handBackRows(this.buffer.splice(0).map((b) => b.c));
  }

  /** `raise`: a failure is thrown (otherwise logged: the lease returns them). Bodies made here are saved. */
  private async handBackRows(unstarted: Claimed[], raise = false): Promise<void> {
    if (!unstarted.length) return;
    await this.db.execute(sql`
      update webhook_deliveries as d set attempts = d.attempts - 1, leased_until = null, body = coalesce(d.body, v.body), updated_at = now()
      from unnest(${pgArray(unstarted.map((c) => c.id))}::uuid[], ${pgArray(unstarted.map((c) => c.attempts))}::int[], ${pgArray(unstarted.map(savedBody))}::text[]) as v(id, attempts, body)
      where d.id = v.id and d.attempts = v.attempts`).catch((e) => {
      if (raise) throw e;
      this.log.warn({ err: e }, 'webhooks: could not hand back claimed deliveries (they are attempted when their lease ends)');
    });
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
    try {
      const { concurrency } = this.settings;
      // Without a backlog, as many as there are free slots; with one, several rounds' worth.
      const held = this.buffer.length + this.inFlight;
      const want = (this.backlog ? ROUNDS * concurrency : concurrency) - held;
      if (want > 0 && this.buffer.length < concurrency) {
        const rounds = Math.ceil((held + want) / concurrency);
        const leaseEnd = Date.now() + this.leaseMs(rounds);
        const claimed = await this.claim(want, this.leaseMs(rounds));
        this.backlog = claimed.length === want;
        for (const c of claimed) this.buffer.push({ c, leaseEnd });
      }
    } catch (e) {
      this.log.warn({ err: e }, 'webhooks: could not claim deliveries (will retry)');
    }
    if (this.stopped) await this.handBack();
    this.ticking = false;
    this.settle();
    this.pump();
    if (this.stopped) return;
    // Woken while looking: look again. Otherwise the next look is the poll, or sooner when a write
    // or a finished attempt wakes the worker (at once while there is a backlog).
    if (this.again) {
      this.again = false;
      this.scheduleBy(0);
    } else this.scheduleBy(this.settings.pollMs);
  }

  /** Starts attempts from the buffer while slots are free. */
  private pump(): void {
    while (!this.stopped && this.inFlight < this.settings.concurrency && this.buffer.length) {
      const { c, leaseEnd } = this.buffer.shift()!;
      this.inFlight++;
      void this.attempt(c).then((outcome) => {
        this.inFlight--;
        this.made.push({ c, outcome, recordBy: leaseEnd - 2000 });
        void this.record();
        this.pump();
        // With a backlog in the database, look again (deliveries of writes here are handed over).
        if (this.backlog && this.buffer.length < this.settings.concurrency) this.wake();
        this.settle();
      });
    }
  }

  /**
   * The due deliveries, oldest first, from the queue's partial index alone: the endpoint is looked
   * up by its key for each row (a correlated subquery, never a join), so that no plan can read an
   * endpoint's whole delivery log (a bitmap AND of the queue and `webhook_idx` did, under a
   * statistics guess) and the cost stays that of the rows due, whatever the log's size.
   */
  private async claim(n: number, leaseMs: number): Promise<Claimed[]> {
    const lease = `${leaseMs} milliseconds`;
    return rowsOf<Claimed>(await this.db.execute(sql`
      with due as (
        select d.id from webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until <= now())
          and (select w.active from webhooks w where w.id = d.webhook_id)
        order by d.next_attempt_at limit ${n}
        for update of d skip locked)
      update webhook_deliveries d set attempts = d.attempts + 1, leased_until = now() + ${lease}::interval, updated_at = now()
      where d.id in (select id from due)
      returning d.id, d.event_id, d.type, d.company_id, d.record_id, d.created_at, d.body, d.attempts, d.webhook_id,
        (select w.url from webhooks w where w.id = d.webhook_id) as url, (select w.secret from webhooks w where w.id = d.webhook_id) as secret`));
  }

  /**
   * Records the attempts made, in one statement for all those waiting. The database may be away
   * (an outage, a restart): the outcomes are kept and recorded again until their lease nears its
   * end, so that an attempt the receiver answered is not made twice after a short outage. Past
   * that (or on shutdown) the lease's end makes the attempt again.
   */
  private async record(): Promise<void> {
    if (this.recording) return;
    let done!: () => void;
    this.recording = new Promise<void>((resolve) => (done = resolve));
    try {
      for (let wait = 250; this.made.length; ) {
        // Other outcomes are waited for a moment: under load one record serves tens of attempts
        // rather than one each.
        if (this.made.length < RECORD_BATCH && !this.stopped) await new Promise((r) => setTimeout(r, RECORD_GATHER_MS));
        const batch = this.made.splice(0);
        try {
          await this.write(batch);
          wait = 250;
          const failing = new Set(batch.filter((m) => !m.outcome.ok).map((m) => m.c.webhook_id));
          for (const id of failing) await this.disableIfFailing(id);
        } catch (e) {
          const now = Date.now();
          const kept = this.stopped ? [] : batch.filter((m) => m.recordBy > now + wait);
          this.log.warn({ err: e, deliveries: batch.length, kept: kept.length }, kept.length ? 'webhooks: could not record attempts (will try again)' : 'webhooks: could not record attempts (they will be made again after their lease)');
          this.made.unshift(...kept);
          if (kept.length) await new Promise((r) => setTimeout(r, wait));
          wait = Math.min(wait * 2, 2000);
        }
      }
    } finally {
      this.recording = undefined;
      done();
      this.settle();
    }
  }

  private async write(batch: Made[]): Promise<void> {
    const schedule = this.settings.retrySchedule;
    const status: string[] = [];
    const delay: (number | null)[] = [];
    for (const { c, outcome } of batch) {
      const last = c.attempts > schedule.length;
      status.push(outcome.ok ? 'succeeded' : last ? 'failed' : 'pending');
      delay.push(outcome.ok || last ? null : schedule[c.attempts - 1]!);
    }
    const column = <T extends string | number | null>(f: (m: Made) => T) => pgArray(batch.map(f));
    // Guarded by the attempt count: a takeover after a lost lease is not overwritten. The columns
    // travel as arrays (no JSON to parse), and the rows are found by their key. A body made by
    // this process is saved (the first attempt's); one saved already is kept.
    await this.db.execute(sql`
      update webhook_deliveries as d set status = v.status, body = coalesce(d.body, v.body),
        next_attempt_at = case when v.delay is null then null else now() + v.delay * interval '1 millisecond' end, leased_until = null,
        last_status = v.last_status, last_error = v.last_error, last_duration_ms = v.duration, updated_at = now()
      from unnest(${column((m) => m.c.id)}::uuid[], ${column((m) => m.c.attempts)}::int[], ${pgArray(status)}::text[], ${pgArray(delay)}::int[],
          ${column((m) => m.outcome.status)}::int[], ${column((m) => m.outcome.error)}::text[], ${column((m) => m.outcome.durationMs)}::int[], ${column((m) => savedBody(m.c))}::text[])
        as v(id, attempts, status, delay, last_status, last_error, duration, body)
      where d.id = v.id and d.attempts = v.attempts`);
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

  /** Makes the body of a delivery claimed without one (see `bodies`), then attempts it. */
  private async attempt(c: Claimed): Promise<Outcome> {
    if (c.body === null) {
      const started = Date.now();
      try {
        const body = this.bodies && c.record_id ? await this.bodies(c) : null;
        // The record is gone: its id is what is left of it.
        c.body = body ?? payloadText(c.type, c.created_at, JSON.stringify(c.record_id ? { id: c.record_id } : {}));
        c.fresh = true;
      } catch (e) {
        return { ok: false, status: null, error: `The payload could not be made: ${(e as Error).message}`.slice(0, MAX_ERROR), durationMs: Date.now() - started };
      }
    }
    return this.post(c as Claimed & { body: string });
  }

  /** One POST: signed, at most `timeoutMs`, to an address the URL policy allows, no redirects. */
  private post(c: Claimed & { body: string }): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const a = new Attempt(resolve);
      const url = parsedUrl(c.url);
      if (!url) return a.finish(false, null, 'The URL is not valid.');
      // An address in the URL is not looked up, so it is checked here (names in checkedLookup).
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      const problem = isIP(literal) ? addressProblem(literal) : undefined;
      if (problem) return a.finish(false, null, problem);
      const { timeoutMs } = this.settings;
      // undici's handler API: no stream or AbortSignal per attempt (about half the CPU of its
      // request() with a signal), the request aborted on a timeout. undici's own timeouts are
      // later than ours: the attempt's timer decides (and names) a timeout.
      let abort: ((e?: Error) => void) | undefined;
      let status = 0;
      let size = 0;
      const failed = (why: string) => `HTTP ${status}${why}`;
      a.timer = setTimeout(() => {
        a.finish(false, null, `No response within ${timeoutMs / 1000} s.`);
        abort?.();
      }, timeoutMs);
      dispatcher.dispatch(
        { origin: url.origin, path: url.pathname + url.search, method: 'POST', headers: signedHeaders(c.secret, c.event_id, c.body), body: c.body, headersTimeout: timeoutMs + 1000, bodyTimeout: timeoutMs + 1000 },
        {
          onConnect: (abortRequest: (e?: Error) => void) => {
            abort = abortRequest;
          },
          onHeaders: (statusCode: number) => {
            status = statusCode;
            return true;
          },
          // The body is read (up to a bound) and dropped: only the status counts.
          onData: (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BODY) abort?.();
            return true;
          },
          onComplete: () => {
            const ok = status >= 200 && status < 300;
            a.finish(ok, status, ok ? null : failed(status >= 300 && status < 400 ? ' (redirects are not followed)' : ''));
          },
          onError: (e: Error) => {
            // After the headers (a body too large, cut short): the status stands.
            if (status) a.finish(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : failed(''));
            else a.finish(false, null, e.message);
          },
        },
      );
    });
  }
}

/** The body to save with a delivery's record: one this process made, otherwise none (null). */
const savedBody = (c: Claimed): string | null => (c.fresh ? c.body : null);

/** One attempt's outcome, settled once (by the response, an error or the timeout). */
class Attempt {
  private readonly started = Date.now();
  private settled = false;
  timer: NodeJS.Timeout | undefined;
  constructor(private readonly resolve: (o: Outcome) => void) {}

  finish(ok: boolean, status: number | null, error: string | null): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve({ ok, status, error: error?.slice(0, MAX_ERROR) ?? null, durationMs: Date.now() - this.started });
  }
}

/** Endpoints' URLs parsed once (null: not a valid URL); a few per company. */
const parsedUrl = memo((text: string): URL | null => {
  try {
    return new URL(text);
  } catch {
    return null;
  }
});

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
