// The webhooks' delivery queue and log: one row per event and endpoint, written by the change's
// own statement or transaction (server/webhooks/outbox.ts) and worked by server/webhooks/worker.ts.
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: uuid('id').primaryKey(),
  /**
   * The webhook's company (for tenancy). No foreign key of its own: the webhook's cascades from the
   * company already, and each key checked is one more lookup and row lock per delivery written.
   */
  companyId: uuid('company_id').notNull(),
  /**
   * The endpoint. No foreign key: its check would lock the webhook's row (FOR KEY SHARE) and log
   * the lock in every write that records an event, inside the write's section that holds the
   * company's invoice number, and a write whose endpoint was deleted meanwhile would fail with the
   * key's error (a 409 on an invoice create). A trigger on `webhooks` deletes an endpoint's
   * deliveries with it (drizzle/0012_delivery_webhook_trigger.sql); a delivery written by a write
   * that began before the endpoint's deletion committed outlives it, attempted at most once (when
   * handed over by its write) and never claimed (server/webhooks/worker.ts).
   */
  webhookId: uuid('webhook_id').notNull(),
  /** The event's id: the `webhook-id` header, the same on every attempt. */
  eventId: uuid('event_id').notNull(),
  type: text('type').notNull(),
  /** The record the event is about (null for a ping). */
  recordId: uuid('record_id'),
  /**
   * The payload exactly as it is sent (and signed). Null until saved for an event that its write
   * handed to this server's worker without a body (a single-statement create): the worker saves
   * the body it made from the written record with the first attempt's outcome (or when it hands
   * the delivery back). Still null when the delivery is claimed (its server stopped before): the
   * body is made from the record as it is then (Engine.eventBody).
   */
  body: text('body'),
  /** pending | succeeded | failed */
  status: text('status').notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  /** When the next attempt is due (null once the delivery succeeded or failed). */
  nextAttemptAt: ts('next_attempt_at'),
  /**
   * While an attempt runs: until when it is its instance's (its lease); another instance may take
   * it over after that. Not indexed, so that a claim changes no indexed column: a HOT update.
   */
  leasedUntil: ts('leased_until'),
  lastStatus: integer('last_status'),
  lastError: text('last_error'),
  lastDurationMs: integer('last_duration_ms'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
  // The log newest first, unfiltered and by each filter (status, type): a page costs what it returns.
  // The status index holds the unsettled (pending, failed) only: a succeeded delivery, most of a
  // log, leaves it, and `status=succeeded` pages read the log's own index, which they mostly match.
  index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt, t.id),
  index('webhook_deliveries_status_idx').on(t.webhookId, t.status, t.createdAt, t.id).where(sql`status <> 'succeeded'`),
  index('webhook_deliveries_type_idx').on(t.webhookId, t.type, t.createdAt, t.id),
]);
