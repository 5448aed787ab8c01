// HAL (application/hal+json): relations are `_links`, embedded children are both linked and
// carried in `_embedded`; collections page through `_links` and embed their items.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FieldValues } from '../engine/types.ts';
import type { Model, ModelResource } from '../engine/model.ts';
import { readProperties, ref } from '../engine/json-schemas.ts';
import { pageLinks, TOTAL_NOTE } from './links.ts';
import { entrypointLinks, iriOf, shownFields, shownOnce, wireScalar, wireValue } from './present.ts';
import type { CollectionView, Format } from './types.ts';

interface Link {
  href: string;
}

export function halItem(model: Model, r: ModelResource, rec: FieldValues): Record<string, unknown> {
  const links: Record<string, Link | Link[]> = { self: { href: iriOf(r, rec.id) } };
  const out: Record<string, unknown> = { _links: links, id: rec.id };
  const embedded: Record<string, unknown[]> = {};
  for (const f of shownFields(r)) {
    if (f.kind === 'ref') {
      // A null relation has no link (HAL has no null link).
      const href = wireValue(model, f, rec[f.name]);
      if (typeof href === 'string') links[f.name] = { href };
    } else if (f.kind === 'children') {
      const child = model.get(f.target!);
      const items = (rec[f.name] as FieldValues[] | undefined) ?? [];
      links[f.name] = items.map((c) => ({ href: iriOf(child, c.id) }));
      embedded[f.name] = items.map((c) => halItem(model, child, c));
    } else out[f.name] = wireValue(model, f, rec[f.name]);
  }
  out.createdAt = wireScalar(model, { kind: 'timestamp' }, rec.createdAt);
  out.updatedAt = wireScalar(model, { kind: 'timestamp' }, rec.updatedAt);
  for (const [name, v] of shownOnce(model, r, rec)) out[name] = v;
  if (Object.keys(embedded).length) out._embedded = embedded;
  return out;
}

function collection(model: Model, view: CollectionView) {
  const l = pageLinks(view);
  const links: Record<string, Link | Link[]> = { self: { href: l.self }, first: { href: l.first }, last: { href: l.last } };
  if (l.prev) links.prev = { href: l.prev };
  if (l.next) links.next = { href: l.next };
  const body: Record<string, unknown> = { _links: links, ...(view.total === null ? {} : { totalItems: view.total }), itemsPerPage: view.itemsPerPage };
  if (view.items.length) {
    links.item = view.items.map((rec) => ({ href: iriOf(view.resource, rec.id) }));
    body._embedded = { item: view.items.map((rec) => halItem(model, view.resource, rec)) };
  }
  return { body };
}

export const hal: Format = {
  name: 'jsonhal',
  mediaType: 'application/hal+json',
  accepts: ['application/hal+json'],
  item: (model, r, rec) => ({ body: halItem(model, r, rec) }),
  collection,
  entrypoint: (model) => ({
    body: { _links: { self: { href: '/api' }, ...Object.fromEntries(entrypointLinks(model).map((l) => [l.name, { href: l.href }])) } },
  }),
  // A declared operation's document: its members beside `_links.self`; a list's object items in
  // `_embedded.item` (other items in `item`), with `totalItems` when known.
  document: {
    needsType: false,
    render: (_model, view) => {
      const _links = { self: { href: view.path } };
      if (!view.many) return { body: { _links, ...(view.body as Record<string, unknown>) } };
      const items = view.body as unknown[];
      const total = view.total === null || view.total === undefined ? {} : { totalItems: view.total };
      if (view.objects === false) return { body: { _links, ...total, item: items } };
      return { body: { _links, ...total, ...(items.length ? { _embedded: { item: items } } : {}) } };
    },
    schema: (view) => {
      const _links = Type.Object({ self: linkSchema() });
      if (!view.many) return Type.Object({ _links, ...((view.schema as { properties?: Record<string, TSchema> }).properties ?? {}) });
      const total = { totalItems: Type.Optional(Type.Integer({ minimum: 0 })) };
      if (view.objects === false) return Type.Object({ _links, ...total, item: Type.Array(view.schema) });
      return Type.Object({ _links, ...total, _embedded: Type.Optional(Type.Object({ item: Type.Array(view.schema) })) });
    },
  },
  docs: {
    components: (model, r) => ({ [`${r.name}.jsonhal`]: itemSchema(model, r) }),
    item: (r) => ref(`${r.name}.jsonhal`),
    collection: (r) =>
      Type.Object({
        _links: Type.Object({
          self: linkSchema(),
          first: linkSchema(),
          last: linkSchema(),
          prev: Type.Optional(linkSchema()),
          next: Type.Optional(linkSchema()),
          item: Type.Optional(Type.Array(linkSchema())),
        }),
        totalItems: Type.Optional(Type.Integer({ minimum: 0, description: TOTAL_NOTE })),
        itemsPerPage: Type.Integer({ minimum: 1 }),
        _embedded: Type.Optional(Type.Object({ item: Type.Array(ref(`${r.name}.jsonhal`)) })),
      }),
  },
};

const linkSchema = (description?: string): TSchema => Type.Object({ href: Type.String({ format: 'iri-reference' }) }, description ? { description } : {});

function itemSchema(model: Model, r: ModelResource): TSchema {
  const links: Record<string, TSchema> = { self: linkSchema() };
  const embedded: Record<string, TSchema> = {};
  for (const f of r.fields) {
    if (f.kind === 'ref' && f.stored) links[f.name] = Type.Optional(linkSchema(`The ${f.target}; absent when there is none.`));
    if (f.kind === 'children' && r.embedded.includes(f)) {
      links[f.name] = Type.Array(linkSchema());
      embedded[f.name] = Type.Array(ref(`${f.target!}.jsonhal`));
    }
  }
  const props = readProperties(model, r, () => Type.Never(), (f) => f.kind === 'ref' || f.kind === 'children');
  return Type.Object(
    { _links: Type.Object(links), ...props, ...(Object.keys(embedded).length ? { _embedded: Type.Object(embedded) } : {}) },
    { description: r.description },
  );
}
