// Plain JSON: records as objects with IRIs for relations; collections as bare arrays with the
// pagination in Link and X-Total-Count headers.
import { linkHeaders } from './links.ts';
import { present } from './present.ts';
import type { Format } from './types.ts';

export const json: Format = {
  name: 'json',
  mediaType: 'application/json',
  accepts: ['application/json'],
  item: (model, r, rec) => ({ body: present(model, r, rec) }),
  collection: (model, view) => ({ body: view.items.map((rec) => present(model, view.resource, rec)), headers: linkHeaders(view) }),
};
