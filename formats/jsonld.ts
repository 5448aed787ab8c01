// JSON-LD with Hydra, in API Platform 4's unprefixed shape, and the @context documents it names.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FieldValues } from '../engine/types.ts';
import { randomUUID } from 'node:crypto';
import type { Model, ModelResource } from '../engine/model.ts';
import type { Projection } from '../engine/projection.ts';
import { lowerFirst } from '../engine/names.ts';
import { readProperties, ref } from '../engine/json-schemas.ts';
import { pageLinks, TOTAL_NOTE, pageUrl } from './links.ts';
import { iriOf, nameFieldOf, present, SCHEMA_NAME, shownFields, type Decorate } from './present.ts';
import { documentShape, type CollectionView, type DocumentView, type Format } from './types.ts';

const HYDRA = 'http://www.w3.org/ns/hydra/core#';

const decorate: Decorate = (r, rec) => ({ '@id': iriOf(r, rec.id), '@type': r.name });

// The same members when the database builds the records (engine/projection.ts).
const projection: Projection = {
  name: 'jsonld',
  leadingMembers: (r, top) => [...(top ? [['@context', { text: `/api/contexts/${r.name}` }] as const] : []), ['@id', 'iri'], ['@type', { text: r.name }]],
};

/** Stands for the members in a collection body until the database's text replaces it. */
const MEMBERS = `members-${randomUUID()}`;

export function jsonldItem(model: Model, r: ModelResource, rec: FieldValues): Record<string, unknown> {
  // Only the top-level object names its @context; embedded ones carry @id and @type.
  return { '@context': `/api/contexts/${r.name}`, ...present(model, r, rec, decorate) };
}

function search(r: ModelResource) {
  const variables: { variable: string; property: string }[] = [];
  for (const f of r.filters) {
    if (f.filter === 'date') for (const op of ['before', 'strictly_before', 'after', 'strictly_after']) variables.push({ variable: `${f.name}[${op}]`, property: f.name });
    else variables.push({ variable: f.name, property: f.name }, { variable: `${f.name}[]`, property: f.name });
  }
  for (const o of r.orders) variables.push({ variable: `order[${o}]`, property: o });
  return {
    '@type': 'IriTemplate',
    template: `${r.iri}{?${variables.map((v) => v.variable).join(',')}}`,
    variableRepresentation: 'BasicRepresentation',
    mapping: variables.map((v) => ({ '@type': 'IriTemplateMapping', variable: v.variable, property: v.property, required: false })),
  };
}
const searches = new WeakMap<ModelResource, ReturnType<typeof search>>();

function collection(model: Model, view: CollectionView) {
  const r = view.resource;
  const body: Record<string, unknown> = {
    '@context': `/api/contexts/${r.name}`,
    '@id': r.iri,
    '@type': 'Collection',
    member: view.membersText !== undefined ? MEMBERS : view.items.map((rec) => present(model, r, rec, decorate)),
    ...(view.total === null ? {} : { totalItems: view.total }),
  };
  const filtered = [...view.query.keys()].some((k) => k !== 'page');
  const l = pageLinks(view);
  if (l.paged || filtered) {
    body.view = {
      '@id': l.cursorMode ? l.self : pageUrl(view, l.paged ? view.page : view.query.has('page') ? view.page : null),
      '@type': 'PartialCollectionView',
      ...(l.paged ? { first: l.first, last: l.last } : {}),
      ...(l.prev ? { previous: l.prev } : {}),
      ...(l.next ? { next: l.next } : {}),
    };
  }
  let s = searches.get(r);
  if (!s) searches.set(r, (s = search(r)));
  body.search = s;
  const members = view.membersText;
  if (members === undefined) return { body };
  return { body, text: JSON.stringify(body).replace(`"${MEMBERS}"`, () => members) };
}

export const jsonld: Format = {
  name: 'jsonld',
  mediaType: 'application/ld+json',
  accepts: ['application/ld+json'],
  item: (model, r, rec) => ({ body: jsonldItem(model, r, rec) }),
  projection,
  collection,
  entrypoint: (model) => ({ body: entrypoint(model) }),
  document: {
    needsType: false,
    render: (model, view) => ({ body: jsonldDocument(model, view) }),
    schema: (view) => {
      const head = { '@context': Type.String({ const: `/api/contexts/${view.type}` }), '@id': Type.String() };
      const typed = (s: TSchema) => Type.Object({ '@type': Type.Literal(view.type!), ...((s as { properties?: Record<string, TSchema> }).properties ?? {}) });
      if (view.many) return Type.Object({ ...head, '@type': Type.Literal('Collection'), totalItems: Type.Integer({ minimum: 0 }), member: Type.Array(view.objects === false ? view.schema : typed(view.schema)) });
      return Type.Object({ ...head, '@type': Type.Literal(view.type!), ...((view.schema as { properties?: Record<string, TSchema> }).properties ?? {}) });
    },
  },
  docs: {
    components: (model, r) => ({ [`${r.name}.jsonld`]: itemSchema(model, r) }),
    item: (r) => ref(`${r.name}.jsonld`),
    collection: (r) =>
      Type.Object({
        '@context': Type.String({ format: 'iri-reference' }),
        '@id': Type.String({ format: 'iri-reference' }),
        '@type': Type.Literal('Collection'),
        member: Type.Array(ref(`${r.name}.jsonld`)),
        totalItems: Type.Optional(Type.Integer({ minimum: 0, description: TOTAL_NOTE })),
        view: Type.Optional(
          Type.Object(
            {
              '@id': Type.String({ format: 'iri-reference' }),
              '@type': Type.Literal('PartialCollectionView'),
              first: Type.Optional(Type.String({ format: 'iri-reference' })),
              last: Type.Optional(Type.String({ format: 'iri-reference' })),
              previous: Type.Optional(Type.String({ format: 'iri-reference' })),
              next: Type.Optional(Type.String({ format: 'iri-reference' })),
            },
            { description: 'Present when there are several pages or filters.' },
          ),
        ),
        search: Type.Object(
          {
            '@type': Type.Literal('IriTemplate'),
            template: Type.String(),
            variableRepresentation: Type.String(),
            mapping: Type.Array(Type.Object({ '@type': Type.String(), variable: Type.String(), property: Type.String(), required: Type.Boolean() })),
          },
          { description: 'The filters and orders this collection understands.' },
        ),
      }),
  },
};

function itemSchema(model: Model, r: ModelResource): TSchema {
  const props = readProperties(model, r, (c) => ref(`${c.name}.jsonld`));
  return Type.Object(
    {
      '@context': Type.Optional(Type.String({ format: 'iri-reference', description: 'Absent on embedded objects.' })),
      '@id': Type.String({ format: 'iri-reference', readOnly: true }),
      '@type': Type.Literal(r.name, { readOnly: true }),
      ...props,
    },
    { description: r.description },
  );
}

const hydraTerms = {
  hydra: HYDRA,
  Collection: 'hydra:Collection',
  PartialCollectionView: 'hydra:PartialCollectionView',
  IriTemplate: 'hydra:IriTemplate',
  IriTemplateMapping: 'hydra:IriTemplateMapping',
  member: 'hydra:member',
  totalItems: 'hydra:totalItems',
  view: { '@id': 'hydra:view', '@type': '@id' },
  first: { '@id': 'hydra:first', '@type': '@id' },
  last: { '@id': 'hydra:last', '@type': '@id' },
  previous: { '@id': 'hydra:previous', '@type': '@id' },
  next: { '@id': 'hydra:next', '@type': '@id' },
  search: 'hydra:search',
  template: 'hydra:template',
  variableRepresentation: 'hydra:variableRepresentation',
  mapping: 'hydra:mapping',
  variable: 'hydra:variable',
  property: 'hydra:property',
  required: 'hydra:required',
  title: 'hydra:title',
  description: 'hydra:description',
};

function fieldTerms(model: Model, r: ModelResource): Record<string, unknown> {
  const terms: Record<string, unknown> = { id: `${r.name}/id`, createdAt: `${r.name}/createdAt`, updatedAt: `${r.name}/updatedAt` };
  const named = nameFieldOf(r);
  for (const f of shownFields(r)) {
    if (f === named) terms[f.name] = SCHEMA_NAME;
    else if (f.kind === 'ref') terms[f.name] = { '@id': `${r.name}/${f.name}`, '@type': '@id' };
    else if (f.kind === 'children') {
      const child = model.get(f.target!);
      terms[f.name] = `${r.name}/${f.name}`;
      terms[child.name] = { '@id': child.name, '@context': fieldTerms(model, child) };
    } else if (f.def.kind === 'list') {
      // The entries' own terms, scoped to this property; relations among them are links.
      const sub = Object.fromEntries(Object.entries(f.def.of).map(([n, d]) => [n, d.kind === 'ref' ? { '@id': `${r.name}/${f.name}/${n}`, '@type': '@id' } : `${r.name}/${f.name}/${n}`]));
      terms[f.name] = { '@id': `${r.name}/${f.name}`, '@container': '@list', '@context': sub };
    }
    else terms[f.name] = `${r.name}/${f.name}`;
  }
  return terms;
}

/**
 * A declared operation's document in JSON-LD: its type and the request path as @id; members of
 * the schema that name a resource (`'x-resource': '<Type>'`) get that record's @id and @type.
 */
function jsonldDocument(model: Model, view: DocumentView): Record<string, unknown> {
  type Annotated = { 'x-resource'?: string };
  const props = (view.schema as { properties?: Record<string, Annotated & { anyOf?: Annotated[] }> }).properties ?? {};
  const refs = Object.entries(props)
    .map(([k, s]) => [k, s['x-resource'] ?? s.anyOf?.find((x) => x['x-resource'])?.['x-resource']] as const)
    .filter((e): e is readonly [string, string] => e[1] !== undefined && model.find(e[1]) !== undefined);
  const decorate = (o: unknown): Record<string, unknown> => {
    const out = { ...(o as Record<string, unknown>) };
    for (const [k, type] of refs) {
      const v = out[k] as Record<string, unknown> | null | undefined;
      if (v && typeof v === 'object') out[k] = { '@id': `${model.get(type).iri}/${String(v.id)}`, '@type': type, ...v };
    }
    return out;
  };
  const head = { '@context': `/api/contexts/${view.type}`, '@id': view.path };
  if (view.many) {
    const items = view.body as unknown[];
    return { ...head, '@type': 'Collection', totalItems: view.total ?? items.length, member: view.objects === false ? items : items.map((i) => ({ '@type': view.type, ...decorate(i) })) };
  }
  return { ...head, '@type': view.type, ...decorate(view.body) };
}

/** The @context document of a type, or of `Entrypoint`/`Error`; null when unknown. */
export function contextDocument(model: Model, name: string, base: string): Record<string, unknown> | null {
  const vocab = { '@version': 1.1, '@vocab': `${base}/api/docs.jsonld#`, ...hydraTerms };
  if (name === 'Entrypoint') {
    const terms: Record<string, unknown> = { Entrypoint: 'Entrypoint' };
    for (const r of model.resources) if (r.rest.has('list')) terms[lowerFirst(r.name)] = { '@id': `Entrypoint/${lowerFirst(r.name)}`, '@type': '@id' };
    return { '@context': { ...vocab, ...terms } };
  }
  if (name === 'Error' || name === 'ConstraintViolation') {
    return { '@context': { ...vocab, [name]: name, status: `${name}/status`, type: `${name}/type`, detail: `${name}/detail`, violations: `${name}/violations`, propertyPath: `${name}/propertyPath`, message: `${name}/message`, code: `${name}/code` } };
  }
  const r = model.find(name);
  if (!r || !r.rest.size) return documentContext(model, name, vocab);
  return { '@context': { ...vocab, [r.name]: r.name, ...fieldTerms(model, r) } };
}

/** The @context of a declared operation's document type (formats/types.ts documentShape), or null. */
function documentContext(model: Model, name: string, vocab: Record<string, unknown>): Record<string, unknown> | null {
  for (const r of model.resources) {
    for (const op of r.operations) {
      const shape = documentShape(r, op);
      if (shape?.type !== name) continue;
      const props = Object.keys((shape.schema as { properties?: Record<string, unknown> }).properties ?? {});
      return { '@context': { ...vocab, [name]: name, ...Object.fromEntries(props.map((p) => [p, `${name}/${p}`])) } };
    }
  }
  return null;
}

export function entrypoint(model: Model): Record<string, unknown> {
  const body: Record<string, unknown> = { '@context': '/api/contexts/Entrypoint', '@id': '/api', '@type': 'Entrypoint' };
  for (const r of model.resources) if (r.rest.has('list')) body[lowerFirst(r.name)] = r.iri;
  return body;
}
