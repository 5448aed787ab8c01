// Creating a record. How is decided once per resource at start-up, from its descriptor:
// - in one statement, with no transaction (two statements in all: the reference check, then the
//   insert of the record, its embedded children and its sequence numbers, atomic by itself), when
//   its create hooks use only the records it refers to (`hooks.create: 'references'`, or no
//   hooks), its computed fields are computed before the insert (`computeNew`), it is not a
//   child written through its owner, and the body carries no nested children (write/nested.ts);
// - otherwise in a transaction: the same checks and the same insert statement, then the computed
//   fields, the owner's recompute and afterWrite.
// Either way the hooks run once, and sequence numbers are taken by the insert statement. The
// write's events (engine/events.ts) are one more CTE of the insert in one statement, one more
// statement at the end of the transaction otherwise; the response shows the secrets it set.
import { revealed } from '../engine-parts.ts';
import type { EngineParts } from '../engine-parts.ts';
import type { HookApi } from '../hooks.ts';
import type { ModelField, ModelResource } from '../model.ts';
import type { FieldValues, Principal, Tx } from '../types.ts';
import { uuidv7 } from '../uuid.ts';
import type { HookApis } from './hook-api.ts';
import type { Owners } from './owners.ts';
import type { CheckReferences, LoadedRecords } from './references.ts';
import { checkNew } from './state-rules.ts';
import { bindColumns, storable, unnumbered, type ChildRows } from './values.ts';
import { createShapeKey, type CreateShape } from './write-statements.ts';
import { keepValues, type Keep } from '../idempotency.ts';
import { embeddedOnly, nestedOnly, type WriteNested } from './nested.ts';

export interface Creates {
  /**
   * Whether this create of `r` is written in one statement, outside a transaction: never one
   * carrying nested children, nor one entering a state other than the state machine's initial one
   * (an invoice created `pending`): that is a transition, whose rules (numbering aside) may need
   * the transaction.
   */
  inOneStatement(r: ModelResource, input: FieldValues): boolean;
  /** Creates a record in `tx` (a transaction), with validation, rules and hooks. */
  inTransaction(tx: Tx, p: Principal, r: ModelResource, input: FieldValues): Promise<FieldValues>;
  /** Creates a record of a resource written in one statement (see inOneStatement); `keep`: its result kept in that statement. */
  outsideTransaction(p: Principal, r: ModelResource, input: FieldValues, keep?: Keep): Promise<FieldValues>;
}

export interface CreateDeps {
  parts: EngineParts;
  checkReferences: CheckReferences;
  hooks: HookApis;
  owners: Owners;
  children: ChildRows;
  nested: WriteNested;
}

export function creates({ parts, checkReferences, hooks, owners, children, nested }: CreateDeps): Creates {
  const { db, model, statements, writeSql, columns, reads } = parts;

  const oneStatement = new Map(
    model.resources.map((r) => {
      const hooksAllow = r.hooks.create === 'references' || (!r.hooks.beforeWrite && !r.hooks.afterWrite);
      return [r.name, !r.owner && (!r.computed || r.computed.computeNew !== undefined) && hooksAllow];
    }),
  );

  /** The shape and values of the insert statement. */
  function insertOf(p: Principal, r: ModelResource, id: string, data: FieldValues, embedded: Map<string, FieldValues[]>, keep?: Keep): { shape: CreateShape; values: Record<string, unknown> } {
    const now = new Date().toISOString();
    const numbered = unnumbered(r, data);
    const withRows: ModelField[] = [];
    const values: Record<string, unknown> = { id, company: p.company.id, now };
    const cols = bindColumns(r, storable(r, data), values, numbered);
    for (const [name, items] of embedded) {
      if (!items.length) continue;
      const f = r.byName.get(name)!;
      values[`c${withRows.length}`] = JSON.stringify(children.rows(p, f, id, now, items));
      withRows.push(f);
    }
    if (keep) Object.assign(values, keepValues(keep, r.name));
    return { shape: { columns: cols, numbered, children: withRows, keep: Boolean(keep) }, values };
  }

  /** Runs the insert statement; with `events` (event types), it records them too. */
  async function insert(tx: Tx, r: ModelResource, statement: { shape: CreateShape; values: Record<string, unknown> }, events: readonly string[] = []): Promise<FieldValues> {
    const { shape, values } = statement;
    const key = `${createShapeKey(r, shape)}|${events.join(',')}`;
    // Only the single-statement create records events here (`tx` is then no transaction): what it
    // records is handed over with its row, the statement having committed, and without a body:
    // the outbox makes the payloads from the record the statement returns (the record as written),
    // so that the statement, which holds the company's next invoice number until its commit,
    // builds no JSON for them.
    const handed = events.length > 0 && parts.events.handsOff;
    const build = () =>
      handed
        ? writeSql.create(r, shape, parts.events.ofNew(r, events), parts.events.handedColumn)
        : writeSql.create(r, shape, parts.events.statement(r, events, parts.events.byId(r)));
    const [row] = await statements.run(tx, { key, build }, values);
    const taken = handed ? parts.events.handedOf(row!) : undefined;
    const record = columns.decode(r, row!);
    // Before the response reveals its secrets in it: the payloads show them masked, as reads do.
    taken?.commit({ resource: r, record });
    return record;
  }

  /** Validation, the reference check, the record's own rules and beforeWrite: the write's values. */
  async function prepare(tx: Tx, p: Principal, r: ModelResource, input: FieldValues, api: (loaded: LoadedRecords) => HookApi) {
    const n = parts.validator(r).normalise(input, 'create', null);
    const loaded: LoadedRecords = new Map();
    await checkReferences(tx, p, n, loaded);
    return { n, loaded, data: n.data, hookApi: api(loaded) };
  }

  return {
    inOneStatement(r, input) {
      if (!oneStatement.get(r.name) || r.nested.some((f) => input[f.name] !== undefined)) return false;
      const state = r.states ? input[String(r.states.field)] : undefined;
      return state === undefined || state === null || state === r.states!.initial;
    },

    async inTransaction(tx, p, r, input) {
      const { n, data, hookApi } = await prepare(tx, p, r, input, (loaded) => hooks.inTransaction(tx, p, r, loaded));
      const ownerId = await owners.lock(tx, p, r, r.owner ? data[r.owner.field.name] : undefined);
      checkNew(r, data);
      await r.hooks.beforeWrite?.(hookApi, { op: 'create', data, existing: null, input: n.data });
      await r.computed?.computeNew?.(hookApi, data, n.children);
      const id = uuidv7();
      const rec = await insert(tx, r, insertOf(p, r, id, data, embeddedOnly(r, n.children)));
      await nested(tx, p, r, id, nestedOnly(r, n.children), true);
      const computeAfter = r.computed !== undefined && r.computed.computeNew === undefined;
      if (computeAfter) await r.computed!.compute(hookApi, id);
      await owners.recompute(tx, p, r, ownerId);
      await r.hooks.afterWrite?.(hookApi, { op: 'create', id, data, existing: null, input: n.data });
      await parts.events.write(tx, r, id, 'created', null, data);
      // What ran after the insert may have changed the record (or its children's computed values).
      return revealed(parts, r, computeAfter || ownerId !== undefined || r.hooks.afterWrite || r.nested.length ? (await reads.fetch(tx, r, id))! : rec, data);
    },

    async outsideTransaction(p, r, input, keep) {
      const { n, data, loaded, hookApi } = await prepare(db, p, r, input, (loaded) => hooks.withoutTransaction(p, r, loaded, false));
      checkNew(r, data);
      await r.hooks.beforeWrite?.(hookApi, { op: 'create', data, existing: null, input: n.data });
      await r.computed?.computeNew?.(hookApi, data, n.children);
      const id = uuidv7();
      // Taken before afterWrite: what it changes in `data` is not written (as after an insert).
      const statement = insertOf(p, r, id, data, embeddedOnly(r, n.children), keep);
      await r.hooks.afterWrite?.(hooks.withoutTransaction(p, r, loaded, true), { op: 'create', id, data, existing: null, input: n.data });
      const events = parts.events.forWrite(r, 'created', null, data);
      return revealed(parts, r, await insert(db, r, statement, events), data);
    },
  };
}
