// The GraphQL fields of declared operations (engine/declared.ts): a query for a GET, a mutation
// for a POST, named `<operation><Resource>` (API Platform's custom operations). Their output and
// input types come from the operation's JSON Schemas (TypeBox), the record output from the
// resource's own type. Resolvers only translate, as the CRUD ones do.
import {
  GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString,
  type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap, type GraphQLInputFieldConfigMap, type GraphQLInputType, type GraphQLOutputType, type GraphQLFieldConfigMap,
} from 'graphql';
import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '../errors.ts';
import type { RunOperation } from '../declared.ts';
import { documentOutput, recordOutput, type Model, type ModelOperation, type ModelResource } from '../model.ts';
import { lowerFirst, upperFirst } from '../names.ts';
import type { FieldValues } from '../types.ts';
import type { GraphqlContext } from './context.ts';
import { idFromIri } from './iris.ts';
import { tag } from './loaders.ts';

type Schema = TSchema & { type?: string | string[]; anyOf?: Schema[]; const?: unknown; properties?: Record<string, Schema>; required?: string[]; items?: Schema; description?: string; enum?: unknown[] };
type Field = GraphQLFieldConfig<unknown, GraphqlContext, Record<string, unknown>>;

const isNull = (s: Schema) => s.type === 'null';

/** The GraphQL types derived from JSON Schemas, by name, shared by every declared operation. */
export class SchemaTypes {
  private readonly outputs = new Map<string, GraphQLOutputType>();
  private readonly inputs = new Map<string, GraphQLInputType>();

  /** `required`: false for an object's member outside its `required` list (it may be absent: null). */
  output(s: Schema, name: string, required = true): GraphQLOutputType {
    const nullable = !required || (s.anyOf?.some(isNull) ?? false);
    const inner = s.anyOf ? s.anyOf.filter((x) => !isNull(x)) : [s];
    const base = inner.length === 1 ? this.outputBase(inner[0]!, name) : GraphQLString; // a union of literals is a string
    return nullable ? base : new GraphQLNonNull(base as never);
  }

  private outputBase(s: Schema, name: string): GraphQLOutputType {
    if (s.type === 'object' && s.properties) {
      name = (s as { title?: string }).title ?? name;
      let t = this.outputs.get(name);
      if (!t) {
        const props = s.properties;
        const required = new Set(s.required ?? []);
        this.outputs.set(name, (t = new GraphQLObjectType({
          name,
          description: s.description,
          fields: () => Object.fromEntries(Object.entries(props).map(([k, p]) => [k.replace(/[^A-Za-z0-9_]/g, '_'), { type: this.output(p, `${name}${upperFirst(k)}`, required.has(k)), description: p.description, resolve: (o: FieldValues) => o[k] ?? null }])),
        })));
      }
      return t;
    }
    if (s.type === 'array' && s.items) return new GraphQLList(this.output(s.items, `${name}Item`));
    return scalar(s);
  }

  input(s: Schema, name: string, required: boolean): GraphQLInputType {
    const inner = s.anyOf ? s.anyOf.filter((x) => !isNull(x)) : [s];
    const base = inner.length === 1 ? this.inputBase(inner[0]!, name) : GraphQLString;
    return required && !s.anyOf?.some(isNull) ? new GraphQLNonNull(base as never) : base;
  }

  private inputBase(s: Schema, name: string): GraphQLInputType {
    if (s.type === 'object' && s.properties) {
      let t = this.inputs.get(name);
      if (!t) this.inputs.set(name, (t = new GraphQLInputObjectType({ name, fields: this.inputFields(s, name) })));
      return t;
    }
    if (s.type === 'array' && s.items) return new GraphQLList(new GraphQLNonNull(this.input(s.items, `${name}Item`, false) as never));
    return scalar(s);
  }

  inputFields(s: Schema, name: string): GraphQLInputFieldConfigMap {
    const required = new Set(s.required ?? []);
    return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, p]) => [k, { type: this.input(p, `${name}${upperFirst(k)}`, required.has(k)), description: p.description }]));
  }
}

function scalar(s: Schema): GraphQLOutputType & GraphQLInputType {
  const t = s.const !== undefined ? typeof s.const : s.type;
  if (t === 'integer') return GraphQLInt;
  if (t === 'number') return GraphQLFloat;
  if (t === 'boolean') return GraphQLBoolean;
  return GraphQLString;
}

/** Query arguments, in the REST query string's names (`status[]` is `status_list`). */
function queryArgs(types: SchemaTypes, op: ModelOperation, typeName: string): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {};
  const q = op.def.query as Schema | undefined;
  for (const [k, p] of Object.entries(q?.properties ?? {})) args[k.replace(/\[\]$/, '_list').replace(/[^A-Za-z0-9_]/g, '_')] = { type: types.input(p, `${typeName}${upperFirst(k)}`, false) as never, description: p.description };
  return args;
}

export interface DeclaredFields {
  queries: GraphQLFieldConfigMap<unknown, GraphqlContext>;
  mutations: GraphQLFieldConfigMap<unknown, GraphqlContext>;
}

/**
 * The queries and mutations of `r`'s declared operations. `object` is the resource's GraphQL type
 * (record outputs); an item operation takes the record's IRI as `id`.
 */
export function declaredFields(model: Model, r: ModelResource, objectOf: (resource: string) => GraphQLObjectType | undefined, run: RunOperation, types: SchemaTypes): DeclaredFields {
  const out: DeclaredFields = { queries: {}, mutations: {} };
  for (const op of r.operations) {
    if (!op.graphql) continue;
    // A record (of this resource or another) or a document.
    const target = recordOutput(model, r, op);
    const output = documentOutput(op);
    const object = target ? objectOf(target.name) : undefined;
    if (target && !object) continue;
    const typeName = upperFirst(op.graphql);
    let type: GraphQLOutputType;
    if (!output) type = object!;
    else if (output.many) {
      const item = types.output(output.schema as Schema, output.type ?? `${typeName}Item`);
      type = new GraphQLObjectType({
        name: `${typeName}Page`,
        fields: {
          items: { type: new GraphQLNonNull(new GraphQLList(item)) },
          totalCount: { type: GraphQLInt, description: 'The number of items, when known.' },
          next: { type: GraphQLString, description: 'The cursor of the next page (give it as `after`), or null at the end.' },
        },
      });
    } else type = types.output(output.schema as Schema, output.type ?? `${typeName}Result`);
    const answer = (result: unknown) => (target ? tag(target, result as FieldValues) : result);
    const ids = (a: Record<string, unknown>) => {
      if (op.on !== 'item') return undefined;
      const id = idFromIri(model, r, a.id);
      if (!id) throw ApiError.notFound(`Item "${String(a.id).slice(0, 200)}" not found.`);
      return id;
    };
    const paramsOf = (a: Record<string, unknown>) => Object.fromEntries(op.params.map((p) => [p, String(a[p] ?? '')]));
    const own: GraphQLFieldConfigArgumentMap = {};
    if (op.on === 'item') own.id = { type: new GraphQLNonNull(GraphQLID), description: `The IRI (${r.iri}/<id>).` };
    for (const p of op.params) own[p] = { type: new GraphQLNonNull(GraphQLString) };
    if (op.method === 'GET') {
      const args = { ...own, ...queryArgs(types, op, typeName) };
      out.queries[op.graphql] = {
        type,
        description: op.def.summary,
        args,
        resolve: async (_src, a, ctx) => {
          const query = new URLSearchParams();
          for (const [k, v] of Object.entries(a)) {
            if (k in own || v === undefined || v === null) continue;
            const name = k.endsWith('_list') ? `${k.slice(0, -5)}[]` : k;
            for (const x of Array.isArray(v) ? v : [v]) query.append(name, String(x));
          }
          const result = await run(ctx.principal, r, op, { id: ids(a), params: paramsOf(a), query });
          if (output?.many) {
            const page = result as { items: unknown[]; total?: number | null; next?: string | null };
            return { items: page.items, totalCount: page.total ?? null, next: page.next ?? null };
          }
          return answer(result);
        },
      } satisfies Field;
    } else {
      const key = target ? lowerFirst(target.name) : lowerFirst(output!.type ?? (output!.schema as { title?: string }).title ?? 'result');
      const inputSchema = op.def.input as Schema | undefined;
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [k, a] of Object.entries(own)) fields[k] = { type: a.type as GraphQLInputType, description: a.description };
      Object.assign(fields, inputSchema ? types.inputFields(inputSchema, `${op.graphql}Input`) : {});
      fields.clientMutationId = { type: GraphQLString };
      const input = new GraphQLInputObjectType({ name: `${op.graphql}Input`, fields });
      const payload = new GraphQLObjectType({ name: `${op.graphql}Payload`, fields: { [key]: { type }, clientMutationId: { type: GraphQLString } } });
      out.mutations[op.graphql] = {
        type: payload,
        description: op.def.summary,
        args: { input: { type: new GraphQLNonNull(input) } },
        resolve: async (_src, a, ctx) => {
          const i = a.input as Record<string, unknown>;
          const body: Record<string, unknown> = {};
          for (const k of Object.keys(inputSchema?.properties ?? {})) if (i[k] !== undefined) body[k] = i[k];
          const result = await run(ctx.principal, r, op, { id: ids(i), params: paramsOf(i), input: inputSchema ? body : undefined });
          ctx.loaders.clear();
          return { [key]: answer(result), clientMutationId: i.clientMutationId ?? null };
        },
      } satisfies Field;
    }
  }
  return out;
}
