// JSON:API (application/vnd.api+json): resource objects with the IRI as `id`, the bare id as
// `_id`, relations as `relationships` and embedded children as `included` (a compound
// document). Collections carry `links` and `meta`. Request documents and the query parameters
// `page[page]`, `page[itemsPerPage]`, `filter[...]` and `sort` are translated here.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FieldValues } from '../engine/types.ts';
import { ApiError } from '../engine/errors.ts';
import type { Model, ModelResource } from '../engine/model.ts';
import { readProperties, ref, writeProperties, type WriteMode } from '../engine/json-schemas.ts';
import { pageLinks, TOTAL_NOTE } from './links.ts';
import { entrypointLinks, iriOf, shownFields, shownOnce, wireScalar, wireValue } from './present.ts';
import type { CollectionView, Format } from './types.ts';

interface Identifier {
  type: string;
  id: string;
}
interface ResourceObject extends Identifier {
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: Identifier | Identifier[] | null }>;
}

// `id` and `type` are reserved member names: fields so named travel as `_id` and `_type`.
const RESERVED = new Set(['id', 'type']);
const attributeName = (field: string) => (RESERVED.has(field) ? `_${field}` : field);
const fieldName = (attribute: string) => (attribute.startsWith('_') && RESERVED.has(attribute.slice(1)) ? attribute.slice(1) : attribute);

/** A document's members as attributes: `id` and `type` become `_id` and `_type`. */
const attributesOf = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).map(([k, v]) => [attributeName(k), v]));

/** The resource object of a record; embedded children are pushed onto `included`. */
function resource(model: Model, r: ModelResource, rec: FieldValues, included: ResourceObject[]): ResourceObject {
  const attributes: Record<string, unknown> = { _id: rec.id };
  const relationships: Record<string, { data: Identifier | Identifier[] | null }> = {};
  for (const f of shownFields(r)) {
    if (f.kind === 'ref') {
      const iri = wireValue(model, f, rec[f.name]);
      relationships[f.name] = { data: typeof iri === 'string' ? { type: f.target!, id: iri } : null };
    } else if (f.kind === 'children') {
      const child = model.get(f.target!);
      const items = (rec[f.name] as FieldValues[] | undefined) ?? [];
      relationships[f.name] = { data: items.map((c) => ({ type: child.name, id: iriOf(child, c.id) })) };
      for (const c of items) included.push(resource(model, child, c, included));
    } else attributes[attributeName(f.name)] = wireValue(model, f, rec[f.name]);
  }
  attributes.createdAt = wireScalar(model, { kind: 'timestamp' }, rec.createdAt);
  attributes.updatedAt = wireScalar(model, { kind: 'timestamp' }, rec.updatedAt);
  for (const [name, v] of shownOnce(model, r, rec)) attributes[attributeName(name)] = v;
  const out: ResourceObject = { id: iriOf(r, rec.id), type: r.name, attributes };
  if (Object.keys(relationships).length) out.relationships = relationships;
  return out;
}

function collection(model: Model, view: CollectionView) {
  const l = pageLinks(view);
  const links: Record<string, string> = { self: l.self };
  if (l.paged) {
    links.first = l.first;
    links.last = l.last;
    if (l.prev) links.prev = l.prev;
    if (l.next) links.next = l.next;
  }
  const included: ResourceObject[] = [];
  const data = view.items.map((rec) => resource(model, view.resource, rec, included));
  const body: Record<string, unknown> = { links, meta: { ...(view.total === null ? {} : { totalItems: view.total }), itemsPerPage: view.itemsPerPage, ...(l.cursorMode ? {} : { currentPage: view.page }) }, data };
  if (included.length) body.included = included;
  return { body };
}

// ---- request documents ------------------------------------------------------------------

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

type Included = Map<string, Record<string, unknown>>;
const key = (type: unknown, id: unknown) => `${String(type)}\u0000${String(id)}`;

/** Fields of one resource object: attributes plus relationships (IRIs, or nested objects from `included`). */
function fieldsOf(model: Model, r: ModelResource, data: Record<string, unknown>, included: Included, at: string): Record<string, unknown> {
  if (data.type !== undefined && data.type !== r.name) throw new ApiError(409, `The type "${String(data.type).slice(0, 100)}" at ${at} does not match the resource type "${r.name}".`);
  if (data.attributes !== undefined && !isObject(data.attributes)) throw ApiError.badRequest(`${at}/attributes must be an object.`);
  if (data.relationships !== undefined && !isObject(data.relationships)) throw ApiError.badRequest(`${at}/relationships must be an object.`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((data.attributes as Record<string, unknown> | undefined) ?? {})) if (k !== '_id') out[fieldName(k)] = v;
  for (const [name, rel] of Object.entries((data.relationships as Record<string, unknown> | undefined) ?? {})) {
    const where = `${at}/relationships/${name}`;
    if (!isObject(rel) || !('data' in rel)) throw ApiError.badRequest(`${where} must be an object with "data".`);
    const f = r.byName.get(name);
    const linkage = rel.data;
    if (linkage === null) out[name] = null;
    else if (Array.isArray(linkage)) {
      // A to-many relation: embedded children travel in `included`, matched by type and id or lid.
      const child = f?.kind === 'children' ? model.get(f.target!) : undefined;
      out[name] = linkage.map((ident, i) => {
        if (!isObject(ident)) throw ApiError.badRequest(`${where}/data/${i} must be a resource identifier.`);
        const full = included.get(key(ident.type, ident.lid ?? ident.id));
        if (!full || !child) throw ApiError.badRequest(`${where}/data/${i}: the related resource must be in "included" (with "lid" for a new one).`);
        return fieldsOf(model, child, full, included, `included/${String(ident.type)}`);
      });
    } else if (isObject(linkage)) {
      if (typeof linkage.id !== 'string') throw ApiError.badRequest(`${where}/data must have a string "id".`);
      out[name] = linkage.id;
    } else throw ApiError.badRequest(`${where}/data must be null, a resource identifier or an array of them.`);
  }
  return out;
}

function readBody(model: Model, r: ModelResource, body: unknown): Record<string, unknown> {
  if (!isObject(body) || !isObject(body.data)) throw ApiError.badRequest('A JSON:API document needs a "data" object.');
  const included: Included = new Map();
  if (body.included !== undefined) {
    if (!Array.isArray(body.included)) throw ApiError.badRequest('"included" must be an array.');
    for (const inc of body.included) if (isObject(inc)) included.set(key(inc.type, inc.lid ?? inc.id), inc);
  }
  return fieldsOf(model, r, body.data, included, 'data');
}

/** `page[page]`, `page[after]`, `page[before]`, `page[itemsPerPage]`, `filter[x]…` and `sort=a,-b` → `page`, `itemsPerPage`, `x…`, `order[a]=asc&order[b]=desc`. */
function readQuery(q: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of q) {
    const filter = /^filter\[([^\]]+)\](.*)$/.exec(k);
    if (k === 'page[page]') out.append('page', v);
    else if (k === 'page[after]' || k === 'page[before]') out.append(k.slice(5, -1), v);
    else if (k === 'page[itemsPerPage]') out.append('itemsPerPage', v);
    else if (filter) out.append(filter[1]! + filter[2]!, v);
    else if (k === 'sort') {
      for (const part of v.split(',')) {
        const p = part.trim();
        if (p) out.append(`order[${p.replace(/^-/, '')}]`, p.startsWith('-') ? 'desc' : 'asc');
      }
    } else out.append(k, v);
  }
  return out;
}

export const jsonapi: Format = {
  name: 'jsonapi',
  mediaType: 'application/vnd.api+json',
  accepts: ['application/vnd.api+json'],
  item(model, r, rec) {
    const included: ResourceObject[] = [];
    const data = resource(model, r, rec, included);
    return { body: included.length ? { data, included } : { data } };
  },
  collection,
  entrypoint: (model) => ({ body: { links: { self: '/api', ...Object.fromEntries(entrypointLinks(model).map((l) => [l.name, l.href])) }, meta: {} } }),
  readBody,
  readQuery,
  // A declared operation's document: a resource object of its type (`id`: the request path, or a
  // list item's own id), members as attributes (`id` and `type` as `_id` and `_type`); a list of
  // other values in `meta.item`.
  document: {
    needsType: false,
    render: (_model, view) => {
      const object = (o: unknown, id: string) => ({ id, type: view.type!, attributes: attributesOf(o as Record<string, unknown>) });
      if (!view.many) return { body: { data: object(view.body, view.path) } };
      const items = view.body as unknown[];
      const meta = view.total === null || view.total === undefined ? {} : { totalItems: view.total };
      if (view.objects === false) return { body: { links: { self: view.path }, meta: { ...meta, item: items } } };
      return { body: { links: { self: view.path }, meta, data: items.map((i, n) => object(i, String((i as { id?: unknown }).id ?? n))) } };
    },
    schema: (view) => {
      const props = Object.fromEntries(Object.entries((view.schema as { properties?: Record<string, TSchema> }).properties ?? {}).map(([k, v]) => [attributeName(k), v]));
      const object = Type.Object({ id: Type.String(), type: Type.Literal(view.type!), attributes: Type.Object(props) });
      if (!view.many) return Type.Object({ data: object });
      const links = Type.Object({ self: Type.String({ format: 'iri-reference' }) });
      const total = { totalItems: Type.Optional(Type.Integer({ minimum: 0 })) };
      if (view.objects === false) return Type.Object({ links, meta: Type.Object({ ...total, item: Type.Array(view.schema) }) });
      return Type.Object({ links, meta: Type.Object(total), data: Type.Array(object) });
    },
  },
  docs: {
    components(model, r) {
      const out: Record<string, TSchema> = { [`${r.name}.jsonapi`]: resourceSchema(model, r) };
      if (r.rest.has('create') || r.rest.has('replace')) out[`${r.name}.jsonapi-write`] = documentSchema(model, r, 'create');
      if (r.rest.has('update')) out[`${r.name}.jsonapi-update`] = documentSchema(model, r, 'update');
      return out;
    },
    item: (r) => Type.Object({ data: ref(`${r.name}.jsonapi`), ...includedSchema(r) }),
    collection: (r) =>
      Type.Object({
        links: Type.Object({
          self: Type.String({ format: 'iri-reference' }),
          first: Type.Optional(Type.String({ format: 'iri-reference' })),
          last: Type.Optional(Type.String({ format: 'iri-reference' })),
          prev: Type.Optional(Type.String({ format: 'iri-reference' })),
          next: Type.Optional(Type.String({ format: 'iri-reference' })),
        }),
        meta: Type.Object({ totalItems: Type.Optional(Type.Integer({ minimum: 0, description: TOTAL_NOTE })), itemsPerPage: Type.Integer({ minimum: 1 }), currentPage: Type.Optional(Type.Integer({ minimum: 1, description: 'Absent in cursor mode (after/before).' })) }),
        data: Type.Array(ref(`${r.name}.jsonapi`)),
        ...includedSchema(r),
      }),
    body: (r, mode) => ref(`${r.name}.jsonapi-${mode === 'update' ? 'update' : 'write'}`),
  },
};

/** `included`: the resource objects of embedded children, when the resource has any. */
function includedSchema(r: ModelResource): Record<string, TSchema> {
  const types = r.embedded.map((f) => ref(`${f.target!}.jsonapi`));
  if (!types.length) return {};
  return { included: Type.Optional(Type.Array(types.length === 1 ? types[0]! : Type.Union(types), { description: 'The embedded children.' })) };
}

const identifier = (type: string, options: Record<string, unknown> = {}) => Type.Object({ type: Type.Literal(type), id: Type.String({ format: 'iri-reference' }) }, options);

function resourceSchema(model: Model, r: ModelResource): TSchema {
  const attributes = readProperties(model, r, () => Type.Never(), (f) => f.kind === 'ref' || f.kind === 'children');
  const { id, ...rest } = attributes;
  const renamed = Object.fromEntries(Object.entries(rest).map(([k, v]) => [attributeName(k), v]));
  const relationships: Record<string, TSchema> = {};
  for (const f of r.fields) {
    if (f.kind === 'ref' && f.stored) relationships[f.name] = Type.Object({ data: f.required ? identifier(f.target!) : Type.Union([identifier(f.target!), Type.Null()]) });
    if (f.kind === 'children' && r.embedded.includes(f)) relationships[f.name] = Type.Object({ data: Type.Array(identifier(f.target!)) }, { description: 'The items are in the top-level "included".' });
  }
  return Type.Object(
    {
      id: Type.String({ format: 'iri-reference', description: 'The IRI.' }),
      type: Type.Literal(r.name),
      attributes: Type.Object({ _id: id!, ...renamed }),
      ...(Object.keys(relationships).length ? { relationships: Type.Object(relationships) } : {}),
    },
    { description: r.description },
  );
}

function documentSchema(model: Model, r: ModelResource, mode: WriteMode): TSchema {
  const { props, required } = writeProperties(model, r, mode);
  const attributes: Record<string, TSchema> = {};
  const relationships: Record<string, TSchema> = {};
  for (const [name, s] of Object.entries(props)) {
    const f = r.byName.get(name)!;
    if (f.kind === 'ref') relationships[name] = Type.Object({ data: f.required ? identifier(f.target!) : Type.Union([identifier(f.target!), Type.Null()]) });
    else if (f.kind === 'children') {
      attributes[name] = Type.Unsafe({ ...s, description: 'Embedded items as plain objects; or send them as relationships with "included" entries.' });
      relationships[name] = Type.Object(
        { data: Type.Array(Type.Object({ type: Type.Literal(f.target!), lid: Type.String() })) },
        { description: 'Each identifier names an entry of "included" by type and lid.' },
      );
    } else attributes[attributeName(name)] = s;
  }
  const attrRequired = required.filter((n) => !r.byName.get(n)?.target).map(attributeName);
  return Type.Object({
    data: Type.Object({
      type: Type.Literal(r.name),
      attributes: Type.Unsafe({ type: 'object', properties: attributes, ...(attrRequired.length ? { required: attrRequired } : {}) }),
      relationships: Type.Optional(Type.Object(Object.fromEntries(Object.entries(relationships).map(([k, v]) => [k, Type.Optional(v)])))),
    }),
    included: Type.Optional(Type.Array(Type.Unsafe({ type: 'object', description: 'New embedded items: {type, lid, attributes, relationships}.' }))),
  }, { description: mode === 'update' ? 'The fields to change.' : `The new ${r.name} resource.` });
}
