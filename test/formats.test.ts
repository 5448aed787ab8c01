// Every REST resource in every format, each read back by a parser of that format: JSON-LD and
// plain JSON (JSON.parse), HAL (halson), JSON:API (jsona), XML (fast-xml-parser). One record
// yields the same values in all five; pagination, negotiation and errors in each format.
import { XMLParser } from 'fast-xml-parser';
import halson from 'halson';
import Jsona from 'jsona';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let token: string;
const tokenOf = () => token;
const iris: Record<string, string> = {};

const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, isArray: (name) => name === 'item' });
const jsona = new Jsona();

const ROOTS = [
  { type: 'Client', path: '/api/clients' },
  { type: 'Contact', path: '/api/contacts' },
  { type: 'Address', path: '/api/addresses' },
  { type: 'Tax', path: '/api/taxes' },
  { type: 'Invoice', path: '/api/invoices' },
  { type: 'Quote', path: '/api/quotes' },
  { type: 'RecurringInvoice', path: '/api/recurring-invoices' },
  { type: 'Payment', path: '/api/payments' },
];

beforeAll(async () => {
  t = await startTestServer();
  token = await tokenFor(t, { email: 'formats@a.test', company: 'Formats' });
  api = client(t, token);
  const made = async (path: string, body: unknown) => {
    const res = await api.post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body['@id'] as string;
  };
  iris.Client = await made('/api/clients', { name: 'Acme & <Sons> "Ltd"', currency: 'EUR', website: 'https://acme.test', vatNumber: '10115' });
  iris.Contact = await made('/api/contacts', { client: iris.Client, firstName: 'Ada', email: 'ada@acme.test' });
  iris.Address = await made('/api/addresses', { client: iris.Client, street1: '1 Main St', city: 'Berlin', country: 'DE' });
  iris.Tax = await made('/api/taxes', { name: 'VAT', rate: 19.5, type: 'exclusive' });
  iris.Invoice = await made('/api/invoices', {
    client: iris.Client,
    dueDate: '2099-01-31',
    lines: [
      { description: 'Design', qty: 2.5, price: 1999, tax: iris.Tax, position: 0 },
      { description: 'Hosting', qty: 1, price: 500, position: 1 },
    ],
  });
  iris.Quote = await made('/api/quotes', { client: iris.Client, lines: [{ description: 'Offer', qty: 1.25, price: 800 }] });
  iris.RecurringInvoice = await made('/api/recurring-invoices', { client: iris.Client, frequency: 'monthly', startDate: '2026-01-31', lines: [{ description: 'Support', price: 2000, tax: iris.Tax }] });
  const payable = await made('/api/invoices', { client: iris.Client, lines: [{ description: 'Job', price: 10000 }] });
  expect((await api.patch(payable, { status: 'pending' })).status).toBe(200);
  iris.Payment = await made('/api/payments', { invoice: payable, amount: 2500, method: 'card', reference: 'R-1' });
});
afterAll(() => t.close());

// ---- normalisers: each format back to the plain-JSON shape ----------------------------------

type Obj = Record<string, unknown>;

function fromJsonld(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fromJsonld);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('@')).map(([k, x]) => [k, fromJsonld(x)]));
  return v;
}

/** HAL through halson: relation links become IRIs, embedded resources plain objects. */
function fromHal(doc: Obj): Obj {
  const res = halson(doc);
  const out: Obj = {};
  for (const [k, v] of Object.entries(doc)) if (k !== '_links' && k !== '_embedded') out[k] = v;
  for (const rel of Object.keys((doc._links ?? {}) as Obj)) {
    if (rel === 'self') continue;
    const links = res.getLinks(rel);
    if (Array.isArray((doc._links as Obj)[rel])) out[rel] = res.getEmbeds(rel).map((e) => fromHal(e as unknown as Obj));
    else out[rel] = links[0]!.href;
  }
  return out;
}

/** A jsona model: `_id` is the id, relations (named in relationshipNames) become IRIs or nested objects. */
function fromJsona(m: Obj): Obj {
  const out: Obj = {};
  const rels = new Set((m.relationshipNames as string[] | undefined) ?? []);
  for (const [k, v] of Object.entries(m)) {
    if (k === 'type' || k === 'id' || k === 'relationshipNames' || k === 'links' || k === 'meta') continue;
    if (k === '_id') out.id = v;
    else if (k === '_type') out.type = v; // `type` is reserved in JSON:API, like `id`
    else if (rels.has(k)) out[k] = Array.isArray(v) ? v.map((x) => fromJsona(x as Obj)) : v === null || v === undefined ? null : (v as Obj).id;
    else out[k] = v;
  }
  return out;
}

/** The plain-JSON value as XML text carries it: null is empty, numbers are text, lists are items. */
function asXmlText(v: unknown): unknown {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.length ? { item: v.map((x, i) => ({ '@_key': String(i), ...(asXmlText(x) as Obj) })) } : '';
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asXmlText(x)]));
  return String(v);
}

function xmlBody(text: string): Obj {
  expect(text.startsWith('<?xml version="1.0"')).toBe(true);
  return xmlParser.parse(text).response as Obj;
}

/** HAL has no null links: an absent relation link is a null relation (embedded items too). */
function withNullsFrom(reference: Obj, o: Obj): Obj {
  const out = { ...o };
  for (const [k, v] of Object.entries(reference)) {
    if (!(k in out) && v === null) out[k] = null;
    else if (Array.isArray(v) && Array.isArray(out[k])) out[k] = (out[k] as Obj[]).map((x, i) => (v[i] && typeof v[i] === 'object' ? withNullsFrom(v[i] as Obj, x) : x));
  }
  return out;
}

describe('every resource in every format', () => {
  it.each(ROOTS)('$type: item and collection in JSON-LD, JSON, HAL, JSON:API and XML', async ({ type, path }) => {
    const iri = iris[type]!;
    const id = iri.split('/').pop()!;
    const plain = await api.get(iri, { accept: 'application/json' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const expected = plain.body as Obj;
    expect(expected.id).toBe(id);

    // JSON-LD
    const ld = await api.get(iri, { accept: 'application/ld+json' });
    expect(ld.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(ld.body['@id']).toBe(iri);
    expect(ld.body['@type']).toBe(type);
    expect(fromJsonld(ld.body)).toEqual(expected);
    const ldList = await api.get(path, { accept: 'application/ld+json' });
    expect(ldList.body.member.map((m: Obj) => m['@id'])).toContain(iri);
    expect(ldList.body.totalItems).toBe(ldList.body.member.length);

    // plain JSON collection: a bare array, pagination in headers
    const list = await api.get(path, { accept: 'application/json' });
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.find((m: Obj) => m.id === id)).toEqual(expected);
    expect(list.headers.get('x-total-count')).toBe(String(list.body.length));
    expect(list.headers.get('link')).toContain('rel="first"');

    // HAL
    const h = await api.get(iri, { accept: 'application/hal+json' });
    expect(h.headers.get('content-type')).toBe('application/hal+json; charset=utf-8');
    expect(halson(h.body).getLink('self', null)?.href).toBe(iri);
    expect(withNullsFrom(expected, fromHal(h.body))).toEqual(expected);
    const hList = await api.get(path, { accept: 'application/hal+json' });
    const hRes = halson(hList.body as Obj);
    expect(hRes.getLinks('item').map((l: { href: string }) => l.href)).toContain(iri);
    const embedded = hRes.getEmbeds<halson.HALSONResource>('item');
    expect(embedded).toHaveLength(hList.body.totalItems);
    expect(withNullsFrom(expected, fromHal(embedded.find((e: halson.HALSONResource) => e.getLink('self', null)?.href === iri) as unknown as Obj))).toEqual(expected);

    // JSON:API
    const a = await api.get(iri, { accept: 'application/vnd.api+json' });
    expect(a.headers.get('content-type')).toBe('application/vnd.api+json; charset=utf-8');
    expect(a.body.data).toMatchObject({ id: iri, type });
    const model = jsona.deserialize(a.body) as Obj;
    expect(model.type).toBe(type);
    expect(fromJsona(model)).toEqual(expected);
    const aList = await api.get(path, { accept: 'application/vnd.api+json' });
    expect(aList.body.meta).toMatchObject({ totalItems: aList.body.data.length, currentPage: 1, itemsPerPage: 30 });
    const models = jsona.deserialize(aList.body) as Obj[];
    expect(fromJsona(models.find((m) => m.id === iri)!)).toEqual(expected);

    // XML
    const x = await api.get(iri, { accept: 'application/xml' });
    expect(x.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xmlBody(x.text)).toEqual(asXmlText(expected));
    const xList = await api.get(path, { accept: 'text/xml' });
    expect(xList.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const entries = (xmlBody(xList.text).item as Obj[]) ?? [];
    expect(entries.map((e) => e['@_key'])).toEqual(entries.map((_, i) => String(i)));
    expect(entries.find((e) => e.id === id)).toEqual({ '@_key': String(entries.findIndex((e) => e.id === id)), ...(asXmlText(expected) as Obj) });
    expect(xList.headers.get('x-total-count')).toBe(String(entries.length));
  });
});

describe('one record in all five formats', () => {
  it('an invoice with lines, a decimal quantity, a tax relation and nulls has the same values everywhere', async () => {
    const iri = iris.Invoice!;
    const expected = (await api.get(iri, { accept: 'application/json' })).body as Obj;
    expect(expected).toMatchObject({ client: iris.Client, currency: 'EUR', paidAt: null, quote: null });
    expect(typeof expected.total).toBe('number');
    const lines = expected.lines as Obj[];
    expect(lines.map((l) => [l.description, l.qty, l.price, l.tax])).toEqual([
      ['Design', 2.5, 1999, iris.Tax],
      ['Hosting', 1, 500, null],
    ]);

    const ld = (await api.get(iri)).body as Obj;
    const hal = (await api.get(iri, { accept: 'application/hal+json' })).body as Obj;
    const ja = (await api.get(iri, { accept: 'application/vnd.api+json' })).body as Obj;
    const xml = (await api.get(iri, { accept: 'application/xml' })).text;

    expect(fromJsonld(ld)).toEqual(expected);
    expect(withNullsFrom(expected, fromHal(hal))).toEqual(expected);
    expect(fromJsona(jsona.deserialize(ja) as Obj)).toEqual(expected);
    expect(xmlBody(xml)).toEqual(asXmlText(expected));

    // Each format's own idiom for the relations and the embedded lines.
    expect((hal._links as Obj).client).toEqual({ href: iris.Client });
    expect((hal._links as Obj).quote).toBeUndefined();
    expect(((hal._embedded as Obj).lines as Obj[]).map((l) => (l._links as Obj).self)).toEqual(lines.map((l) => ({ href: `/api/invoice-lines/${String(l.id)}` })));
    const data = ja.data as Obj;
    expect((data.relationships as Obj).client).toEqual({ data: { type: 'Client', id: iris.Client } });
    expect((data.relationships as Obj).quote).toEqual({ data: null });
    expect(((data.relationships as Obj).lines as Obj).data).toEqual(lines.map((l) => ({ type: 'InvoiceLine', id: `/api/invoice-lines/${String(l.id)}` })));
    expect((ja.included as Obj[]).map((i) => i.type)).toEqual(['InvoiceLine', 'InvoiceLine']);
    expect(xml).toContain('<lines><item key="0">');
    expect(xml).toContain('<paidAt/>');
  });

  it('escapes markup in XML and reads it back', async () => {
    const x = await api.get(iris.Client!, { accept: 'application/xml' });
    expect(x.text).toContain('<name>Acme &amp; &lt;Sons&gt; &quot;Ltd&quot;</name>');
    expect(xmlBody(x.text).name).toBe('Acme & <Sons> "Ltd"');
  });
});

describe('pagination in each format', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 4; i++) expect((await api.post('/api/taxes', { name: `Page tax ${i}`, rate: i })).status).toBe(201);
  });

  it('JSON-LD view, HAL _links, JSON:API links and meta, JSON and XML Link headers', async () => {
    const q = '/api/taxes?itemsPerPage=2&page=2&order[name]=asc';
    const ld = (await api.get(q)).body;
    expect(ld.totalItems).toBe(5);
    expect(ld.view).toMatchObject({ '@id': '/api/taxes?itemsPerPage=2&order[name]=asc&page=2', first: '/api/taxes?itemsPerPage=2&order[name]=asc&page=1', last: '/api/taxes?itemsPerPage=2&order[name]=asc&page=3', previous: '/api/taxes?itemsPerPage=2&order[name]=asc&page=1', next: '/api/taxes?itemsPerPage=2&order[name]=asc&page=3' });

    const hal = halson((await api.get(q, { accept: 'application/hal+json' })).body as Obj);
    expect(hal.getLink('next', null)?.href).toBe('/api/taxes?itemsPerPage=2&order[name]=asc&page=3');
    expect(hal.getLink('prev', null)?.href).toBe('/api/taxes?itemsPerPage=2&order[name]=asc&page=1');
    expect(hal.getLink('last', null)?.href).toBe('/api/taxes?itemsPerPage=2&order[name]=asc&page=3');
    expect(hal).toMatchObject({ totalItems: 5, itemsPerPage: 2 });
    expect(hal.getEmbeds<Obj>('item').map((e: Obj) => e.name)).toEqual(['Page tax 3', 'Page tax 4']);

    const ja = (await api.get(q, { accept: 'application/vnd.api+json' })).body;
    expect(ja.meta).toEqual({ totalItems: 5, itemsPerPage: 2, currentPage: 2 });
    expect(ja.links).toMatchObject({ first: '/api/taxes?itemsPerPage=2&order[name]=asc&page=1', prev: '/api/taxes?itemsPerPage=2&order[name]=asc&page=1', next: '/api/taxes?itemsPerPage=2&order[name]=asc&page=3' });

    for (const accept of ['application/json', 'application/xml']) {
      const res = await api.get(q, { accept });
      expect(res.headers.get('x-total-count'), accept).toBe('5');
      // After the Hydra documentation's link, which every /api response carries (CONTRACT §22).
      expect(res.headers.get('link'), accept).toBe(
        `<${t.url}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation", ` +
        '</api/taxes?itemsPerPage=2&order[name]=asc&page=1>; rel="first", </api/taxes?itemsPerPage=2&order[name]=asc&page=1>; rel="prev", </api/taxes?itemsPerPage=2&order[name]=asc&page=3>; rel="next", </api/taxes?itemsPerPage=2&order[name]=asc&page=3>; rel="last"',
      );
    }
    const xml = xmlBody((await api.get(q, { accept: 'application/xml' })).text);
    expect((xml.item as Obj[]).map((i) => i.name)).toEqual(['Page tax 3', 'Page tax 4']);
  });

  it('JSON:API query parameters: page[page], page[itemsPerPage], filter[...], sort', async () => {
    const get = (q: string) => api.get(`/api/taxes?${q}`, { accept: 'application/vnd.api+json' });
    const page = await get('page[page]=2&page[itemsPerPage]=2&sort=-name');
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ totalItems: 5, itemsPerPage: 2, currentPage: 2 });
    expect(page.body.data.map((d: Obj) => (d.attributes as Obj).name)).toEqual(['Page tax 3', 'Page tax 2']);
    expect(page.body.links.next).toBe('/api/taxes?itemsPerPage=2&order[name]=desc&page=3');

    const filtered = await get('filter[name]=page tax&sort=rate');
    expect(filtered.body.data.map((d: Obj) => (d.attributes as Obj).rate)).toEqual([1, 2, 3, 4]);
    const two = await get('filter[name][]=VAT&filter[type]=exclusive');
    expect(two.body.meta.totalItems).toBe(1);
    const clients = await api.get(`/api/invoices?filter[client]=${encodeURIComponent(iris.Client!)}&filter[invoiceDate][after]=2000-01-01`, { accept: 'application/vnd.api+json' });
    expect(clients.body.meta.totalItems).toBe(2);

    expect((await get('page[page]=0')).status).toBe(400);
    expect((await get('page[itemsPerPage]=x')).headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('JSON:API request documents', () => {
  const JA = 'application/vnd.api+json';

  it('creates, updates and replaces from documents with attributes, relationships and included lines', async () => {
    const created = await api.post('/api/contacts', { data: { type: 'Contact', attributes: { firstName: 'Grace', email: 'grace@acme.test' }, relationships: { client: { data: { type: 'Client', id: iris.Client } } } } }, { contentType: JA, accept: JA });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.attributes).toMatchObject({ firstName: 'Grace', email: 'grace@acme.test', lastName: null });
    expect(created.body.data.relationships.client.data.id).toBe(iris.Client);
    expect(created.headers.get('location')).toBe(created.body.data.id);

    const inv = await api.post(
      '/api/invoices',
      {
        data: {
          type: 'Invoice',
          attributes: { notes: 'From JSON:API' },
          relationships: { client: { data: { type: 'Client', id: iris.Client } }, lines: { data: [{ type: 'InvoiceLine', lid: 'a' }, { type: 'InvoiceLine', lid: 'b' }] } },
        },
        included: [
          { type: 'InvoiceLine', lid: 'a', attributes: { description: 'One', price: 100, position: 0 }, relationships: { tax: { data: { type: 'Tax', id: iris.Tax } } } },
          { type: 'InvoiceLine', lid: 'b', attributes: { description: 'Two', price: 200, qty: 2, position: 1 } },
        ],
      },
      { contentType: JA },
    );
    expect(inv.status, inv.text).toBe(201);
    expect(inv.headers.get('content-type')).toMatch(/^application\/ld\+json/); // the response follows Accept
    expect(inv.body.lines.map((l: Obj) => [l.description, l.price, l.qty, l.tax])).toEqual([['One', 100, 1, iris.Tax], ['Two', 200, 2, null]]);

    const patched = await api.patch(inv.body['@id'], { data: { type: 'Invoice', id: inv.body['@id'], attributes: { lines: [{ description: 'Only', price: 50 }], terms: 'Net 30' } } }, { contentType: JA, accept: JA });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ notes: 'From JSON:API', terms: 'Net 30' });
    expect(patched.body.included.map((l: Obj) => (l.attributes as Obj).description)).toEqual(['Only']);

    const replaced = await api.put(created.body.data.id, { data: { type: 'Contact', attributes: { firstName: 'G.', email: 'g@acme.test' }, relationships: { client: { data: { type: 'Client', id: iris.Client } } } } }, { contentType: JA, accept: 'application/json' });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ firstName: 'G.', email: 'g@acme.test', client: iris.Client });
  });

  it('a bad attribute is a 422 problem, an unknown one a 400, a wrong type a 409, and nothing changes', async () => {
    const before = (await api.get('/api/clients', { accept: 'application/json' })).headers.get('x-total-count');
    const bad = await api.post('/api/clients', { data: { type: 'Client', attributes: { name: '', website: 'not a url' } } }, { contentType: JA, accept: JA });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(bad.body.violations.map((v: Obj) => v.propertyPath).sort()).toEqual(['name', 'website']);
    expect(bad.body).toMatchObject({ status: 422, title: 'An error occurred' });

    const unknown = await api.post('/api/clients', { data: { type: 'Client', attributes: { name: 'X', colour: 'red' } } }, { contentType: JA, accept: JA });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('"colour"');
    const wrongType = await api.post('/api/clients', { data: { type: 'Tax', attributes: { name: 'X' } } }, { contentType: JA });
    expect(wrongType.status).toBe(409);
    expect(wrongType.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    for (const body of [{ attributes: { name: 'X' } }, { data: [] }, { data: { type: 'Client', attributes: 'x' } }, { data: { type: 'Client', relationships: { contacts: { data: [{ type: 'Contact', id: 'x' }] } } } }]) {
      const res = await api.post('/api/clients', body, { contentType: JA });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const badRel = await api.post('/api/contacts', { data: { type: 'Contact', attributes: { firstName: 'N', email: 'n@x.test' }, relationships: { client: { data: { type: 'Client', id: '/api/clients/nope' } } } } }, { contentType: JA });
    expect(badRel.status).toBe(422);
    expect(badRel.body.violations[0].propertyPath).toBe('client');
    expect((await api.get('/api/clients', { accept: 'application/json' })).headers.get('x-total-count')).toBe(before);
  });
});

describe('content negotiation', () => {
  it('picks by q-value and specificity; */* and no Accept give JSON-LD', async () => {
    const type = async (accept?: string) => (await call(t, 'GET', iris.Tax!, { token: tokenOf(), ...(accept === undefined ? {} : { accept }) })).headers.get('content-type');
    expect(await type()).toBe('application/ld+json; charset=utf-8');
    expect(await type('*/*')).toBe('application/ld+json; charset=utf-8');
    expect(await type('application/*')).toBe('application/ld+json; charset=utf-8');
    expect(await type('text/*')).toBe('application/xml; charset=utf-8');
    expect(await type('application/xml;q=0.5, application/hal+json;q=0.9, application/json;q=0.1')).toBe('application/hal+json; charset=utf-8');
    expect(await type('text/html, application/vnd.api+json;q=0.2')).toBe('application/vnd.api+json; charset=utf-8');
    expect(await type('application/json, */*;q=0.1')).toBe('application/json; charset=utf-8');
    expect(await type('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe('application/xml; charset=utf-8');
  });

  it('answers 406 in problem+json when nothing is acceptable, before reading the body or writing anything', async () => {
    const before = (await api.get('/api/taxes', { accept: 'application/json' })).headers.get('x-total-count');
    for (const [method, path] of [['GET', '/api/taxes'], ['GET', iris.Tax!], ['GET', '/api'], ['GET', '/api/contexts/Tax'], ['POST', '/api/taxes'], ['PATCH', iris.Tax!], ['PUT', iris.Tax!]] as const) {
      const res = await call(t, method, path, { token: tokenOf(), accept: 'text/html, application/pdf;q=0.5, application/json;q=0', ...(method === 'GET' ? {} : { body: { name: 'Never', rate: 1 } }) });
      expect(res.status, `${method} ${path}`).toBe(406);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(res.body).toMatchObject({ status: 406, type: '/errors/406' });
      expect(res.body.detail).toContain('application/ld+json');
    }
    // A broken body is not even parsed: 406 comes first.
    const broken = await call(t, 'POST', '/api/taxes', { token: tokenOf(), accept: 'image/png', rawBody: '{not json', contentType: 'application/json' });
    expect(broken.status).toBe(406);
    expect((await api.get(iris.Tax!)).body.name).toBe('VAT');
    expect((await api.get('/api/taxes', { accept: 'application/json' })).headers.get('x-total-count')).toBe(before);
  });

  it('serves the entrypoint in every format', async () => {
    expect((await api.get('/api')).body).toMatchObject({ '@type': 'Entrypoint', client: '/api/clients' });
    expect((await api.get('/api', { accept: 'application/json' })).body).toMatchObject({ client: '/api/clients', payment: '/api/payments' });
    expect(halson((await api.get('/api', { accept: 'application/hal+json' })).body).getLink('invoice', null)?.href).toBe('/api/invoices');
    expect((await api.get('/api', { accept: 'application/vnd.api+json' })).body.links).toMatchObject({ self: '/api', quote: '/api/quotes' });
    expect(xmlBody((await api.get('/api', { accept: 'application/xml' })).text)).toMatchObject({ recurringInvoice: '/api/recurring-invoices' });
  });

  it('keeps every error in problem+json whatever the Accept, and 415 for an unsupported body type', async () => {
    for (const accept of ['application/ld+json', 'application/json', 'application/hal+json', 'application/vnd.api+json', 'application/xml']) {
      const missing = await api.get('/api/taxes/0190a0a0-0000-7000-8000-000000000000', { accept });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type'), accept).toBe('application/problem+json; charset=utf-8');
      const invalid = await api.post('/api/taxes', { name: '', rate: 500 }, { accept, contentType: 'application/json' });
      expect(invalid.status).toBe(422);
      expect(invalid.headers.get('content-type'), accept).toBe('application/problem+json; charset=utf-8');
      expect(invalid.body.violations.map((v: Obj) => v.propertyPath).sort()).toEqual(['name', 'rate']);
    }
    const xmlBodySent = await call(t, 'POST', '/api/taxes', { token: tokenOf(), rawBody: '<response><name>X</name></response>', contentType: 'application/xml' });
    expect(xmlBodySent.status).toBe(415);
    expect(xmlBodySent.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const patchAsLd = await api.patch(iris.Tax!, { rate: 1 }, { contentType: 'application/ld+json' });
    expect(patchAsLd.status).toBe(415);
    expect(patchAsLd.body.detail).toContain('application/merge-patch+json');
  });
});
