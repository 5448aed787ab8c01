// The daily job (dailyRun, also the CLI's schedule:run) and the in-server scheduler, which runs it
// shortly after start, to catch up on a day the service was down, then just after each midnight
// UTC. Every instance runs it; the job is idempotent and serialised in the database, so several
// instances never double anything.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../engine/types.ts';
import { createEngine, type Engine } from '../engine/operations.ts';
import { today } from '../resources/rules/calendar.ts';
import type { OperationServices } from '../engine/descriptor.ts';
import { describeSummary, runSchedule, type ScheduleSummary } from '../resources/rules/schedule.ts';
import { systemPrincipals } from './access/principals.ts';
import { loadConfig } from './config.ts';
import { sendReminders } from './email/reminders.ts';
import { model, tables } from './model.ts';
import { configuredServices } from './services.ts';
import { webhookOutbox } from './webhooks/outbox.ts';

export type DailySummary = ScheduleSummary & { reminders: number; failedReminders: { invoice: string; reason: string }[] };

/**
 * The daily job for `date`, in every company: recurring invoices and overdue marking, then the
 * reminders. `engine`: the running server's; without one (the command line), an engine with the
 * webhooks' outbox (its events are delivered by the running servers) and the configuration's
 * services (its reminders are queued, or held without SMTP_URL, for the servers' workers).
 */
export async function dailyRun(db: Db, engine: Engine | undefined, date: string): Promise<DailySummary> {
  const e = engine ?? createEngine(db, model, tables, { outbox: webhookOutbox(model), services: configuredServices(db, loadConfig()) as OperationServices });
  const principals = systemPrincipals(db);
  const summary = await runSchedule(e, date, principals);
  // Then the reminders, for invoices as the day left them (overdue marked).
  const reminders = await sendReminders(e, date, principals);
  return { ...summary, reminders: reminders.sent, failedReminders: reminders.failed };
}

export interface Scheduler {
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;
/** Delay after start-up and after midnight, so a start or a day change is settled first. */
const SETTLE_MS = 5_000;

export function startScheduler(o: { db: Db; engine: Engine; log: FastifyBaseLogger; firstRunMs?: number }): Scheduler {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const run = async () => {
    const date = today();
    try {
      const summary = await dailyRun(o.db, o.engine, date);
      o.log.info({ schedule: summary }, describeSummary(summary).trim());
    } catch (err) {
      o.log.error({ err }, 'schedule:run failed; it will run again at the next tick');
    }
  };
  const arm = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run().finally(() => arm(DAY_MS - (Date.now() % DAY_MS) + SETTLE_MS));
    }, delay);
    timer.unref();
  };
  arm(o.firstRunMs ?? SETTLE_MS);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
