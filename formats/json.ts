// Plain JSON: records as objects with IRIs for relations; collections as bare arrays with the
// pagination in Link and X-Total-Count headers.
import { Type } from '@sinclair/typebox';
import { ref } from '../engine/json-schemas.ts';
import { linkHeaders } from './links.ts';
import { entrypointLinks, present } from './present.ts';
import type { Format } from './types.ts';

export const json: Format = {
  name: 'json',
  mediaType: 'application/json',
  accepts: ['application/json'],
  item: (model, r, rec) => ({ body: present(model, r, rec) }),
  projection: { name: 'json', leadingMembers: () => [] },
  collection: (model, view) => ({
    body: view.items.map((rec) => present(model, view.resource, rec)),
    ...(view.membersText !== undefined ? { text: view.membersText } : {}),
    headers: linkHeaders(view),
  }),
  entrypoint: (model) => ({ body: Object.fromEntries(entrypointLinks(model).map((l) => [l.name, l.href])) }),
  document: {
    needsType: false,
    render: (_model, view) => ({ body: view.body }),
    schema: (view) => (view.many ? Type.Array(view.schema) : view.schema),
  },
  docs: {
    item: (r) => ref(r.name),
    collection: (r) => Type.Array(ref(r.name), { description: 'Pagination is in the Link and X-Total-Count headers.' }),
  },
};
