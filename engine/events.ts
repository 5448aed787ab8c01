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
import { payloadSql } from './payload.ts';
import type { Statements } from './statements.ts';
import type { FieldValues, Tx } from './types.ts';

export type WriteKind = 'created' | 'updated' | 'deleted';

/** Where events go. Its SQL runs inside the write's statement or transaction. */
export interface Outbox {
  /** A condition: someone of company `company` (a uuid) listens to events of type `type` (text). */
  listening(company: SQL, type: SQL): SQL;
  /**
   * A data-modifying statement, usable as a CTE, recording the rows of `events`: columns
   * `event` (uuid, the event's id), `company`, `type`, `record` (the record's id) and `body` (the
   * payload's JSON text; null when the write hands its record over with its events, see below).
   * With `handed`, what it records is for `handOff` (below): its rows come back to this process.
   */
  record(events: SQL, handed: boolean): SQL;
  /**
   * Optional: the outbox takes what a write recorded straight from the write, once it has
   * committed, rather than looking for it in the database afterwards. `rows(recorded)` selects
   * what it needs from the CTE named `recorded` (record()'s rows); `committed` receives those rows
   * after the commit, and only then: a write that rolls back hands over nothing. The
   * single-statement create gives `written` too, the record as its statement wrote and returned
   * it: its events were recorded without a body, which the outbox makes from that record
   * (outside the statement, whose section holds the company's invoice number until its commit).
   */
  handOff?: { rows(recorded: SQL): SQL; committed(rows: Record<string, unknown>[], written?: Written): void };
}

/** A record as its write wrote it (decoded as a read decodes it), for the payloads of its events. */
export interface Written {
  readonly resource: ModelResource;
  readonly record: FieldValues;
}

/** The payload's record: the plain JSON representation (no leading members), as a GET returns it. */
const PLAIN: Projection = { name: 'event', leadingMembers: () => [] };

/** The name events of `r` start with: its name in snake case (`invoice_line`). */
export const eventPrefix = (r: ModelResource): string => snake(r.name);

/** Every event type the model can emit, in model order. */
export function eventTypes(model: Model): string[] {
  const out: string[] = [];
  for (const r of model.resources) {
    if (r.provider) continue; // not written by the engine: nothing it tells (reports, the company profile, API tokens)
    const p = eventPrefix(r);
    out.push(`${p}.created`, `${p}.updated`, `${p}.deleted`);
    const e = r.events;
    for (const s of e?.states ?? []) out.push(s.type);
    out.push(...(e?.deleted ?? []), ...(e?.emitted ?? []));
    for (const o of r.operations) out.push(...(o.def.events ?? []));
  }
  return [...new Set(out)];
}

export interface Events {
  /** The event types a write emits: its kind's, and the state events it triggers. */
  forWrite(r: ModelResource, kind: WriteKind, existing: FieldValues | null, data: FieldValues): string[];
  /**
   * The statement recording events `types` for the records of `r` matching `where` (a condition
   * on the table named as `r.table`), or undefined when there is nothing to record. `handed`:
   * its rows are handed over (Outbox.handOff).
   */
  statement(r: ModelResource, types: readonly string[], where: SQL, handed?: boolean): SQL | undefined;
  /**
   * The statement recording events `types` of the record being created, `$id` of company
   * `$company`, handed over (Outbox.handOff) with no body: the write hands the record it wrote
   * over with them. It reads nothing the write writes, and asks nothing more of the outbox than
   * record() does (which writes nothing where nobody listens).
   */
  ofNew(r: ModelResource, types: readonly string[]): SQL | undefined;
  /**
   * The payload of event `type` of record `id` of company `company` as the record is now, built
   * by the statement that builds the bodies of events recorded in a transaction: for an event
   * recorded without a body whose write's process stopped before the body was saved. Null when
   * the record is gone (or the type is not a record's).
   */
  bodyNow(db: Tx, type: string, company: string, id: string, timestamp: string): Promise<string | null>;
}

/** The resource whose records event `type` carries, by type. */
function resourcesByType(model: Model): Map<string, ModelResource> {
  const by = new Map<string, ModelResource>();
  for (const r of model.resources) {
    const p = eventPrefix(r);
    const e = r.events;
    for (const t of [`${p}.created`, `${p}.updated`, `${p}.deleted`, ...(e?.states ?? []).map((s) => s.type), ...(e?.deleted ?? []), ...(e?.emitted ?? [])]) if (!by.has(t)) by.set(t, r);
  }
  return by;
}

/** Event types `types` as a relation, its column `typed`. */
const typesOf = (types: readonly string[]): SQL =>
  sql`(values ${sql.join(types.map((x) => sql`(${literal(x)})`), sql`, `)}) as ${sql.identifier('__types')}(${sql.identifier('__type')})`;
const typed = sql`${sql.identifier('__types')}.${sql.identifier('__type')}`;


export function createEvents(model: Model, outbox: Outbox | undefined, statements: Statements): Events {
  const byType = resourcesByType(model);
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
    statement(r, types, where, handed = false) {
      if (!outbox || !types.length) return undefined;
      const t = sql.identifier(r.table);
      // gen_random_uuid() keeps the subquery from being flattened: one id per event, whatever
      // the number of subscribers the outbox fans it out to.
      const events = sql`select gen_random_uuid() as "event", ${t}."company_id" as "company", ${typed} as "type", ${t}."id" as "record",
        ${payloadSql(typed, iso(sql`now()`), recordJson(model, r, r.table, PLAIN, true))} as "body"
        from ${t} cross join ${typesOf(types)}
        where ${where} and ${outbox.listening(sql`${t}."company_id"`, typed)}`;
      return outbox.record(events, handed);
    },
    ofNew(r, types) {
      if (!outbox?.handOff || !types.length) return undefined;
      const company = sql`${sql.placeholder('company')}::uuid`;
      const events = sql`select gen_random_uuid() as "event", ${company} as "company", ${typed} as "type", ${sql.placeholder('id')}::uuid as "record", null::text as "body"
        from ${typesOf(types)}`;
      return outbox.record(events, true);
    },
    async bodyNow(db, type, company, id, timestamp) {
      const r = byType.get(type);
      if (!r) return null;
      const t = sql.identifier(r.table);
      const [row] = await statements.run(db, {
        key: `event-body|${r.name}`,
        build: () => sql`select ${payloadSql(sql`${sql.placeholder('type')}::text`, sql`${sql.placeholder('timestamp')}::text`, recordJson(model, r, r.table, PLAIN, true))} as "body"
          from ${t} where ${t}."id" = ${sql.placeholder('id')} and ${t}."company_id" = ${sql.placeholder('company')}`,
      }, { type, timestamp, id, company });
      return row ? String(row.body) : null;
    },
  };
}

/** Events as the writes record them, in their statement or transaction. */
export interface EventWriter extends Events {
  /** Whether writes hand what they record to the outbox (Outbox.handOff). */
  readonly handsOff: boolean;
  /** The select-list column of the single-statement create carrying the rows its CTE `recorded` (named as in SQL) recorded. */
  handedColumn(recorded: SQL): SQL;
  /**
   * Takes the rows of a single-statement create's handedColumn out of its row `row`; `commit`
   * hands them to the outbox with the record the statement wrote (decoded from what is left).
   */
  handedOf(row: Record<string, unknown>): { commit(written: Written): void };
  /**
   * Runs `fn` in transaction-opening `open`, then hands what its writes recorded to the outbox
   * once it has committed.
   */
  transaction<T>(open: (fn: (tx: Tx) => Promise<T>) => Promise<T>, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Records the events of a write of record `id`: one statement, in `tx` (none without events). */
  write(tx: Tx, r: ModelResource, id: string, kind: WriteKind, existing: FieldValues | null, data: FieldValues): Promise<void>;
  /** Records events `types` for records `ids` of `r`, as they are now: one statement, in `tx`. */
  emit(tx: Tx, r: ModelResource, ids: readonly string[], types: readonly string[]): Promise<void>;
  /** The condition "`r`'s row is record `$id`", for statement(). */
  byId(r: ModelResource): SQL;
}

const HANDED = '__handed';

export function eventWriter(model: Model, outbox: Outbox | undefined, statements: Statements): EventWriter {
  const events = createEvents(model, outbox, statements);
  const handOff = outbox?.handOff;
  const byId = (r: ModelResource): SQL => sql`${sql.identifier(r.table)}.${sql.identifier('id')} = ${sql.placeholder('id')}`;
  /** The rows recorded in each open transaction (of transaction() below), handed over at its commit. */
  const open = new WeakMap<Tx, Record<string, unknown>[]>();

  /** Runs statement `key` recording events; in a transaction of ours, its rows are handed over at the commit. */
  async function record(tx: Tx, key: string, build: (handed: boolean) => SQL, values: Record<string, unknown>): Promise<void> {
    const held = handOff ? open.get(tx) : undefined;
    if (!held) {
      await statements.run(tx, { key, build: () => build(false) }, values);
      return;
    }
    const recorded = sql`${sql.identifier('__recorded')}`;
    const rows = await statements.run(tx, { key: `${key}|handed`, build: () => sql`with ${recorded} as (${build(true)}) ${handOff!.rows(recorded)}` }, values);
    held.push(...rows);
  }

  return {
    ...events,
    byId,
    handsOff: handOff !== undefined,
    handedColumn: (recorded) =>
      sql`(select coalesce(json_agg(${sql.identifier('__h')}), '[]'::json)::text from (${handOff!.rows(recorded)}) as ${sql.identifier('__h')}) as ${sql.identifier(HANDED)}`,
    handedOf(row) {
      const text = row[HANDED];
      delete row[HANDED];
      return {
        commit(written) {
          if (typeof text !== 'string' || text === '[]') return;
          handOff!.committed(JSON.parse(text) as Record<string, unknown>[], written);
        },
      };
    },
    async transaction(begin, fn) {
      if (!handOff) return begin(fn);
      let held: Record<string, unknown>[] = [];
      const result = await begin((tx) => {
        // A transaction retried by its opener starts again with nothing recorded.
        held = [];
        open.set(tx, held);
        return fn(tx);
      });
      if (held.length) handOff.committed(held);
      return result;
    },
    async write(tx, r, id, kind, existing, data) {
      const types = events.forWrite(r, kind, existing, data);
      if (!types.length) return;
      await record(tx, `events|${r.name}|${types.join(',')}`, (handed) => events.statement(r, types, byId(r), handed)!, { id });
    },
    async emit(tx, r, ids, types) {
      if (!outbox || !ids.length || !types.length) return;
      const where = sql`${sql.identifier(r.table)}.${sql.identifier('id')} in (select jsonb_array_elements_text(${sql.placeholder('ids')}::text::jsonb)::uuid)`;
      await record(tx, `emit|${r.name}|${types.join(',')}`, (handed) => events.statement(r, types, where, handed)!, { ids: JSON.stringify(ids) });
    },
  };
}
