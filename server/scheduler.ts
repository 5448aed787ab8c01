// The in-server scheduler: runs the daily job (schedule:run) shortly after start, to catch up
// on a day the service was down, then just after each midnight UTC. Every instance runs it; the
// job is idempotent and serialised in the database, so several instances never double anything.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../engine/types.ts';
import type { Engine } from '../engine/operations.ts';
import { today } from '../resources/rules/calendar.ts';
import { describeSummary } from '../resources/rules/schedule.ts';
import { scheduleRun } from './commands.ts';

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
      const summary = await scheduleRun({ db: o.db, engine: o.engine }, { date });
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
