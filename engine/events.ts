// Events derived from the engine's writes: `<resource>.created|updated|deleted` for every
// resource, plus the state events descriptors declare (`events.states`). They are written by the
// write itself (the create statement carries them as one more CTE; the transactional paths run one
// more statement in their transaction), so a write that commits has its events and one that rolls
// back has none: a transactional outbox. Who listens, and where the events go, is the outbox's
// business (the server's webhooks); the engine only says what happened, with the record as its
// plain JSON representation after the change (before it, for a delete).
import { sql, type SQL } from 'drizzle-orm';
import type { Rec } from './context.ts';
import type { Model, ModelResource } from './model.ts';
import { snake } from './names.ts';
import { recordJson, type Projection } from './projection.ts';
import { iso, literal } from './sql-text.ts';

export type WriteKind = 'created' | 'updated' | 'deleted';

/** Where events go. Its SQL runs inside the write's statement or transaction. */
export interface Outbox {
  /** A condition: someone of company `company` (a uuid) listens to events of type `type` (text). */
  listening(company: SQL, type: SQL): SQL;
  /**
   * A data-modifying statement, usable as a CTE, recording the rows of `events`: columns
   * `event` (uuid, the event's id), `company`, `type` and `body` (the payload's JSON text).
   */
  record(events: SQL): SQL;
}

/** The payload's record: the plain JSON representation (no leading members), as a GET returns it. */
const PLAIN: Projection = { name: 'event', lead: () => [] };

/** The name events of `r` start with: its name in snake case (`invoice_line`). */
export const eventPrefix = (r: ModelResource): string => snake(r.name);

/** Every event type the model can emit, in model order. */
export function eventTypes(model: Model): string[] {
  const out: string[] = [];
  for (const r of model.resources) {
    const p = eventPrefix(r);
    out.push(`${p}.created`, `${p}.updated`, `${p}.deleted`);
    const e = r.events;
    for (const s of e?.states ?? []) out.push(s.type);
    out.push(...(e?.deleted ?? []), ...(e?.emitted ?? []));
  }
  return [...new Set(out)];
}

export interface Events {
  /** The event types a write emits: its kind's, and the state events it triggers. */
  forWrite(r: ModelResource, kind: WriteKind, existing: Rec | null, data: Rec): string[];
  /**
   * The statement recording events `types` for the records of `r` matching `where` (a condition
   * on the table named as `r.table`), or undefined when there is nothing to record.
   */
  statement(r: ModelResource, types: readonly string[], where: SQL): SQL | undefined;
}

export function createEvents(model: Model, outbox: Outbox | undefined): Events {
  return {
    forWrite(r, kind, existing, data) {
      if (!outbox) return [];
      const types = [`${eventPrefix(r)}.${kind}`];
      const sm = r.states;
      if (kind === 'deleted') types.push(...(r.events?.deleted ?? []));
      else if (sm && r.events?.states) {
        const field = String(sm.field);
        const from = existing ? String(existing[field]) : null;
        const to = String(data[field]);
        if (from !== to) {
          for (const s of r.events.states) if (s.to === to && (!s.from || (from !== null && s.from.includes(from)))) types.push(s.type);
        }
      }
      return types;
    },
    statement(r, types, where) {
      if (!outbox || !types.length) return undefined;
      const t = sql.identifier(r.table);
      const type = sql.identifier('__type');
      const typed = sql`${sql.identifier('__types')}.${type}`;
      const values = sql.join(types.map((x) => sql`(${literal(x)})`), sql`, `);
      // gen_random_uuid() keeps the subquery from being flattened: one id per event, whatever
      // the number of subscribers the outbox fans it out to.
      const events = sql`select gen_random_uuid() as "event", ${t}."company_id" as "company", ${typed} as "type",
        json_build_object('type', ${typed}, 'timestamp', ${iso(sql`now()`)}, 'data', ${recordJson(model, r, r.table, PLAIN, true)})::text as "body"
        from ${t} cross join (values ${values}) as ${sql.identifier('__types')}(${type})
        where ${where} and ${outbox.listening(sql`${t}."company_id"`, typed)}`;
      return outbox.record(events);
    },
  };
}
