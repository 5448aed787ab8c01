// The GraphQL schema derived from the model, in API Platform's shape: every resource whose
// `graphql` operations are not empty becomes a type implementing `Node`, with a cursor
// connection, a collection query (its plural), an item query (its lower-camel name) and the
// create/update/delete mutations it allows. Resolvers only translate: arguments in, an engine
// operation call (batched per request for relations), records out. The parts: output types
// (types.ts), collection arguments (collection-args.ts), queries (queries.ts), mutations
// (mutations.ts), declared operations (declared.ts), sharing one derivation (context.ts).
import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { Model } from '../model.ts';
import type { Engine } from '../operations.ts';
import type { RunOperation } from '../declared.ts';
import { derivation } from './context.ts';
import { declaredFields } from './declared.ts';
import { mutationFields } from './mutations.ts';
import { queryFields } from './queries.ts';
import { outputTypes } from './types.ts';

export { idFromIri } from './iris.ts';
export { GraphQLMoney } from './scalars.ts';
export { connectionTypeName } from './types.ts';
export type { GraphqlContext } from './context.ts';

export interface GraphqlSchemaOptions {
  /** Runs declared operations (engine/declared.ts); without it they get no GraphQL field. */
  run?: RunOperation;
}

export function buildGraphqlSchema(model: Model, engine: Engine, options: GraphqlSchemaOptions = {}): GraphQLSchema {
  const d = derivation(model, engine);
  const types = outputTypes(d);
  const query = queryFields(d, types);
  const mutation = mutationFields(d, types);

  // Declared operations: a query for each GET, a mutation for each POST.
  if (options.run) {
    for (const r of model.resources) {
      // A resource without GraphQL type of its own (a provider's) gets the operations whose output is a document.
      if (!r.operations.length || (!r.graphql.size && !r.provider)) continue;
      const declared = declaredFields(model, r, (name) => types.objects.get(name), options.run, d.schemaTypes);
      Object.assign(query, declared.queries);
      Object.assign(mutation, declared.mutations);
    }
  }

  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
    types: [...types.objects.values()],
  });
}
