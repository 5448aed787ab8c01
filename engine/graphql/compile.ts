// Compiled reads, as PostGraphile and Hasura do them: a query operation becomes, once per query
// text and operation name, ONE SQL statement whose single value is the whole `data` object as
// JSON text built by PostgreSQL. The response is that text inside `{"data":…}`: no record is
// decoded and graphql-js executes nothing. Planning is in compiled/plan.ts, the statement in
// compiled/statement.ts, the values in compiled/values.ts.
//
// Only what is known to answer exactly as the resolvers do is compiled: collection and item
// queries, to-one objects, to-many connections (edges, node, cursor, pageInfo, totalCount),
// scalars and embedded lists, aliases, fragments, literal @skip/@include, variables in
// arguments. Anything else (mutations, introspection, `node(id:)`, variables in directives…),
// any argument the resolvers would refuse and any value they could not serialise (see
// compiled/values.ts) take the normal path, which produces every error. The document passes the
// same validation rules and limits (depth, aliases, cost) as on the normal path before anything
// runs.
import { sql } from 'drizzle-orm';
import { countShape } from '../counts.ts';
import { getArgumentValues, getVariableValues, type GraphQLSchema, type ValidationRule } from 'graphql';
import { compileStatement, placeholderNames } from '../drizzle-internals.ts';
import type { Engine } from '../operations.ts';
import { windowShape } from '../read/window.ts';
import { countsAsPage, plannedPerValue } from '../read/conditions.ts';
import type { Principal } from '../types.ts';
import type { ModelResource } from '../model.ts';
import type { Condition } from '../query.ts';
import { sliceQuery } from './arguments.ts';
import { planner, isConn, windowValues, type Bound, type Conditions, type Plan } from './compiled/plan.ts';
import { statement } from './compiled/statement.ts';
import { UNSERVABLE_TEXT } from './compiled/values.ts';
import { checkOperationCost, type Limits } from './limits.ts';
import { idFromIri } from './iris.ts';

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

// Bounds of the caches: plans by query text (longer texts are never cached nor compiled), and
// statement texts per plan (one per shape of its variable arguments).
const MAX_PLANS = 1000;
const MAX_TEXT = 20_000;
const MAX_SHAPES = 50;

export function createCompiler(o: CompilerOptions): CompiledReads | undefined {
  const reads = o.engine.rawReads;
  const { schema, limits } = o;
  const model = o.engine.model;

  // The partial-match conditions of the connections whose arguments are literals, per plan,
  // noted while the planner writes them (their frequency is measured at each request).
  let noting: { r: ModelResource; c: Condition }[] | undefined;
  const fixedPartial = new WeakMap<Plan, { r: ModelResource; c: Condition }[]>();

  /** The conditions of a connection as SQL; their values go to `values` under stable names. */
  const conditions: Conditions = (conn, q, values, as = 't') => {
    if (noting) for (const c of q.where) if (c.op === 'partial') noting.push({ r: conn.r, c });
    let k = 0;
    const bind = (v: unknown) => {
      const name = `c${conn.n}_${k++}`;
      values[name] = v instanceof Date ? v.toISOString() : v;
      return sql.placeholder(name);
    };
    return q.where.map((c) => reads.condition(conn.r, c, bind, as) ?? sql`true`);
  };
  const planOf = planner({ schema, model, limits, rules: o.rules, maxTokens: o.maxTokens, conditions });
  const plans = new Map<string, Plan | null>();

  /** What the variables of one request make of the plan's dynamic parts, and the shape of the statement they need. */
  function bind(plan: Plan, variables: Record<string, unknown>, values: Record<string, unknown>): { bound: Bound; shape: string } {
    const bound: Bound = new Map();
    let shape = '';
    for (const part of plan.dynamic) {
      const args = getArgumentValues(part.field, part.node, variables);
      if (isConn(part)) {
        const q = sliceQuery(model, part.r, args, part.fallback);
        bound.set(part.n, q);
        conditions(part, q, values);
        windowValues(part.n, q.window, values);
        shape += `${part.n}:${q.where.map(reads.shape).join(',')}|${q.order.map((x) => `${x.field}:${x.dir}`).join(',')}|${windowShape(q.window)}|${countShape(part.r, q.where)};`;
      } else {
        const id = idFromIri(model, part.r, args.id);
        bound.set(part.n, id);
        values[`i${part.n}`] = id;
        shape += `${part.n}:${id === null ? 0 : 1};`;
      }
    }
    return { bound, shape };
  }

  /** The statement of a plan for one shape, compiled once; undefined when it cannot be built. */
  function statementOf(plan: Plan, key: string, bound: Bound, shape: string): { sql: string; names: readonly string[]; fresh: boolean } | undefined {
    let st = plan.statements.get(shape);
    if (st) return st;
    let names: string[] | undefined;
    let text = '';
    try {
      const c = compileStatement(statement(plan, bound, conditions, reads.table));
      // Every value must travel as a parameter: one written into the text would be reused.
      names = placeholderNames(c);
      text = c.sql;
    } catch (err) {
      o.onError?.(err);
    }
    if (!names) {
      plans.set(key, null);
      return undefined;
    }
    if (plan.statements.size >= MAX_SHAPES) plan.statements.clear();
    plan.statements.set(shape, (st = { sql: text, names, fresh: plannedPerValue(text) }));
    return st;
  }

  return {
    async run(query, operationName, variables, principal) {
      if (query.length > MAX_TEXT) return undefined;
      const key = `${operationName ?? ''}\u0000${query}`;
      let plan = plans.get(key);
      if (plan === undefined) {
        if (plans.size >= MAX_PLANS) plans.clear();
        noting = [];
        try {
          plans.set(key, (plan = planOf(query, operationName)));
          if (plan && noting.length) fixedPartial.set(plan, noting);
        } finally {
          noting = undefined;
        }
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
      // A value of a partial-match filter frequent in the company is read by walking the order,
      // which the resolvers' path does (engine/read/density.ts); the statement reads the others
      // through the company's keys, for the page and the count alike.
      const partial = [...(fixedPartial.get(plan) ?? [])];
      for (const part of plan.dynamic) {
        const q = bound.get(part.n);
        if (isConn(part) && q && typeof q === 'object') for (const c of q.where) if (c.op === 'partial') partial.push({ r: part.r, c });
      }
      for (const { r, c } of partial) {
        const [measured] = await reads.density(principal.company.id, r, [c]);
        if (measured?.dense?.some(Boolean) || (measured && !countsAsPage([measured]))) return undefined;
      }
      const st = statementOf(plan, key, bound, shape);
      if (!st) return undefined;
      const fixed = plan.fixedValues;
      const params = st.names.map((name) => (name === 'company' ? principal.company.id : name in values ? values[name] : fixed[name]));
      const rows = await reads.query(st.sql, params, st.fresh);
      const data = rows[0]?.data as string | undefined;
      // A value the resolvers could not serialise: the normal path answers, with their errors.
      return data === undefined || data.includes(UNSERVABLE_TEXT) ? undefined : data;
    },
  };
}
