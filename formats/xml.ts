// XML (application/xml, also chosen by text/xml), as API Platform writes it: the root element is
// always <response>; list entries (collection members, embedded lines) are <item key="N">;
// null becomes an empty element. Pagination travels in Link and X-Total-Count headers.
import { Type } from '@sinclair/typebox';
import { XMLBuilder } from 'fast-xml-parser';
import { ref } from '../engine/json-schemas.ts';
import { linkHeaders } from './links.ts';
import { entrypointLinks, present } from './present.ts';
import type { Format } from './types.ts';

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true, processEntities: true });

// Characters XML 1.0 cannot carry at all, even escaped.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function toXml(v: unknown): unknown {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v.replace(NOT_XML, '\uFFFD');
  if (Array.isArray(v)) return v.length ? { item: v.map((x, i) => entry(x, i)) } : '';
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toXml(x)]));
  return String(v);
}

function entry(v: unknown, key: number): Record<string, unknown> {
  const x = toXml(v);
  return x !== null && typeof x === 'object' ? { '@_key': key, ...x } : { '@_key': key, '#text': x };
}

export const xml: Format = {
  name: 'xml',
  mediaType: 'application/xml',
  accepts: ['application/xml', 'text/xml'],
  item: (model, r, rec) => ({ body: present(model, r, rec) }),
  collection: (model, view) => ({ body: view.items.map((rec) => present(model, view.resource, rec)), headers: linkHeaders(view) }),
  entrypoint: (model) => ({ body: Object.fromEntries(entrypointLinks(model).map((l) => [l.name, l.href])) }),
  // A declared operation's document as plain JSON has it: a list's items are <item key="N">.
  document: {
    needsType: false,
    render: (_model, view) => ({ body: view.body }),
    schema: (view) => (view.many ? Type.Array(view.schema, { xml: { name: 'response', wrapped: true } }) : Type.Unsafe({ ...view.schema, xml: { name: 'response' } })),
  },
  docs: {
    item: (r) => ref(r.name, { xml: { name: 'response' } }),
    collection: (r) => Type.Array(ref(r.name, { xml: { name: 'item' } }), { xml: { name: 'response', wrapped: true }, description: 'Entries are <item key="N">; pagination is in the Link and X-Total-Count headers.' }),
  },
  stringify: (body) => `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ response: toXml(body) }) as string}\n`,
};
