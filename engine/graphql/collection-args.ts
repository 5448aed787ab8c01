// The arguments of a collection field as the schema declares them: paging, one argument (and a
// `_list` one) per filter, date bounds and the order as input types. arguments.ts reads the
// values given into the engine's query.
import {
  GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLString,
  type GraphQLFieldConfigArgumentMap, type GraphQLInputFieldConfigMap, type GraphQLScalarType,
} from 'graphql';
import type { ModelField, ModelResource } from '../model.ts';
import { DATE_OPS } from '../query.ts';

type Inputs = Map<string, GraphQLInputObjectType>;

function filterInput(inputs: Inputs, r: ModelResource, f: ModelField): GraphQLInputObjectType {
  const name = `${r.name}Filter_${f.name}`;
  let t = inputs.get(name);
  if (!t) {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const op of DATE_OPS) fields[op] = { type: GraphQLString };
    inputs.set(name, (t = new GraphQLInputObjectType({ name, fields })));
  }
  return t;
}

function orderInput(inputs: Inputs, r: ModelResource): GraphQLInputObjectType {
  const name = `${r.name}Filter_order`;
  let t = inputs.get(name);
  if (!t) {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const o of r.orders) fields[o] = { type: GraphQLString, description: '"ASC" or "DESC"' };
    inputs.set(name, (t = new GraphQLInputObjectType({ name, description: `The order of ${r.plural}: a list of {field: "ASC" | "DESC"}.`, fields })));
  }
  return t;
}

const filterScalar = (f: ModelField): GraphQLScalarType => (f.kind === 'integer' ? GraphQLInt : GraphQLString);

/** The arguments of a collection of `r`; `omit` is the filter a children field fixes (its parent). */
export function collectionArgs(inputs: Inputs, r: ModelResource, omit?: string): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {
    first: { type: GraphQLInt, description: `Returns the first n elements from the list (0 to 30; 30 when neither first nor last is given).` },
    last: { type: GraphQLInt, description: 'Returns the last n elements from the list (0 to 30).' },
    before: { type: GraphQLString, description: 'Returns the elements in the list that come before the specified cursor: an opaque keyset cursor given by this collection under the same order (400 otherwise).' },
    after: { type: GraphQLString, description: 'Returns the elements in the list that come after the specified cursor: an opaque keyset cursor given by this collection under the same order (400 otherwise).' },
  };
  for (const f of r.filters) {
    if (f.name === omit) continue;
    if (f.filter === 'date') {
      args[f.name] = { type: new GraphQLList(filterInput(inputs, r, f)), description: 'Date bounds: [{after: "YYYY-MM-DD"}, {before: …}, {strictly_after: …}, {strictly_before: …}].' };
    } else {
      args[f.name] = { type: filterScalar(f), description: f.filter === 'partial' ? 'Matches a part of the value, ignoring case.' : f.kind === 'ref' ? 'An IRI or an id.' : undefined };
      args[`${f.name}_list`] = { type: new GraphQLList(filterScalar(f)), description: 'Any of these values.' };
    }
  }
  args.order = { type: new GraphQLList(orderInput(inputs, r)) };
  return args;
}
