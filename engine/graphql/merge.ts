// One GraphQL schema from the schemas of several models (the service's, and models of their
// own such as the company profile's): their queries, mutations and types side by side. The
// first schema wins a name both have (`node`, `Node`).
import { GraphQLObjectType, GraphQLSchema, type GraphQLNamedType } from 'graphql';

export function mergeSchemas(first: GraphQLSchema, ...more: GraphQLSchema[]): GraphQLSchema {
  const base = first.toConfig();
  const query = { ...base.query!.toConfig() };
  const mutation = base.mutation ? { ...base.mutation.toConfig() } : undefined;
  const roots = new Set([base.query?.name, base.mutation?.name]);
  const types = new Map<string, GraphQLNamedType>(base.types.filter((t) => !roots.has(t.name)).map((t) => [t.name, t]));
  let mutationFields = { ...(mutation?.fields ?? {}) };
  let queryFields = { ...query.fields };
  for (const s of more) {
    const c = s.toConfig();
    queryFields = { ...c.query!.toConfig().fields, ...queryFields };
    if (c.mutation) mutationFields = { ...c.mutation.toConfig().fields, ...mutationFields };
    for (const t of c.types) if (t.name !== c.query?.name && t.name !== c.mutation?.name && !t.name.startsWith('__') && !types.has(t.name)) types.set(t.name, t);
  }
  return new GraphQLSchema({
    ...base,
    query: new GraphQLObjectType({ ...query, fields: queryFields }),
    mutation: Object.keys(mutationFields).length ? new GraphQLObjectType({ ...(mutation ?? { name: 'Mutation' }), fields: mutationFields }) : undefined,
    types: [...types.values()],
  });
}
