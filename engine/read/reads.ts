// The engine's reads, one path for all of them: statements compiled once per shape and run with
// named values (engine/statements.ts), in a transaction or outside one, rows decoded by the
// select lists. Collections come as pages (offset and limit) or as windows (keyset cursor pages, for
// one collection or for the children of many parents in one statement).
import { and, sql, type SQL } from 'drizzle-orm';
import { ApiError } from '../errors.ts';
import type { Model, ModelResource } from '../model.ts';
import { recordJson, type Projection } from '../projection.ts';
import type { ListQuery, PageCursors, Slice, SliceQuery } from '../query.ts';
import { columnSqlType } from '../drizzle-internals.ts';
import { cursorOfPosition, decodePosition, orderBy, positionJson, reachedWith, seekRead, seekWith, type Position } from '../keyset.ts';
import type { StatementShape, Statements } from '../statements.ts';
import type { AnyTable, Tables } from '../tables.ts';
import type { Db, FieldValues, Principal, Tx } from '../types.ts';
import { isUuid } from '../validate.ts';
import { collectionWhere, conditionShape, conditionSql, countsAsPage, orderTerms, placeholders, queryShape } from './conditions.ts';
import { withDensity } from './density.ts';
import type { SelectLists } from './select-lists.ts';
import { collectionSize, countOf, cursorWindow, pageOf, pageSql, reading, readPast, sizeShape, windowShape } from './window.ts';

export interface Page extends PageCursors {
  items: FieldValues[];
  /** Null when a partial-match filter matches more than MAX_COUNTED_MATCHES records (CONTRACT §10). */
  total: number | null;
}

/** A page as JSON text built by the database (a format's projection). */
export interface JsonPage extends PageCursors {
  members: string;
  total: number | null;
}

export interface Reads {
  list(p: Principal, r: ModelResource, q: ListQuery, embedded?: boolean): Promise<Page>;
  /** A record by id, whatever its company (null when missing); `lock`: FOR UPDATE, without children. */
  fetch(tx: Tx, r: ModelResource, id: string, lock?: boolean): Promise<FieldValues | null>;
  /** A record of the principal's company: 404 when missing, 403 when it belongs to another company. */
  readIn(tx: Tx, p: Principal, r: ModelResource, id: string, lock?: boolean): Promise<FieldValues>;
  findMany(p: Principal, r: ModelResource, ids: readonly string[], embedded: boolean): Promise<FieldValues[]>;
  slice(p: Principal, r: ModelResource, q: SliceQuery): Promise<Slice>;
  sliceMany(p: Principal, r: ModelResource, via: string, parents: readonly string[], q: SliceQuery): Promise<Map<string, Slice>>;
  listJson(p: Principal, r: ModelResource, q: ListQuery, projection: Projection): Promise<JsonPage>;
  /** One record as JSON text, with its version (its ETag). */
  readJson(p: Principal, r: ModelResource, id: string, projection: Projection): Promise<{ text: string; version: number }>;
  /** A record's version alone (If-None-Match): 404 when missing, 403 when another company's. */
  version(p: Principal, r: ModelResource, id: string): Promise<number>;
}

/** A size as the database gave it: null beyond the bound of a partial-match filter's count. */
const nullable = (v: unknown): number | null => (v === null ? null : Number(v));

/** A company's collection's size (the placeholder `company`), from the counters when they can answer. */
const size = (r: ModelResource, t: AnyTable, q: { where: ListQuery['where'] }, where: SQL | undefined): SQL =>
  collectionSize(r, q.where, sql.placeholder('company'), () => sql`select 1 from ${t} where ${where}`);

/** A cursor page's side and position (null: from the edge), its values bound as placeholders. */
interface CursorRead {
  readonly side: 'after' | 'before';
  readonly pos: Position | null;
  /** What of the cursor shapes the statement: its side, and which of its values are null. */
  readonly key: string;
}

/** A position's values as cursorRead bound them (placeholders, already SQL). */
const bound = (v: string | number): SQL => sql`${v}`;

/**
 * The cursor page's rows, as seekRead reads them (each index range of the seek ordered and
 * limited, under the table's name), and whether records lie behind the page: at or beyond its
 * cursor on the side it was not read (reachedWith, a few limited index lookups), for the exact
 * `previous` of a page read after a cursor (`next` of one read before).
 */
function cursorPage(r: ModelResource, t: AnyTable, order: ListQuery['order'], cursor: CursorRead, where: SQL): { page: SQL; behind: SQL } {
  const pos = cursor.pos ?? undefined;
  const page = seekRead(r, t, order, pos, cursor.side, bound, cursor.side === 'before', sql`${sql.placeholder('limit')}`, (cond) => sql`select * from ${t} where ${and(where, cond)}`, sql`${t}`);
  const behind = pos ? reachedWith(r, t, order, pos, cursor.side === 'after' ? 'before' : 'after', bound, (cond) => sql`select 1 from ${t} where ${and(where, cond)}`) : sql`false`;
  return { page, behind };
}

/**
 * The cursor of a cursor-mode ListQuery, decoded (400 naming the parameter when it is not one of
 * this order's). Its values go into `values` as placeholders cast to their columns' types, so that
 * every position of one shape runs the same statement text, and its plan seeks the index.
 */
function cursorRead(r: ModelResource, t: AnyTable, q: ListQuery, values: Record<string, unknown>): CursorRead | undefined {
  const side = q.after !== undefined ? 'after' : q.before !== undefined ? 'before' : undefined;
  if (!side) return undefined;
  const decoded = decodePosition(r, q.order, side === 'after' ? q.after : q.before, side);
  if (!decoded) return { side, pos: null, key: `${side}:edge` };
  const bound = (name: string, v: unknown, field: string): SQL => {
    values[name] = v;
    return sql`${sql.placeholder(name)}::${sql.raw(columnSqlType(t[field] as never))}`;
  };
  const pos = { values: decoded.values.map((v, i) => (v === null ? null : bound(`c${i}`, v, q.order[i]!.field))), id: bound('cid', decoded.id, 'id') };
  return { side, pos: pos as unknown as Position, key: `${side}:${decoded.values.map((v) => (v === null ? '0' : '1')).join('')}` };
}

export function createReads(db: Db, model: Model, tables: Tables, statements: Statements, columns: SelectLists): Reads {
  const run = statements.run;

  /** The query with its partial-match values' density measured (engine/read/density.ts). */
  const measured = async <Q extends { where: ListQuery['where'] }>(p: Principal, r: ModelResource, q: Q): Promise<Q> => {
    const where = await withDensity(db, statements, r, tables.get(r), p.company.id, q.where);
    return where === q.where ? q : { ...q, where };
  };

  async function list(p: Principal, r: ModelResource, given: ListQuery, embedded = true): Promise<Page> {
    const q = await measured(p, r, given);
    const t = tables.get(r);
    const values: Record<string, unknown> = { company: p.company.id, limit: q.limit, offset: q.offset };
    const whereOf = collectionWhere(t, q.where, values);
    const countAgain = async () => {
      const build = () => sql`select ${size(r, t, q, whereOf().count)}::float8 as "n"`;
      const [row] = await run(db, { key: `count|${r.name}|${q.where.map(conditionShape).join(',')}|${sizeShape(r, q.where)}`, build, bind: whereOf }, values);
      return row?.n === null ? null : Number(row?.n ?? 0);
    };
    if (q.limit === 0) return { items: [], total: await countAgain() };
    const counted = q.count !== false;
    const cursor = cursorRead(r, t, q, values);
    const positions = cursor !== undefined || q.cursors === true;
    // Cursor mode reads a window (window.ts): one record more than the page, to know whether more follow.
    const w = cursor ? cursorWindow(cursor.side, cursor.pos ?? undefined, q.limit) : undefined;
    if (w) values.limit = reading(w).limit;
    // The total as a scalar subquery: `count(*) over ()` would make PostgreSQL read and window
    // every matching row (not just the page) before the limit applies.
    const rows = await run(
      db,
      {
        key: `list|${r.name}|${queryShape(q)}|${sizeShape(r, q.where)}|${embedded}|${counted}${cursor ? `|${cursor.key}` : positions ? '|cursors' : ''}`,
        build: () => {
          const { page: where, count } = whereOf();
          const total = counted ? sql`${size(r, t, q, count)}::float8` : sql`null`;
          const position = positions ? sql`, ${positionJson(r, t, q.order)}::text as "__position"` : sql``;
          if (cursor) {
            // The page (seekRead names it like the table, so the select list reads it as it is).
            const { page, behind } = cursorPage(r, t, q.order, cursor, where!);
            return sql`select ${columns.of(r, embedded)}, ${total} as "__total"${position}, ${behind} as "__behind" from ${page} order by ${sql.join(orderBy(t, q.order, cursor.side === 'before'), sql`, `)}`;
          }
          return sql`select ${columns.of(r, embedded)}, ${total} as "__total"${position} from ${t} where ${where} order by ${sql.join(orderTerms(t, q.order), sql`, `)} limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')}`;
        },
        bind: whereOf,
      },
      values,
    );
    const more = w ? readPast(w, rows.length) : undefined;
    const behind = cursor && rows.length ? rows[0]!.__behind === true : undefined;
    // The page in the collection's order (behind the cursor is told apart, by `behind`).
    if (w) rows.splice(0, rows.length, ...pageOf(w, rows, false, false).items);
    const offset = cursor ? 0 : q.offset;
    // An empty page past the end (or beside a cursor) says nothing of the size: it is counted then.
    const total = !counted ? offset + rows.length : rows.length ? nullable(rows[0]!.__total) : offset === 0 && !cursor ? 0 : await countAgain();
    const ends = positions && rows.length ? { first: cursorOfPosition(r, q.order, rows[0]!.__position), last: cursorOfPosition(r, q.order, rows.at(-1)!.__position) } : {};
    return {
      items: rows.map((row) => {
        delete row.__total;
        delete row.__position;
        delete row.__behind;
        return columns.decode(r, row);
      }),
      total,
      ...ends,
      ...(more !== undefined ? { more } : {}),
      ...(behind !== undefined ? { behind } : {}),
    };
  }

  async function fetch(tx: Tx, r: ModelResource, id: string, lock = false): Promise<FieldValues | null> {
    if (!isUuid(id)) return null;
    const t = tables.get(r);
    const build = () => sql`select ${columns.of(r, !lock)} from ${t} where ${t.id} = ${sql.placeholder('id')}${lock ? sql` for update` : sql``}`;
    const [row] = await run(tx, { key: `read|${r.name}|${lock}`, build }, { id: id.toLowerCase() });
    return row ? columns.decode(r, row) : null;
  }

  async function readIn(tx: Tx, p: Principal, r: ModelResource, id: string, lock = false): Promise<FieldValues> {
    const rec = await fetch(tx, r, id, lock);
    if (!rec) throw ApiError.notFound();
    if (rec.companyId !== p.company.id) throw ApiError.forbidden('This record belongs to another company.');
    return rec;
  }

  async function findMany(p: Principal, r: ModelResource, ids: readonly string[], embedded: boolean): Promise<FieldValues[]> {
    const valid = [...new Set(ids.filter(isUuid).map((i) => i.toLowerCase()))];
    if (!valid.length) return [];
    const t = tables.get(r);
    const values: Record<string, unknown> = { company: p.company.id };
    valid.forEach((id, i) => (values[`i${i}`] = id));
    const build = () =>
      sql`select ${columns.of(r, embedded)} from ${t} where ${t.companyId} = ${sql.placeholder('company')} and ${t.id} in (${sql.join(valid.map((_, i) => sql.placeholder(`i${i}`)), sql`, `)})`;
    const rows = await run(db, { key: `many|${r.name}|${embedded}|${valid.length}`, build }, values);
    return rows.map((row) => columns.decode(r, row));
  }

  /**
   * Windows over the collection, or over each parent's children when `via` is given, in one
   * statement: for each parent (a lateral join), the rows of its window read by keyset with a
   * limit (engine/read/window.ts), its size, and whether records lie past the window's cursors.
   */
  async function windows(p: Principal, r: ModelResource, given: SliceQuery, via?: { field: string; parents: readonly string[] }): Promise<Map<string, Slice>> {
    const q = await measured(p, r, given);
    const t = tables.get(r);
    const w = q.window;
    const { reverse, limit } = reading(w);
    const counted = q.count !== false;
    const values: Record<string, unknown> = { company: p.company.id, limit };
    const named = placeholders(values);
    const parents = via ? [...new Set(via.parents)] : [];
    const key = `win|${r.name}|${via?.field ?? ''}|${parents.length}|${queryShape(q)}|${sizeShape(r, q.where)}|${windowShape(w)}|${counted}`;
    const bindPosition = (v: string | number) => named.bind(v) as SQL;
    // Every value is bound here, in the same order whether the statement is built or cached.
    const parts = () => {
      named.restart();
      const list = via ? sql.join(parents.map((id, i) => sql`(${sql.raw(String(i))}, ${named.bind(id)}::uuid)`), sql`, `) : sql`(0, null::uuid)`;
      const conds = [sql`${t.companyId} = ${sql.placeholder('company')}`, ...q.where.map((c) => conditionSql(t, c, named.bind))];
      if (via) conds.push(sql`${t[via.field]} = "__p"."k"`);
      const where = and(...conds)!;
      // The bounded count's WHERE, when a partial match is counted otherwise than paged (conditions.ts).
      const countConds = countsAsPage(q.where) ? undefined : [conds[0]!, ...q.where.map((c) => conditionSql(t, c, named.bind, true)), ...conds.slice(1 + q.where.length)];
      const countWhere = countConds ? and(...countConds)! : where;
      const past = (pos: Position | undefined, side: 'after' | 'before') => (pos ? reachedWith(r, t, q.order, pos, side, bindPosition, (cond) => sql`select 1 from ${t} where ${where} and ${cond}`) : sql`false`);
      // Read from the cursor the scan starts at (`after` forwards, `before` backwards); the other bounds it.
      const [from, to] = reverse ? (['before', 'after'] as const) : (['after', 'before'] as const);
      const bound = w[to] && seekWith(r, t, q.order, w[to]!, to, bindPosition);
      const page = seekRead(r, t, q.order, w[from], from, bindPosition, reverse, sql`${sql.placeholder('limit')}`, (cond) => sql`select * from ${t} where ${and(where, bound, cond)}`, sql`${t}`);
      const total = counted ? (via ? countOf(q.where, sql`select 1 from ${t} where ${countWhere}`) : size(r, t, q, countWhere)) : sql`null`;
      return { list, page, total, behindAfter: counted ? past(w.after, 'before') : sql`false`, pastBefore: counted ? past(w.before, 'after') : sql`false` };
    };
    const build = () => {
      const x = parts();
      const order = sql.join(orderBy(t, q.order, reverse), sql`, `);
      // The page's rows (at most the limit) under the table's name, so the select list reads them.
      return sql`select "__p"."k"::text as "__key", "__s".*, "__w".* from (values ${x.list}) as "__p"("n", "k")
        cross join lateral (select ${x.total}::float8 as "__total", ${x.behindAfter} as "__behind", ${x.pastBefore} as "__past") as "__s"
        left join lateral (select ${columns.of(r, false)}, row_number() over (order by ${order}) as "__rn" from ${x.page}) as "__w" on true
        order by "__p"."n", "__w"."__rn"`;
    };
    const rows = await run(db, { key, build, bind: parts }, values);
    const grouped = new Map<string, { rows: FieldValues[]; total: number | null; behind: boolean; past: boolean }>();
    for (const row of rows) {
      const k = via ? String(row.__key) : '';
      let g = grouped.get(k);
      if (!g) grouped.set(k, (g = { rows: [], total: row.__total === null && counted ? null : Number(row.__total ?? 0), behind: row.__behind === true, past: row.__past === true }));
      const present = row.__rn !== null && row.__rn !== undefined;
      for (const c of ['__key', '__total', '__behind', '__past', '__rn']) delete row[c];
      if (present) g.rows.push(columns.decode(r, row));
    }
    const out = new Map<string, Slice>();
    for (const [k, g] of grouped) out.set(k, { total: g.total, ...pageOf(w, g.rows, g.behind, g.past) });
    return out;
  }

  async function slice(p: Principal, r: ModelResource, q: SliceQuery): Promise<Slice> {
    return (await windows(p, r, q)).get('') ?? { items: [], total: 0, hasPreviousPage: false, hasNextPage: false };
  }

  /** `list` with the page built as JSON text by the database, in one statement per shape. */
  async function listJson(p: Principal, r: ModelResource, given: ListQuery, projection: Projection): Promise<JsonPage> {
    const q = await measured(p, r, given);
    const t = tables.get(r);
    const values: Record<string, unknown> = { company: p.company.id, limit: q.limit, offset: q.offset };
    const whereOf = collectionWhere(t, q.where, values);
    const cursor = cursorRead(r, t, q, values);
    const positions = cursor !== undefined || q.cursors === true;
    const w = cursor ? cursorWindow(cursor.side, cursor.pos ?? undefined, q.limit) : undefined;
    if (w) Object.assign(values, { size: q.limit, limit: reading(w).limit });
    const build = () => {
      const { page: where, count } = whereOf();
      const order = sql.join(orderTerms(t, q.order), sql`, `);
      const member = recordJson(model, r, r.table, projection, false);
      const position = positionJson(r, t, q.order);
      const reversed = sql.join(orderBy(t, q.order, true), sql`, `);
      if (cursor) {
        // The page is read in the cursor's direction with one record more (whether more follow),
        // numbered in that direction, and the records within the page aggregated in the order.
        const read = sql.join(orderBy(t, q.order, cursor.side === 'before'), sql`, `);
        const { page, behind } = cursorPage(r, t, q.order, cursor, where!);
        // A REST cursor window has `first` or `last` alone: which rows it keeps depends on their place only.
        const inPage = sql`filter (where ${pageSql(w!, () => sql`${sql.placeholder('size')}::int`).keep(sql`${sql.identifier('__rn')}`, sql`null`)})`;
        return sql`select ${size(r, t, q, count)}::float8 as "total", count(*)::float8 as "fetched", ${behind} as "behind",
            coalesce(json_agg(${member} order by ${order}) ${inPage}, '[]'::json)::text as "members",
            ((array_agg(${position} order by ${order}) ${inPage})[1])::text as "first",
            ((array_agg(${position} order by ${reversed}) ${inPage})[1])::text as "last"
            from (select *, row_number() over (order by ${read}) as ${sql.identifier('__rn')} from ${page}) as ${sql.identifier(r.table)}`;
      }
      const ends = positions ? sql`, ((array_agg(${position} order by ${order}))[1])::text as "first", ((array_agg(${position} order by ${reversed}))[1])::text as "last"` : sql``;
      // The page is a subquery named like the table, so the order terms apply to it as they are.
      return sql`select ${size(r, t, q, count)}::float8 as "total",
          coalesce(json_agg(${member} order by ${order}), '[]'::json)::text as "members"${ends}
          from (select * from ${t} where ${where} order by ${order} limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')}) as ${sql.identifier(r.table)}`;
    };
    const key = `json-list|${projection.name}|${r.name}|${queryShape(q)}|${sizeShape(r, q.where)}${cursor ? `|${cursor.key}` : positions ? '|cursors' : ''}`;
    const [row] = await run(db, { key, build, bind: whereOf }, values);
    const ends = positions && row!.first !== null && row!.first !== undefined ? { first: cursorOfPosition(r, q.order, row!.first), last: cursorOfPosition(r, q.order, row!.last) } : {};
    return { members: row!.members as string, total: nullable(row!.total), ...ends, ...(w ? { more: readPast(w, Number(row!.fetched)), behind: row!.behind === true } : {}) };
  }

  // The item read's statement shape per projection and resource, made once: the request path
  // then allocates no closure and no key. The row is named `t` (its children `t_<field>`): the
  // statement's text is shorter, and the driver hashes that text on every execution.
  const jsonReads = new Map<Projection, Map<ModelResource, StatementShape>>();
  const jsonReadOf = (r: ModelResource, projection: Projection): StatementShape => {
    let byResource = jsonReads.get(projection);
    if (!byResource) jsonReads.set(projection, (byResource = new Map()));
    let shape = byResource.get(r);
    if (!shape) {
      const build = () =>
        sql`select "t"."company_id" as "companyId", "t"."version", ${recordJson(model, r, 't', projection, true)}::text as "body" from ${tables.get(r)} as "t" where "t"."id" = ${sql.placeholder('id')}`;
      byResource.set(r, (shape = { key: `json-read|${projection.name}|${r.name}`, build }));
    }
    return shape;
  };

  async function readJson(p: Principal, r: ModelResource, id: string, projection: Projection): Promise<{ text: string; version: number }> {
    if (!isUuid(id)) throw ApiError.notFound();
    const [row] = await run(db, jsonReadOf(r, projection), { id: id.toLowerCase() });
    if (!row) throw ApiError.notFound();
    if (row.companyId !== p.company.id) throw ApiError.forbidden('This record belongs to another company.');
    return { text: row.body as string, version: Number(row.version) };
  }

  async function version(p: Principal, r: ModelResource, id: string): Promise<number> {
    if (!isUuid(id)) throw ApiError.notFound();
    const t = tables.get(r);
    const build = () => sql`select ${t.companyId} as "companyId", ${t.version} as "version" from ${t} where ${t.id} = ${sql.placeholder('id')}`;
    const [row] = await run(db, { key: `version|${r.name}`, build }, { id: id.toLowerCase() });
    if (!row) throw ApiError.notFound();
    if (row.companyId !== p.company.id) throw ApiError.forbidden('This record belongs to another company.');
    return Number(row.version);
  }

  return {
    list,
    fetch,
    readIn,
    findMany,
    slice,
    async sliceMany(p, r, via, parents, q) {
      if (!r.byName.get(via) || r.byName.get(via)!.kind !== 'ref') throw new Error(`${r.name}.${via} is not a reference`);
      const valid = [...new Set(parents.filter(isUuid).map((i) => i.toLowerCase()))];
      return valid.length ? windows(p, r, q, { field: via, parents: valid }) : new Map();
    },
    listJson,
    readJson,
    version,
  };
}
