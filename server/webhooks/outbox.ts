// The engine's outbox (engine/events.ts) for webhooks: an event becomes one delivery row per
// active webhook of the record's company that subscribes to its type (or to "*"), in the
// statement or transaction of the change. Nobody listening: nothing is written, and the event's
// payload is not even built. The subscribers are found for each event (a lateral subquery, kept
// apart by `offset 0`): the event's row, payload included, is made once and never hashed for a join.
import { sql, type SQL } from 'drizzle-orm';
import type { Outbox } from '../../engine/events.ts';

/** Active webhooks (aliased `as`) subscribed to `type`. */
const subscribed = (as: string, type: SQL): SQL => {
  const w = sql.identifier(as);
  return sql`${w}."active" and (${w}."events" @> jsonb_build_array(${type}) or ${w}."events" @> '["*"]'::jsonb)`;
};

export const webhookOutbox: Outbox = {
  listening: (company, type) => sql`exists (select 1 from "webhooks" as "__w" where "__w"."company_id" = ${company} and ${subscribed('__w', type)})`,
  record: (events) => sql`insert into "webhook_deliveries" ("id", "company_id", "webhook_id", "event_id", "type", "body", "status", "attempts", "next_attempt_at", "created_at", "updated_at")
    select gen_random_uuid(), "__e"."company", "__hw"."id", "__e"."event", "__e"."type", "__e"."body", 'pending', 0, now(), now(), now()
    from (${events}) as "__e" cross join lateral (select "__hw"."id" from "webhooks" as "__hw" where "__hw"."company_id" = "__e"."company" and ${subscribed('__hw', sql`"__e"."type"`)} offset 0) as "__hw"`,
};
