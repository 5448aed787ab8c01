// The GraphQL scalars fields are served as, and what the schema says of them.
import { GraphQLBoolean, GraphQLError, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString, Kind } from 'graphql';
import type { ScalarField } from '../descriptor.ts';
import type { ModelField } from '../model.ts';

/** Whether a field always has a value (the database column is NOT NULL). */
export function alwaysSet(f: ModelField | { def: ScalarField; required: boolean; readOnly: boolean }): boolean {
  const d = f.def;
  return f.required || ('default' in d && d.default !== undefined) || (f.readOnly && d.kind === 'integer');
}

/**
 * Amounts in minor units exceed GraphQL's 32-bit Int (21,474,836.47 in cents), so money fields use
 * a scalar that carries any safe integer as a JSON number.
 */
const safeInteger = (v: unknown): number => {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  throw new GraphQLError(`Money must be a whole number of minor units between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`);
};
export const GraphQLMoney = new GraphQLScalarType({
  name: 'Money',
  description: 'An amount in the smallest unit of the currency (an integer, up to 2^53 − 1).',
  serialize: (v) => safeInteger(typeof v === 'string' ? Number(v) : v),
  parseValue: safeInteger,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new GraphQLError('Money must be an integer literal.');
    return safeInteger(Number(ast.value));
  },
});

export function scalarOf(d: ScalarField): GraphQLScalarType {
  switch (d.kind) {
    case 'integer':
      return d.money ? GraphQLMoney : GraphQLInt;
    case 'decimal':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    default:
      return GraphQLString;
  }
}

export function describe(d: { description?: string; kind: string; money?: boolean }): string | undefined {
  if (d.description) return d.description;
  if (d.kind === 'integer' && d.money) return 'An amount in the smallest unit of the currency.';
  if (d.kind === 'timestamp') return 'RFC 3339 date-time, UTC.';
  if (d.kind === 'date') return 'YYYY-MM-DD.';
  return undefined;
}

export const isoOf = (v: unknown): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
