// The engine's outbox (engine/events.ts) for webhooks: an event becomes one delivery row per
// active webhook of the record's company that subscribes to its type (or to "*"), in the
// statement or transaction of the change. Nobody listening: nothing is written, and the event's
// payload is not even built. The subscribers are found for each event (a lateral subquery, kept
// apart by `offset 0`): the event's row, payload included, is made once and never hashed for a join.
//
// In a server whose worker runs, the deliveries a write records are handed to that worker (its
// first attempt counted and leased to it by the insert itself, as a claim would), and come back
// to it with the write's result once the write has committed: the first attempt is made without
// looking for it in the database. If the server dies first, the lease ends and any instance's
// worker takes the delivery over (server/webhooks/worker.ts).
//
// A single-statement create records its deliveries without a body: the payload is made here,
// after the commit, from the record the statement returned (the record as written, rendered as
// the plain JSON format renders a GET), and saved by the worker with the first attempt's outcome.
// The create's statement holds the company's invoice number until its commit; building the JSON
// and writing its bytes there made every create of a company with a webhook wait longer for the
// one before it.
import { sql, type SQL } from 'drizzle-orm';
import type { Outbox, Written } from '../../engine/events.ts';
import type { Model } from '../../engine/model.ts';
import { present } from '../../formats/present.ts';
import { payloadText } from '../../engine/payload.ts';

/** Active webhooks (aliased `as`) subscribed to `type`. */
const subscribed = (as: string, type: SQL): SQL => {
  const w = sql.identifier(as);
  return sql`${w}."active" and (${w}."events" @> jsonb_build_array(${type}) or ${w}."events" @> '["*"]'::jsonb)`;
};

/** What takes the deliveries handed over: a running worker. */
export interface DeliveryTaker {
  /** How long a delivery handed over is its taker's (its lease, in ms). */
  readonly handOffLeaseMs: number;
  /**
   * Takes the deliveries of a committed write (rows as the claim returns them). `fresh`: their
   * bodies were made here, not read from the database, and are saved by the taker.
   */
  take(rows: Record<string, unknown>[], fresh: boolean): void;
}

// The payload's one builder, shared with the database's (engine/payload.ts).
export { payloadText };

/** Gives handed rows recorded without a body the payload made from the record written. */
function withBodies(model: Model, rows: Record<string, unknown>[], written: Written | undefined): boolean {
  if (!written || rows.every((row) => row.body !== null)) return false;
  const data = JSON.stringify(present(model, written.resource, written.record));
  for (const row of rows) if (row.body === null) row.body = payloadText(String(row.type), row.created_at as string, data);
  return true;
}

/** The outbox; with `taker`, deliveries are handed to it (see above). */
export function webhookOutbox(model: Model, taker?: DeliveryTaker): Outbox {
  return {
    listening: (company, type) => sql`exists (select 1 from "webhooks" as "__w" where "__w"."company_id" = ${company} and ${subscribed('__w', type)})`,
    record(events, handed) {
      const lease = handed ? sql`1, now() + ${sql.raw(`interval '${Math.round(taker!.handOffLeaseMs)} milliseconds'`)}` : sql`0, null`;
      return sql`insert into "webhook_deliveries" ("id", "company_id", "webhook_id", "event_id", "type", "record_id", "body", "status", "attempts", "leased_until", "next_attempt_at", "created_at", "updated_at")
    select gen_random_uuid(), "__e"."company", "__hw"."id", "__e"."event", "__e"."type", "__e"."record", "__e"."body", 'pending', ${lease}, now(), now(), now()
    from (${events}) as "__e" cross join lateral (select "__hw"."id" from "webhooks" as "__hw" where "__hw"."company_id" = "__e"."company" and ${subscribed('__hw', sql`"__e"."type"`)} offset 0) as "__hw"${handed ? sql` returning "id", "event_id", "type", "created_at", "body", "attempts", "webhook_id"` : sql``}`;
    },
    handOff: taker && {
      // The endpoint's URL and secret as the write saw them (a rotation commits before or after it).
      rows: (recorded) => sql`select "__r".*, "__w"."url", "__w"."secret" from ${recorded} as "__r" join "webhooks" as "__w" on "__w"."id" = "__r"."webhook_id"`,
      committed: (rows, written) => taker.take(rows, withBodies(model, rows, written)),
    },
  };
}
