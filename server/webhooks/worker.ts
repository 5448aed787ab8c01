// Delivers webhook events after commit (CONTRACT §11): the webhook channel of the service's one
// delivery mechanism (server/delivery/queue.ts, which holds the queue's claims, hand-off, batched
// records and shutdown; this file the webhook's claim, attempt and record). A write of this server hands its
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
import { MAX_ERROR, nextStep, QueueWorker, type Made, type Outcome, type QueueSettings } from '../delivery/queue.ts';
import { memo } from '../../engine/memo.ts';
import type { Db } from '../../engine/types.ts';
import type { WebhookUrlPolicy } from '../../resources/rules/webhook-url.ts';
import { pgArray, rowsOf } from '../db.ts';
import { payloadText } from './outbox.ts';
import { signedHeaders } from './signing.ts';

export interface WebhookSettings extends QueueSettings {
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

/**
 * The attempts' HTTP client: undici's handler API, which costs less CPU per exchange than
 * node:http's client (bench/http-floor.ts: 0.11 against 0.13–0.15 ms, client and receiver).
 * Connections to receivers are kept open a few seconds between attempts (a busy endpoint is not
 * dialled again for each event); redirects are never followed.
 * The address policy is checked when a connection is made (checkedLookup, given to net.connect
 * and tls.connect) and, for an address in the URL, before each attempt.
 */
const agentFor = (urls: WebhookUrlPolicy) => new Agent({ keepAliveTimeout: 5000, connect: { lookup: checkedLookup(urls) } as object });
/** The most of a response's body read (and dropped: only the status counts). */
const MAX_RESPONSE_BODY = 65_536;

export class WebhookWorker extends QueueWorker<Claimed> {
  protected readonly label = 'webhooks';

  /**
   * The payload of a delivery recorded without a body whose body was never saved (its write's
   * server stopped before the first attempt's outcome was recorded): the record as it is now
   * (null when it is gone).
   */
  bodies: ((c: Claimed) => Promise<string | null>) | undefined;

  private readonly dispatcher: Agent;

  /** `urls`: the addresses webhooks may call (the same policy as the webhooks' writes). */
  constructor(db: Db, private readonly webhookSettings: WebhookSettings, log: FastifyBaseLogger, private readonly urls: WebhookUrlPolicy) {
    super(db, webhookSettings, log);
    this.dispatcher = agentFor(urls);
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.dispatcher.close();
  }

  protected override taken(row: Record<string, unknown>, fresh: boolean): Claimed {
    const c = row as unknown as Claimed;
    c.fresh = fresh;
    return c;
  }

  /** Deliveries claimed but not attempted go back to the queue, due now, their attempt uncounted. Bodies made here are saved. */
  protected async returnRows(unstarted: Claimed[]): Promise<void> {
    await this.db.execute(sql`
      update webhook_deliveries as d set attempts = d.attempts - 1, leased_until = null, body = coalesce(d.body, v.body), updated_at = now()
      from unnest(${pgArray(unstarted.map((c) => c.id))}::uuid[], ${pgArray(unstarted.map((c) => c.attempts))}::int[], ${pgArray(unstarted.map(savedBody))}::text[]) as v(id, attempts, body)
      where d.id = v.id and d.attempts = v.attempts`);
  }

  protected override async recorded(batch: Made<Claimed>[]): Promise<void> {
    const failing = new Set(batch.filter((m) => !m.outcome.ok).map((m) => m.c.webhook_id));
    for (const id of failing) await this.disableIfFailing(id);
  }

  /**
   * The due deliveries, oldest first, from the queue's partial index alone: the endpoint is looked
   * up by its key for each row (a correlated subquery, never a join), so that no plan can read an
   * endpoint's whole delivery log (a bitmap AND of the queue and `webhook_idx` did, under a
   * statistics guess) and the cost stays that of the rows due, whatever the log's size.
   */
  protected async claim(n: number, leaseMs: number): Promise<Claimed[]> {
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

  protected async write(batch: Made<Claimed>[]): Promise<void> {
    const schedule = this.settings.retrySchedule;
    const status: string[] = [];
    const delay: (number | null)[] = [];
    for (const { c, outcome } of batch) {
      const step = nextStep(schedule, c.attempts, outcome);
      status.push(step.settled ?? 'pending');
      delay.push(step.delay);
    }
    const column = <T extends string | number | null>(f: (m: Made<Claimed>) => T) => pgArray(batch.map(f));
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
    const since = sql`now() - ${`${this.webhookSettings.disableAfterMs} milliseconds`}::interval`;
    const days = Math.round(this.webhookSettings.disableAfterMs / 86_400_000);
    const reason = `Every delivery failed for ${days >= 1 ? `${days} days` : `${Math.round(this.webhookSettings.disableAfterMs / 1000)} seconds`}.`;
    await this.db.execute(sql`
      update webhooks set active = false, disabled_reason = ${reason}, updated_at = now()
      where id = ${webhookId} and active and updated_at <= ${since}
        and exists (select 1 from webhook_deliveries d where d.webhook_id = ${webhookId} and d.attempts > 0 and d.status <> 'succeeded' and d.created_at <= ${since})
        and not exists (select 1 from webhook_deliveries d where d.webhook_id = ${webhookId} and d.status = 'succeeded' and d.updated_at > ${since})`);
  }

  /** Makes the body of a delivery claimed without one (see `bodies`), then attempts it. */
  protected async attempt(c: Claimed): Promise<Outcome> {
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
      const problem = isIP(literal) ? this.urls.addressProblem(literal) : undefined;
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
      this.dispatcher.dispatch(
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
const checkedLookup = (urls: WebhookUrlPolicy) => function checkedLookup(hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const problem = urls.addressProblem(a.address);
      if (problem) return callback(Object.assign(new Error(problem), { code: 'EADDRNOTALLOWED' }), []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}
