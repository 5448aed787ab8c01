// The queries: `node(id:)` for any record by its IRI, and for each resource that allows them its
// item query (its lower-camel name; a singleton's takes no id) and its collection query (its
// plural), a cursor connection read in one engine call whose count is asked only when selected.
import { GraphQLID, GraphQLNonNull, Kind, type GraphQLFieldConfigMap, type GraphQLResolveInfo } from 'graphql';
import { ApiError } from '../errors.ts';
import type { ModelResource } from '../model.ts';
import { lowerFirst } from '../names.ts';
import { sliceQuery } from './arguments.ts';
import { collectionArgs } from './collection-args.ts';
import { connection } from './connection.ts';
import type { Derivation, GraphqlContext } from './context.ts';
import { idFromIri, resourceOfIri } from './iris.ts';
import { tag } from './loaders.ts';
import { connectionOf, objectOf, type OutputTypes } from './types.ts';

type Queries = GraphQLFieldConfigMap<unknown, GraphqlContext>;

/**
 * Whether a connection's selection reads its size (totalCount, or pageInfo whose hasNextPage
 * depends on it). Only plain `edges`/`__typename` selections are known not to: anything else
 * (fragments included) counts.
 */
function needsTotal(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((node) => (node.selectionSet?.selections ?? []).some((sel) => sel.kind !== Kind.FIELD || (sel.name.value !== 'edges' && sel.name.value !== '__typename')));
}

export function queryFields(d: Derivation, t: OutputTypes): Queries {
  const query: Queries = {
    node: {
      type: t.node,
      description: 'Any record by its IRI.',
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: (_src, args, ctx) => {
        const iri = String(args.id);
        const r = resourceOfIri(d.model, iri);
        if (!r || !d.isExposed(r.name)) throw ApiError.badRequest(`No route matches "${iri.slice(0, 200)}".`);
        const id = idFromIri(d.model, r, iri);
        return id ? ctx.loaders.record(r, id) : null;
      },
    },
  };
  for (const r of d.exposed) if (r.graphql.has('query')) Object.assign(query, resourceQueries(d, t, r));
  return query;
}

function resourceQueries(d: Derivation, t: OutputTypes, r: ModelResource): Queries {
  if (r.singleton) {
    return {
      [lowerFirst(r.name)]: {
        type: objectOf(t, r),
        description: `The calling token's company's ${r.name}.`,
        resolve: (_src, _args, ctx) => d.engine.read(ctx.principal, r, ctx.principal.company.id),
      },
    };
  }
  return {
    [lowerFirst(r.name)]: {
      type: objectOf(t, r),
      description: `Retrieves a ${r.name}: null when it does not exist or belongs to another company.`,
      args: { id: { type: new GraphQLNonNull(GraphQLID), description: `The IRI (${r.iri}/<id>).` } },
      resolve: (_src, args, ctx) => {
        const id = idFromIri(d.model, r, args.id);
        return id ? ctx.loaders.record(r, id) : null;
      },
    },
    [r.plural]: {
      type: new GraphQLNonNull(connectionOf(t, r)),
      description: `Retrieves the collection of ${r.name} resources.`,
      args: collectionArgs(d.inputs, r),
      resolve: async (_src, args, ctx, info) => {
        const q = { ...sliceQuery(d.model, r, args), count: needsTotal(info) };
        const s = await d.engine.slice(ctx.principal, r, q);
        for (const rec of s.items) tag(r, rec);
        return connection(r, q.order, s);
      },
    },
  };
}
