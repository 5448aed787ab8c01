// What a GraphQL request may ask for, checked before anything runs: depth and aliases when the
// document is validated (cached with it), page sizes and cost once the variables are known.
import {
  GraphQLError, GraphQLInt, Kind, getNamedType, getOperationAST, getVariableValues, isInterfaceType, isObjectType, valueFromAST,
  type DocumentNode, type FieldNode, type OperationDefinitionNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLSchema, type SelectionSetNode,
  type ValidationContext, type ValidationRule,
} from 'graphql';
import { ApiError } from '../errors.ts';
import { checkPageSize, DEFAULT_PAGE } from './connection.ts';

export interface Limits {
  /** Nesting of fields, counting each field once (fragments add none). */
  depth: number;
  /** The same for introspection (`__schema`, `__type`), whose standard query nests deeper. */
  introspectionDepth: number;
  /** Aliased fields in one document. */
  aliases: number;
  /** Fields the query may resolve: each field counts once per record it can be asked of. */
  cost: number;
}

export const DEFAULT_LIMITS: Limits = { depth: 10, introspectionDepth: 20, aliases: 30, cost: 25_000 };

type Fragments = (name: string) => FragmentDefinitionNode | null | undefined;

/**
 * The heaviest path down a selection set, each field weighing `weight(name)`: fragments are
 * inlined, each fragment's weight computed once (in `memo`), cycles left to the standard rules.
 */
function heaviestPath(set: SelectionSetNode, weight: (field: string) => number, fragment: Fragments, memo: Map<string, number>, visiting: Set<string>): number {
  let max = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) max = Math.max(max, weight(s.name.value) + (s.selectionSet ? heaviestPath(s.selectionSet, weight, fragment, memo, visiting) : 0));
    else if (s.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, heaviestPath(s.selectionSet, weight, fragment, memo, visiting));
    else {
      const name = s.name.value;
      let d = memo.get(name);
      if (d === undefined) {
        const def = fragment(name);
        if (!def || visiting.has(name)) continue; // unknown or cyclic: reported by the standard rules
        visiting.add(name);
        d = heaviestPath(def.selectionSet, weight, fragment, memo, visiting);
        visiting.delete(name);
        memo.set(name, d);
      }
      max = Math.max(max, d);
    }
  }
  return max;
}

/** Depth of a selection set: every field counts one level. */
const everyField = () => 1;

/** The fields at the root of a selection set, through fragments. */
function rootFields(set: SelectionSetNode, fragment: Fragments, seen = new Set<string>()): FieldNode[] {
  const out: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) out.push(...rootFields(s.selectionSet, fragment, seen));
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const def = fragment(s.name.value);
      if (def) out.push(...rootFields(def.selectionSet, fragment, seen));
    }
  }
  return out;
}

/**
 * A rule that measures, for each field at the root of an operation, the heaviest path below it
 * (see heaviestPath), and reports what `check` makes of it.
 */
function pathRule(weight: (field: string) => number, check: (field: FieldNode, below: number) => string | undefined): ValidationRule {
  return (ctx: ValidationContext) => {
    const memo = new Map<string, number>();
    const fragment: Fragments = (name) => ctx.getFragment(name);
    return {
      OperationDefinition(op) {
        for (const field of rootFields(op.selectionSet, fragment)) {
          const problem = check(field, field.selectionSet ? heaviestPath(field.selectionSet, weight, fragment, memo, new Set()) : 0);
          if (problem) ctx.reportError(new GraphQLError(problem, { nodes: field }));
        }
      },
    };
  };
}

export function depthRule(limits: Limits): ValidationRule {
  return pathRule(everyField, (field, below) => {
    const limit = field.name.value.startsWith('__') ? limits.introspectionDepth : limits.depth;
    const depth = 1 + below;
    return depth > limit ? `The query is too deep: "${field.alias?.value ?? field.name.value}" nests ${depth} levels of fields, and at most ${limit} are allowed.` : undefined;
  });
}

// Fields of introspection types that list other types or their members: nesting them
// (`fields { type { fields … } }`) multiplies the answer at each level, so a path through an
// introspection query may expand at most once. The standard introspection query needs one.
const EXPANSIONS = new Set(['fields', 'inputFields', 'interfaces', 'possibleTypes', 'enumValues']);

/** Expansions along a path: the introspection fields that list types or members. */
const expansion = (field: string) => (EXPANSIONS.has(field) ? 1 : 0);

export function introspectionRule(): ValidationRule {
  return pathRule(expansion, (field, n) =>
    field.name.value.startsWith('__') && n > 1 ? `The introspection query nests ${n} expansions of types (${[...EXPANSIONS].join(', ')}) in one path, and at most 1 is allowed.` : undefined,
  );
}

export function aliasRule(limits: Limits): ValidationRule {
  return (ctx: ValidationContext) => {
    let count = 0;
    return {
      Field(node) {
        if (node.alias) count++;
      },
      Document: {
        leave() {
          if (count > limits.aliases) ctx.reportError(new GraphQLError(`The query uses ${count} aliases, and at most ${limits.aliases} are allowed.`));
        },
      },
    };
  };
}

const isConnection = (t: GraphQLNamedType): boolean => t.name.endsWith('CursorConnection');

/**
 * Checks the page sizes of every connection the operation asks for (0 to 30) and its cost:
 * each field counts once per record it may be resolved for, a connection multiplying what is
 * below it by its page size. Throws an ApiError naming the problem; nothing has run yet.
 */
export function checkCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined, limits: Limits): number {
  const op = getOperationAST(document, operationName);
  if (!op) return 0;
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return 0; // execution reports them, and nothing runs
  return checkOperationCost(schema, document, op, coerced.coerced, limits);
}

/** checkCost for an operation whose variables are already coerced. */
export function checkOperationCost(schema: GraphQLSchema, document: DocumentNode, op: OperationDefinitionNode, vars: Record<string, unknown>, limits: Limits): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, number>();

  const pageSize = (field: FieldNode): number => {
    let first: number | undefined;
    let last: number | undefined;
    for (const arg of field.arguments ?? []) {
      if (arg.name.value !== 'first' && arg.name.value !== 'last') continue;
      const value = valueFromAST(arg.value, GraphQLInt, vars);
      const n = checkPageSize(value, arg.name.value);
      if (arg.name.value === 'first') first = n;
      else last = n;
    }
    const n = first === undefined && last === undefined ? DEFAULT_PAGE : Math.min(first ?? Infinity, last ?? Infinity);
    return Math.max(n, 1);
  };

  const costOf = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, visiting: Set<string>): number => {
    let cost = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith('__')) continue;
        const def = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[s.name.value] : undefined;
        if (!def) continue;
        cost += 1;
        if (!s.selectionSet) continue;
        const type = getNamedType(def.type);
        cost += (isConnection(type) ? pageSize(s) : 1) * costOf(s.selectionSet, type, visiting);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        cost += costOf(s.selectionSet, s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent, visiting);
      } else {
        const name = s.name.value;
        let c = memo.get(name);
        if (c === undefined) {
          const def = fragments.get(name);
          if (!def || visiting.has(name)) continue;
          visiting.add(name);
          c = costOf(def.selectionSet, schema.getType(def.typeCondition.name.value), visiting);
          visiting.delete(name);
          memo.set(name, c);
        }
        cost += c;
      }
    }
    return cost;
  };

  const root = op.operation === 'mutation' ? schema.getMutationType() : op.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  const cost = costOf(op.selectionSet, root ?? undefined, new Set());
  if (cost > limits.cost) {
    throw new ApiError(400, `The query is too expensive: it may resolve ${cost} fields, and at most ${limits.cost} are allowed. Ask for fewer records (first/last) or fewer nested connections.`);
  }
  return cost;
}
