// What the parts of the GraphQL schema share: the context every resolver gets with a request,
// and, while the schema is derived, the model and the type caches that each part reads and
// fills, so that a type one part makes is the one every other part refers to.
import type { GraphQLFieldConfig, GraphQLInputObjectType } from 'graphql';
import type { FieldValues, Principal } from '../types.ts';
import type { Model, ModelResource } from '../model.ts';
import type { Engine } from '../operations.ts';
import type { Keep } from '../idempotency.ts';
import type { Args } from './arguments.ts';
import type { Loaders } from './loaders.ts';
import { SchemaTypes } from './declared.ts';

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

/** A field of a record's type: its source is the record. */
export type Field = GraphQLFieldConfig<FieldValues, GraphqlContext, Args>;

/** What every part of one schema's derivation shares; made once per schema. */
export interface Derivation {
  model: Model;
  engine: Engine;
  /** The resources whose `graphql` operations are not empty: they have a type. */
  exposed: readonly ModelResource[];
  isExposed(name: string | undefined): boolean;
  /** Input object types by name (filters, order, list items), each made once. */
  inputs: Map<string, GraphQLInputObjectType>;
  /** GraphQL types of TypeBox schemas: json fields and declared operations. */
  schemaTypes: SchemaTypes;
}

export function derivation(model: Model, engine: Engine): Derivation {
  const exposed = model.resources.filter((r) => r.graphql.size > 0);
  return {
    model,
    engine,
    exposed,
    isExposed: (name) => exposed.some((r) => r.name === name),
    inputs: new Map(),
    schemaTypes: new SchemaTypes(),
  };
}
