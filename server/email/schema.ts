// The e-mails' delivery queue: one row per e-mail waiting to be sent (status `queued`), written in
// the e-mail's own transaction (resources/rules/email.ts) and worked by the service's delivery
// mechanism (server/delivery/queue.ts) as the mail channel (server/email/worker.ts). The row goes
// when the e-mail is sent or failed; the e-mail record (the `emails` table) shows its fate.
import { index, integer, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

export const emailQueue = pgTable('email_queue', {
  /** The e-mail's id. No foreign key: e-mails are never deleted, and the insert stays one index entry. */
  id: uuid('id').primaryKey(),
  companyId: uuid('company_id').notNull(),
  /** Attempts counted (a claim counts the one it makes). */
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
  /** While an attempt runs: until when it is its instance's; another may take it over after. */
  leasedUntil: ts('leased_until'),
}, (t) => [index('email_queue_due_idx').on(t.nextAttemptAt)]);
