// fast-check arbitraries for hostile input: values from a JSON Schema (the OpenAPI document's
// request bodies), the same values mutated (wrong types, missing and extra fields, huge,
// unicode and NUL strings, deep nesting), and values for GraphQL input types.
import fc from 'fast-check';
import {
  getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType,
  type GraphQLInputType,
} from 'graphql';

type Json = unknown;
type Schema = Record<string, any>;

/** Strings a careless service mishandles. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud800y', '\u202egnp.exe', '🧾💶', 'ÅÄÖ', '\uFEFF', '\r\n\t',
    "' OR 1=1 --", "'; drop table clients; --", '%', '_', '\\', '%_%', '$1', '${x}', '{{x}}', '<script>alert(1)</script>',
    '../../etc/passwd', '/api/clients/00000000-0000-0000-0000-000000000000', 'null', 'NaN', '1e400', '-0', '__proto__',
    'constructor', 'prototype', 'toString', 'hasOwnProperty',
  ),
  fc.integer({ min: 1, max: 6 }).map((n) => 'x'.repeat(10 ** n)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 5 }).map((s) => s.repeat(5000)),
);

export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e21, 1e-9, 0.1 + 0.2, Number.MAX_VALUE, Number.MIN_VALUE, 1.23456789),
);

/** Any JSON value, including deep and odd ones. */
export const nastyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  nastyNumber,
  fc.constantFrom(null, true, false, [], {}, [[[]]], { __proto__: { admin: true } }, JSON.parse('{"__proto__":{"admin":true}}'), { constructor: { prototype: { x: 1 } } }),
  fc.integer({ min: 50, max: 3000 }).map((n) => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`)),
  fc.integer({ min: 50, max: 1000 }).map((n) => {
    let o: Json = 'leaf';
    for (let i = 0; i < n; i++) o = { a: o };
    return o;
  }),
);

export interface SchemaContext {
  /** Resolves `#/components/schemas/X`. */
  resolve(ref: string): Schema;
  /** Known IRIs with this prefix (`/api/clients`), to make references that exist. */
  iris(prefix: string): string[];
}

const DATES = fc.oneof(
  fc.date({ min: new Date('1900-01-01'), max: new Date('2200-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom('2026-02-29', '2026-13-01', '0000-00-00', '2026-1-1', '26-01-01'),
);

function stringFor(s: Schema, ctx: SchemaContext): fc.Arbitrary<string> {
  switch (s.format) {
    case 'date':
      return DATES;
    case 'date-time':
      return fc.oneof(fc.date({ noInvalidDate: true, min: new Date('1970-01-01'), max: new Date('2200-01-01') }).map((d) => d.toISOString()), fc.constantFrom('2026-01-01T25:00:00Z', 'yesterday'));
    case 'email':
      return fc.oneof(fc.emailAddress(), fc.constantFrom('not-an-email', 'a@b', '@'));
    case 'uri':
      return fc.oneof(fc.webUrl(), fc.constantFrom('javascript:alert(1)', 'ftp://x', 'http://'));
    case 'iri-reference': {
      const example = String(s.examples?.[0] ?? '');
      const prefix = example.slice(0, example.lastIndexOf('/'));
      const known = ctx.iris(prefix);
      const uuid = fc.uuid().map((u) => `${prefix}/${u}`);
      return known.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, uuid, fc.constantFrom(...known).map((i) => i.split('/').pop()!), fc.constantFrom('/api/clients/x', `${prefix}/`, prefix)) : uuid;
    }
  }
  if (s.pattern === '^[A-Z]{3}$') return fc.oneof(fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'usd', 'XXX', 'ZZZ'), fc.string({ maxLength: 4 }));
  if (s.pattern === '^[A-Z]{2}$') return fc.oneof(fc.constantFrom('FR', 'DE', 'US', 'fr', 'XX', 'ZZ'), fc.string({ maxLength: 3 }));
  const max = Math.min(s.maxLength ?? 60, 60);
  return fc.string({ minLength: Math.min(s.minLength ?? 0, max), maxLength: max });
}

/** A value that matches `schema` (mostly: formats are sometimes broken on purpose). */
export function fromSchema(schema: Schema, ctx: SchemaContext, depth = 0): fc.Arbitrary<Json> {
  if (schema.$ref) return fromSchema(ctx.resolve(schema.$ref), ctx, depth);
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => fromSchema(s, ctx, depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string'];
  const arbs = types.map((type): fc.Arbitrary<Json> => {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: Math.max(schema.minimum ?? -1e6, -1e12), max: Math.min(schema.maximum ?? 1e6, 1e12) });
      case 'number': {
        const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e4;
        const max = schema.maximum ?? 1e4;
        return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((n) => n / 100);
      }
      case 'array':
        return depth > 4 ? fc.constant([]) : fc.array(fromSchema(schema.items ?? {}, ctx, depth + 1), { maxLength: 3 });
      case 'object': {
        const props: Record<string, Schema> = schema.properties ?? {};
        if (depth > 5) return fc.constant({});
        const record: Record<string, fc.Arbitrary<Json>> = {};
        for (const [k, v] of Object.entries(props)) if (!v.readOnly) record[k] = fromSchema(v, ctx, depth + 1);
        return fc.record(record, { requiredKeys: (schema.required ?? []).filter((k: string) => k in record) });
      }
      default:
        return stringFor(schema, ctx);
    }
  });
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

/** Every object path inside a value, so that a mutation can pick one. */
function objectPaths(v: Json, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v && typeof v === 'object') {
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => objectPaths(x, [...path, i], out));
    else for (const [k, x] of Object.entries(v)) objectPaths(x, [...path, k], out);
  }
  return out;
}

function at(v: any, path: (string | number)[]): any {
  for (const k of path) v = v?.[k];
  return v;
}

export type Mutation = { kind: string; apply(v: Json): Json };

/** A mutation of a valid body: one change that a careless client (or an attacker) makes. */
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>({ kind: 'none', apply: (v) => v }),
  fc.tuple(fc.nat(), nastyJson).map(([n, value]): Mutation => ({
    kind: 'wrong value',
    apply(v) {
      const copy = structuredClone(v);
      const objects = objectPaths(copy).map((p) => at(copy, p)).filter((o) => !Array.isArray(o) && Object.keys(o).length);
      if (!objects.length) return value;
      const o = objects[n % objects.length];
      const keys = Object.keys(o);
      o[keys[n % keys.length]!] = value;
      return copy;
    },
  })),
  fc.nat().map((n): Mutation => ({
    kind: 'missing field',
    apply(v) {
      const copy = structuredClone(v);
      const objects = objectPaths(copy).map((p) => at(copy, p)).filter((o) => !Array.isArray(o) && Object.keys(o).length);
      if (!objects.length) return copy;
      const o = objects[n % objects.length];
      delete o[Object.keys(o)[n % Object.keys(o).length]!];
      return copy;
    },
  })),
  fc.tuple(fc.nat(), fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', '@id', 'companyId', 'company_id', 'createdAt', 'totalItems', '')), nastyJson).map(([n, key, value]): Mutation => ({
    kind: 'extra field',
    apply(v) {
      const copy = structuredClone(v);
      const objects = objectPaths(copy).map((p) => at(copy, p)).filter((o) => !Array.isArray(o));
      if (!objects.length) return copy;
      // defineProperty, so that "__proto__" becomes an own key that JSON.stringify sends.
      Object.defineProperty(objects[n % objects.length], key, { value, enumerable: true, configurable: true, writable: true });
      return copy;
    },
  })),
  fc.tuple(fc.nat(), fc.oneof(nastyString, fc.constantFrom('x'.repeat(1024 * 1024 + 10)))).map(([n, s]): Mutation => ({
    kind: 'nasty string',
    apply(v) {
      const copy = structuredClone(v);
      const objects = objectPaths(copy).map((p) => at(copy, p)).filter((o) => !Array.isArray(o) && Object.keys(o).length);
      if (!objects.length) return s;
      const o = objects[n % objects.length];
      o[Object.keys(o)[n % Object.keys(o).length]!] = s;
      return copy;
    },
  })),
  nastyJson.map((value): Mutation => ({ kind: 'replaced body', apply: () => value })),
);

/** A value for a GraphQL input type, mostly well typed; `id` gives IRIs that exist. */
export function forInputType(type: GraphQLInputType, id: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<Json> {
  if (isNonNullType(type)) return forInputType(type.ofType, id, depth);
  const nullable = (a: fc.Arbitrary<Json>) => fc.oneof({ weight: 6, arbitrary: a }, fc.constant(null));
  if (isListType(type)) return nullable(depth > 3 ? fc.constant([]) : fc.array(forInputType(type.ofType, id, depth + 1), { maxLength: 3 }));
  if (isEnumType(type)) return nullable(fc.constantFrom(...type.getValues().map((v) => v.name)));
  if (isInputObjectType(type)) {
    const record: Record<string, fc.Arbitrary<Json>> = {};
    const required: string[] = [];
    for (const [name, f] of Object.entries(type.getFields())) {
      record[name] = depth > 4 ? fc.constant(null) : forInputType(f.type, id, depth + 1);
      if (isNonNullType(f.type)) required.push(name);
    }
    return nullable(fc.record(record, { requiredKeys: required }));
  }
  if (isScalarType(type)) {
    switch (getNamedType(type).name) {
      case 'Int':
        return nullable(fc.oneof(fc.integer({ min: -5, max: 40 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })));
      case 'Float':
        return nullable(fc.oneof(fc.integer({ min: 0, max: 10000 }).map((n) => n / 100), fc.double({ noNaN: true, noDefaultInfinity: true })));
      case 'Boolean':
        return nullable(fc.boolean());
      case 'ID':
        return fc.oneof({ weight: 4, arbitrary: id }, nastyString);
      default:
        return nullable(fc.oneof({ weight: 2, arbitrary: id }, { weight: 3, arbitrary: fc.string({ maxLength: 30 }) }, DATES, nastyString));
    }
  }
  return nastyJson;
}
