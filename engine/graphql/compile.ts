// Compiled reads, as PostGraphile and Hasura do them: a query operation becomes, once per query
// text and operation name, ONE SQL statement whose single value is the whole `data` object as
// JSON text built by PostgreSQL (json_build_object over correlated subqueries, pages as
// ARRAY(subquery); the json type keeps the keys in the order of the selection). The response is
// that text inside `{"data":…}`: no record is decoded and graphql-js executes nothing.
//
// Only what is known to answer exactly as the resolvers do is compiled: collection and item
// queries, to-one objects, to-many connections (edges, node, cursor, pageInfo, totalCount),
// scalars and embedded lists, aliases, fragments, literal @skip/@include, variables in
// arguments. Anything else (mutations, introspection, `node(id:)`, variables in directives…),
// any argument the resolvers would refuse and any value they could not serialise take the
// normal path, which produces every error. The document passes the same validation rules and
// limits (depth, aliases, cost) as on the normal path before anything runs.
import { Placeholder, sql, type SQL } from 'drizzle-orm';
import { countShape, countSql } from '../counts.ts';
import { PgDialect } from 'drizzle-orm/pg-core';
import {
  GraphQLIncludeDirective, GraphQLObjectType, GraphQLSkipDirective, Kind, getArgumentValues, getDirectiveValues, getNamedType, getOperationAST,
  getVariableValues, isAbstractType, parse, specifiedRules, validate,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLSchema, type InlineFragmentNode,
  type OperationDefinitionNode, type FragmentSpreadNode, type SelectionSetNode, type ValidationRule, type ValueNode,
} from 'graphql';
import type { Principal } from '../context.ts';
import type { IntegerField, ListField } from '../descriptor.ts';
import type { ModelField, ModelResource } from '../model.ts';
import { lowerFirst } from '../names.ts';
import { driverError, type Engine } from '../operations.ts';
import { iso, literal } from '../sql-text.ts';
import { tieBreak, type Order, type SliceQuery, type Window } from '../query.ts';
import { childrenOrder, sliceQuery } from './arguments.ts';
import { checkCost, checkOperationCost, type Limits } from './limits.ts';
import { idFromIri } from './schema.ts';

export interface CompiledReads {
  /** The `data` of a query operation as JSON text; undefined when it must take the normal path. */
  run(query: string, operationName: string | undefined, variables: Record<string, unknown> | undefined, principal: Principal): Promise<string | undefined>;
}

export interface CompilerOptions {
  schema: GraphQLSchema;
  engine: Engine;
  limits: Limits;
  /** The validation rules the endpoint adds to graphql-js's specified ones. */
  rules: readonly ValidationRule[];
  /** The parser's token limit, as the endpoint's. */
  maxTokens: number;
  /** A statement could not be built for a plan (the query then goes to the resolvers). */
  onError?(err: unknown): void;
}

/** Something the compiler does not handle: the operation takes the normal path. */
class Unsupported extends Error {}

// Bounds of the caches: plans by query text (longer texts are never cached nor compiled), and
// statement texts per plan (one per shape of its variable arguments).
const MAX_PLANS = 1000;
const MAX_TEXT = 20_000;
const MAX_SHAPES = 50;
// json_build_object takes at most 100 arguments: 50 keys and values.
const MAX_KEYS = 50;

/** A value read from a row, as SQL over the row's alias. */
type Value = (row: SQL) => SQL;

interface ObjectSel {
  r: ModelResource;
  fields: ObjectField[];
}

type ObjectField =
  | { key: string; kind: 'value'; value: Value }
  | { key: string; kind: 'one'; target: ModelResource; column: string; object: ObjectSel }
  | { key: string; kind: 'many'; via: string; conn: ConnSel }
  | { key: string; kind: 'list'; column: string; items: ItemField[] };

/** A field of an item of an embedded list (jsonb), as SQL over the item (`v`). */
type ItemField =
  | { key: string; kind: 'value'; value: Value }
  | { key: string; kind: 'one'; target: ModelResource; name: string; object: ObjectSel };

interface ConnSel {
  /** Index in the plan: names the placeholders of its values. */
  n: number;
  r: ModelResource;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  fallback: readonly Order[];
  /** The query, when the arguments use no variable (computed once). */
  fixed: SliceQuery | undefined;
  /** Whether the selection reads the collection's size (totalCount, pageInfo). */
  total: boolean;
  fields: ConnField[];
}

type PageInfoField = { key: string; kind: 'const'; value: string } | { key: string; kind: 'startCursor' | 'endCursor' | 'hasNextPage' | 'hasPreviousPage' };
type EdgeField = { key: string; kind: 'const'; value: string } | { key: string; kind: 'cursor' } | { key: string; kind: 'node'; object: ObjectSel };
type ConnField =
  | { key: string; kind: 'const'; value: string }
  | { key: string; kind: 'totalCount' }
  | { key: string; kind: 'pageInfo'; fields: PageInfoField[] }
  | { key: string; kind: 'edges'; fields: EdgeField[] };

interface ItemSel {
  n: number;
  r: ModelResource;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** The id (null: no record can match), when the argument uses no variable. */
  fixed: { id: string | null } | undefined;
  object: ObjectSel;
}

type RootField = { key: string; kind: 'const'; value: string } | { key: string; kind: 'item'; item: ItemSel } | { key: string; kind: 'collection'; conn: ConnSel };

interface Plan {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation declares variables: they are coerced, and its cost checked, per request. */
  variables: boolean;
  root: RootField[];
  /** Connections and items whose arguments use variables, bound per request. */
  dynamic: (ConnSel | ItemSel)[];
  /** Placeholder values of the parts without variables. */
  fixedValues: Record<string, unknown>;
  statements: Map<string, { sql: string; params: unknown[] }>;
}

/** What the variables of one request make of the dynamic parts. */
type Bound = Map<number, SliceQuery | string | null>;

const isConn = (x: ConnSel | ItemSel): x is ConnSel => 'fallback' in x;

export function createCompiler(o: CompilerOptions): CompiledReads | undefined {
  const reads = o.engine.rawReads;
  if (!reads) return undefined;
  const { schema, limits } = o;
  const model = o.engine.model;
  const dialect = new PgDialect();
  const rules = [...specifiedRules, ...o.rules];
  const queryType = schema.getQueryType()!;
  const roots = new Map<string, { r: ModelResource; kind: 'item' | 'collection' }>();
  for (const r of model.resources) {
    if (!r.graphql.has('query')) continue;
    roots.set(lowerFirst(r.name), { r, kind: 'item' });
    roots.set(r.plural, { r, kind: 'collection' });
  }
  const plans = new Map<string, Plan | null>();

  // ---- planning: the document → a tree of what to read ---------------------------------------

  function planOf(query: string, operationName: string | undefined): Plan | null {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: o.maxTokens });
    } catch {
      return null;
    }
    if (validate(schema, document, rules).length) return null;
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation !== 'query') return null;
    const variables = Boolean(operation.variableDefinitions?.length);
    try {
      // Without variables the cost never changes: checked once, here.
      if (!variables) checkCost(schema, document, operationName, undefined, limits);
      return build(document, operation, variables);
    } catch {
      return null;
    }
  }

  function build(document: DocumentNode, operation: OperationDefinitionNode, variables: boolean): Plan {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const plan: Plan = { document, operation, variables, root: [], dynamic: [], fixedValues: {}, statements: new Map() };
    let count = 0;

    const collect = (type: GraphQLObjectType, sets: readonly (SelectionSetNode | undefined)[]) => collectFields(schema, type, sets, fragments);

    function objectSel(r: ModelResource, nodes: readonly FieldNode[]): ObjectSel {
      const type = schema.getType(r.name) as GraphQLObjectType;
      const fields: ObjectField[] = [];
      for (const [key, sub] of collect(type, nodes.map((n) => n.selectionSet))) {
        const name = sub[0]!.name.value;
        const f = r.byName.get(name);
        if (name === '__typename') fields.push({ key, kind: 'value', value: () => text(r.name) });
        else if (name === 'id') fields.push({ key, kind: 'value', value: (a) => sql`(${text(`${r.iri}/`)} || ${a}."id")` });
        else if (name === '_id') fields.push({ key, kind: 'value', value: (a) => sql`${a}."id"` });
        else if (name === 'createdAt' || name === 'updatedAt') fields.push({ key, kind: 'value', value: (a) => iso(sql`${a}.${sql.identifier(name === 'createdAt' ? 'created_at' : 'updated_at')}`) });
        else if (!f) throw new Unsupported(name);
        else if (f.kind === 'children') {
          const child = model.get(f.target!);
          const via = child.byName.get((f.def as { via: string }).via)!;
          fields.push({ key, kind: 'many', via: via.column, conn: connSel(child, type.getFields()[name]!, sub, childrenOrder(f)) });
        } else if (f.kind === 'list') {
          fields.push({ key, kind: 'list', column: f.column, items: itemFields(f, getNamedType(type.getFields()[name]!.type) as GraphQLObjectType, sub) });
        } else if (f.kind === 'ref' && isObject(f.target!)) {
          const target = model.get(f.target!);
          fields.push({ key, kind: 'one', target, column: f.column, object: objectSel(target, sub) });
        } else fields.push({ key, kind: 'value', value: scalar(f) });
      }
      if (fields.length > MAX_KEYS) throw new Unsupported('too many keys');
      return { r, fields };
    }

    /**
     * The fields of the items of an embedded list. The stored values passed validation, so they
     * have the JSON type of their kind; anything else (or a missing required value) makes the
     * statement fail, and the normal path reports the error the resolvers raise.
     */
    function itemFields(f: ModelField, type: GraphQLObjectType, nodes: readonly FieldNode[]): ItemField[] {
      const of = (f.def as ListField).of;
      const items: ItemField[] = [];
      for (const [key, sub] of collect(type, nodes.map((n) => n.selectionSet))) {
        const name = sub[0]!.name.value;
        const d = of[name];
        if (name === '__typename') {
          items.push({ key, kind: 'value', value: () => text(type.name) });
          continue;
        }
        if (!d) throw new Unsupported(name);
        if (d.kind === 'ref' && isObject(d.target)) {
          items.push({ key, kind: 'one', target: model.get(d.target), name, object: objectSel(model.get(d.target), sub) });
          continue;
        }
        // Non-null in the schema (engine/graphql/schema.ts, alwaysSet): a missing value is an error there.
        const required = Boolean(d.required) || ('default' in d && d.default !== undefined);
        const json = (v: SQL) => sql`(${v} -> ${text(name)})`;
        const str = (v: SQL) => sql`(${v} ->> ${text(name)})`;
        let type_: string;
        let value: Value;
        let bad: ((v: SQL) => SQL) | undefined;
        switch (d.kind) {
          case 'text':
          case 'enum':
          case 'date':
            [type_, value] = ['string', str];
            break;
          case 'decimal':
            [type_, value] = ['number', (v) => sql`${str(v)}::float8`];
            break;
          case 'integer': {
            const max = d.money ? Number.MAX_SAFE_INTEGER : 2 ** 31 - 1;
            const n = (v: SQL) => sql`${str(v)}::numeric`;
            [type_, value] = ['number', (v) => sql`${n(v)}::int8`];
            bad = (v) => sql`(${n(v)} <> trunc(${n(v)}) or ${n(v)} < ${sql.raw(String(d.money ? -max : -(2 ** 31)))} or ${n(v)} > ${sql.raw(String(max))})`;
            break;
          }
          case 'ref':
            // A reference to a resource without a GraphQL type is its bare id there.
            [type_, value] = ['string', str];
            break;
          default:
            throw new Unsupported(d.kind);
        }
        const missing = (v: SQL) => sql`coalesce(jsonb_typeof(${json(v)}), 'null') = 'null'`;
        const wrong = (v: SQL) => sql`(${required ? missing(v) : sql`false`} or (not ${missing(v)} and (jsonb_typeof(${json(v)}) <> ${text(type_)}${bad ? sql` or ${bad(v)}` : sql``})))`;
        items.push({ key, kind: 'value', value: (v) => sql`(case when ${wrong(v)} then ${fail(v)} else to_json(${value(v)}) end)` });
      }
      if (items.length > MAX_KEYS) throw new Unsupported('too many keys');
      return items;
    }

    function connSel(r: ModelResource, field: GraphQLField<unknown, unknown>, nodes: readonly FieldNode[], fallback: readonly Order[]): ConnSel {
      const type = getNamedType(field.type) as GraphQLObjectType;
      const conn: ConnSel = { n: count++, r, field, node: nodes[0]!, fallback, fixed: undefined, total: false, fields: [] };
      for (const [key, sub] of collect(type, nodes.map((n) => n.selectionSet))) {
        const name = sub[0]!.name.value;
        if (name === '__typename') conn.fields.push({ key, kind: 'const', value: type.name });
        else if (name === 'totalCount') {
          conn.total = true;
          conn.fields.push({ key, kind: 'totalCount' });
        } else if (name === 'pageInfo') {
          conn.total = true;
          const infoType = getNamedType(type.getFields().pageInfo!.type) as GraphQLObjectType;
          const fields: PageInfoField[] = [];
          for (const [k, s] of collect(infoType, sub.map((n) => n.selectionSet))) {
            const what = s[0]!.name.value;
            if (what === '__typename') fields.push({ key: k, kind: 'const', value: infoType.name });
            else if (what === 'startCursor' || what === 'endCursor' || what === 'hasNextPage' || what === 'hasPreviousPage') fields.push({ key: k, kind: what });
            else throw new Unsupported(what);
          }
          conn.fields.push({ key, kind: 'pageInfo', fields });
        } else if (name === 'edges') {
          const edgeType = getNamedType(type.getFields().edges!.type) as GraphQLObjectType;
          const fields: EdgeField[] = [];
          for (const [k, s] of collect(edgeType, sub.map((n) => n.selectionSet))) {
            const what = s[0]!.name.value;
            if (what === '__typename') fields.push({ key: k, kind: 'const', value: edgeType.name });
            else if (what === 'cursor') fields.push({ key: k, kind: 'cursor' });
            else if (what === 'node') fields.push({ key: k, kind: 'node', object: objectSel(r, s) });
            else throw new Unsupported(what);
          }
          conn.fields.push({ key, kind: 'edges', fields });
        } else throw new Unsupported(name);
      }
      if (usesVariables(conn.node)) plan.dynamic.push(conn);
      else {
        conn.fixed = sliceQuery(model, r, getArgumentValues(field, conn.node, {}), fallback);
        conditions(conn, conn.fixed, plan.fixedValues);
      }
      return conn;
    }

    for (const [key, nodes] of collect(queryType, [operation.selectionSet])) {
      const name = nodes[0]!.name.value;
      const root = roots.get(name);
      const field = queryType.getFields()[name]!;
      if (name === '__typename') plan.root.push({ key, kind: 'const', value: queryType.name });
      else if (!root) throw new Unsupported(name);
      else if (root.kind === 'collection') plan.root.push({ key, kind: 'collection', conn: connSel(root.r, field, nodes, []) });
      else {
        const item: ItemSel = { n: count++, r: root.r, field, node: nodes[0]!, fixed: undefined, object: objectSel(root.r, nodes) };
        if (usesVariables(item.node)) plan.dynamic.push(item);
        else {
          item.fixed = { id: idFromIri(model, root.r, getArgumentValues(field, item.node, {}).id) };
          plan.fixedValues[`i${item.n}`] = item.fixed.id;
        }
        plan.root.push({ key, kind: 'item', item });
      }
    }
    if (plan.root.length > MAX_KEYS) throw new Unsupported('too many keys');
    return plan;
  }

  const isObject = (name: string): boolean => schema.getType(name) instanceof GraphQLObjectType && model.find(name) !== undefined;

  /** A scalar field as the resolvers serialise it. */
  function scalar(f: ModelField): Value {
    const column = (a: SQL) => sql`${a}.${sql.identifier(f.column)}`;
    switch (f.kind) {
      case 'integer': {
        const d = f.def as IntegerField;
        // Out of range, the resolver's serialiser raises an error: the statement fails (division
        // by zero) and the request takes the normal path, which reports it.
        const [lo, hi] = d.money ? [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] : [-(2 ** 31), 2 ** 31 - 1];
        if (!d.money && d.min !== undefined && d.max !== undefined && d.min >= lo && d.max <= hi) return column;
        return (a) => sql`(case when ${column(a)} < ${sql.raw(String(lo))} or ${column(a)} > ${sql.raw(String(hi))} then ${column(a)} / 0 else ${column(a)} end)`;
      }
      case 'decimal':
        return (a) => sql`${column(a)}::float8`;
      case 'date':
        return (a) => sql`${column(a)}::text`;
      case 'timestamp':
        // JavaScript's Date writes years outside 1–9999 differently: the normal path answers those.
        return (a) => sql`(case when ${column(a)} < '0001-01-01T00:00:00Z'::timestamptz or ${column(a)} >= '10000-01-01T00:00:00Z'::timestamptz then (extract(epoch from ${column(a)}) / 0)::text else ${iso(column(a))} end)`;
      case 'ref': {
        const target = model.get(f.target!);
        return (a) => sql`(${text(`${target.iri}/`)} || ${column(a)})`;
      }
      case 'text':
      case 'enum':
        return column;
      default:
        throw new Unsupported(f.kind);
    }
  }

  /** The conditions of a connection as SQL; their values go to `values` under stable names. */
  function conditions(conn: ConnSel, q: SliceQuery, values: Record<string, unknown>, as = 't'): SQL[] {
    let k = 0;
    const bind = (v: unknown) => {
      const name = `c${conn.n}_${k++}`;
      values[name] = v instanceof Date ? v.toISOString() : v;
      return sql.placeholder(name);
    };
    return q.where.map((c) => reads!.condition(conn.r, c, bind, as) ?? sql`true`);
  }

  // ---- binding: the variables of one request ------------------------------------------------

  const WINDOW = ['after', 'before', 'first', 'last'] as const;

  function bind(plan: Plan, variables: Record<string, unknown>, values: Record<string, unknown>): { bound: Bound; shape: string } {
    const bound: Bound = new Map();
    let shape = '';
    for (const part of plan.dynamic) {
      const args = getArgumentValues(part.field, part.node, variables);
      if (isConn(part)) {
        const q = sliceQuery(model, part.r, args, part.fallback);
        bound.set(part.n, q);
        conditions(part, q, values);
        for (const k of WINDOW) if (q.window[k] !== undefined) values[`w${part.n}${k}`] = q.window[k];
        shape += `${part.n}:${q.where.map(reads!.shape).join(',')}|${q.order.map((x) => `${x.field}:${x.dir}`).join(',')}|${WINDOW.filter((k) => q.window[k] !== undefined).join(',')}|${countShape(part.r, q.where)};`;
      } else {
        const id = idFromIri(model, part.r, args.id);
        bound.set(part.n, id);
        values[`i${part.n}`] = id;
        shape += `${part.n}:${id === null ? 0 : 1};`;
      }
    }
    return { bound, shape };
  }

  // ---- the statement ----------------------------------------------------------------------

  const company = sql.placeholder('company');

  function statement(plan: Plan, bound: Bound): SQL {
    let aliases = 0;
    const alias = (prefix: string) => `${prefix}${aliases++}`;

    const object = (sel: ObjectSel, a: SQL): SQL =>
      sql`json_build_object(${sql.join(sel.fields.map((f) => sql`${text(f.key)}, ${objectValue(f, a)}`), sql`, `)})`;

    function objectValue(f: ObjectField, a: SQL): SQL {
      if (f.kind === 'value') return f.value(a);
      if (f.kind === 'one') {
        const b = sql.raw(alias('o'));
        return sql`(select ${object(f.object, b)} from ${sql.identifier(f.target.table)} as ${b} where ${b}."id" = ${a}.${sql.identifier(f.column)} and ${b}."company_id" = ${company})`;
      }
      if (f.kind === 'many') return connection(f.conn, { column: f.via, parent: sql`${a}."id"` });
      const i = sql.raw(alias('i'));
      const v = sql`${i}.v`;
      const items = f.items.map((x) => {
        if (x.kind === 'value') return sql`${text(x.key)}, ${x.value(v)}`;
        // Anything but a UUID string reads as no record, as the resolvers' lookup does.
        const id = sql`(${v} ->> ${text(x.name)})`;
        const b = sql.raw(alias('o'));
        const uuid = sql`(case when jsonb_typeof(${v} -> ${text(x.name)}) = 'string' and ${id} ~* ${text(UUID)} then ${id}::uuid end)`;
        return sql`${text(x.key)}, (select ${object(x.object, b)} from ${sql.identifier(x.target.table)} as ${b} where ${b}."id" = ${uuid} and ${b}."company_id" = ${company})`;
      });
      return sql`coalesce((select json_agg(json_build_object(${sql.join(items, sql`, `)}) order by ${i}.n) from jsonb_array_elements(${a}.${sql.identifier(f.column)}) with ordinality as ${i}(v, n)), '[]'::json)`;
    }

    function connection(conn: ConnSel, via?: { column: string; parent: SQL }): SQL {
      const r = conn.r;
      const q = conn.fixed ?? (bound.get(conn.n) as SliceQuery);
      // The records of the collection, under an alias of their own (a resource may nest itself).
      const from = (as: string) => {
        const t = sql.raw(as);
        const where = [sql`${t}."company_id" = ${company}`];
        if (via) where.push(sql`${t}.${sql.identifier(via.column)} = ${via.parent}`);
        where.push(...conditions(conn, q, {}, as));
        return sql`${sql.identifier(r.table)} as ${t} where ${sql.join(where, sql` and `)}`;
      };
      const w: Window = q.window;
      // Window values: literals when fixed by the document, parameters when they come from variables.
      const num = (k: (typeof WINDOW)[number]) => (conn.fixed ? sql.raw(String(w[k])) : sql`${sql.placeholder(`w${conn.n}${k}`)}::int`);
      const start = w.after !== undefined ? sql`(${num('after')} + 1)` : sql`0`;
      const counted = conn.total || w.last !== undefined;
      const c = sql.raw(alias('c'));
      let lo: SQL;
      let limit: SQL;
      if (counted) {
        // The bounds of windowBounds (engine/query.ts), computed from the size.
        lo = sql`${c}.lo`;
        limit = sql`(${c}.hi - ${c}.lo)`;
      } else {
        // Counted from the start: a plain offset and limit, and no count.
        lo = start;
        limit = w.before !== undefined ? sql`greatest(0, least(${num('first')}, ${num('before')} - ${start}))` : num('first');
      }
      const pairs: SQL[] = [];
      for (const f of conn.fields) {
        let v: SQL;
        if (f.kind === 'const') v = text(f.value);
        else if (f.kind === 'totalCount') v = sql`${c}.n`;
        else if (f.kind === 'pageInfo') {
          v = sql`json_build_object(${sql.join(
            f.fields.map((p) => {
              const value = p.kind === 'const' ? text(p.value)
                : p.kind === 'startCursor' ? sql`case when ${c}.hi > ${c}.lo then ${cursor(sql`${c}.lo`)} end`
                  : p.kind === 'endCursor' ? sql`case when ${c}.hi > ${c}.lo then ${cursor(sql`${c}.hi - 1`)} end`
                    : p.kind === 'hasNextPage' ? sql`${c}.hi < ${c}.n`
                      : sql`(${c}.lo > 0 and ${c}.n > 0)`;
              return sql`${text(p.key)}, ${value}`;
            }),
            sql`, `,
          )})`;
        } else {
          const as = alias('t');
          const t = sql.raw(as);
          const order = sql.join([...q.order.map((o) => sql`${t}.${sql.identifier(columnOf(r, o.field))} ${sql.raw(o.dir)}`), sql`${t}."id" ${sql.raw(tieBreak(q.order))}`], sql`, `);
          const edge = sql`json_build_object(${sql.join(
            f.fields.map((x) => sql`${text(x.key)}, ${x.kind === 'const' ? text(x.value) : x.kind === 'cursor' ? cursor(sql`row_number() over (order by ${order}) - 1`) : object(x.object, t)}`),
            sql`, `,
          )})`;
          // ARRAY(subquery) keeps the subquery's order; the page's edges are built only for the
          // rows the limit lets through. row_number() numbers the rows before the offset applies:
          // it is the offset in the collection.
          v = sql`array_to_json(array(select ${edge} from ${from(as)} order by ${order} offset ${lo} limit ${limit}))`;
        }
        pairs.push(sql`${text(f.key)}, ${v}`);
      }
      const json = sql`json_build_object(${sql.join(pairs, sql`, `)})`;
      if (!counted) return json;
      const end = w.before !== undefined ? sql`least(${num('before')}, n)` : sql`n`;
      const up = w.first !== undefined ? sql`least(${end}, ${start} + ${num('first')})` : end;
      const low = w.last !== undefined ? sql`greatest(${start}, up - ${num('last')})` : start;
      // A company's collection is sized by the counters when they can answer (engine/counts.ts).
      const kept = via ? undefined : countSql(r, q.where, company);
      const size = kept ? sql`select ${kept}::int as n` : sql`select count(*)::int as n from ${from(alias('t'))}`;
      const bounds = sql`select n, lo, greatest(lo, up) as hi from (select n, up, ${low} as lo from (select n, ${up} as up from (${size}) as b0) as b1) as b2`;
      return sql`(select ${json} from (${bounds}) as ${c})`;
    }

    const pairs = plan.root.map((f) => {
      if (f.kind === 'const') return sql`${text(f.key)}, ${text(f.value)}`;
      if (f.kind === 'collection') return sql`${text(f.key)}, ${connection(f.conn)}`;
      const item = f.item;
      const id = item.fixed ? item.fixed.id : (bound.get(item.n) as string | null);
      if (id === null) return sql`${text(f.key)}, null::json`;
      const a = sql.raw(alias('r'));
      return sql`${text(f.key)}, (select ${object(item.object, a)} from ${sql.identifier(item.r.table)} as ${a} where ${a}."id" = ${sql.placeholder(`i${item.n}`)} and ${a}."company_id" = ${company})`;
    });
    return sql`select json_build_object(${sql.join(pairs, sql`, `)})::text as data`;
  }

  // ---- running ---------------------------------------------------------------------------

  return {
    async run(query, operationName, variables, principal) {
      if (query.length > MAX_TEXT) return undefined;
      const key = `${operationName ?? ''}\u0000${query}`;
      let plan = plans.get(key);
      if (plan === undefined) {
        if (plans.size >= MAX_PLANS) plans.clear();
        plans.set(key, (plan = planOf(query, operationName)));
      }
      if (!plan) return undefined;
      const values: Record<string, unknown> = {};
      let bound: Bound = new Map();
      let shape = '';
      if (plan.variables) {
        const coerced = getVariableValues(schema, plan.operation.variableDefinitions ?? [], variables ?? {});
        if (coerced.errors) return undefined;
        try {
          checkOperationCost(schema, plan.document, plan.operation, coerced.coerced, limits);
          ({ bound, shape } = bind(plan, coerced.coerced, values));
        } catch {
          return undefined;
        }
      }
      let st = plan.statements.get(shape);
      if (!st) {
        try {
          st = dialect.sqlToQuery(statement(plan, bound));
        } catch (err) {
          o.onError?.(err);
          st = undefined;
        }
        // Every value must travel as a parameter: one written into the text would be reused.
        if (!st || st.params.some((p) => !(p instanceof Placeholder))) {
          plans.set(key, null);
          return undefined;
        }
        if (plan.statements.size >= MAX_SHAPES) plan.statements.clear();
        plan.statements.set(shape, st);
      }
      const fixed = plan.fixedValues;
      const params = st.params.map((p) => {
        const name = (p as Placeholder).name as string;
        return name === 'company' ? principal.company.id : name in values ? values[name] : fixed[name];
      });
      try {
        const rows = await reads.query(st.sql, params);
        return rows[0]?.data as string | undefined;
      } catch (err) {
        // A value the resolvers could not serialise (division by zero, see `scalar`): the normal
        // path answers, with its errors. Anything else (the database failing) is the caller's.
        if (driverError(err)?.code === '22012') return undefined;
        throw err;
      }
    },
  };
}

/**
 * The fields of a selection on `type` by response key, in order, with their nodes merged, as
 * graphql-js collects them. @skip/@include with literal values are applied; with variables (or
 * any other directive) the operation is not compiled.
 */
function collectFields(schema: GraphQLSchema, type: GraphQLObjectType, sets: readonly (SelectionSetNode | undefined)[], fragments: Map<string, FragmentDefinitionNode>): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const applies = (name: string) => {
    const t = schema.getType(name);
    return t === type || (t !== undefined && isAbstractType(t) && schema.isSubType(t, type));
  };
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (!included(s)) continue;
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        const list = out.get(key);
        if (list) list.push(s);
        else out.set(key, [s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (!s.typeCondition || applies(s.typeCondition.name.value)) walk(s.selectionSet);
      } else {
        const name = s.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const def = fragments.get(name);
        if (def && applies(def.typeCondition.name.value)) walk(def.selectionSet);
      }
    }
  };
  for (const set of sets) if (set) walk(set);
  return out;
}

function included(node: FieldNode | InlineFragmentNode | FragmentSpreadNode): boolean {
  if (!node.directives?.length) return true;
  for (const d of node.directives) {
    if (d.name.value !== 'skip' && d.name.value !== 'include') throw new Unsupported(d.name.value);
    if (d.arguments?.some((a) => a.value.kind !== Kind.BOOLEAN)) throw new Unsupported('directive with a variable');
  }
  if (getDirectiveValues(GraphQLSkipDirective, node, {})?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, {})?.if !== false;
}

/** Whether a field's arguments refer to variables anywhere. */
function usesVariables(node: FieldNode): boolean {
  const visit = (v: ValueNode): boolean =>
    v.kind === Kind.VARIABLE || (v.kind === Kind.LIST && v.values.some(visit)) || (v.kind === Kind.OBJECT && v.fields.some((f) => visit(f.value)));
  return (node.arguments ?? []).some((a) => visit(a.value));
}

function columnOf(r: ModelResource, field: string): string {
  if (field === 'createdAt') return 'created_at';
  if (field === 'updatedAt') return 'updated_at';
  if (field === 'id') return 'id';
  return r.byName.get(field)!.column;
}

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
/** An expression that fails when evaluated (division by zero), typed json: see `scalar`. */
const fail = (v: SQL): SQL => sql`to_json(1 / (octet_length(${v}::text) * 0))`;
/** A SQL text literal (names and IRI prefixes: no quotes, but escaped all the same). */
const text = (s: string): SQL => sql`${literal(s)}::text`;
/** A cursor: the base64 of the offset's digits (engine/graphql/connection.ts). */
const cursor = (offset: SQL): SQL => sql`encode((${offset})::text::bytea, 'base64')`;
