// The GraphQL schema derived from the model, in API Platform's shape: every resource whose
// `graphql` operations are not empty becomes a type implementing `Node`, with a cursor
// connection, a collection query (its plural), an item query (its lower-camel name) and the
// create/update/delete mutations it allows. Resolvers only translate: arguments in, an engine
// operation call (batched per request for relations), records out.
import {
  GraphQLBoolean, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLInterfaceType, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLSchema, GraphQLString, Kind,
  type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap,
  type GraphQLInputType, type GraphQLOutputType, type GraphQLResolveInfo, type GraphQLScalarType,
} from 'graphql';
import type { Principal, FieldValues } from '../types.ts';
import type { ScalarField } from '../descriptor.ts';
import { ApiError } from '../errors.ts';
import type { Model, ModelField, ModelResource } from '../model.ts';
import { lowerFirst, upperFirst } from '../names.ts';
import type { Engine, WriteOptions } from '../operations.ts';
import type { Keep } from '../idempotency.ts';
import { DATE_OPS, MAX_COUNTED_MATCHES } from '../query.ts';
import { childrenOrder, sliceQuery, type Args } from './arguments.ts';
import { connection } from './connection.ts';
import { idFromIri, resourceOfIri } from './iris.ts';
import { tag, TYPE, type Loaders, type Tagged } from './loaders.ts';
import { alwaysSet, describe, isoOf, scalarOf } from './scalars.ts';
import { declaredFields, SchemaTypes } from './declared.ts';
import type { RunOperation } from '../declared.ts';

export { idFromIri } from './iris.ts';
export { GraphQLMoney } from './scalars.ts';

export interface GraphqlContext {
  principal: Principal;
  loaders: Loaders;
  /** The operation the request names, for the checks that run before execution. */
  operationName?: string | undefined;
  /**
   * The request's Idempotency-Key (CONTRACT §12): the mutation keeps its result with `keep`, or
   * answers with `replay`, a result kept by a first request that died before its response.
   */
  writes?: { keep?: Keep; replay?: FieldValues } | undefined;
}

type Field = GraphQLFieldConfig<FieldValues, GraphqlContext, Args>;

export const connectionTypeName = (r: ModelResource): string => `${r.name}CursorConnection`;

/**
 * Whether a connection's selection reads its size (totalCount, or pageInfo whose hasNextPage
 * depends on it). Only plain `edges`/`__typename` selections are known not to: anything else
 * (fragments included) counts.
 */
function needsTotal(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((node) => (node.selectionSet?.selections ?? []).some((sel) => sel.kind !== Kind.FIELD || (sel.name.value !== 'edges' && sel.name.value !== '__typename')));
}

export interface GraphqlSchemaOptions {
  /** Runs declared operations (engine/declared.ts); without it they get no GraphQL field. */
  run?: RunOperation;
}

export function buildGraphqlSchema(model: Model, engine: Engine, options: GraphqlSchemaOptions = {}): GraphQLSchema {
  const exposed = model.resources.filter((r) => r.graphql.size > 0);
  const isExposed = (name: string | undefined) => exposed.some((r) => r.name === name);
  const objects = new Map<string, GraphQLObjectType>();
  const connections = new Map<string, GraphQLObjectType>();
  const filterInputs = new Map<string, GraphQLInputObjectType>();
  /** GraphQL types of TypeBox schemas: json fields and declared operations. */
  const schemaTypes = new SchemaTypes();

  const nodeInterface = new GraphQLInterfaceType({
    name: 'Node',
    description: 'A node, according to the Relay specification.',
    fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The id of this node (its IRI).' } },
    resolveType: (value: Tagged) => value[TYPE],
  });

  // ---- output types ------------------------------------------------------------------------

  const objectOf = (r: ModelResource): GraphQLObjectType => objects.get(r.name)!;

  function refField(target: ModelResource, name: string, description?: string): Field {
    return {
      type: objectOf(target),
      description,
      resolve: (rec, _args, ctx) => {
        const id = rec[name];
        return typeof id === 'string' ? ctx.loaders.record(target, id) : null;
      },
    };
  }

  function scalarField(f: { name: string; def: ScalarField; required: boolean; readOnly: boolean }): Field {
    const base = scalarOf(f.def);
    const type: GraphQLOutputType = alwaysSet(f) ? new GraphQLNonNull(base) : base;
    const description = describe(f.def);
    if (f.def.kind === 'timestamp') return { type, description, resolve: (rec) => isoOf(rec[f.name]) };
    if (f.def.kind === 'decimal') return { type, description, resolve: (rec) => (rec[f.name] === null || rec[f.name] === undefined ? null : Number(rec[f.name])) };
    return { type, description };
  }

  /** The object type of the items of an embedded list (stored with the record). */
  const sharedItemTypes = new Map<string, GraphQLObjectType>();
  function listItemType(r: ModelResource, f: ModelField): GraphQLObjectType {
    const { of, typeName } = f.def as { of: Record<string, ScalarField>; typeName?: string };
    const shared = typeName ? sharedItemTypes.get(typeName) : undefined;
    if (shared) return shared;
    const type = new GraphQLObjectType({
      name: typeName ?? `${r.name}${upperFirst(f.name)}Item`,
      description: typeName ? (f.def.description ?? typeName) : `One item of ${r.name}.${f.name}.`,
      fields: () => {
        const fields: GraphQLFieldConfigMap<FieldValues, GraphqlContext> = {};
        for (const [name, d] of Object.entries(of)) {
          const sub = { name, def: d, required: Boolean(d.required), readOnly: false };
          fields[name] = d.kind === 'ref' && isExposed(d.target) ? refField(model.get(d.target), name, d.description) : scalarField(sub);
        }
        return fields;
      },
    });
    if (typeName) sharedItemTypes.set(typeName, type);
    return type;
  }

  function childrenField(r: ModelResource, f: ModelField): Field {
    const def = f.def as { target: string; via: string };
    const child = model.get(def.target);
    const fallback = childrenOrder(f);
    return {
      type: new GraphQLNonNull(connections.get(child.name)!),
      description: f.def.description,
      args: collectionArgs(child, def.via),
      resolve: async (rec, args, ctx) => {
        const q = sliceQuery(model, child, args, fallback);
        const s = await ctx.loaders.children(child, def.via, String(rec.id), q, `${r.name}.${f.name}:${JSON.stringify(args)}`);
        return connection(child, q.order, s);
      },
    };
  }

  function fieldsOf(r: ModelResource): GraphQLFieldConfigMap<FieldValues, GraphqlContext> {
    const fields: GraphQLFieldConfigMap<FieldValues, GraphqlContext> = {
      id: { type: new GraphQLNonNull(GraphQLID), description: 'The IRI of the record.', resolve: (rec) => (r.singleton ? r.iri : `${r.iri}/${String(rec.id)}`) },
      _id: { type: new GraphQLNonNull(GraphQLString), description: 'The bare id of the record.', resolve: (rec) => rec.id },
    };
    for (const f of r.fields) {
      const d = f.def;
      // A value shown once is no member of the record: the create's payload carries it.
      if (d.shownOnce) continue;
      if (d.kind === 'children') {
        if (isExposed(d.target)) fields[f.name] = childrenField(r, f);
      } else if (d.kind === 'list') {
        const item = listItemType(r, f);
        fields[f.name] = { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(item))), description: d.description, resolve: (rec) => rec[f.name] ?? [] };
      } else if (d.kind === 'textList') {
        fields[f.name] = { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: d.description, resolve: (rec) => rec[f.name] ?? [] };
      } else if (d.kind === 'json') {
        fields[f.name] = { type: schemaTypes.output(f.required ? d.schema : { anyOf: [d.schema, { type: 'null' }] } as never, `${r.name}${upperFirst(f.name)}`), description: d.description, resolve: (rec) => rec[f.name] ?? null };
      } else if (d.kind === 'ref' && isExposed(d.target)) {
        fields[f.name] = refField(model.get(d.target), f.name, d.description);
      } else if (d.kind === 'ref') {
        const target = model.get(d.target);
        fields[f.name] = { type: GraphQLString, description: d.description, resolve: (rec) => (rec[f.name] ? `${target.iri}/${String(rec[f.name])}` : null) };
      } else {
        fields[f.name] = scalarField({ name: f.name, def: d, required: f.required, readOnly: f.readOnly });
      }
    }
    fields.createdAt = { type: new GraphQLNonNull(GraphQLString), description: 'RFC 3339 date-time, UTC.', resolve: (rec) => isoOf(rec.createdAt) };
    // Records of a provider carry no version.
    if (!r.provider) fields.version = { type: new GraphQLNonNull(GraphQLInt), description: 'Moves on every change of the record (and of its embedded lines); give it to update to refuse a lost update.' };
    fields.updatedAt = { type: new GraphQLNonNull(GraphQLString), description: 'RFC 3339 date-time, UTC.', resolve: (rec) => isoOf(rec.updatedAt) };
    return fields;
  }

  for (const r of exposed) {
    // A singleton is no node: it has no id of its own to look it up by.
    objects.set(r.name, new GraphQLObjectType({ name: r.name, description: r.description, interfaces: r.singleton ? [] : [nodeInterface], fields: () => fieldsOf(r) }));
  }
  for (const r of exposed) {
    const edge = new GraphQLObjectType({
      name: `${r.name}Edge`,
      description: `Edge of ${r.name}.`,
      fields: { node: { type: objectOf(r) }, cursor: { type: new GraphQLNonNull(GraphQLString), description: 'An opaque keyset cursor naming this record\'s position in the collection and its order (not an offset).' } },
    });
    const pageInfo = new GraphQLObjectType({
      name: `${r.name}PageInfo`,
      description: 'Information about the current page.',
      fields: {
        endCursor: { type: GraphQLString },
        startCursor: { type: GraphQLString },
        hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
        hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
      },
    });
    connections.set(
      r.name,
      new GraphQLObjectType({
        name: connectionTypeName(r),
        description: `Cursor connection for ${r.name}.`,
        fields: {
          edges: { type: new GraphQLList(edge) },
          pageInfo: { type: new GraphQLNonNull(pageInfo) },
          // A partial-match filter counts at most MAX_COUNTED_MATCHES records: beyond, null (CONTRACT §10).
          totalCount: r.filters.some((f) => f.filter === 'partial')
            ? { type: GraphQLInt, description: `The number of records; null when a partial-match filter matches more than ${MAX_COUNTED_MATCHES.toLocaleString('en-US')}.` }
            : { type: new GraphQLNonNull(GraphQLInt) },
        },
      }),
    );
  }

  // ---- collection arguments: paging, filters, order ----------------------------------------

  function filterInput(r: ModelResource, f: ModelField): GraphQLInputObjectType {
    const name = `${r.name}Filter_${f.name}`;
    let t = filterInputs.get(name);
    if (!t) {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const op of DATE_OPS) fields[op] = { type: GraphQLString };
      filterInputs.set(name, (t = new GraphQLInputObjectType({ name, fields })));
    }
    return t;
  }

  function orderInput(r: ModelResource): GraphQLInputObjectType {
    const name = `${r.name}Filter_order`;
    let t = filterInputs.get(name);
    if (!t) {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const o of r.orders) fields[o] = { type: GraphQLString, description: '"ASC" or "DESC"' };
      filterInputs.set(name, (t = new GraphQLInputObjectType({ name, description: `The order of ${r.plural}: a list of {field: "ASC" | "DESC"}.`, fields })));
    }
    return t;
  }

  const filterScalar = (f: ModelField): GraphQLScalarType => (f.kind === 'integer' ? GraphQLInt : GraphQLString);

  function collectionArgs(r: ModelResource, omit?: string): GraphQLFieldConfigArgumentMap {
    const args: GraphQLFieldConfigArgumentMap = {
      first: { type: GraphQLInt, description: `Returns the first n elements from the list (0 to 30; 30 when neither first nor last is given).` },
      last: { type: GraphQLInt, description: 'Returns the last n elements from the list (0 to 30).' },
      before: { type: GraphQLString, description: 'Returns the elements in the list that come before the specified cursor: an opaque keyset cursor given by this collection under the same order (400 otherwise).' },
      after: { type: GraphQLString, description: 'Returns the elements in the list that come after the specified cursor: an opaque keyset cursor given by this collection under the same order (400 otherwise).' },
    };
    for (const f of r.filters) {
      if (f.name === omit) continue;
      if (f.filter === 'date') {
        args[f.name] = { type: new GraphQLList(filterInput(r, f)), description: 'Date bounds: [{after: "YYYY-MM-DD"}, {before: …}, {strictly_after: …}, {strictly_before: …}].' };
      } else {
        args[f.name] = { type: filterScalar(f), description: f.filter === 'partial' ? 'Matches a part of the value, ignoring case.' : f.kind === 'ref' ? 'An IRI or an id.' : undefined };
        args[`${f.name}_list`] = { type: new GraphQLList(filterScalar(f)), description: 'Any of these values.' };
      }
    }
    args.order = { type: new GraphQLList(orderInput(r)) };
    return args;
  }

  // ---- queries -----------------------------------------------------------------------------

  const query: GraphQLFieldConfigMap<unknown, GraphqlContext> = {
    node: {
      type: nodeInterface,
      description: 'Any record by its IRI.',
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: (_src, args, ctx) => {
        const iri = String(args.id);
        const r = resourceOfIri(model, iri);
        if (!r || !isExposed(r.name)) throw ApiError.badRequest(`No route matches "${iri.slice(0, 200)}".`);
        const id = idFromIri(model, r, iri);
        return id ? ctx.loaders.record(r, id) : null;
      },
    },
  };
  for (const r of exposed) {
    if (!r.graphql.has('query')) continue;
    if (r.singleton) {
      query[lowerFirst(r.name)] = {
        type: objectOf(r),
        description: `The calling token's company's ${r.name}.`,
        resolve: (_src, _args, ctx) => engine.read(ctx.principal, r, ctx.principal.company.id),
      };
      continue;
    }
    query[lowerFirst(r.name)] = {
      type: objectOf(r),
      description: `Retrieves a ${r.name}: null when it does not exist or belongs to another company.`,
      args: { id: { type: new GraphQLNonNull(GraphQLID), description: `The IRI (${r.iri}/<id>).` } },
      resolve: (_src, args, ctx) => {
        const id = idFromIri(model, r, args.id);
        return id ? ctx.loaders.record(r, id) : null;
      },
    };
    query[r.plural] = {
      type: new GraphQLNonNull(connections.get(r.name)!),
      description: `Retrieves the collection of ${r.name} resources.`,
      args: collectionArgs(r),
      resolve: async (_src, args, ctx, info) => {
        const q = { ...sliceQuery(model, r, args), count: needsTotal(info) };
        const s = await engine.slice(ctx.principal, r, q);
        for (const rec of s.items) tag(r, rec);
        return connection(r, q.order, s);
      },
    };
  }

  // ---- mutations ---------------------------------------------------------------------------

  function inputTypeOf(r: ModelResource, f: ModelField, mode: 'create' | 'update'): GraphQLInputType | null {
    const d = f.def;
    let t: GraphQLInputType;
    if (d.kind === 'children') return null;
    if (d.kind === 'list') {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [name, sub] of Object.entries(d.of)) {
        const base = sub.kind === 'ref' ? GraphQLString : scalarOf(sub);
        fields[name] = { type: sub.required && !('default' in sub && sub.default !== undefined) ? new GraphQLNonNull(base) : base, description: sub.kind === 'ref' ? 'An IRI.' : describe(sub) };
      }
      const name = `${r.name}${upperFirst(f.name)}ItemInput`;
      let item = filterInputs.get(name);
      if (!item) filterInputs.set(name, (item = new GraphQLInputObjectType({ name, fields })));
      t = new GraphQLList(new GraphQLNonNull(item));
    } else if (d.kind === 'textList') t = new GraphQLList(new GraphQLNonNull(GraphQLString));
    else if (d.kind === 'json') t = schemaTypes.input(d.schema as never, `${r.name}${upperFirst(f.name)}Input`, false);
    else t = d.kind === 'ref' ? GraphQLString : scalarOf(d);
    const sequence = d.kind === 'text' && d.sequence;
    const needed = mode === 'create' && f.required && !('default' in d && d.default !== undefined) && !sequence;
    return needed ? new GraphQLNonNull(t) : t;
  }

  function mutationInput(r: ModelResource, mode: 'create' | 'update' | 'delete'): GraphQLInputObjectType {
    const fields: GraphQLInputFieldConfigMap = {};
    if (mode !== 'create' && !r.singleton) fields.id = { type: new GraphQLNonNull(GraphQLID), description: `The IRI (${r.iri}/<id>).` };
    if (mode === 'update' && !r.provider) fields.version = { type: GraphQLInt, description: 'The version you read: when the record has another, nothing changes and the error has status 412.' };
    if (mode !== 'delete') {
      for (const f of mode === 'create' ? r.creatable : r.updatable) {
        const t = inputTypeOf(r, f, mode);
        if (t) fields[f.name] = { type: t, description: f.kind === 'ref' ? `An IRI of ${f.target}.` : describe(f.def as ScalarField) };
      }
    }
    fields.clientMutationId = { type: GraphQLString };
    return new GraphQLInputObjectType({ name: `${mode}${r.name}Input`, fields });
  }

  /** GraphQL input → the engine's write body (the fields that were given, null included). */
  function bodyOf(input: Args): FieldValues {
    const body: FieldValues = {};
    for (const [k, v] of Object.entries(input)) {
      if (k === 'id' || k === 'clientMutationId' || k === 'version' || v === undefined) continue;
      body[k] = Array.isArray(v) ? v.map((item) => (item && typeof item === 'object' ? { ...(item as FieldValues) } : item)) : v;
    }
    return body;
  }

  /** A write on a record the principal cannot see reads as "not found", as the queries do. */
  async function onVisible<T>(ctx: GraphqlContext, iri: unknown, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ApiError && (e.status === 404 || (e.status === 403 && ctx.principal.role !== 'viewer'))) {
        throw ApiError.notFound(`Item "${String(iri).slice(0, 200)}" not found.`);
      }
      throw e;
    }
  }

  /** A mutation's engine options: its Idempotency-Key's, and the expected version. */
  const writeOptions = (ctx: GraphqlContext, input: Args): WriteOptions => ({
    keep: ctx.writes?.keep,
    precondition: typeof input.version === 'number' ? { versions: [input.version] } : undefined,
  });

  const mutation: GraphQLFieldConfigMap<unknown, GraphqlContext> = {};
  for (const r of exposed) {
    const key = lowerFirst(r.name);
    const payload = (mode: string) =>
      new GraphQLObjectType({
        name: `${mode}${r.name}Payload`,
        fields: {
          [key]: { type: objectOf(r) },
          // The values shown once (a link's URL) are in the create's payload, and nowhere else.
          ...(mode === 'create' ? Object.fromEntries(r.shownOnce.map((f) => [f.name, { type: GraphQLString, description: f.def.description }])) : {}),
          clientMutationId: { type: GraphQLString },
        },
      });
    const done = (ctx: GraphqlContext, input: Args, rec: FieldValues) => {
      ctx.loaders.clear();
      const once = Object.fromEntries(r.shownOnce.filter((f) => rec[f.name] !== undefined).map((f) => [f.name, rec[f.name]]));
      return { [key]: tag(r, rec), ...once, clientMutationId: input.clientMutationId ?? null };
    };
    if (r.graphql.has('create')) {
      mutation[`create${r.name}`] = {
        type: payload('create'),
        description: `Creates a ${r.name}.`,
        args: { input: { type: new GraphQLNonNull(mutationInput(r, 'create')) } },
        resolve: async (_src, { input }, ctx) => done(ctx, input as Args, ctx.writes?.replay ?? (await engine.create(ctx.principal, r, bodyOf(input as Args), writeOptions(ctx, input as Args)))),
      };
    }
    if (r.graphql.has('update')) {
      mutation[`update${r.name}`] = {
        type: payload('update'),
        description: `Updates a ${r.name}.`,
        args: { input: { type: new GraphQLNonNull(mutationInput(r, 'update')) } },
        resolve: async (_src, { input }, ctx) => {
          const i = input as Args;
          if (r.singleton) return done(ctx, i, await engine.update(ctx.principal, r, ctx.principal.company.id, bodyOf(i), 'update', writeOptions(ctx, i)));
          const rec = await onVisible(ctx, i.id, async () => {
            const id = idFromIri(model, r, i.id);
            if (!id) throw ApiError.notFound();
            return ctx.writes?.replay ?? engine.update(ctx.principal, r, id, bodyOf(i), 'update', writeOptions(ctx, i));
          });
          return done(ctx, i, rec);
        },
      };
    }
    if (r.graphql.has('delete')) {
      mutation[`delete${r.name}`] = {
        type: payload('delete'),
        description: `Deletes a ${r.name}.`,
        args: { input: { type: new GraphQLNonNull(mutationInput(r, 'delete')) } },
        resolve: async (_src, { input }, ctx) => {
          const i = input as Args;
          const rec = await onVisible(ctx, i.id, async () => {
            const id = idFromIri(model, r, i.id);
            if (!id) throw ApiError.notFound();
            return ctx.writes?.replay ?? engine.remove(ctx.principal, r, id, writeOptions(ctx, i));
          });
          return done(ctx, i, rec);
        },
      };
    }
  }

  // Declared operations: a query for each GET, a mutation for each POST.
  if (options.run) {
    const types = schemaTypes;
    for (const r of model.resources) {
      // A resource without GraphQL type of its own (a provider's) gets the operations whose output is a document.
      if (!r.operations.length || (!r.graphql.size && !r.provider)) continue;
      const d = declaredFields(model, r, (name) => objects.get(name), options.run, types);
      Object.assign(query, d.queries);
      Object.assign(mutation, d.mutations);
    }
  }

  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
    types: [...objects.values()],
  });
}
