// The format-neutral presentation of a record: wire values (IRIs for relations, numbers for
// decimals, RFC 3339 for timestamps) in the descriptor's field order. Formats decorate it.
import type { FieldValues } from '../engine/types.ts';
import type { Model, ModelField, ModelResource } from '../engine/model.ts';
import { lowerFirst } from '../engine/names.ts';
import { shownFields } from '../engine/projection.ts';

/** The members a format puts before the fields of each record (e.g. JSON-LD's @id and @type). */
export type Decorate = (r: ModelResource, rec: FieldValues) => Record<string, unknown>;

/** A record's IRI; a singleton's is its resource's. */
export const iriOf = (r: ModelResource, id: unknown): string => (r.singleton ? r.iri : `${r.iri}/${String(id)}`);

const isoOf = (v: unknown): string => (v instanceof Date ? v.toISOString() : typeof v === 'string' && v.endsWith('Z') ? v : new Date(String(v)).toISOString());

export function wireScalar(model: Model, f: { kind: string; target?: string | undefined; def?: unknown }, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (f.kind) {
    case 'ref':
      return iriOf(model.get(f.target!), v);
    case 'timestamp':
      return isoOf(v);
    case 'decimal':
      return typeof v === 'string' ? Number(v) : v;
    default:
      return v;
  }
}

export function wireValue(model: Model, f: ModelField, v: unknown): unknown {
  if (f.def.kind === 'list') {
    const sub = Object.entries(f.def.of);
    return ((v as FieldValues[] | null) ?? []).map((item) => Object.fromEntries(sub.map(([n, d]) => [n, wireScalar(model, { kind: d.kind, target: d.kind === 'ref' ? d.target : undefined }, item[n])])));
  }
  return wireScalar(model, f, v);
}

export { shownFields };

/** How each shown field of a resource is written, worked out once per resource. */
interface Step {
  readonly name: string;
  readonly convert: (v: unknown) => unknown;
  readonly child?: ModelResource;
}
const plans = new WeakMap<ModelResource, readonly Step[]>();

function planOf(model: Model, r: ModelResource): readonly Step[] {
  let plan = plans.get(r);
  if (plan) return plan;
  plan = shownFields(r).map((f): Step => {
    if (f.kind === 'children') return { name: f.name, convert: (v) => v, child: model.get(f.target!) };
    if (f.kind === 'ref') {
      const prefix = `${model.get(f.target!).iri}/`;
      return { name: f.name, convert: (v) => (v === null || v === undefined ? null : prefix + String(v)) };
    }
    if (f.kind === 'timestamp') return { name: f.name, convert: (v) => (v === null || v === undefined ? null : isoOf(v)) };
    if (f.kind === 'decimal') return { name: f.name, convert: (v) => (v === null || v === undefined ? null : typeof v === 'string' ? Number(v) : v) };
    if (f.kind === 'list') return { name: f.name, convert: (v) => wireValue(model, f, v) };
    return { name: f.name, convert: (v) => (v === undefined ? null : v) };
  });
  plans.set(r, plan);
  return plan;
}

export function present(model: Model, r: ModelResource, rec: FieldValues, decorate?: Decorate): Record<string, unknown> {
  // Built in place (no spread per record): rendering a page stays linear and cheap.
  const out: Record<string, unknown> = decorate ? decorate(r, rec) : {};
  out.id = rec.id;
  for (const step of planOf(model, r)) {
    const v = rec[step.name];
    if (step.child) {
      const child = step.child;
      out[step.name] = ((v as FieldValues[] | undefined) ?? []).map((c) => present(model, child, c, decorate));
    } else out[step.name] = step.convert(v);
  }
  out.createdAt = isoOf(rec.createdAt);
  out.updatedAt = isoOf(rec.updatedAt);
  for (const [name, v] of shownOnce(model, r, rec)) out[name] = v;
  return out;
}

/** The `shownOnce` fields the record carries (only a processor's create response does), as wire values. */
export function shownOnce(model: Model, r: ModelResource, rec: FieldValues): [string, unknown][] {
  if (!r.shownOnce.length) return [];
  return r.shownOnce.filter((f) => rec[f.name] !== undefined).map((f) => [f.name, wireValue(model, f, rec[f.name])]);
}

const NAME_FIELDS = ['name', 'number', 'label', 'title'];
const names = new WeakMap<ModelResource, ModelField | null>();

/**
 * The text field that names a record (`name`, else `number`, `label`, `title`): JSON-LD and the
 * Hydra documentation map it to https://schema.org/name, which clients such as API Platform Admin
 * show for a record (a reference's label). Undefined when there is none.
 */
export function nameFieldOf(r: ModelResource): ModelField | undefined {
  let f = names.get(r);
  if (f === undefined) {
    const shown = shownFields(r);
    f = NAME_FIELDS.map((n) => shown.find((x) => x.name === n && x.kind === 'text')).find(Boolean) ?? null;
    names.set(r, f);
  }
  return f ?? undefined;
}

export const SCHEMA_NAME = 'https://schema.org/name';

/** The collections the entrypoint lists, by lower-camel type name. */
export function entrypointLinks(model: Model): { name: string; href: string }[] {
  return model.resources.filter((r) => r.rest.has('list')).map((r) => ({ name: lowerFirst(r.name), href: r.iri }));
}
