// The one delivery mechanism of the service (CONTRACT §11 and §15): a queue in a table, worked
// after commit by every instance. A write of this server may hand its rows over at its commit
// (take(): the insert counted the first attempt and leased it to this worker). Everything else
// (retries, rows handed back, those of an instance that died or of the CLI) is claimed with one
// statement (FOR UPDATE SKIP LOCKED), which also counts the attempt and leases the row: two
// instances never make the same attempt, and an attempt whose instance died is taken over when
// its lease ends, so nothing is lost (at least once). Attempts run concurrently up to a bound;
// their outcomes are recorded in batches. Shutdown stops claiming, hands back what it had not
// attempted, and waits for the attempts running and their records.
//
// What is queued, and how an attempt is made and recorded, is a channel's: a subclass gives
// claim(), attempt(), write() and returnRows(). Webhook deliveries (server/webhooks/worker.ts)
// and e-mails (server/email/worker.ts) are the two channels.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../engine/types.ts';

export interface QueueSettings {
  /** Delays before the 2nd, 3rd, … attempt, in ms; after the last the row is failed. */
  retrySchedule: readonly number[];
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
}

/** A claimed row: its key and the attempt this claim counted (1 for the first). */
export interface QueueItem {
  id: string;
  attempts: number;
}

/** The outcome of one attempt. */
export interface Outcome {
  ok: boolean;
  /** No retry, whatever the schedule says (an SMTP 5xx). */
  permanent?: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export const MAX_ERROR = 500;
/**
 * A wake (a retry or ping asked for, rows handed back) looks at most this often while the
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
export interface Made<C> {
  c: C;
  outcome: Outcome;
  /** Past this (the lease's end, less a margin) the record is given up: the lease makes the attempt again. */
  recordBy: number;
}

/**
 * How many leases' worth of attempts one look may claim while there is a backlog: the claimed
 * wait in memory for a free slot, so a look and a record serve many attempts, not one each.
 */
const ROUNDS = 4;

/** The next status of an attempt's row, and the delay before the next attempt (null: none). */
export function nextStep(schedule: readonly number[], attempts: number, o: Outcome): { settled: 'succeeded' | 'failed' | null; delay: number | null } {
  if (o.ok) return { settled: 'succeeded', delay: null };
  if (o.permanent || attempts > schedule.length) return { settled: 'failed', delay: null };
  return { settled: null, delay: schedule[attempts - 1]! };
}

export abstract class QueueWorker<C extends QueueItem> {
  private timer: NodeJS.Timeout | undefined;
  /** Claimed, not yet attempted; attempts in flight; attempts made, not yet recorded. */
  private buffer: { c: C; leaseEnd: number }[] = [];
  private inFlight = 0;
  private made: Made<C>[] = [];
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
  private overflow: { c: C; leaseEnd: number }[] = [];
  private returning = false;

  /** The name of the channel in log lines ("webhooks", "e-mail"). */
  protected abstract readonly label: string;

  constructor(protected readonly db: Db, protected readonly settings: QueueSettings, protected readonly log: FastifyBaseLogger) {}

  /** Claims up to `n` due rows, counting their attempt and leasing them for `leaseMs`. */
  protected abstract claim(n: number, leaseMs: number): Promise<C[]>;
  /** Makes one attempt. */
  protected abstract attempt(c: C): Promise<Outcome>;
  /** Records attempts' outcomes, guarded by their attempt count (a takeover is not overwritten). */
  protected abstract write(batch: Made<C>[]): Promise<void>;
  /** Puts rows claimed but not attempted back in the queue, due now, their attempt uncounted. */
  protected abstract returnRows(rows: C[]): Promise<void>;
  /** After a batch was recorded (webhooks: disable failing endpoints). */
  protected async recorded(_batch: Made<C>[]): Promise<void> {}
  /** A row handed over by a write (take()), as a claim would return it. */
  protected taken(row: Record<string, unknown>, _fresh: boolean): C {
    return row as unknown as C;
  }


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
      const c = this.taken(rows[i]!, fresh);
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
          this.log.warn({ err: e, deliveries: batch.length, kept: kept.length }, `${this.label}: could not hand back deliveries (will try again; their lease returns them otherwise)`);
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

  /** `raise`: a failure is thrown (otherwise logged: the lease returns them). */
  private async handBackRows(unstarted: C[], raise = false): Promise<void> {
    if (!unstarted.length) return;
    await this.returnRows(unstarted).catch((e) => {
      if (raise) throw e;
      this.log.warn({ err: e }, `${this.label}: could not hand back claimed deliveries (they are attempted when their lease ends)`);
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
      this.log.warn({ err: e }, `${this.label}: could not claim deliveries (will retry)`);
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
          await this.recorded(batch);
        } catch (e) {
          const now = Date.now();
          const kept = this.stopped ? [] : batch.filter((m) => m.recordBy > now + wait);
          this.log.warn({ err: e, deliveries: batch.length, kept: kept.length }, kept.length ? `${this.label}: could not record attempts (will try again)` : `${this.label}: could not record attempts (they will be made again after their lease)`);
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
}
