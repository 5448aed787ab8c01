// The one operation layer: list, read, create, update (merge or replace) and delete, with
// validation, tenancy, roles, state machines, hooks and transactions. REST and GraphQL both call
// these functions, so both APIs always agree. This module is the engine's interface and puts it
// together; the work is done in engine/read/ (one read path for every read, in a transaction or
// not) and engine/write/ (one module per operation, the state rules, the hooks' API).
import { sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { dbErrorTranslator } from './db-errors.ts';
import type { EngineParts } from './engine-parts.ts';
import { ApiError } from './errors.ts';
import { eventTypes, eventWriter, type Outbox } from './events.ts';
import type { HookApi } from './hooks.ts';
import type { Model, ModelResource } from './model.ts';
import type { Projection } from './projection.ts';
import type { Condition, ListQuery, Slice, SliceQuery } from './query.ts';
import { conditionShape, conditionSql, type Bind } from './read/conditions.ts';
import { createReads, type JsonPage, type Page } from './read/reads.ts';
import { createSelectLists } from './read/select-lists.ts';
import { createStatements } from './statements.ts';
import { withDensity } from './read/density.ts';
import type { AnyTable, Tables } from './tables.ts';
import type { Db, FieldValues, Principal, RawQuery, Tx } from './types.ts';
import { compileValidator, type ResourceValidator } from './validate.ts';
import { customOperations, withCustomResources } from './custom.ts';
import { assertWriter } from './roles.ts';
import { creates } from './write/create.ts';
import { nestedWrites } from './write/nested.ts';
import { hookApis } from './write/hook-api.ts';
import { owners as ownersOf } from './write/owners.ts';
import { referenceCheck } from './write/references.ts';
import { remove as removeOf } from './write/remove.ts';
import { update as updateOf } from './write/update.ts';
import { childRows } from './write/values.ts';
import { writeStatements } from './write/write-statements.ts';
import type { Precondition } from './versions.ts';
import { keepInsert, keepValues, KeptResponses, type Keep } from './idempotency.ts';
import type { OperationServices } from './descriptor.ts';

export type { JsonPage, Page } from './read/reads.ts';
export { driverError } from './db-errors.ts';

/** What a write may require and keep besides its change (CONTRACT §12). */
export interface WriteOptions {
  /** The versions the record must have (If-Match, GraphQL's `version`): 412 otherwise, nothing changed. */
  precondition?: Precondition;
  /** Keeps the result under an Idempotency-Key, in the same transaction as the change. */
  keep?: Keep;
}

/**
 * Reads whose records come out of the database as JSON text in a format's representation
 * (engine/projection.ts), ready to send.
 */
export interface JsonReads {
  /** A page as a JSON array text, with the collection's size. */
  list(p: Principal, r: ModelResource, q: ListQuery, projection: Projection): Promise<JsonPage>;
  /** One record as a JSON object text; 404 when missing, 403 when it belongs to another company. */
  read(p: Principal, r: ModelResource, id: string, projection: Projection): Promise<string>;
  /** `read`, with the record's version (its ETag). */
  readVersioned(p: Principal, r: ModelResource, id: string, projection: Projection): Promise<{ text: string; version: number }>;
}

export interface Engine {
  readonly model: Model;
  readonly tables: Tables;
  readonly json?: JsonReads;
  /** A page of records; `embedded: false` leaves their embedded children out (a CSV export shows none). */
  list(p: Principal, r: ModelResource, q: ListQuery, o?: { embedded?: boolean }): Promise<Page>;
  /** Reads one record; 404 when missing, 403 when it belongs to another company. */
  read(p: Principal, r: ModelResource, id: string): Promise<FieldValues>;
  /** Like read, but null for a missing or foreign record (GraphQL's behaviour). */
  find(p: Principal, r: ModelResource, id: string): Promise<FieldValues | null>;
  /**
   * Records of `r` by id, limited to the principal's company, in one statement. With
   * `embedded: false` the embedded children are left out (callers that fetch them otherwise).
   */
  findMany(p: Principal, r: ModelResource, ids: readonly string[], opts?: { embedded?: boolean }): Promise<FieldValues[]>;
  /**
   * A window of a collection (keyset cursor pagination, engine/read/window.ts): the records, the
   * collection's size and whether records lie before and after the window. Records come without
   * embedded children.
   */
  slice(p: Principal, r: ModelResource, q: SliceQuery): Promise<Slice>;
  /**
   * The same window over the records of `r` whose ref field `via` points at each of `parents`
   * (one parent's children, for many parents), in one statement whatever the number of parents.
   */
  sliceMany(p: Principal, r: ModelResource, via: string, parents: readonly string[], q: SliceQuery): Promise<Map<string, Slice>>;
  create(p: Principal, r: ModelResource, input: FieldValues, o?: WriteOptions): Promise<FieldValues>;
  update(p: Principal, r: ModelResource, id: string, input: FieldValues, mode: 'update' | 'replace', o?: WriteOptions): Promise<FieldValues>;
  remove(p: Principal, r: ModelResource, id: string, o?: WriteOptions): Promise<FieldValues>;
  /** A record's version alone (for If-None-Match); 404 when missing, 403 when another company's. */
  version(p: Principal, r: ModelResource, id: string): Promise<number>;
  /** Responses kept under Idempotency-Keys. */
  readonly kept: KeptResponses;
  /** A result kept by a write (Kept.result) as the record the write returned. */
  decodeKept(r: ModelResource, result: string): FieldValues;
  /**
   * For an adapter that compiles a whole read into one statement of its own (the GraphQL
   * compiler): the query that runs a SQL text, and the SQL of a collection condition, so that
   * its filters read exactly what the engine's do.
   */
  readonly rawReads: RawReads;
  /** Runs `fn` in one transaction; `bind` gives the engine's API inside it (used by scheduled jobs). */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Records events `types` for records `ids` of `r` in `tx` (changes made without the engine, by scheduled jobs). */
  emit(tx: Tx, r: ModelResource, ids: readonly string[], types: readonly string[]): Promise<void>;
  /** Every event type the model can emit. */
  eventTypes(): string[];
  /**
   * The payload of event `type` of record `id` (of company `company`) as the record is now, or
   * null when it is gone: for an event recorded without a body whose body was never saved.
   */
  eventBody(type: string, company: string, id: string, timestamp: string): Promise<string | null>;
  /** The hook API (reads, locks, creates with validation and hooks) in `tx`, acting as `p`. */
  bind(tx: Tx, p: Principal, r: ModelResource): HookApi;
}

export interface RawReads {
  /** Plain rows for a SQL text, prepared on PostgreSQL and counted with the statements. */
  query: RawQuery;
  /**
   * A condition on `r`'s table, its columns qualified by `as` (the table's alias in the
   * statement); `bind` turns each value into what the statement carries (a placeholder).
   * Timestamp bounds are bound as Dates.
   */
  condition(r: ModelResource, c: Condition, bind: Bind, as: string): SQL | undefined;
  /** What makes two conditions produce the same SQL text (their values aside). */
  shape(c: Condition): string;
  /** `r`'s table under the alias `as`: its columns are qualified by the alias. */
  table(r: ModelResource, as: string): AnyTable;
  /** `where` with its partial-match values' frequency in the company measured (engine/read/density.ts). */
  density(company: string, r: ModelResource, where: readonly Condition[]): Promise<readonly Condition[]>;
}

export interface EngineOptions {
  /**
   * Runs a SQL text with parameters and returns plain rows, outside transactions (the driver's
   * own prepared query). Without it, statements run through drizzle's session, as they do in
   * transactions.
   */
  raw?: RawQuery;
  /** Where the events of writes go (engine/events.ts); none are recorded without it. */
  outbox?: Outbox;
  /**
   * What hooks get as HookApi.services. The object is read when a hook runs, so the server may
   * fill it in after creating the engine (its services use the engine).
   */
  services?: OperationServices;
}

export function createEngine(db: Db, model: Model, tables: Tables, options: EngineOptions = {}): Engine {
  for (const r of model.resources) {
    for (const f of r.embedded) {
      const child = model.get(f.target!);
      // The insert statement writes embedded children one level deep, in tables of their own.
      if (child.table === r.table || child.embedded.length) throw new Error(`${r.name}.${f.name}: embedded children must have a table of their own and no embedded children of their own.`);
    }
  }
  const validators = new Map<string, ResourceValidator>();
  for (const r of model.resources) compileValidator(model, r, validators);
  const statements = createStatements(db, options.raw);
  const columns = createSelectLists(model, tables);
  const reads = createReads(db, model, tables, statements, columns);
  const secrets = new Map(model.resources.map((r) => [r.name, r.stored.filter((f) => f.def.kind === 'text' && f.def.mask !== undefined)]));
  const parts: EngineParts = {
    db,
    model,
    tables,
    statements,
    columns,
    reads,
    writeSql: writeStatements(model, tables, columns.of),
    translateDbError: dbErrorTranslator(model),
    validator: (r) => validators.get(r.name)!,
    events: eventWriter(model, options.outbox, statements),
    secrets: (r) => secrets.get(r.name)!,
  };

  const checkReferences = referenceCheck(parts);
  const children = childRows(model);
  const hooks = hookApis(parts, (tx, p, r, input) => create.inTransaction(tx, p, r, input), (tx, p, r, id, input) => update(tx, p, r, id, input, 'update'), options.services ?? ({} as OperationServices));
  const owners = ownersOf(parts, (tx, p, r) => hooks.inTransaction(tx, p, r));
  const nested = nestedWrites(parts, {
    create: (tx, p, r, input) => create.inTransaction(tx, p, r, input),
    update: (tx, p, r, id, input) => update(tx, p, r, id, input, 'update'),
    remove: (tx, p, r, id) => remove(tx, p, r, id),
  });
  const create = creates({ parts, checkReferences, hooks, owners, children, nested });
  const update = updateOf({ parts, checkReferences, hooks, owners, children, nested });
  const remove = removeOf(parts, hooks, owners);

  /** Runs a write in a transaction and turns constraint violations into API errors. */
  async function write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await parts.events.transaction((f) => db.transaction(f), fn);
    } catch (e) {
      throw parts.translateDbError(e);
    }
  }

  /** A write whose result is kept under `keep` (when given) before its transaction commits. */
  function kept(p: Principal, r: ModelResource, keep: Keep | undefined, fn: (tx: Tx) => Promise<FieldValues>): Promise<FieldValues> {
    if (!keep) return write(fn);
    return write(async (tx) => {
      const rec = await fn(tx);
      const values = { ...keepValues(keep, r.name), company: p.company.id, result: JSON.stringify(rec) };
      await statements.run(tx, { key: 'keep', build: () => keepInsert(tables.idempotency, sql`${sql.placeholder('result')}::text`) }, values);
      return rec;
    });
  }

  const aliases = new Map<string, AnyTable>();
  /** `r`'s table under another name, for statements that read it at several levels. */
  function aliased(r: ModelResource, as: string): AnyTable {
    const key = `${r.name}|${as}`;
    let t = aliases.get(key);
    if (!t) {
      if (aliases.size >= 2000) aliases.clear();
      aliases.set(key, (t = alias(tables.get(r), as) as AnyTable));
    }
    return t;
  }

  const engine: Engine = {
    model,
    tables,
    json: { list: reads.listJson, read: async (p, r, id, projection) => (await reads.readJson(p, r, id, projection)).text, readVersioned: reads.readJson },
    list: (p, r, q, o) => reads.list(p, r, q, o?.embedded ?? true),
    read: (p, r, id) => reads.readIn(db, p, r, id),
    async find(p, r, id) {
      const rec = await reads.fetch(db, r, id);
      return rec && rec.companyId === p.company.id ? rec : null;
    },
    findMany: (p, r, ids, opts) => reads.findMany(p, r, ids, opts?.embedded ?? true),
    slice: reads.slice,
    sliceMany: reads.sliceMany,
    async create(p, r, input, o = {}) {
      assertWriter(p, r);
      if (!create.inOneStatement(r, input)) return kept(p, r, o.keep, (tx) => create.inTransaction(tx, p, r, input));
      try {
        return await create.outsideTransaction(p, r, input, o.keep);
      } catch (e) {
        throw parts.translateDbError(e);
      }
    },
    update(p, r, id, input, mode, o = {}) {
      assertWriter(p, r);
      return kept(p, r, o.keep, (tx) => update(tx, p, r, id, input, mode, o.precondition));
    },
    remove(p, r, id, o = {}) {
      assertWriter(p, r);
      return kept(p, r, o.keep, (tx) => remove(tx, p, r, id, o.precondition));
    },
    version: reads.version,
    kept: new KeptResponses(db, tables.idempotency),
    decodeKept: (r, result) => columns.decode(r, JSON.parse(result) as Record<string, unknown>),
    rawReads: {
      query: statements.query,
      condition: (r, c, bind, as) => conditionSql(aliased(r, as), c, bind),
      shape: conditionShape,
      table: aliased,
      density: (company, r, where) => withDensity(db, statements, r, tables.get(r), company, where),
    },
    transaction: (fn) => write(fn),
    emit: (tx, r, ids, types) => parts.events.emit(tx, r, ids, types),
    eventTypes: () => eventTypes(model),
    eventBody: (type, company, id, timestamp) => parts.events.bodyNow(db, type, company, id, timestamp),
    bind: (tx, p, r) => hooks.inTransaction(tx, p, r),
  };
  // Resources with their own provider and processor are served by engine/custom.ts.
  return withCustomResources(engine, customOperations(db, model, validators, options.services));
}
