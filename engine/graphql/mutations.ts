// The create/update/delete mutations each resource allows, in Relay's shape: one `input` object
// (with `clientMutationId`) in, a payload with the record out. A write on a record the caller
// cannot see answers as the queries do ("not found"); the Idempotency-Key's result is kept or
// replayed through the request context.
import {
  GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString,
  type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLInputType,
} from 'graphql';
import type { FieldValues } from '../types.ts';
import type { ScalarField } from '../descriptor.ts';
import { ApiError } from '../errors.ts';
import type { ModelField, ModelResource } from '../model.ts';
import { lowerFirst, upperFirst } from '../names.ts';
import type { WriteOptions } from '../operations.ts';
import type { Args } from './arguments.ts';
import type { Derivation, GraphqlContext } from './context.ts';
import { idFromIri } from './iris.ts';
import { tag } from './loaders.ts';
import { describe, scalarOf } from './scalars.ts';
import { objectOf, type OutputTypes } from './types.ts';

type Mutations = GraphQLFieldConfigMap<unknown, GraphqlContext>;

export function mutationFields(d: Derivation, t: OutputTypes): Mutations {
  const mutation: Mutations = {};
  for (const r of d.exposed) Object.assign(mutation, resourceMutations(d, t, r));
  return mutation;
}

function resourceMutations(d: Derivation, t: OutputTypes, r: ModelResource): Mutations {
  const { model, engine } = d;
  const mutation: Mutations = {};
  const key = lowerFirst(r.name);
  const payload = (mode: string) =>
    new GraphQLObjectType({
      name: `${mode}${r.name}Payload`,
      fields: {
        [key]: { type: objectOf(t, r) },
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
      args: { input: { type: new GraphQLNonNull(mutationInput(d, r, 'create')) } },
      resolve: async (_src, { input }, ctx) => done(ctx, input as Args, ctx.writes?.replay ?? (await engine.create(ctx.principal, r, bodyOf(input as Args), writeOptions(ctx, input as Args)))),
    };
  }
  if (r.graphql.has('update')) {
    mutation[`update${r.name}`] = {
      type: payload('update'),
      description: `Updates a ${r.name}.`,
      args: { input: { type: new GraphQLNonNull(mutationInput(d, r, 'update')) } },
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
      args: { input: { type: new GraphQLNonNull(mutationInput(d, r, 'delete')) } },
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
  return mutation;
}

function mutationInput(d: Derivation, r: ModelResource, mode: 'create' | 'update' | 'delete'): GraphQLInputObjectType {
  const fields: GraphQLInputFieldConfigMap = {};
  if (mode !== 'create' && !r.singleton) fields.id = { type: new GraphQLNonNull(GraphQLID), description: `The IRI (${r.iri}/<id>).` };
  if (mode === 'update' && !r.provider) fields.version = { type: GraphQLInt, description: 'The version you read: when the record has another, nothing changes and the error has status 412.' };
  if (mode !== 'delete') {
    for (const f of mode === 'create' ? r.creatable : r.updatable) {
      const t = inputTypeOf(d, r, f, mode);
      if (t) fields[f.name] = { type: t, description: f.kind === 'ref' ? `An IRI of ${f.target}.` : describe(f.def as ScalarField) };
    }
  }
  fields.clientMutationId = { type: GraphQLString };
  return new GraphQLInputObjectType({ name: `${mode}${r.name}Input`, fields });
}

function inputTypeOf(d: Derivation, r: ModelResource, f: ModelField, mode: 'create' | 'update'): GraphQLInputType | null {
  const def = f.def;
  let t: GraphQLInputType;
  if (def.kind === 'children') return null;
  if (def.kind === 'list') {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const [name, sub] of Object.entries(def.of)) {
      const base = sub.kind === 'ref' ? GraphQLString : scalarOf(sub);
      fields[name] = { type: sub.required && !('default' in sub && sub.default !== undefined) ? new GraphQLNonNull(base) : base, description: sub.kind === 'ref' ? 'An IRI.' : describe(sub) };
    }
    const name = `${r.name}${upperFirst(f.name)}ItemInput`;
    let item = d.inputs.get(name);
    if (!item) d.inputs.set(name, (item = new GraphQLInputObjectType({ name, fields })));
    t = new GraphQLList(new GraphQLNonNull(item));
  } else if (def.kind === 'textList') t = new GraphQLList(new GraphQLNonNull(GraphQLString));
  else if (def.kind === 'json') t = d.schemaTypes.input(def.schema as never, `${r.name}${upperFirst(f.name)}Input`, false);
  else t = def.kind === 'ref' ? GraphQLString : scalarOf(def);
  const sequence = def.kind === 'text' && def.sequence;
  const needed = mode === 'create' && f.required && !('default' in def && def.default !== undefined) && !sequence;
  return needed ? new GraphQLNonNull(t) : t;
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
