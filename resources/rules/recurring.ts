// Recurring invoice rules: currency and discount checks, and the next run date, always computed
// from startDate + n periods (see calendar.ts). schedule.ts issues the invoices.
import type { HookSet } from '../../engine/hooks.ts';
import { occurrenceAfter, type Frequency } from './calendar.ts';
import { checkDiscount, copyClientCurrency } from './documents.ts';

export const recurringRules: HookSet = {
  // On create: the client's currency (a checked reference), the discount and the next run date.
  create: 'references',
  async beforeWrite(api, e) {
    await copyClientCurrency(api, e);
    checkDiscount(api, e);
    const d = e.data;
    const old = e.existing;
    if (d.status === 'completed' || d.status === 'cancelled') return;
    if (old && old.startDate === d.startDate && old.frequency === d.frequency && old.interval === d.interval && old.nextRunDate) return;
    const start = String(d.startDate);
    const last = typeof d.lastRunDate === 'string' ? d.lastRunDate : null;
    // Before any run, the series starts on startDate; afterwards it continues after the last run.
    d.nextRunDate = last ? occurrenceAfter(start, d.frequency as Frequency, Number(d.interval), last) : start;
  },
};
