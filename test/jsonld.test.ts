// JSON-LD that a JSON-LD processor understands: responses are expanded by the `jsonld` package,
// whose document loader fetches every @context from the test server (and nothing else), and
// each term lands on its full IRI: Hydra's vocabulary and each field of each type.
import jsonld from 'jsonld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { nameFieldOf } from '../formats/present.ts';
import { model } from '../server/model.ts';

const HYDRA = 'http://www.w3.org/ns/hydra/core#';
type Node = Record<string, unknown>;

let t: TestServer;
let api: Client;
let vocab: string;
const loaded: string[] = [];
const iris: Record<string, string> = {};

/** Fetches contexts from the test server only; anything else is a test failure. */
const documentLoader = async (url: string) => {
  if (!url.startsWith(`${t.url}/api/contexts/`)) throw new Error(`unexpected context URL ${url}`);
  const res = await fetch(url, { headers: { accept: 'application/ld+json' } });
  expect(res.status, url).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
  loaded.push(url);
  return { contextUrl: undefined, documentUrl: url, document: await res.json() };
};

async function expand(path: string): Promise<{ compact: Node; expanded: Node }> {
  const res = await api.get(path);
  expect(res.status, res.text).toBe(200);
  const expanded = (await jsonld.expand(res.body, { base: t.url + path, documentLoader: documentLoader as never })) as Node[];
  expect(expanded).toHaveLength(1);
  return { compact: res.body, expanded: expanded[0]! };
}

/** Every non-keyword term of a compact node appears under `<vocab><Type>/<term>` in its expansion. */
function expectFieldIris(compact: Node, expanded: Node) {
  const type = compact['@type'] as string;
  expect(expanded['@type']).toEqual([`${vocab}${type}`]);
  expect(expanded['@id']).toBe(`${t.url}${String(compact['@id'])}`);
  for (const [k, v] of Object.entries(compact)) {
    if (k.startsWith('@')) continue;
    // The field that names a record is https://schema.org/name (CONTRACT §22: what API Platform Admin shows).
    const iri = k === nameFieldOf(model.get(type))?.name ? 'https://schema.org/name' : `${vocab}${type}/${k}`;
    expect(expanded, `${type}.${k}`).toHaveProperty([iri]);
    const values = expanded[iri] as Node[];
    if (v === null) continue; // never reached: JSON-LD drops nulls, and toHaveProperty above would fail
    if (typeof v === 'string' && v.startsWith('/api/') && k !== 'id') expect(values[0], `${type}.${k} is a link`).toEqual({ '@id': `${t.url}${v}` });
    if (Array.isArray(v) && v.length && typeof v[0] === 'object' && (v[0] as Node)['@type']) {
      expect(values).toHaveLength(v.length);
      v.forEach((child, i) => expectFieldIris(withoutNulls(child as Node), values[i] as Node));
    }
  }
}

const withoutNulls = (o: Node): Node => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

beforeAll(async () => {
  t = await startTestServer();
  vocab = `${t.url}/api/docs.jsonld#`;
  api = client(t, await tokenFor(t, { email: 'ld@a.test', company: 'LD' }));
  const made = async (path: string, body: unknown) => {
    const res = await api.post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body['@id'] as string;
  };
  iris.Client = await made('/api/clients', { name: 'Linked', website: 'https://linked.test', notes: 'n' });
  iris.Tax = await made('/api/taxes', { name: 'VAT', rate: 20 });
  iris.Contact = await made('/api/contacts', { client: iris.Client, firstName: 'Tim', lastName: 'Berners-Lee', email: 'tim@linked.test', phone: '1' });
  iris.Address = await made('/api/addresses', { client: iris.Client, street1: 'CERN', city: 'Geneva', country: 'CH', zip: '1211' });
  iris.Invoice = await made('/api/invoices', { client: iris.Client, dueDate: '2099-12-31', terms: 't', notes: 'n', lines: [{ description: 'Web', qty: 1.5, price: 1000, tax: iris.Tax }] });
  iris.Quote = await made('/api/quotes', { client: iris.Client, validUntil: '2099-12-31', terms: 't', notes: 'n', lines: [{ description: 'Offer', price: 10, tax: iris.Tax }] });
  iris.RecurringInvoice = await made('/api/recurring-invoices', { client: iris.Client, frequency: 'weekly', startDate: '2026-02-01', endDate: '2027-02-01', terms: 't', notes: 'n', lines: [{ description: 'Sub', price: 99, tax: iris.Tax }] });
  const payable = await made('/api/invoices', { client: iris.Client, lines: [{ description: 'Job', price: 10000 }] });
  expect((await api.patch(payable, { status: 'pending' })).status).toBe(200);
  iris.Payment = await made('/api/payments', { invoice: payable, amount: 100, reference: 'r', notes: 'n' });
});
afterAll(() => t.close());

describe('JSON-LD expansion', () => {
  it('expands a collection to Hydra: member, totalItems, view and search', async () => {
    for (let i = 0; i < 3; i++) expect((await api.post('/api/taxes', { name: `T${i}`, rate: i })).status).toBe(201);
    const { compact, expanded } = await expand('/api/taxes?itemsPerPage=2&page=1');
    expect(expanded['@type']).toEqual([`${HYDRA}Collection`]);
    expect(expanded[`${HYDRA}totalItems`]).toEqual([{ '@value': compact.totalItems }]);
    const members = expanded[`${HYDRA}member`] as Node[];
    expect(members).toHaveLength(2);
    (compact.member as Node[]).forEach((m, i) => expectFieldIris(withoutNulls(m), members[i]!));
    const [view] = expanded[`${HYDRA}view`] as Node[];
    expect(view!['@type']).toEqual([`${HYDRA}PartialCollectionView`]);
    expect(view![`${HYDRA}next`]).toEqual([{ '@id': `${t.url}/api/taxes?itemsPerPage=2&page=2` }]);
    expect(view![`${HYDRA}last`]).toEqual([{ '@id': `${t.url}/api/taxes?itemsPerPage=2&page=2` }]);
    const [search] = expanded[`${HYDRA}search`] as Node[];
    expect(search!['@type']).toEqual([`${HYDRA}IriTemplate`]);
    expect((search![`${HYDRA}template`] as Node[])[0]!['@value']).toMatch(/^\/api\/taxes\{\?name,/);
    const mappings = search![`${HYDRA}mapping`] as Node[];
    expect(mappings[0]).toMatchObject({ '@type': [`${HYDRA}IriTemplateMapping`], [`${HYDRA}variable`]: [{ '@value': 'name' }] });
  });

  it.each(['Client', 'Contact', 'Address', 'Tax', 'Invoice', 'Quote', 'RecurringInvoice', 'Payment'])('expands a %s with every field under its IRI', async (type) => {
    const { compact, expanded } = await expand(iris[type]!);
    expectFieldIris(withoutNulls(compact), expanded);
  });

  it('expands embedded lines with their own type and keeps a list field ordered', async () => {
    const inv = await expand(iris.Invoice!);
    const [line] = inv.expanded[`${vocab}Invoice/lines`] as Node[];
    expect(line!['@type']).toEqual([`${vocab}InvoiceLine`]);
    expect(line![`${vocab}InvoiceLine/description`]).toEqual([{ '@value': 'Web' }]);
    expect(line![`${vocab}InvoiceLine/tax`]).toEqual([{ '@id': `${t.url}${iris.Tax}` }]);
    expect(line![`${vocab}InvoiceLine/invoice`]).toEqual([{ '@id': `${t.url}${iris.Invoice}` }]);

    const rec = await expand(iris.RecurringInvoice!);
    const [lines] = rec.expanded[`${vocab}RecurringInvoice/lines`] as Node[];
    const [item] = (lines as { '@list': Node[] })['@list'];
    expect(item![`${vocab}RecurringInvoice/lines/description`]).toEqual([{ '@value': 'Sub' }]);
    expect(item![`${vocab}RecurringInvoice/lines/tax`]).toEqual([{ '@id': `${t.url}${iris.Tax}` }]);
  });

  it('expands the entrypoint to links', async () => {
    const { expanded } = await expand('/api');
    expect(expanded['@type']).toEqual([`${vocab}Entrypoint`]);
    expect(expanded[`${vocab}Entrypoint/client`]).toEqual([{ '@id': `${t.url}/api/clients` }]);
    expect(loaded.some((u) => u.endsWith('/api/contexts/Entrypoint'))).toBe(true);
  });
});
