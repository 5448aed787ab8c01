// The one operation layer: list, read, create, update (merge or replace) and delete, with
// validation, tenancy, roles, state machines, hooks and transactions. REST and GraphQL both call
// these functions, so both APIs always agree.
import { and, asc, desc, eq, fillPlaceholders, gt, gte, ilike, inArray, lt, lte, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { alias, type PgDialect } from 'drizzle-orm/pg-core';
import type { Db, Principal, RawQuery, Rec, Tx } from './context.ts';
import { ApiError, Violations, ViolationCode as C } from './errors.ts';
import type { HookApi } from './hooks.ts';
import type { Model, ModelField, ModelResource } from './model.ts';
import { tieBreak, windowBounds, type Condition, type ListQuery, type Order, type Slice, type SliceQuery } from './query.ts';
import { recordJson, type Projection } from './projection.ts';
import { iso } from './sql-text.ts';
import type { AnyTable, Tables } from './tables.ts';
import { countShape, countSql } from './counts.ts';
import { compileValidator, decimalString, isUuid, sameValue, type Normalised, type PendingRef, type ResourceValidator, type WriteMode } from './validate.ts';
import { uuidv7 } from './uuid.ts';
import { createShapeKey, writeStatements, type CreateShape } from './write-statements.ts';

export interface Page {
  items: Rec[];
  total: number;
}

/**
 * Reads whose records come out of the database as JSON text in a format's representation
 * (engine/projection.ts), ready to send. Present when the engine runs raw statements.
 */
export interface JsonReads {
  /** A page as a JSON array text, with the collection's size. */
  list(p: Principal, r: ModelResource, q: ListQuery, projection: Projection): Promise<{ members: string; total: number }>;
  /** One record as a JSON object text; 404 when missing, 403 when it belongs to another company. */
  read(p: Principal, r: ModelResource, id: string, projection: Projection): Promise<string>;
}

export interface Engine {
  readonly model: Model;
  readonly tables: Tables;
  readonly json?: JsonReads;
  list(p: Principal, r: ModelResource, q: ListQuery): Promise<Page>;
  /** Reads one record; 404 when missing, 403 when it belongs to another company. */
  read(p: Principal, r: ModelResource, id: string): Promise<Rec>;
  /** Like read, but null for a missing or foreign record (GraphQL's behaviour). */
  find(p: Principal, r: ModelResource, id: string): Promise<Rec | null>;
  /**
   * Records of `r` by id, limited to the principal's company, in one statement. With
   * `embedded: false` the embedded children are left out (callers that fetch them otherwise).
   */
  findMany(p: Principal, r: ModelResource, ids: readonly string[], opts?: { embedded?: boolean }): Promise<Rec[]>;
  /**
   * A window of a collection (cursor pagination): the records, the 0-based offset of each in
   * the filtered and ordered collection, and its size. Records come without embedded children.
   */
  slice(p: Principal, r: ModelResource, q: SliceQuery): Promise<Slice>;
  /**
   * The same window over the records of `r` whose ref field `via` points at each of `parents`
   * (one parent's children, for many parents), in one statement whatever the number of parents.
   */
  sliceMany(p: Principal, r: ModelResource, via: string, parents: readonly string[], q: SliceQuery): Promise<Map<string, Slice>>;
  create(p: Principal, r: ModelResource, input: Rec): Promise<Rec>;
  update(p: Principal, r: ModelResource, id: string, input: Rec, mode: 'update' | 'replace'): Promise<Rec>;
  remove(p: Principal, r: ModelResource, id: string): Promise<Rec>;
  /**
   * For an adapter that compiles a whole read into one statement of its own (the GraphQL
   * compiler): the driver's raw query and the SQL of a collection condition, so that its
   * filters read exactly what the engine's do. Undefined without `EngineOptions.raw`.
   */
  readonly rawReads: RawReads | undefined;
  /** Runs `fn` in one transaction; `bind` gives the engine's API inside it (used by scheduled jobs). */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The hook API (reads, locks, creates with validation and hooks) in `tx`, acting as `p`. */
  bind(tx: Tx, p: Principal, r: ModelResource): HookApi;
}

type Bind = (v: unknown) => unknown;

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
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface EngineOptions {
  /**
   * Runs a SQL text with parameters and returns plain rows. When given, the hot read paths use
   * it with statements compiled once and rows decoded by the engine (drizzle's per-row result
   * mapping was a quarter of a GraphQL request's CPU).
   */
  raw?: RawQuery;
}

export function createEngine(db: Db, model: Model, tables: Tables, options: EngineOptions = {}): Engine {
  const raw = options.raw;
  const dialect = (db as unknown as { dialect: PgDialect }).dialect;
  const validators = new Map<string, ResourceValidator>();
  for (const r of model.resources) compileValidator(model, r, validators);
  const validator = (r: ModelResource) => validators.get(r.name)!;

  // Constraint names → what they mean, so database errors become API errors.
  const uniqueIndexes = new Map<string, { path: string; message: string }>();
  const foreignKeys = new Map<string, ForeignKey>();
  for (const r of model.resources) {
    for (const u of r.unique) uniqueIndexes.set(u.constraint, { path: u.path, message: u.message });
    for (const f of r.stored) {
      if (f.def.kind === 'text' && f.def.unique) uniqueIndexes.set(`${r.table}_${f.column}_unique`, { path: f.name, message: 'This value is already used.' });
      if (f.kind === 'ref') foreignKeys.set(`${r.table}_${f.column}_${model.get(f.target!).table}_id_fk`, { from: r, field: f, to: f.target! });
    }
  }

  // ---- reading ---------------------------------------------------------------------------

  /** The select list of a resource: its columns plus embedded children as one JSON array each. */
  function selection(r: ModelResource): Record<string, unknown> {
    const t = tables.get(r);
    const sel: Record<string, unknown> = { id: t.id, companyId: t.companyId };
    for (const f of r.stored) sel[f.name] = t[f.name];
    sel.createdAt = t.createdAt;
    sel.updatedAt = t.updatedAt;
    for (const f of r.embedded) sel[f.name] = childrenJson(r, f);
    return sel;
  }
  const selections = new Map(model.resources.map((r) => [r.name, selection(r)]));

  function childrenJson(r: ModelResource, f: ModelField): SQL {
    const def = f.def as { target: string; via: string; orderBy?: string };
    const child = model.get(def.target);
    // Qualified names throughout: inside the subquery, a bare "id" would be the child's.
    const c = (column: string) => sql`${sql.identifier('c')}.${sql.identifier(column)}`;
    const pairs: SQL[] = [sql`'id', ${c('id')}`];
    for (const cf of child.stored) pairs.push(sql`${sql.raw(`'${cf.name}'`)}, ${c(cf.column)}`);
    pairs.push(sql`'createdAt', ${c('created_at')}`, sql`'updatedAt', ${c('updated_at')}`);
    const orderCol = def.orderBy ? c(child.byName.get(def.orderBy)!.column) : c('created_at');
    const via = child.byName.get(def.via)!.column;
    return sql`(select coalesce(json_agg(json_build_object(${sql.join(pairs, sql`, `)}) order by ${orderCol}, ${c('id')}), '[]'::json) from ${sql.identifier(child.table)} as ${sql.identifier('c')} where ${c(via)} = ${sql.identifier(r.table)}.${sql.identifier('id')})`;
  }

  const jsonFieldValue = (f: ModelField, v: unknown): unknown => (f.kind === 'timestamp' && typeof v === 'string' ? new Date(v) : f.kind === 'decimal' && typeof v === 'string' ? Number(v) : v);

  // ---- raw reads: statements compiled once, rows decoded here --------------------------------

  /** A select list whose aliases are field names and whose values decode the same on every driver. */
  function rawColumns(r: ModelResource, embedded: boolean): SQL {
    const t = tables.get(r);
    const q = (name: string) => sql.identifier(name);
    const cols: SQL[] = [sql`${t.id} as ${q('id')}`, sql`${t.companyId} as ${q('companyId')}`];
    for (const f of r.stored) {
      const c = t[f.name]!;
      if (f.kind === 'integer' || f.kind === 'decimal') cols.push(sql`${c}::float8 as ${q(f.name)}`);
      else if (f.kind === 'timestamp') cols.push(sql`${iso(c)} as ${q(f.name)}`);
      else if (f.kind === 'date') cols.push(sql`${c}::text as ${q(f.name)}`);
      else cols.push(sql`${c} as ${q(f.name)}`);
    }
    cols.push(sql`${iso(t.createdAt)} as ${q('createdAt')}`, sql`${iso(t.updatedAt)} as ${q('updatedAt')}`);
    if (embedded) for (const f of r.embedded) cols.push(sql`${childrenJson(r, f)} as ${q(f.name)}`);
    return sql.join(cols, sql`, `);
  }
  const rawColumnLists = new Map<string, SQL>();
  const rawColumnsOf = (r: ModelResource, embedded: boolean): SQL => {
    const key = `${r.name}|${embedded}`;
    let c = rawColumnLists.get(key);
    if (!c) rawColumnLists.set(key, (c = rawColumns(r, embedded)));
    return c;
  };

  /** Decodes a raw row in place: timestamps become Dates, embedded children records. */
  function fromRawRow(r: ModelResource, row: Record<string, unknown>): Rec {
    for (const f of r.stored) if (f.kind === 'timestamp' && typeof row[f.name] === 'string') row[f.name] = new Date(row[f.name] as string);
    row.createdAt = new Date(row.createdAt as string);
    row.updatedAt = new Date(row.updatedAt as string);
    return fromRow(r, row);
  }

  const compiled = new Map<string, { sql: string; params: unknown[] }>();
  /** The statement cached under `key`, compiled from `build` on first use. */
  function compiledStatement(key: string, build: () => SQL): { sql: string; params: unknown[] } {
    let c = compiled.get(key);
    if (!c) {
      if (compiled.size >= 2000) compiled.clear();
      c = dialect.sqlToQuery(build());
      compiled.set(key, c);
    }
    return c;
  }

  /** Runs the raw statement cached under `key` (compiled from `build` on first use) with named values. */
  async function runRaw(key: string, build: () => SQL, bindOnly: () => unknown, values: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    // On a cache hit the values are still bound (into `values`) by `bindOnly`.
    if (compiled.has(key)) bindOnly();
    const c = compiledStatement(key, build);
    // Dates travel as RFC 3339 text: the drivers' own serialisers for them are set up by drizzle.
    return raw!(c.sql, fillPlaceholders(c.params, values).map((v) => (v instanceof Date ? v.toISOString() : v)));
  }

  function fromRow(r: ModelResource, row: Record<string, unknown>): Rec {
    // Rows are fresh objects from the driver: converted in place, not copied.
    const rec: Rec = row;
    for (const f of r.stored) if (f.kind === 'decimal' && typeof rec[f.name] === 'string') rec[f.name] = Number(rec[f.name]);
    for (const f of r.embedded) {
      const child = model.get(f.target!);
      const items = (typeof row[f.name] === 'string' ? JSON.parse(row[f.name] as string) : row[f.name]) as Rec[] | null;
      for (const c of items ?? []) {
        c.companyId = row.companyId;
        for (const cf of child.stored) if (cf.kind === 'decimal' || cf.kind === 'timestamp') c[cf.name] = jsonFieldValue(cf, c[cf.name]);
        c.createdAt = new Date(c.createdAt as string);
        c.updatedAt = new Date(c.updatedAt as string);
      }
      rec[f.name] = items ?? [];
    }
    return rec;
  }

  /**
   * A condition's SQL. `bind` turns each value into what goes in the statement: the value itself,
   * or a placeholder when the statement is prepared once per shape and reused.
   */
  function conditionSql(t: AnyTable, c: Condition, bind: Bind = (v) => v): SQL | undefined {
    const col = t[c.field.name];
    const given = c.values.filter((v): v is string => v !== null);
    if (!given.length) return sql`false`;
    // Timestamp columns map Date objects to the driver: a bound given as text becomes one.
    const values = c.field.kind === 'timestamp' ? given.map((v) => new Date(v) as unknown as string) : given;
    switch (c.op) {
      case 'partial':
        return or(...values.map((v) => ilike(col, bind(`%${escapeLike(v)}%`) as string)));
      case 'eq':
        if (c.field.kind === 'text') return or(...values.map((v) => sql`lower(${col}) = lower(${bind(v)})`));
        return values.length === 1 ? eq(col, bind(values[0])) : inArray(col, values.map(bind));
      case 'after':
        return gte(col, bind(values[0]));
      case 'before':
        return c.field.kind === 'timestamp' && given[0]!.length === 10 ? lt(col, sql`(${bind(given[0])}::date + 1)`) : lte(col, bind(values[0]));
      case 'strictly_after':
        return c.field.kind === 'timestamp' && given[0]!.length === 10 ? gte(col, sql`(${bind(given[0])}::date + 1)`) : gt(col, bind(values[0]));
      case 'strictly_before':
        return lt(col, bind(values[0]));
    }
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

  /** What makes two conditions produce the same statement text. */
  const conditionShape = (c: Condition): string => {
    const values = c.values.filter((v) => v !== null);
    return `${c.field.name}:${c.op}:${values.length}:${values.length && c.field.kind === 'timestamp' ? values[0]!.length : ''}`;
  };

  /** The shape of a collection read's statement: its conditions' shapes and its order. */
  const queryShape = (q: { where: readonly Condition[]; order: readonly Order[] }): string =>
    `${q.where.map(conditionShape).join(',')}|${q.order.map((o) => `${o.field}:${o.dir}`).join(',')}`;

  /**
   * The WHERE of a collection read (the company, then the conditions). With `placeholders`, for
   * statements compiled once per shape, values go into `params` under names given by position, so
   * that rebuilding it on a cache hit binds the same names; otherwise they are written in.
   */
  function collectionWhere(p: Principal, t: AnyTable, where: readonly Condition[], params: Record<string, unknown>, placeholders = true): () => SQL | undefined {
    let n = 0;
    const bind: Bind = placeholders
      ? (v) => {
          const name = `v${n++}`;
          params[name] = v;
          return sql.placeholder(name);
        }
      : (v) => v;
    return () => {
      n = 0;
      return and(eq(t.companyId, placeholders ? sql.placeholder('company') : p.company.id), ...where.map((c) => conditionSql(t, c, bind)));
    };
  }

  /** The order of a collection: the requested terms, then the id, so that every order is total. */
  const orderTerms = (t: AnyTable, order: readonly Order[]): SQL[] => [...order.map((o) => (o.dir === 'desc' ? desc(t[o.field]) : asc(t[o.field]))), tieBreak(order) === 'desc' ? desc(t.id) : asc(t.id)];

  /** The size of a collection: from the counters when they can answer (engine/counts.ts), else counted. */
  const sizeOf = (r: ModelResource, t: AnyTable, q: { where: readonly Condition[] }, where: SQL | undefined, company: SQL | Placeholder | string): SQL =>
    countSql(r, q.where, company) ?? sql`(select count(*) from ${t} where ${where})`;

  async function list(p: Principal, r: ModelResource, q: ListQuery, tx: Tx = db, sel = selections.get(r.name)!): Promise<Page> {
    const t = tables.get(r);
    // Outside a transaction, with a standard select list, statements are compiled once per shape
    // and values travel as parameters named by their position, so rebuilding binds the same names.
    const reuse = raw !== undefined && tx === db && (sel === selections.get(r.name) || sel === flatSelection(r));
    const params: Record<string, unknown> = { company: p.company.id, limit: q.limit, offset: q.offset };
    const whereOf = collectionWhere(p, t, q.where, params, reuse);
    const shape = q.where.map(conditionShape).join(',');
    const countOf = async () => {
      const build = (on: Tx) => on.select({ n: sql<number>`count(*)::int` }).from(t).where(whereOf());
      const [row] = (await (reuse
        ? runRaw(`count|${r.name}|${shape}|${countShape(r, q.where)}`, () => sql`select ${sizeOf(r, t, q, whereOf(), sql.placeholder('company'))}::float8 as "n"`, whereOf, params)
        : build(tx))) as { n: number }[];
      return Number(row?.n ?? 0);
    };
    if (q.limit === 0) return { items: [], total: await countOf() };
    // The total as a scalar subquery: `count(*) over ()` would make PostgreSQL read and window
    // every matching row (not just the page) before the limit applies.
    const build = (on: Tx) => {
      const where = whereOf();
      return on
        .select({ ...sel, __total: sql<number>`${sizeOf(r, t, q, where, p.company.id)}` } as never)
        .from(t)
        .where(where)
        .orderBy(...orderTerms(t, q.order))
        .limit(q.limit)
        .offset(q.offset);
    };
    const key = `list|${r.name}|${queryShape(q)}|${countShape(r, q.where)}`;
    if (reuse) {
      const embedded = sel === selections.get(r.name);
      const counted = q.count !== false;
      const rows = await runRaw(
        `${key}|${embedded}|${counted}`,
        () => {
          const where = whereOf();
          const total = counted ? sql`${sizeOf(r, t, q, where, sql.placeholder('company'))}::float8` : sql`null`;
          return sql`select ${rawColumnsOf(r, embedded)}, ${total} as "__total" from ${t} where ${where} order by ${sql.join(orderTerms(t, q.order), sql`, `)} limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')}`;
        },
        whereOf,
        params,
      );
      const total = !counted ? q.offset + rows.length : rows.length ? Number(rows[0]!.__total) : q.offset === 0 ? 0 : await countOf();
      return {
        items: rows.map((row) => {
          delete row.__total;
          return fromRawRow(r, row);
        }),
        total,
      };
    }
    const rows = (await build(tx)) as Record<string, unknown>[];
    let total: number;
    if (rows.length) total = Number(rows[0]!.__total);
    else if (q.offset === 0) total = 0;
    else total = await countOf();
    return {
      items: rows.map((row) => {
        delete row.__total;
        return fromRow(r, row);
      }),
      total,
    };
  }

  async function fetch(tx: Tx, r: ModelResource, id: string, lock = false): Promise<Rec | null> {
    if (!isUuid(id)) return null;
    const t = tables.get(r);
    if (raw && tx === db && !lock) {
      const rows = await runRaw(`read|${r.name}`, () => sql`select ${rawColumnsOf(r, true)} from ${t} where ${t.id} = ${sql.placeholder('id')}`, () => {}, { id: id.toLowerCase() });
      return rows[0] ? fromRawRow(r, rows[0]) : null;
    }
    const sel = lock ? flatSelection(r) : selections.get(r.name)!;
    let qb = tx.select(sel as never).from(t).where(eq(t.id, id.toLowerCase())).$dynamic();
    if (lock) qb = qb.for('update');
    const [row] = (await qb) as Record<string, unknown>[];
    return row ? fromRow(r, row) : null;
  }
  /** The select list without embedded children: for locking, and for callers that fetch them otherwise. */
  const flatSelections = new Map<string, Record<string, unknown>>();
  function flatSelection(r: ModelResource) {
    let s = flatSelections.get(r.name);
    if (!s) {
      s = { ...selections.get(r.name)! };
      for (const f of r.embedded) delete s[f.name];
      flatSelections.set(r.name, s);
    }
    return s;
  }

  async function readIn(tx: Tx, p: Principal, r: ModelResource, id: string, lock = false): Promise<Rec> {
    const rec = await fetch(tx, r, id, lock);
    if (!rec) throw ApiError.notFound();
    if (rec.companyId !== p.company.id) throw ApiError.forbidden('This record belongs to another company.');
    return rec;
  }

  async function findMany(p: Principal, r: ModelResource, ids: readonly string[], embedded = true, tx: Tx = db): Promise<Rec[]> {
    const valid = [...new Set(ids.filter(isUuid).map((i) => i.toLowerCase()))];
    if (!valid.length) return [];
    const t = tables.get(r);
    if (raw && tx === db) {
      const values: Record<string, unknown> = { company: p.company.id };
      valid.forEach((id, i) => (values[`i${i}`] = id));
      const rows = await runRaw(
        `many|${r.name}|${embedded}|${valid.length}`,
        () => sql`select ${rawColumnsOf(r, embedded)} from ${t} where ${t.companyId} = ${sql.placeholder('company')} and ${t.id} in (${sql.join(valid.map((_, i) => sql.placeholder(`i${i}`)), sql`, `)})`,
        () => {},
        values,
      );
      return rows.map((row) => fromRawRow(r, row));
    }
    const sel = embedded ? selections.get(r.name)! : flatSelection(r);
    const rows = (await tx.select(sel as never).from(t).where(and(eq(t.companyId, p.company.id), inArray(t.id, valid)))) as Record<string, unknown>[];
    return rows.map((row) => fromRow(r, row));
  }

  /**
   * Windows over the collection, or over each parent's children when `via` is given, in one
   * statement: window functions number the rows of each partition and count them, and the
   * outer query keeps the rows inside each partition's window, plus its first row so that the
   * size of every partition is known even when its window is empty.
   */
  async function windows(p: Principal, r: ModelResource, q: SliceQuery, via?: { field: string; parents: readonly string[] }, tx: Tx = db): Promise<Map<string, Slice>> {
    const t = tables.get(r);
    if (raw && tx === db) return rawWindows(p, r, q, via);
    const conds = [eq(t.companyId, p.company.id), ...q.where.map((c) => conditionSql(t, c))];
    if (via) conds.push(inArray(t[via.field], [...via.parents]));
    const partition = via ? sql`partition by ${t[via.field]} ` : sql``;
    const inner = tx
      .select({
        ...flatSelection(r),
        __total: sql<number>`count(*) over (${partition})`.as('__total'),
        __rn: sql<number>`row_number() over (${partition}order by ${sql.join(orderTerms(t, q.order), sql`, `)})`.as('__rn'),
      } as never)
      .from(t)
      .where(and(...conds))
      .as('w') as unknown as Record<string, SQL.Aliased | AnyTable[string]>;
    const w = q.window;
    const rn = inner.__rn!;
    const start = w.after !== undefined ? w.after + 1 : 0;
    const end = w.before !== undefined ? sql`least(${w.before}, ${inner.__total})` : sql`${inner.__total}`;
    const upper = w.first !== undefined ? sql`least(${end}, ${start + w.first})` : end;
    const lower = w.last !== undefined ? sql`greatest(${start}, ${upper} - ${w.last})` : sql`${start}`;
    const rows = (await tx
      .select()
      .from(inner as never)
      .where(sql`${rn} = 1 or (${rn} > ${lower} and ${rn} <= ${upper})`)
      .orderBy(...(via ? [sql`${inner[via.field]}`] : []), sql`${rn}`)) as Record<string, unknown>[];
    return slicesOf(rows, w, via?.field, (row) => fromRow(r, row));
  }

  /** `windows` as one statement compiled once per shape, with rows decoded by the engine. */
  async function rawWindows(p: Principal, r: ModelResource, q: SliceQuery, via?: { field: string; parents: readonly string[] }): Promise<Map<string, Slice>> {
    const t = tables.get(r);
    const w = q.window;
    const values: Record<string, unknown> = { company: p.company.id };
    let n = 0;
    const bind: Bind = (v) => {
      const name = `v${n++}`;
      values[name] = v;
      return sql.placeholder(name);
    };
    const parents = via ? [...new Set(via.parents)] : [];
    const bindAll = () => {
      n = 0;
      const conds = [sql`${t.companyId} = ${sql.placeholder('company')}`, ...q.where.map((c) => conditionSql(t, c, bind))];
      if (via) conds.push(sql`${t[via.field]} in (${sql.join(parents.map((id) => bind(id) as SQL), sql`, `)})`);
      for (const k of ['after', 'before', 'first', 'last'] as const) if (w[k] !== undefined) values[k] = w[k];
      return and(...conds);
    };
    const key = `win|${r.name}|${via?.field ?? ''}|${parents.length}|${q.where.map(conditionShape).join(',')}|${q.order.map((o) => `${o.field}:${o.dir}`).join(',')}|${(['after', 'before', 'first', 'last'] as const).filter((k) => w[k] !== undefined).join(',')}`;
    const rows = await runRaw(
      key,
      () => {
        const where = bindAll();
        const partition = via ? sql`partition by ${t[via.field]} ` : sql``;
        const total = sql.identifier('__total');
        const rn = sql.identifier('__rn');
        const start = w.after !== undefined ? sql`(${sql.placeholder('after')}::int + 1)` : sql`0`;
        const end = w.before !== undefined ? sql`least(${sql.placeholder('before')}::int, ${total})` : sql`${total}`;
        const upper = w.first !== undefined ? sql`least(${end}, ${start} + ${sql.placeholder('first')}::int)` : end;
        const lower = w.last !== undefined ? sql`greatest(${start}, ${upper} - ${sql.placeholder('last')}::int)` : start;
        return sql`select * from (select ${rawColumnsOf(r, false)}, count(*) over (${partition})::float8 as ${total}, row_number() over (${partition}order by ${sql.join(orderTerms(t, q.order), sql`, `)})::float8 as ${rn} from ${t} where ${where}) as w where ${rn} = 1 or (${rn} > ${lower} and ${rn} <= ${upper}) order by ${via ? sql`${sql.identifier(via.field)}, ` : sql``}${rn}`;
      },
      bindAll,
      values,
    );
    return slicesOf(rows, w, via?.field, (row) => fromRawRow(r, row));
  }

  async function slice(p: Principal, r: ModelResource, q: SliceQuery): Promise<Slice> {
    const w = q.window;
    // A window counted from the start is a plain offset and limit; one counted from the end
    // (`last`) needs the collection's size, which the windowed statement knows.
    if (w.last === undefined && w.first !== undefined) {
      const offset = w.after !== undefined ? w.after + 1 : 0;
      const limit = Math.max(0, w.before !== undefined ? Math.min(w.first, w.before - offset) : w.first);
      const page = await list(p, r, { where: q.where, order: q.order, offset, limit, count: q.count }, db, flatSelection(r));
      return { items: page.items, offsets: page.items.map((_, i) => offset + i), total: page.total };
    }
    return (await windows(p, r, q)).get('') ?? { items: [], offsets: [], total: 0 };
  }

  /** `list` with the page built as JSON text by the database, in one statement per shape. */
  async function listJson(p: Principal, r: ModelResource, q: ListQuery, projection: Projection): Promise<{ members: string; total: number }> {
    const t = tables.get(r);
    const params: Record<string, unknown> = { company: p.company.id, limit: q.limit, offset: q.offset };
    const whereOf = collectionWhere(p, t, q.where, params);
    const key = `json-list|${projection.name}|${r.name}|${queryShape(q)}|${countShape(r, q.where)}`;
    const [row] = await runRaw(
      key,
      () => {
        const where = whereOf();
        const order = sql.join(orderTerms(t, q.order), sql`, `);
        // The page is a subquery named like the table, so the order terms apply to it as they are.
        return sql`select ${sizeOf(r, t, q, where, sql.placeholder('company'))}::float8 as "total",
          coalesce(json_agg(${recordJson(model, r, r.table, projection, false)} order by ${order}), '[]'::json)::text as "members"
          from (select * from ${t} where ${where} order by ${order} limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')}) as ${sql.identifier(r.table)}`;
      },
      whereOf,
      params,
    );
    return { members: row!.members as string, total: Number(row!.total) };
  }

  async function readJson(p: Principal, r: ModelResource, id: string, projection: Projection): Promise<string> {
    if (!isUuid(id)) throw ApiError.notFound();
    const t = tables.get(r);
    const rows = await runRaw(
      `json-read|${projection.name}|${r.name}`,
      () => sql`select ${t.companyId} as "companyId", ${recordJson(model, r, r.table, projection, true)}::text as "body" from ${t} where ${t.id} = ${sql.placeholder('id')}`,
      () => {},
      { id: id.toLowerCase() },
    );
    const row = rows[0];
    if (!row) throw ApiError.notFound();
    if (row.companyId !== p.company.id) throw ApiError.forbidden('This record belongs to another company.');
    return row.body as string;
  }

  // ---- writing ---------------------------------------------------------------------------

  function assertWriter(p: Principal): void {
    if (p.role === 'viewer') throw ApiError.forbidden('A viewer may only read.');
  }

  const writes = writeStatements(model, tables, rawColumnsOf);

  /**
   * Runs the statement cached under `key` (compiled from `build` on first use) with named values,
   * in `tx` or on the database itself. The session's prepared query sends the text as it is to
   * the transaction's connection (and counts it), with no per-call building or value mapping;
   * values are plain strings, numbers and nulls.
   */
  async function runCompiled(tx: Tx, key: string, build: () => SQL, values: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const c = compiledStatement(key, build);
    const res = (await tx._.session.prepareQuery(c, undefined, undefined, false).execute(values)) as unknown;
    return (Array.isArray(res) ? res : (res as { rows: Record<string, unknown>[] }).rows) as Record<string, unknown>[];
  }

  /**
   * Checks that every referenced record exists in the principal's company, in one statement
   * whatever the number of target resources. The records are kept in `seen`, so a hook reading
   * one of them costs no second query.
   */
  async function checkRefs(tx: Tx, p: Principal, n: Normalised, seen?: Map<string, Rec>): Promise<void> {
    if (!n.refs.length) return;
    const byTarget = new Map<string, PendingRef[]>();
    for (const ref of n.refs) {
      const refs = byTarget.get(ref.target);
      if (refs) refs.push(ref);
      else byTarget.set(ref.target, [ref]);
    }
    // Targets in name order, and each one's ids in a list whose size is rounded up to a power of
    // two (the last id repeated): few shapes, so few statements to prepare.
    const targets = [...byTarget.keys()].sort();
    const values: Record<string, unknown> = { company: p.company.id };
    const sizes = targets.map((target, i) => {
      const ids = [...new Set(byTarget.get(target)!.map((x) => x.id))];
      const size = 2 ** Math.ceil(Math.log2(ids.length));
      for (let k = 0; k < size; k++) values[`ids${i}_${k}`] = ids[Math.min(k, ids.length - 1)];
      return size;
    });
    const key = `refs|${targets.map((target, i) => `${target}:${sizes[i]}`).join(',')}`;
    const [row] = await runCompiled(tx, key, () => writes.refs(targets.map((target, i) => ({ resource: model.get(target), size: sizes[i]! }))), values);
    const v = new Violations();
    for (const [target, refs] of byTarget) {
      const tr = model.get(target);
      const found = new Set<string>();
      for (const rec of jsonArray(row?.[String(targets.indexOf(target))])) {
        found.add(rec.id as string);
        if (seen && !tr.embedded.length) seen.set(`${target}:${rec.id as string}`, fromRawRow(tr, rec));
      }
      for (const ref of refs) if (!found.has(ref.id)) v.add(ref.path, `Item not found for "${ref.raw.slice(0, 200)}".`, C.notFound);
    }
    v.throwIfAny();
  }

  /**
   * Gives the record the next number of each per-company sequence it still lacks, in one
   * statement per field (the counter skips numbers a user took). It runs last in the
   * transaction, so the counter's row stays locked only until the commit that follows, and a
   * rollback returns the number (no gaps).
   */
  async function assignSequences(tx: Tx, p: Principal, r: ModelResource, id: string, data: Rec): Promise<void> {
    for (const f of r.stored) {
      if (!isNumbered(f) || (data[f.name] !== undefined && data[f.name] !== null)) continue;
      const [row] = await runCompiled(tx, `number|${r.name}|${f.name}`, () => writes.number(r, f), { company: p.company.id, id });
      if (row) data[f.name] = row.value;
    }
  }

  function checkStates(r: ModelResource, data: Rec, existing: Rec | null): void {
    const sm = r.states;
    if (!sm) return;
    const field = String(sm.field);
    const from = existing ? String(existing[field]) : null;
    const to = data[field] as string | undefined;
    if (to === undefined || to === from) return;
    const transitions = sm.transitions as Record<string, readonly string[] | undefined>;
    const allowed = from === null ? [String(sm.initial), ...(transitions[String(sm.initial)] ?? [])] : transitions[from] ?? [];
    if (!allowed.includes(to)) {
      const list = allowed.filter((x) => x !== from).map((x) => `"${x}"`).join(', ');
      const msg = from === null
        ? `A new ${r.name} cannot start as "${to}". Allowed: ${list}.`
        : list
          ? `The transition from "${from}" to "${to}" is not allowed. Allowed: ${list}.`
          : `The transition from "${from}" to "${to}" is not allowed: no change of ${field} is allowed from "${from}".`;
      throw ApiError.validation([{ propertyPath: field, message: msg, code: C.state }]);
    }
  }

  /** The field list a state allows to change, or undefined when every field may change. */
  function editableIn(r: ModelResource, rec: Rec): { state: string; fields: readonly string[] } | undefined {
    const sm = r.states;
    if (!sm?.editable) return undefined;
    const state = String(rec[String(sm.field)]);
    const fields = (sm.editable as Record<string, readonly string[] | undefined>)[state];
    return fields ? { state, fields } : undefined;
  }

  /**
   * Refuses changes to fields the record's current state does not allow. Embedded children sent
   * unchanged are dropped from the write, so an identical PUT of a locked record changes nothing.
   */
  async function checkEditable(tx: Tx, r: ModelResource, existing: Rec, n: Normalised): Promise<void> {
    const lock = editableIn(r, existing);
    if (!lock) return;
    const v = new Violations();
    const stateField = String(r.states!.field);
    const message = `This value cannot be changed while the ${r.states!.field} is "${lock.state}".`;
    for (const [name, value] of Object.entries(n.data)) {
      if (name === stateField || lock.fields.includes(name) || sameValue(value, existing[name])) continue;
      v.add(name, message, C.rule);
    }
    const locked = [...n.children.keys()].filter((name) => !lock.fields.includes(name));
    if (locked.length) {
      const current = (await fetch(tx, r, existing.id as string))!;
      for (const name of locked) {
        if (sameChildren(model.get(r.byName.get(name)!.target!), n.children.get(name)!, (current[name] as Rec[]) ?? [])) n.children.delete(name);
        else v.add(name, message, C.rule);
      }
    }
    v.throwIfAny();
  }

  function checkDeletable(r: ModelResource, existing: Rec): void {
    const sm = r.states;
    if (!sm?.deletable) return;
    const state = String(existing[String(sm.field)]);
    if (!(sm.deletable as readonly string[]).includes(state)) {
      const allowed = sm.deletable.map((x) => `"${x}"`).join(', ');
      throw ApiError.conflict(`This ${r.name} cannot be deleted: its ${sm.field} is "${state}" (deletable: ${allowed}).`);
    }
  }

  /**
   * Before a write to an embedded child (a line) through the engine: locks its owner, so writes
   * to one owner's children are serialised, and refuses the write when the owner's state does
   * not allow its children to change. Returns the owner's id.
   */
  async function lockOwner(tx: Tx, p: Principal, r: ModelResource, ownerId: unknown): Promise<string | undefined> {
    if (!r.owner || typeof ownerId !== 'string') return undefined;
    const owner = model.get(r.owner.resource);
    const rec = await fetch(tx, owner, ownerId, true);
    if (!rec || rec.companyId !== p.company.id) return undefined;
    const lock = editableIn(owner, rec);
    if (lock && !lock.fields.includes(r.owner.children)) {
      throw ApiError.validation([{
        propertyPath: r.owner.field.name,
        message: `The ${r.owner.field.name}'s ${r.owner.children} cannot change while its ${owner.states!.field} is "${lock.state}".`,
        code: C.rule,
      }]);
    }
    return rec.id as string;
  }

  async function recomputeOwner(tx: Tx, p: Principal, r: ModelResource, ownerId: string | undefined): Promise<void> {
    if (!r.owner || !ownerId) return;
    const owner = model.get(r.owner.resource);
    await owner.computed?.compute(hookApi(tx, p, owner), ownerId);
  }

  function checkCrossField(r: ModelResource, data: Rec): void {
    const v = new Violations();
    for (const f of r.stored) {
      if (f.def.kind === 'date' && f.def.notBefore) {
        const a = data[f.name];
        const b = data[f.def.notBefore];
        if (typeof a === 'string' && typeof b === 'string' && a < b) v.add(f.name, `This value should be greater than or equal to ${f.def.notBefore} (${b}).`, C.range);
      }
    }
    v.throwIfAny();
  }

  function storable(r: ModelResource, data: Rec): Rec {
    const out: Rec = {};
    for (const f of r.stored) {
      if (!(f.name in data)) continue;
      const v = data[f.name];
      out[f.name] = f.kind === 'decimal' && typeof v === 'number' ? decimalString(v, (f.def as { scale: number }).scale) : v;
    }
    return out;
  }

  /** Replaces (or, on create, writes) embedded children: one statement per children field. */
  async function writeChildren(tx: Tx, p: Principal, r: ModelResource, id: string, children: Map<string, Rec[]>, replace: boolean): Promise<void> {
    for (const [name, items] of children) {
      if (!replace && !items.length) continue;
      const f = r.byName.get(name)!;
      const values: Record<string, unknown> = { owner: id };
      if (items.length) values.rows = JSON.stringify(childRows(p, f, id, new Date().toISOString(), items));
      const key = `children|${r.name}|${name}|${replace}|${items.length > 0}`;
      await runCompiled(tx, key, () => writes.children(model.get(f.target!), (f.def as { via: string }).via, replace, items.length > 0), values);
    }
  }

  /**
   * The rows of embedded children as they are inserted (defaults, id, company, owner, timestamps
   * as RFC 3339 text, position), keyed by field name.
   */
  function childRows(p: Principal, f: ModelField, ownerId: string, now: string, items: readonly Rec[]): Rec[] {
    const def = f.def as { target: string; via: string };
    const child = model.get(def.target);
    const defaults = defaultsOf(child);
    return items.map((item, i) => {
      const row: Rec = { id: uuidv7(), companyId: p.company.id, createdAt: now, updatedAt: now };
      for (const cf of child.stored) {
        const v = cf.name in item ? item[cf.name] : defaults[cf.name];
        if (typeof v === 'string') row[cf.name] = wellFormed(v);
        else row[cf.name] = cf.kind === 'decimal' && typeof v === 'number' ? decimalString(v, (cf.def as { scale: number }).scale) : v;
      }
      row[def.via] = ownerId;
      Object.assign(row, positionOf(child, item, i));
      return row;
    });
  }

  const childDefaults = new Map<string, Rec>();
  /** The descriptor defaults a child row starts from (those the validator does not fill in). */
  const defaultsOf = (r: ModelResource): Rec => {
    let d = childDefaults.get(r.name);
    if (!d) {
      d = {};
      for (const f of r.stored) if ('default' in f.def && f.def.default !== undefined && typeof f.def.default !== 'string') d[f.name] = f.def.default;
      childDefaults.set(r.name, (d = storable(r, d)));
    }
    return d;
  };

  function hookApi(tx: Tx, p: Principal, r: ModelResource, seen?: Map<string, Rec>): HookApi {
    return {
      tx,
      principal: p,
      model,
      resource: r,
      table: (name) => tables.get(name),
      read: async (name, id) => {
        const known = seen?.get(`${name}:${id}`);
        if (known) return { ...known };
        const rec = await fetch(tx, model.get(name), id);
        return rec && rec.companyId === p.company.id ? rec : null;
      },
      lock: async (name, id) => {
        const rec = await fetch(tx, model.get(name), id, true);
        return rec && rec.companyId === p.company.id ? rec : null;
      },
      create: (name, input) => createIn(tx, p, model.get(name), input),
    };
  }

  /**
   * The hook API of a create that has not opened a transaction (see createAtOnce): reads run on
   * their own, and whatever needs the transaction (`tx` itself, a lock, a nested create) throws
   * NeedsTransaction, after which the create runs the usual way, in a transaction. After the
   * write (`after`), reads other than the checked references need it too: the record is not
   * written yet.
   */
  function deferredApi(p: Principal, r: ModelResource, seen: Map<string, Rec>, after: boolean): HookApi {
    const need = (): never => {
      throw new NeedsTransaction();
    };
    return {
      get tx(): Tx {
        return need();
      },
      principal: p,
      model,
      resource: r,
      table: (name) => tables.get(name),
      read: async (name, id) => {
        const known = seen.get(`${name}:${id}`);
        if (known) return { ...known };
        if (after) need();
        const rec = await fetch(db, model.get(name), id);
        return rec && rec.companyId === p.company.id ? rec : null;
      },
      lock: async () => need(),
      create: async () => need(),
    };
  }

  function derive(r: ModelResource, data: Rec): void {
    for (const f of r.stored) {
      if (f.def.kind === 'text' && f.def.derive && f.def.derive.from in data) data[f.name] = f.def.derive.fn(data[f.def.derive.from]);
    }
  }

  /** A new record's own rules: its initial state, the allowed ones, cross-field checks, derived values. */
  function checkNew(r: ModelResource, data: Rec): void {
    if (r.states && data[String(r.states.field)] === undefined) data[String(r.states.field)] = r.states.initial;
    checkStates(r, data, null);
    checkCrossField(r, data);
    derive(r, data);
  }

  /**
   * Creates a record in a transaction. `checked`: the references were already checked (by a
   * createAtOnce that needed a transaction after all), with the records it read.
   */
  async function createIn(tx: Tx, p: Principal, r: ModelResource, input: Rec, checked?: Map<string, Rec>): Promise<Rec> {
    const n = validator(r).normalise(input, 'create', null);
    const seen = new Map<string, Rec>(checked ?? []);
    if (!checked) await checkRefs(tx, p, n, seen);
    const data = n.data;
    const ownerId = await lockOwner(tx, p, r, r.owner ? data[r.owner.field.name] : undefined);
    checkNew(r, data);
    const api = hookApi(tx, p, r, seen);
    await r.hooks.beforeWrite?.(api, { op: 'create', data, existing: null, input: n.data });
    const id = uuidv7();
    const now = new Date();
    const computedAhead = r.computed?.computeNew ? await r.computed.computeNew(api, data, n.children) : false;
    await tx.insert(tables.get(r)).values({ ...storable(r, data), id, companyId: p.company.id, createdAt: now, updatedAt: now });
    await writeChildren(tx, p, r, id, n.children, false);
    if (!computedAhead) await r.computed?.compute(api, id);
    await recomputeOwner(tx, p, r, ownerId);
    await r.hooks.afterWrite?.(api, { op: 'create', id, data, existing: null, input: n.data });
    await assignSequences(tx, p, r, id, data);
    return (await fetch(tx, r, id))!;
  }

  /**
   * Whether a create of `r` can be written by createAtOnce: not a child written through its owner
   * (that locks and recomputes the owner), totals computed before the write when there are any,
   * and embedded children one level deep in tables of their own.
   */
  const atOnce = new Map(
    model.resources.map((r) => [
      r.name,
      !r.owner && (!r.computed || r.computed.computeNew !== undefined) && r.embedded.every((f) => model.get(f.target!).table !== r.table && !model.get(f.target!).embedded.length),
    ]),
  );

  /**
   * A create in two statements and no transaction control: one reads the referenced records,
   * the rules and hooks then decide everything in memory, and one statement (atomic by itself)
   * inserts the record, its embedded children and its sequence numbers and returns it. The same
   * checks as createIn, in the same order. Returns null when a hook needs a transaction: the
   * caller then runs createIn, with the references already checked in `seen`.
   */
  async function createAtOnce(p: Principal, r: ModelResource, input: Rec, seen: Map<string, Rec>): Promise<Rec | null> {
    const n = validator(r).normalise(input, 'create', null);
    await checkRefs(db, p, n, seen);
    const data = n.data;
    checkNew(r, data);
    const id = uuidv7();
    let statement: { shape: CreateShape; values: Record<string, unknown> };
    try {
      const api = deferredApi(p, r, seen, false);
      await r.hooks.beforeWrite?.(api, { op: 'create', data, existing: null, input: n.data });
      if (r.computed && !(await r.computed.computeNew!(api, data, n.children))) return null;
      // Taken before afterWrite: what it changes in `data` is not written (as after an insert).
      statement = createValues(p, r, id, data, n.children);
      await r.hooks.afterWrite?.(deferredApi(p, r, seen, true), { op: 'create', id, data, existing: null, input: n.data });
    } catch (e) {
      if (e instanceof NeedsTransaction) return null;
      throw e;
    }
    const { shape, values } = statement;
    const [row] = await runCompiled(db, createShapeKey(r, shape), () => writes.create(r, shape), values);
    return fromRawRow(r, row!);
  }

  /**
   * Binds the stored values of a record (those not undefined, nor left to `except`) as `v0`,
   * `v1`, … in `values`, as the compiled statements take them; returns their fields.
   */
  function bindColumns(r: ModelResource, stored: Rec, values: Record<string, unknown>, except: readonly ModelField[] = []): ModelField[] {
    const columns: ModelField[] = [];
    for (const f of r.stored) {
      const v = stored[f.name];
      if (v === undefined || except.includes(f)) continue;
      values[`v${columns.length}`] = f.kind === 'list' ? JSON.stringify(v) : v instanceof Date ? v.toISOString() : v;
      columns.push(f);
    }
    return columns;
  }

  /** The shape and values of createAtOnce's statement. */
  function createValues(p: Principal, r: ModelResource, id: string, data: Rec, children: Map<string, Rec[]>): { shape: CreateShape; values: Record<string, unknown> } {
    const now = new Date().toISOString();
    const stored = storable(r, data);
    const numbered: ModelField[] = [];
    const withRows: ModelField[] = [];
    const values: Record<string, unknown> = { id, company: p.company.id, now };
    for (const f of r.stored) if (isNumbered(f) && (stored[f.name] === undefined || stored[f.name] === null)) numbered.push(f);
    const columns = bindColumns(r, stored, values, numbered);
    for (const [name, items] of children) {
      if (!items.length) continue;
      const f = r.byName.get(name)!;
      values[`c${withRows.length}`] = JSON.stringify(childRows(p, f, id, now, items));
      withRows.push(f);
    }
    return { shape: { columns, numbered, children: withRows }, values };
  }

  async function updateIn(tx: Tx, p: Principal, r: ModelResource, id: string, input: Rec, mode: WriteMode): Promise<Rec> {
    // An embedded child's owner is locked before the child, as every write of the owner does.
    const ownerId = r.owner ? await lockOwner(tx, p, r, (await readIn(tx, p, r, id))[r.owner.field.name]) : undefined;
    const existing = await readIn(tx, p, r, id, true);
    const n = validator(r).normalise(input, mode, existing);
    const seen = new Map<string, Rec>();
    await checkRefs(tx, p, n, seen);
    const data: Rec = { ...existing, ...n.data };
    checkStates(r, data, existing);
    await checkEditable(tx, r, existing, n);
    checkCrossField(r, data);
    derive(r, data);
    const api = hookApi(tx, p, r, seen);
    await r.hooks.beforeWrite?.(api, { op: 'update', data, existing, input: n.data });
    const values: Record<string, unknown> = { id: existing.id, now: new Date().toISOString() };
    const columns = bindColumns(r, storable(r, data), values);
    await runCompiled(tx, `update|${r.name}|${columns.map((f) => f.name).join(',')}`, () => writes.update(r, columns), values);
    await writeChildren(tx, p, r, existing.id as string, n.children, true);
    if (r.computed?.on.some((name) => n.children.has(name) || (name in n.data && !sameValue(n.data[name], existing[name])))) {
      await r.computed.compute(api, existing.id as string);
    }
    await recomputeOwner(tx, p, r, ownerId);
    await r.hooks.afterWrite?.(api, { op: 'update', id: existing.id as string, data, existing, input: n.data });
    await assignSequences(tx, p, r, existing.id as string, data);
    return (await fetch(tx, r, existing.id as string))!;
  }

  async function removeIn(tx: Tx, p: Principal, r: ModelResource, id: string): Promise<Rec> {
    const ownerId = r.owner ? await lockOwner(tx, p, r, (await readIn(tx, p, r, id))[r.owner.field.name]) : undefined;
    const existing = await readIn(tx, p, r, id, true);
    checkDeletable(r, existing);
    const api = hookApi(tx, p, r);
    await r.hooks.beforeDelete?.(api, existing);
    const t = tables.get(r);
    await tx.delete(t).where(eq(t.id, existing.id as string));
    await recomputeOwner(tx, p, r, ownerId);
    await r.hooks.afterDelete?.(api, existing);
    return existing;
  }

  /** Runs a write in a transaction and turns constraint violations into API errors. */
  async function write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await db.transaction(fn);
    } catch (e) {
      throw translateDbError(e, uniqueIndexes, foreignKeys);
    }
  }

  return {
    model,
    tables,
    json: raw ? { list: listJson, read: readJson } : undefined,
    list: (p, r, q) => list(p, r, q),
    read: (p, r, id) => readIn(db, p, r, id),
    async find(p, r, id) {
      const rec = await fetch(db, r, id);
      return rec && rec.companyId === p.company.id ? rec : null;
    },
    findMany: (p, r, ids, opts) => findMany(p, r, ids, opts?.embedded ?? true),
    slice,
    async sliceMany(p, r, via, parents, q) {
      if (!r.byName.get(via) || r.byName.get(via)!.kind !== 'ref') throw new Error(`${r.name}.${via} is not a reference`);
      const valid = [...new Set(parents.filter(isUuid).map((i) => i.toLowerCase()))];
      return valid.length ? windows(p, r, q, { field: via, parents: valid }) : new Map();
    },
    async create(p, r, input) {
      assertWriter(p);
      if (!atOnce.get(r.name)) return write((tx) => createIn(tx, p, r, input));
      const seen = new Map<string, Rec>();
      let rec: Rec | null;
      try {
        rec = await createAtOnce(p, r, input, seen);
      } catch (e) {
        throw translateDbError(e, uniqueIndexes, foreignKeys);
      }
      return rec ?? write((tx) => createIn(tx, p, r, input, seen));
    },
    update(p, r, id, input, mode) {
      assertWriter(p);
      return write((tx) => updateIn(tx, p, r, id, input, mode));
    },
    remove(p, r, id) {
      assertWriter(p);
      return write((tx) => removeIn(tx, p, r, id));
    },
    rawReads: raw ? { query: raw, condition: (r, c, bind, as) => conditionSql(aliased(r, as), c, bind), shape: conditionShape } : undefined,
    transaction: (fn) => write(fn),
    bind: (tx, p, r) => hookApi(tx, p, r),
  };
}

/** Thrown by a hook API that has no transaction to give (see createAtOnce). */
class NeedsTransaction extends Error {}

/** A text field numbered from a per-company sequence when left empty. */
const isNumbered = (f: ModelField): boolean => f.def.kind === 'text' && Boolean(f.def.sequence);

/**
 * A string whose lone surrogates are replaced (U+FFFD), as the drivers encode a text parameter:
 * in JSON they would be `\ud800` escapes, which PostgreSQL refuses.
 */
const wellFormed = (s: string): string => (s as string & { toWellFormed(): string }).toWellFormed();

/** A JSON array column as the drivers return it (parsed, or as text). */
const jsonArray = (v: unknown): Record<string, unknown>[] => ((typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>[] | null) ?? [];

/** Whether normalised children carry the same writable values, in the same order, as stored ones. */
function sameChildren(child: ModelResource, sent: readonly Rec[], stored: readonly Rec[]): boolean {
  if (sent.length !== stored.length) return false;
  const fields = child.creatable.filter((f) => f !== child.owner?.field);
  return sent.every((item, i) => {
    const placed: Rec = { ...item, ...positionOf(child, item, i) };
    return fields.every((f) => !(f.name in placed) || sameValue(placed[f.name], stored[i]![f.name]));
  });
}

/** An embedded child sent without a `position` takes its index in the array. */
function positionOf(child: ModelResource, item: Rec, index: number): Rec {
  return child.byName.has('position') && item.position == null ? { position: index } : {};
}

/**
 * Groups windowed rows (numbered `__rn` within their partition of `__total` rows) into one slice
 * per partition, keeping the rows inside the window; a partition's first row always comes, so
 * its size is known even when its window is empty.
 */
function slicesOf(rows: Record<string, unknown>[], w: SliceQuery['window'], via: string | undefined, decode: (row: Record<string, unknown>) => Rec): Map<string, Slice> {
  const out = new Map<string, { items: Rec[]; offsets: number[]; total: number }>();
  for (const row of rows) {
    const key = via ? String(row[via]) : '';
    const total = Number(row.__total);
    const offset = Number(row.__rn) - 1;
    let s = out.get(key);
    if (!s) out.set(key, (s = { items: [], offsets: [], total }));
    const { lower, upper } = windowBounds(w, total);
    if (offset < lower || offset >= upper) continue;
    delete row.__total;
    delete row.__rn;
    s.items.push(decode(row));
    s.offsets.push(offset);
  }
  return out;
}

/** The driver's error behind drizzle's wrapper, if any. */
export function driverError(e: unknown): { code?: string; constraint?: string; detail?: string } | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const o = cur as { code?: unknown; constraint?: string; constraint_name?: string; detail?: string; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) return { code: o.code, constraint: o.constraint ?? o.constraint_name, detail: o.detail };
    cur = o.cause;
  }
  return undefined;
}

interface ForeignKey {
  from: ModelResource;
  field: ModelField;
  to: string;
}

function translateDbError(e: unknown, unique: Map<string, { path: string; message: string }>, fks: Map<string, ForeignKey>): unknown {
  if (e instanceof ApiError) return e;
  const d = driverError(e);
  if (!d) return e;
  if (d.code === '23505') {
    const u = d.constraint ? unique.get(d.constraint) : undefined;
    return ApiError.validation([{ propertyPath: u?.path ?? 'id', message: u?.message ?? 'This value is already used.', code: C.unique }]);
  }
  // 23503: a foreign key (NO ACTION) is violated; 23001: a RESTRICT one is.
  if (d.code === '23503' || d.code === '23001') {
    const fk = d.constraint ? fks.get(d.constraint) : undefined;
    // The referencing side: a record written with a reference whose target went away after the
    // check (another request deleted it in between).
    if (fk && d.detail?.includes('is not present in table')) {
      return ApiError.validation([{ propertyPath: fk.field.name, message: 'Item not found: it was deleted meanwhile.', code: C.notFound }]);
    }
    return ApiError.conflict(fk ? `This ${fk.to} cannot be deleted: ${fk.from.name} records still refer to it.` : 'This record is still referenced by other records.');
  }
  if (d.code === '40001' || d.code === '40P01') return new ApiError(409, 'The record was changed by another request at the same time; retry.');
  return e;
}
