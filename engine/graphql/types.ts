// The output types derived from the model: an object type per exposed resource (implementing
// Relay's `Node` unless it is a singleton), with its scalars, references (read through the
// request's loaders), embedded lists and children connections, and its cursor connection type.
import {
  GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString,
  type GraphQLFieldConfigMap, type GraphQLOutputType,
} from 'graphql';
import type { FieldValues } from '../types.ts';
import type { ScalarField } from '../descriptor.ts';
import type { ModelField, ModelResource } from '../model.ts';
import { upperFirst } from '../names.ts';
import { MAX_COUNTED_MATCHES } from '../query.ts';
import { childrenOrder, sliceQuery } from './arguments.ts';
import { collectionArgs } from './collection-args.ts';
import { connection } from './connection.ts';
import type { Derivation, Field, GraphqlContext } from './context.ts';
import { TYPE, type Tagged } from './loaders.ts';
import { alwaysSet, describe, isoOf, scalarOf } from './scalars.ts';

export interface OutputTypes {
  /** Relay's `Node` interface. */
  node: GraphQLInterfaceType;
  /** The object type of each exposed resource, by name. */
  objects: Map<string, GraphQLObjectType>;
  /** The cursor connection of each exposed resource, by name. */
  connections: Map<string, GraphQLObjectType>;
  /** The item types of embedded lists that name theirs (`typeName`), shared by all such lists. */
  itemTypes: Map<string, GraphQLObjectType>;
}

export const objectOf = (t: OutputTypes, r: ModelResource): GraphQLObjectType => t.objects.get(r.name)!;
export const connectionOf = (t: OutputTypes, r: ModelResource): GraphQLObjectType => t.connections.get(r.name)!;
export const connectionTypeName = (r: ModelResource): string => `${r.name}CursorConnection`;

export function outputTypes(d: Derivation): OutputTypes {
  const node = new GraphQLInterfaceType({
    name: 'Node',
    description: 'A node, according to the Relay specification.',
    fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The id of this node (its IRI).' } },
    resolveType: (value: Tagged) => value[TYPE],
  });
  const t: OutputTypes = { node, objects: new Map(), connections: new Map(), itemTypes: new Map() };
  for (const r of d.exposed) {
    // A singleton is no node: it has no id of its own to look it up by.
    t.objects.set(r.name, new GraphQLObjectType({ name: r.name, description: r.description, interfaces: r.singleton ? [] : [node], fields: () => fieldsOf(d, t, r) }));
  }
  for (const r of d.exposed) t.connections.set(r.name, connectionType(r, objectOf(t, r)));
  return t;
}

function connectionType(r: ModelResource, node: GraphQLObjectType): GraphQLObjectType {
  const edge = new GraphQLObjectType({
    name: `${r.name}Edge`,
    description: `Edge of ${r.name}.`,
    fields: { node: { type: node }, cursor: { type: new GraphQLNonNull(GraphQLString), description: 'An opaque keyset cursor naming this record\'s position in the collection and its order (not an offset).' } },
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
  return new GraphQLObjectType({
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
  });
}

function fieldsOf(d: Derivation, t: OutputTypes, r: ModelResource): GraphQLFieldConfigMap<FieldValues, GraphqlContext> {
  const fields: GraphQLFieldConfigMap<FieldValues, GraphqlContext> = {
    id: { type: new GraphQLNonNull(GraphQLID), description: 'The IRI of the record.', resolve: (rec) => (r.singleton ? r.iri : `${r.iri}/${String(rec.id)}`) },
    _id: { type: new GraphQLNonNull(GraphQLString), description: 'The bare id of the record.', resolve: (rec) => rec.id },
  };
  for (const f of r.fields) {
    const def = f.def;
    // A value shown once is no member of the record: the create's payload carries it.
    if (def.shownOnce) continue;
    if (def.kind === 'children') {
      if (d.isExposed(def.target)) fields[f.name] = childrenField(d, t, r, f);
    } else if (def.kind === 'list') {
      const item = listItemType(d, t, r, f);
      fields[f.name] = { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(item))), description: def.description, resolve: (rec) => rec[f.name] ?? [] };
    } else if (def.kind === 'textList') {
      fields[f.name] = { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: def.description, resolve: (rec) => rec[f.name] ?? [] };
    } else if (def.kind === 'json') {
      fields[f.name] = { type: d.schemaTypes.output(f.required ? def.schema : { anyOf: [def.schema, { type: 'null' }] } as never, `${r.name}${upperFirst(f.name)}`), description: def.description, resolve: (rec) => rec[f.name] ?? null };
    } else if (def.kind === 'ref' && d.isExposed(def.target)) {
      fields[f.name] = refField(t, d.model.get(def.target), f.name, def.description);
    } else if (def.kind === 'ref') {
      const target = d.model.get(def.target);
      fields[f.name] = { type: GraphQLString, description: def.description, resolve: (rec) => (rec[f.name] ? `${target.iri}/${String(rec[f.name])}` : null) };
    } else {
      fields[f.name] = scalarField({ name: f.name, def, required: f.required, readOnly: f.readOnly });
    }
  }
  fields.createdAt = { type: new GraphQLNonNull(GraphQLString), description: 'RFC 3339 date-time, UTC.', resolve: (rec) => isoOf(rec.createdAt) };
  // Records of a provider carry no version.
  if (!r.provider) fields.version = { type: new GraphQLNonNull(GraphQLInt), description: 'Moves on every change of the record (and of its embedded lines); give it to update to refuse a lost update.' };
  fields.updatedAt = { type: new GraphQLNonNull(GraphQLString), description: 'RFC 3339 date-time, UTC.', resolve: (rec) => isoOf(rec.updatedAt) };
  return fields;
}

function refField(t: OutputTypes, target: ModelResource, name: string, description?: string): Field {
  return {
    type: objectOf(t, target),
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
function listItemType(d: Derivation, t: OutputTypes, r: ModelResource, f: ModelField): GraphQLObjectType {
  const { of, typeName } = f.def as { of: Record<string, ScalarField>; typeName?: string };
  const shared = typeName ? t.itemTypes.get(typeName) : undefined;
  if (shared) return shared;
  const type = new GraphQLObjectType({
    name: typeName ?? `${r.name}${upperFirst(f.name)}Item`,
    description: typeName ? (f.def.description ?? typeName) : `One item of ${r.name}.${f.name}.`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<FieldValues, GraphqlContext> = {};
      for (const [name, sub] of Object.entries(of)) {
        const item = { name, def: sub, required: Boolean(sub.required), readOnly: false };
        fields[name] = sub.kind === 'ref' && d.isExposed(sub.target) ? refField(t, d.model.get(sub.target), name, sub.description) : scalarField(item);
      }
      return fields;
    },
  });
  if (typeName) t.itemTypes.set(typeName, type);
  return type;
}

function childrenField(d: Derivation, t: OutputTypes, r: ModelResource, f: ModelField): Field {
  const def = f.def as { target: string; via: string };
  const child = d.model.get(def.target);
  const fallback = childrenOrder(f);
  return {
    type: new GraphQLNonNull(connectionOf(t, child)),
    description: f.def.description,
    args: collectionArgs(d.inputs, child, def.via),
    resolve: async (rec, args, ctx) => {
      const q = sliceQuery(d.model, child, args, fallback);
      const s = await ctx.loaders.children(child, def.via, String(rec.id), q, `${r.name}.${f.name}:${JSON.stringify(args)}`);
      return connection(child, q.order, s);
    },
  };
}
