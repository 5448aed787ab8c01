// Calendar arithmetic on `YYYY-MM-DD` dates (UTC, no time of day) for recurring invoices.
// An occurrence is always computed from the start date plus n whole periods, never by repeated
// addition, so a monthly series that starts on Jan 31 runs Feb 28 (29), Mar 31, Apr 30, …

export type Frequency = 'daily' | 'weekly' | 'monthly' | 'yearly';

const DAY_MS = 86_400_000;

function parse(d: string): { y: number; m: number; day: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  if (!m) throw new RangeError(`Not a date: "${d}"`);
  return { y: Number(m[1]), m: Number(m[2]), day: Number(m[3]) };
}

const format = (t: number): string => new Date(t).toISOString().slice(0, 10);
const dayNumber = (d: string): number => {
  const { y, m, day } = parse(d);
  return Date.UTC(y, m - 1, day) / DAY_MS;
};

/** Today in UTC, as the service dates everything. */
export const today = (now = new Date()): string => now.toISOString().slice(0, 10);

export function addDays(d: string, n: number): string {
  return format((dayNumber(d) + n) * DAY_MS);
}

export function addMonths(d: string, n: number): string {
  const { y, m, day } = parse(d);
  const months = y * 12 + (m - 1) + n;
  const ty = Math.floor(months / 12);
  const tm = months - ty * 12;
  const last = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return format(Date.UTC(ty, tm, Math.min(day, last)));
}

/** The n-th occurrence (n ≥ 0) of a series starting on `start`. */
export function occurrence(start: string, frequency: Frequency, interval: number, n: number): string {
  switch (frequency) {
    case 'daily':
      return addDays(start, n * interval);
    case 'weekly':
      return addDays(start, 7 * n * interval);
    case 'monthly':
      return addMonths(start, n * interval);
    case 'yearly':
      return addMonths(start, 12 * n * interval);
  }
}

/** The first occurrence strictly after `date` (the start itself when `date` is before it). */
export function occurrenceAfter(start: string, frequency: Frequency, interval: number, date: string): string {
  if (date < start) return start;
  let n: number;
  if (frequency === 'daily' || frequency === 'weekly') {
    const step = (frequency === 'weekly' ? 7 : 1) * interval;
    n = Math.floor((dayNumber(date) - dayNumber(start)) / step);
  } else {
    const a = parse(start);
    const b = parse(date);
    const months = (b.y - a.y) * 12 + (b.m - a.m);
    n = Math.max(0, Math.floor(months / ((frequency === 'yearly' ? 12 : 1) * interval)) - 1);
  }
  while (occurrence(start, frequency, interval, n) <= date) n++;
  return occurrence(start, frequency, interval, n);
}
