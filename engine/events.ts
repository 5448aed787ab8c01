// Events derived from the engine's writes: `<resource>.created|updated|deleted` for every
// resource, plus the state events descriptors declare (`events.states`). They are written by the
// write itself (the create statement carries them as one more CTE; the transactional paths run one
// more statement in their transaction), so a write that commits has its events and one that rolls
// back has none: a transactional outbox. Who listens, and where the events go, is the outbox's
// business (the server's webhooks); the engine only says what happened, with the record as its
// plain JSON representation after the change (before it, for a delete).
import { sql, type SQL } from 'drizzle-orm';
import type { Model, ModelResource } from './model.ts';
import { snake } from './names.ts';
import { recordJson, type Projection } from './projection.ts';
import { iso, literal } from './sql-text.ts';
import type { Statements } from './statements.ts';
import type { FieldValues, Tx } from './types.ts';

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
const PLAIN: Projection = { name: 'event', leadingMembers: () => [] };

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
  forWrite(r: ModelResource, kind: WriteKind, existing: FieldValues | null, data: FieldValues): string[];
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

/** Events as the writes record them, in their statement or transaction. */
export interface EventWriter extends Events {
  /** Records the events of a write of record `id`: one statement, in `tx` (none without events). */
  write(tx: Tx, r: ModelResource, id: string, kind: WriteKind, existing: FieldValues | null, data: FieldValues): Promise<void>;
  /** Records events `types` for records `ids` of `r`, as they are now: one statement, in `tx`. */
  emit(tx: Tx, r: ModelResource, ids: readonly string[], types: readonly string[]): Promise<void>;
  /** The condition "`r`'s row is record `$id`", for statement(). */
  byId(r: ModelResource): SQL;
}

export function eventWriter(model: Model, outbox: Outbox | undefined, statements: Statements): EventWriter {
  const events = createEvents(model, outbox);
  const byId = (r: ModelResource): SQL => sql`${sql.identifier(r.table)}.${sql.identifier('id')} = ${sql.placeholder('id')}`;
  return {
    ...events,
    byId,
    async write(tx, r, id, kind, existing, data) {
      const types = events.forWrite(r, kind, existing, data);
      if (!types.length) return;
      await statements.run(tx, { key: `events|${r.name}|${types.join(',')}`, build: () => events.statement(r, types, byId(r))! }, { id });
    },
    async emit(tx, r, ids, types) {
      if (!outbox || !ids.length || !types.length) return;
      const where = sql`${sql.identifier(r.table)}.${sql.identifier('id')} in (select jsonb_array_elements_text(${sql.placeholder('ids')}::text::jsonb)::uuid)`;
      await statements.run(tx, { key: `emit|${r.name}|${types.join(',')}`, build: () => events.statement(r, types, where)! }, { ids: JSON.stringify(ids) });
    },
  };
}
