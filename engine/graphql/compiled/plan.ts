// Planning a compiled read (engine/graphql/compile.ts): a query document becomes, once per
// query text and operation name, a tree of what to read: item and collection roots, objects,
// to-one objects, to-many connections and embedded lists, with the SQL of every scalar. Anything
// the compiler does not handle makes no plan (the query takes the normal path).
import { sql, type SQL } from 'drizzle-orm';
import {
  GraphQLIncludeDirective, GraphQLObjectType, GraphQLSkipDirective, Kind, getArgumentValues, getDirectiveValues, getNamedType, getOperationAST,
  isAbstractType, parse, specifiedRules, validate,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLSchema, type InlineFragmentNode,
  type OperationDefinitionNode, type FragmentSpreadNode, type SelectionSetNode, type ValidationRule, type ValueNode,
} from 'graphql';
import type { ListField } from '../../descriptor.ts';
import type { Model, ModelField, ModelResource } from '../../model.ts';
import { lowerFirst } from '../../names.ts';
import { iso } from '../../sql-text.ts';
import type { Order, SliceQuery, Window } from '../../query.ts';
import { reading } from '../../read/window.ts';
import { childrenOrder, sliceQuery } from '../arguments.ts';
import { checkCost, type Limits } from '../limits.ts';
import { idFromIri } from '../iris.ts';
import { listEntryScalar, scalar, text, Unsupported, type Value } from './values.ts';

// json_build_object takes at most 100 arguments: 50 keys and values.
const MAX_KEYS = 50;

export interface ObjectSel {
  r: ModelResource;
  fields: ObjectField[];
}

export type ObjectField =
  | { key: string; kind: 'value'; value: Value }
  | { key: string; kind: 'one'; target: ModelResource; column: string; object: ObjectSel }
  | { key: string; kind: 'many'; via: string; conn: ConnSel }
  | { key: string; kind: 'list'; column: string; items: ItemField[] };

/** A field of an item of an embedded list (jsonb), as SQL over the item (`v`). */
export type ItemField =
  | { key: string; kind: 'value'; value: Value }
  | { key: string; kind: 'one'; target: ModelResource; name: string; object: ObjectSel };

export interface ConnSel {
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

export type PageInfoField = { key: string; kind: 'const'; value: string } | { key: string; kind: 'startCursor' | 'endCursor' | 'hasNextPage' | 'hasPreviousPage' };
export type EdgeField = { key: string; kind: 'const'; value: string } | { key: string; kind: 'cursor' } | { key: string; kind: 'node'; object: ObjectSel };
export type ConnField =
  | { key: string; kind: 'const'; value: string }
  | { key: string; kind: 'totalCount' }
  | { key: string; kind: 'pageInfo'; fields: PageInfoField[] }
  | { key: string; kind: 'edges'; fields: EdgeField[] };

export interface ItemSel {
  n: number;
  r: ModelResource;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** The id (null: no record can match), when the argument uses no variable. */
  fixed: { id: string | null } | undefined;
  object: ObjectSel;
}

export type RootField = { key: string; kind: 'const'; value: string } | { key: string; kind: 'item'; item: ItemSel } | { key: string; kind: 'collection'; conn: ConnSel };

export interface Plan {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation declares variables: they are coerced, and its cost checked, per request. */
  variables: boolean;
  root: RootField[];
  /** Connections and items whose arguments use variables, bound per request. */
  dynamic: (ConnSel | ItemSel)[];
  /** Placeholder values of the parts without variables. */
  fixedValues: Record<string, unknown>;
  /** Statement texts by the shape of the variables' values, with their placeholders' names in order. */
  statements: Map<string, { sql: string; names: readonly string[]; fresh: boolean }>;
}

/** What the variables of one request make of the dynamic parts. */
export type Bound = Map<number, SliceQuery | string | null>;

export const isConn = (x: ConnSel | ItemSel): x is ConnSel => 'fallback' in x;

/** The SQL conditions of a connection; their values go to `values` under stable names. */
export type Conditions = (conn: ConnSel, q: SliceQuery, values: Record<string, unknown>, as?: string) => SQL[];

export interface PlannerOptions {
  schema: GraphQLSchema;
  model: Model;
  limits: Limits;
  /** The validation rules the endpoint adds to graphql-js's specified ones. */
  rules: readonly ValidationRule[];
  /** The parser's token limit, as the endpoint's. */
  maxTokens: number;
  conditions: Conditions;
}

/** The plan of a query text and operation name; null when it takes the normal path. */
export function planner(o: PlannerOptions): (query: string, operationName: string | undefined) => Plan | null {
  const { schema, model, limits } = o;
  const rules = [...specifiedRules, ...o.rules];
  const queryType = schema.getQueryType()!;
  const roots = new Map<string, { r: ModelResource; kind: 'item' | 'collection' }>();
  for (const r of model.resources) {
    // A resource with its own provider (the company profile) has no table: its resolvers answer.
    if (!r.graphql.has('query') || r.provider) continue;
    roots.set(lowerFirst(r.name), { r, kind: 'item' });
    roots.set(r.plural, { r, kind: 'collection' });
  }
  const isObject = (name: string): boolean => schema.getType(name) instanceof GraphQLObjectType && model.find(name) !== undefined;

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
        else if (name === 'version') fields.push({ key, kind: 'value', value: (a) => sql`${a}."version"` });
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
        } else fields.push({ key, kind: 'value', value: scalar(model, f) });
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
        items.push({ key, kind: 'value', value: listEntryScalar(d, name) });
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
        o.conditions(conn, conn.fixed, plan.fixedValues);
        windowValues(conn.n, conn.fixed.window, plan.fixedValues);
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

  return planOf;
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

/** The placeholders of a connection's window values: `first`, `last`, the limit, the cursors' values. */
export function windowNames(n: number) {
  return {
    first: `w${n}first`,
    last: `w${n}last`,
    limit: `w${n}limit`,
    position: (side: 'after' | 'before', i: number) => `w${n}${side === 'after' ? 'a' : 'b'}${i}`,
  };
}

/** Puts a connection's window values under windowNames(n). */
export function windowValues(n: number, w: Window, values: Record<string, unknown>): void {
  const names = windowNames(n);
  if (w.first !== undefined) values[names.first] = w.first;
  if (w.last !== undefined) values[names.last] = w.last;
  values[names.limit] = reading(w).limit;
  for (const side of ['after', 'before'] as const) {
    const pos = w[side];
    if (pos) [...pos.values, pos.id].forEach((v, i) => (values[names.position(side, i)] = v));
  }
}

export function columnOf(r: ModelResource, field: string): string {
  if (field === 'createdAt') return 'created_at';
  if (field === 'updatedAt') return 'updated_at';
  if (field === 'id') return 'id';
  return r.byName.get(field)!.column;
}
