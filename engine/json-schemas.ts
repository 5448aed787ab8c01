// JSON Schemas (TypeBox) derived from the model: the wire shape of each resource when read, the
// bodies it accepts on create, update and replace, and the problem+json errors. The OpenAPI
// document (http/openapi.ts) and the formats' own schemas are built from these.
import { Type, type TSchema } from '@sinclair/typebox';
import type { ScalarField } from './descriptor.ts';
import type { Model, ModelField, ModelResource } from './model.ts';

/** A reference to a component schema of the OpenAPI document. */
export const ref = (name: string, options: Record<string, unknown> = {}): TSchema => Type.Unsafe({ $ref: `#/components/schemas/${name}`, ...options });

/** The schema that also accepts null (OpenAPI 3.1 / JSON Schema 2020-12 style). */
export function nullable(s: TSchema): TSchema {
  const copy: Record<string, unknown> = { ...s };
  if (typeof copy.type === 'string') copy.type = [copy.type, 'null'];
  if (Array.isArray(copy.enum)) copy.enum = [...(copy.enum as unknown[]), null];
  return Type.Unsafe(copy);
}

const withDescription = (o: Record<string, unknown>, d: string | undefined) => (d ? { ...o, description: d } : o);

/** Schema of one scalar value as it travels on the wire. */
export function scalarSchema(model: Model, def: ScalarField): TSchema {
  const dflt = 'default' in def && def.default !== undefined && def.default !== 'today' && def.default !== 'now' ? { default: def.default } : {};
  switch (def.kind) {
    case 'text': {
      const o: Record<string, unknown> = { ...dflt };
      if (def.min !== undefined) o.minLength = def.min;
      if (def.max !== undefined) o.maxLength = def.max;
      if (def.format === 'email') o.format = 'email';
      if (def.format === 'url') o.format = 'uri';
      if (def.format === 'currency') o.pattern = '^[A-Z]{3}$';
      if (def.format === 'country') o.pattern = '^[A-Z]{2}$';
      let d = def.description;
      if (def.sequence) d = `${d ? `${d}. ` : ''}When omitted on create: the next of the sequence ${def.sequence.prefix}${'0'.repeat(def.sequence.pad - 1)}1.`;
      if (def.derive) d = d ?? `Derived from ${def.derive.from}.`;
      return Type.String(withDescription(o, d));
    }
    case 'integer': {
      const o: Record<string, unknown> = { ...dflt };
      if (def.min !== undefined) o.minimum = def.min;
      if (def.max !== undefined) o.maximum = def.max;
      return Type.Integer(withDescription(o, def.description ?? (def.money ? 'Amount in the smallest currency unit (cents).' : undefined)));
    }
    case 'decimal': {
      const o: Record<string, unknown> = { ...dflt };
      if (def.min !== undefined) o.minimum = def.min;
      if (def.max !== undefined) o.maximum = def.max;
      if (def.above !== undefined) o.exclusiveMinimum = def.above;
      return Type.Number(withDescription(o, `${def.description ? `${def.description}. ` : ''}Exact decimal, at most ${def.scale} decimal places.`));
    }
    case 'boolean':
      return Type.Boolean(withDescription({ ...dflt }, def.description));
    case 'enum':
      return Type.Unsafe(withDescription({ type: 'string', enum: [...def.values], ...dflt }, def.description));
    case 'date':
      return Type.String(withDescription({ format: 'date' }, def.description));
    case 'timestamp':
      return Type.String(withDescription({ format: 'date-time' }, def.description));
    case 'ref': {
      const target = model.get(def.target);
      return Type.String(withDescription({ format: 'iri-reference', examples: [`${target.iri}/0190a0a0-0000-7000-8000-000000000000`] }, def.description ?? `IRI of a ${target.name} (${target.iri}/<id>); a bare id is accepted in writes.`));
    }
  }
}

/** Schema of a stored field (scalar or embedded list), null allowed unless required. */
export function fieldSchema(model: Model, f: ModelField, mode: 'read' | 'write'): TSchema {
  let s: TSchema;
  if (f.def.kind === 'list') {
    const props: Record<string, TSchema> = {};
    const required: string[] = [];
    for (const [n, d] of Object.entries(f.def.of)) {
      props[n] = d.required ? scalarSchema(model, d) : nullable(scalarSchema(model, d));
      if (d.required && (mode === 'read' || !('default' in d && d.default !== undefined))) required.push(n);
    }
    s = Type.Array(Type.Unsafe({ type: 'object', properties: props, ...(required.length ? { required } : {}) }), withDescription({}, f.def.description));
    return s;
  }
  if (f.def.kind === 'json') return f.required ? f.def.schema : Type.Union([f.def.schema, Type.Null()], withDescription({}, f.def.description));
  if (f.def.kind === 'textList') {
    const item = Type.String(f.def.itemMax !== undefined ? { maxLength: f.def.itemMax } : {});
    return Type.Array(item, withDescription({ ...(f.required ? { minItems: 1 } : {}), ...(f.def.maxItems !== undefined ? { maxItems: f.def.maxItems } : {}) }, f.def.description));
  }
  if (f.def.kind === 'children') throw new Error(`fieldSchema: ${f.name} is a to-many relation`);
  s = scalarSchema(model, f.def);
  return f.required ? s : nullable(s);
}

/** Names of the component schemas derived from a resource. */
export const schemaNames = (r: ModelResource) => ({
  read: r.name,
  create: `${r.name}-write`,
  update: `${r.name}-update`,
  nested: `${r.name}-nested-write`,
});

/**
 * Properties of a record as read, in wire order: `id`, the shown fields, the timestamps.
 * `children(child)` gives the schema of one embedded child (so each format can name its own).
 */
export function readProperties(model: Model, r: ModelResource, children: (child: ModelResource) => TSchema, skip: (f: ModelField) => boolean = () => false): Record<string, TSchema> {
  const props: Record<string, TSchema> = { id: Type.String({ format: 'uuid', readOnly: true, description: 'The bare id (UUIDv7).' }) };
  for (const f of r.fields) {
    if (!(f.stored || r.embedded.includes(f)) || skip(f)) continue;
    let s = f.kind === 'children' ? Type.Array(children(model.get(f.target!))) : fieldSchema(model, f, 'read');
    if (f.readOnly) s = Type.Unsafe({ ...s, readOnly: true });
    props[f.name] = s;
  }
  props.createdAt = Type.String({ format: 'date-time', readOnly: true });
  props.updatedAt = Type.String({ format: 'date-time', readOnly: true });
  // A value shown once (a new token's secret) is in the response to the create that made it only.
  for (const f of r.shownOnce) {
    if (skip(f)) continue;
    // Absent rather than null when not given.
    const { type, ...s } = fieldSchema(model, f, 'read') as TSchema & { type?: unknown };
    const types = Array.isArray(type) ? type.filter((t) => t !== 'null') : type;
    props[f.name] = Type.Optional(Type.Unsafe({ ...s, type: Array.isArray(types) && types.length === 1 ? types[0] : types, readOnly: true, description: `${f.def.description ?? 'Shown once.'} Only in the response to the create.` }));
  }
  return props;
}

/** The plain-JSON record (`<Type>`), also used for XML. */
export function readSchema(model: Model, r: ModelResource): TSchema {
  return Type.Object(readProperties(model, r, (c) => ref(c.name)), { description: r.description });
}

export type WriteMode = 'create' | 'update' | 'replace';

/** Fields accepted in a body, with their schemas; `nested` leaves out the owner of an embedded child. */
export function writeProperties(model: Model, r: ModelResource, mode: WriteMode, nested = false): { props: Record<string, TSchema>; required: string[] } {
  const fields = mode === 'update' ? r.updatable : r.creatable;
  const props: Record<string, TSchema> = {};
  const required: string[] = [];
  // A child written with its record (descriptor `nested`) is sent without its reference to it,
  // and names an existing child by its `id` to change it.
  const via = nested ? nestedVia(model, r) : undefined;
  if (via) props.id = Type.String({ description: `The id (or IRI) of one of the record's ${r.plural} to change; without it, a new one.` });
  for (const f of fields) {
    if (nested && (r.owner?.field === f || f.name === via)) continue;
    if (f.kind === 'children') {
      const description = r.nested.includes(f) ? `Its ${f.name}: each one with an id changes that one, each one without is new; on update, those left out are deleted. Omitted: unchanged.` : 'Replaces every embedded item.';
      props[f.name] = Type.Array(ref(schemaNames(model.get(f.target!)).nested), { description });
      continue;
    }
    props[f.name] = fieldSchema(model, f, 'write');
    const def = f.def as { default?: unknown; sequence?: unknown };
    if (mode !== 'update' && f.required && def.default === undefined && !def.sequence) required.push(f.name);
  }
  return { props, required };
}

/** The field of `r` pointing at the record that writes it as nested children (descriptor `nested`), if one does. */
export function nestedVia(model: Model, r: ModelResource): string | undefined {
  for (const o of model.resources) for (const f of o.nested) if (f.target === r.name) return (f.def as { via: string }).via;
  return undefined;
}

export function writeSchema(model: Model, r: ModelResource, mode: WriteMode, nested = false): TSchema {
  const { props, required } = writeProperties(model, r, mode, nested);
  const what = mode === 'update' ? 'The fields to change (JSON merge patch).' : mode === 'replace' ? 'Every writable field; omitted ones are reset.' : `The new ${r.name} resource.`;
  return Type.Unsafe({ type: 'object', description: what, properties: props, ...(required.length ? { required } : {}) });
}

/** Component schemas every format shares: records, write bodies, problems. */
export function baseComponents(model: Model, resources: readonly ModelResource[]): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const r of resources) {
    const n = schemaNames(r);
    out[n.read] = readSchema(model, r);
    if (r.owner || nestedVia(model, r)) out[n.nested] = writeSchema(model, r, 'create', true);
    if (r.rest.has('create') || r.rest.has('replace')) out[n.create] = writeSchema(model, r, 'create');
    if (r.rest.has('update')) out[n.update] = writeSchema(model, r, 'update');
  }
  const problem = {
    type: Type.String({ description: 'A URI reference identifying the kind of problem, e.g. /errors/404.' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
  };
  out.Error = Type.Object({ ...problem, message: Type.Optional(Type.String({ description: 'On 401: "No API token provided" or "Invalid API token".' })) }, { description: 'An RFC 7807 problem.' });
  out.ConstraintViolation = Type.Object(
    {
      ...problem,
      violations: Type.Array(Type.Object({
        propertyPath: Type.String(),
        message: Type.String(),
        code: Type.String(),
        extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The values the message states, for machines; an amount is `{amount, currency}` in minor units (the message writes it in major units with its currency).' })),
      })),
    },
    { description: 'Validation failed (422): one violation per field.' },
  );
  return out;
}

/** Resources the REST API shows, plus the ones embedded in them. */
export function documentedResources(model: Model): ModelResource[] {
  const out = new Set<ModelResource>();
  for (const r of model.resources) {
    if (!r.rest.size) continue;
    out.add(r);
    for (const f of r.embedded) out.add(model.get(f.target!));
  }
  return [...out];
}
