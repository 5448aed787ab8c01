// Reminders (CONTRACT §15), run by the daily job after the overdue marking: every pending or
// overdue invoice with a balance gets one `reminder` e-mail per offset of its company's
// `reminders` that its due date plus the offset has reached, to the recipients of its last
// e-mail of kind `document` (else its client's contacts). Each is created in its own transaction
// through the e-mail rules (resources/rules/email.ts); the unique key (document, reminder) of the
// e-mails' table makes a second one for the same invoice and offset impossible, whatever runs at
// the same time (another instance's run waits for the first's commit, then finds the key taken).
import { sql } from 'drizzle-orm';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { Engine } from '../../engine/operations.ts';
import type { Principal } from '../../engine/types.ts';
import { rowsOf } from '../db.ts';

export interface ReminderSummary {
  sent: number;
  failed: { invoice: string; reason: string }[];
}

export async function sendReminders(engine: Engine, date: string, principalFor: (companyId: string) => Promise<Principal>): Promise<ReminderSummary> {
  const summary: ReminderSummary = { sent: 0, failed: [] };
  const email = engine.model.get('Email');
  const invoices = engine.model.get('Invoice');
  // The (invoice, offset) pairs due and not sent yet, oldest due date first.
  const due = await engine.transaction(async (tx) =>
    rowsOf<{ id: string; company_id: string; off: number }>(await tx.execute(sql`
      select i.id, i.company_id, o.off::int as off
      from companies c cross join lateral jsonb_array_elements_text(c.reminders) as o(off)
      join ${sql.identifier(invoices.table)} i on i.company_id = c.id
      where jsonb_array_length(c.reminders) > 0 and i.status in ('pending', 'overdue') and i.balance > 0 and i.due_date is not null
        and i.due_date + o.off::int <= ${date}::date
        and not exists (select 1 from ${sql.identifier(email.table)} e where e.company_id = i.company_id and e.document = ${`${invoices.iri}/`} || i.id::text and e.reminder = o.off)
      order by i.due_date, i.id, o.off::int`)),
  );
  const principals = new Map<string, Principal>();
  for (const { id, company_id: company, off } of due) {
    let p = principals.get(company);
    if (!p) principals.set(company, (p = await principalFor(company)));
    const document = `${invoices.iri}/${id}`;
    try {
      await engine.transaction(async (tx) => {
        const [last] = rowsOf<{ to: string[] | string }>(await tx.execute(sql`
          select e."to" from ${sql.identifier(email.table)} e where e.company_id = ${company} and e.document = ${document} and e.kind = 'document'
          order by e.created_at desc, e.id desc limit 1`));
        const to = last ? (typeof last.to === 'string' ? (JSON.parse(last.to) as string[]) : last.to) : [];
        const api = engine.bind(tx, p, email);
        const marks = api.services.reminders;
        if (!marks) throw new Error('The engine has no `reminders` service (server/services.ts): reminders cannot be told from other e-mails.');
        await marks.creating(tx, off, () => api.create('Email', { document, ...(to.length ? { to } : {}) }));
      });
      summary.sent++;
    } catch (e) {
      // Sent already (another run got there first): nothing to do.
      if (e instanceof ApiError && e.violations?.some((v) => v.code === ViolationCode.unique)) continue;
      if (!(e instanceof ApiError)) throw e;
      summary.failed.push({ invoice: document, reason: `${e.message}${e.violations?.length ? ` (${e.violations.map((v) => `${v.propertyPath}: ${v.message}`).join('; ')})` : ''}` });
    }
  }
  return summary;
}
