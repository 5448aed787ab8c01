// The daily job (`schedule:run` and the server's scheduler), across all companies:
// 1. pending invoices whose due date is before the run date become overdue;
// 2. each active recurring invoice whose next run is due issues one pending invoice dated the run
//    date and due `dueInDays` later, then moves to its next run, or to completed after endDate.
// Idempotent and safe with several instances: each recurring invoice is handled in its own
// transaction under an advisory lock and a row lock, its due date is checked again once locked,
// and a unique constraint (recurringInvoice, invoiceDate) makes a second invoice impossible.
import { and, asc, eq, isNotNull, lt, lte, sql } from 'drizzle-orm';
import type { Principal, FieldValues } from '../../engine/types.ts';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { Engine } from '../../engine/operations.ts';
import { addDays, occurrenceAfter, type Frequency } from './calendar.ts';

export interface ScheduleSummary {
  date: string;
  /** Invoices issued from recurring invoices. */
  created: number;
  /** Recurring invoices that reached their end date. */
  completed: number;
  /** Invoices marked overdue. */
  overdue: number;
  /** Recurring invoices that could not issue their invoice, with the reason. */
  failed: { recurringInvoice: string; reason: string }[];
  /** Reminder e-mails created (server/email/reminders.ts), and those refused, with the reason. */
  reminders?: number;
  failedReminders?: { invoice: string; reason: string }[];
}

/** Acts for a company in a scheduled job (the engine scopes everything to a principal). */
export type PrincipalFor = (companyId: string) => Promise<Principal>;

export async function runSchedule(engine: Engine, date: string, principalFor: PrincipalFor): Promise<ScheduleSummary> {
  const model = engine.model;
  const inv = engine.tables.get('Invoice');
  const rec = engine.tables.get('RecurringInvoice');
  const summary: ScheduleSummary = { date, created: 0, completed: 0, overdue: 0, failed: [] };

  summary.overdue = await engine.transaction(async (tx) => {
    const rows = await tx
      .update(inv)
      .set({ status: 'overdue', updatedAt: new Date() })
      .where(and(eq(inv.status, 'pending'), isNotNull(inv.dueDate), lt(inv.dueDate, date)))
      .returning({ id: inv.id });
    await engine.emit(tx, model.get('Invoice'), rows.map((r) => r.id as string), ['invoice.updated', 'invoice.overdue']);
    return rows.length;
  });

  // Series whose next run is past their end date (for example after endDate was moved) are done.
  summary.completed += await engine.transaction(async (tx) => {
    const rows = await tx
      .update(rec)
      .set({ status: 'completed', nextRunDate: null, updatedAt: new Date() })
      .where(and(eq(rec.status, 'active'), isNotNull(rec.endDate), sql`(${rec.nextRunDate} is null or ${rec.nextRunDate} > ${rec.endDate})`))
      .returning({ id: rec.id });
    return rows.length;
  });

  const due = (await engine.transaction((tx) =>
    tx
      .select({ id: rec.id, companyId: rec.companyId })
      .from(rec)
      .where(and(eq(rec.status, 'active'), lte(rec.nextRunDate, date)))
      .orderBy(asc(rec.nextRunDate), asc(rec.id)),
  )) as { id: string; companyId: string }[];

  const principals = new Map<string, Principal>();
  for (const { id, companyId } of due) {
    let p = principals.get(companyId);
    if (!p) principals.set(companyId, (p = await principalFor(companyId)));
    try {
      const outcome = await engine.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('schedule:run'), hashtext(${id}))`);
        const api = engine.bind(tx, p, model.get('RecurringInvoice'));
        const r = await api.lock('RecurringInvoice', id);
        // Checked again under the locks: another instance may have just handled it.
        if (!r || r.status !== 'active' || typeof r.nextRunDate !== 'string' || r.nextRunDate > date) return 'skipped';
        const end = typeof r.endDate === 'string' ? r.endDate : null;
        if (!end || r.nextRunDate <= end) {
          const lines = ((r.lines as FieldValues[] | null) ?? []).map((l, i) => ({ description: l.description, qty: l.qty, price: l.price, tax: l.tax, position: i }));
          const invoice = await api.create('Invoice', {
            client: r.client,
            status: 'pending',
            invoiceDate: date,
            dueDate: addDays(date, Number(r.dueInDays)),
            discountType: r.discountType,
            discountValue: r.discountValue,
            terms: r.terms,
            notes: r.notes,
            lines,
          });
          await tx.update(inv).set({ recurringInvoice: id }).where(eq(inv.id, String(invoice.id)));
        }
        const next = occurrenceAfter(String(r.startDate), r.frequency as Frequency, Number(r.interval), date);
        const done = end !== null && next > end;
        await tx
          .update(rec)
          .set({ lastRunDate: date, nextRunDate: done ? null : next, status: done ? 'completed' : 'active', updatedAt: new Date() })
          .where(eq(rec.id, id));
        if (!end || String(r.nextRunDate) <= end) await api.emit('RecurringInvoice', id, ['recurring_invoice.issued']);
        return !end || String(r.nextRunDate) <= end ? (done ? 'created+completed' : 'created') : 'completed';
      });
      if (outcome.startsWith('created')) summary.created++;
      if (outcome.endsWith('completed')) summary.completed++;
    } catch (e) {
      // The invoice for this run exists already (another instance made it): nothing to do.
      if (e instanceof ApiError && e.violations?.some((v) => v.code === ViolationCode.unique && v.propertyPath === 'invoiceDate')) continue;
      const reason = e instanceof ApiError ? e.message : 'unexpected error';
      summary.failed.push({ recurringInvoice: `${model.get('RecurringInvoice').iri}/${id}`, reason });
      if (!(e instanceof ApiError)) throw e;
    }
  }
  return summary;
}

export function describeSummary(s: ScheduleSummary): string {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const lines = [
    `schedule:run ${s.date}: ${n(s.created, 'invoice', 'invoices')} issued from recurring invoices, ` +
      `${n(s.completed, 'recurring invoice', 'recurring invoices')} completed, ${n(s.overdue, 'invoice', 'invoices')} marked overdue.`,
  ];
  if (s.reminders) lines.push(`${n(s.reminders, 'reminder', 'reminders')} e-mailed.`);
  for (const f of s.failed) lines.push(`  failed ${f.recurringInvoice}: ${f.reason}`);
  for (const f of s.failedReminders ?? []) lines.push(`  reminder failed ${f.invoice}: ${f.reason}`);
  return `${lines.join('\n')}\n`;
}
