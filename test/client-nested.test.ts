// A client's contacts and addresses written with it (descriptor `nested`, CONTRACT §20): one
// transaction, all or nothing, violations at the item's field; and its open balance per currency
// (`GET /api/clients/{id}/balances`), summed in SQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let viewer: Client;

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'owner@nested.test', company: 'Nested', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@nested.test', company: 'Nested', role: 'viewer' }));
});
afterAll(() => t.close());

const count = async (path: string, clientIri: string) => (await api.get(`${path}?client=${encodeURIComponent(clientIri)}`)).body.totalItems as number;
const clientCount = async () => (await api.get('/api/clients')).body.totalItems as number;

describe('contacts and addresses written with their client', () => {
  it('creates the client with its contacts and addresses in one request', async () => {
    const res = await api.post('/api/clients', {
      name: 'Initech',
      contacts: [{ firstName: 'Peter', lastName: 'Gibbons', email: 'peter@initech.test' }, { firstName: 'Milton', email: 'milton@initech.test', phone: '+1 555' }],
      addresses: [{ street1: '1 Initech Way', city: 'Austin', country: 'US' }],
    });
    expect(res.status, res.text).toBe(201);
    const iri = res.body['@id'];
    const contacts = (await api.get(`/api/contacts?client=${encodeURIComponent(iri)}&order[email]=asc`)).body.member;
    expect(contacts.map((c: { email: string }) => c.email).sort()).toEqual(['milton@initech.test', 'peter@initech.test']);
    expect(contacts.every((c: { client: string }) => c.client === iri)).toBe(true);
    const addresses = (await api.get(`/api/addresses?client=${encodeURIComponent(iri)}`)).body.member;
    expect(addresses).toMatchObject([{ street1: '1 Initech Way', city: 'Austin', country: 'US', countryName: 'United States' }]);
  });

  it('refuses the whole create when one contact is invalid, naming its field, and writes nothing', async () => {
    const before = await clientCount();
    const res = await api.post('/api/clients', {
      name: 'Broken Co',
      contacts: [{ firstName: 'Ok', email: 'ok@broken.test' }, { firstName: 'Bad', email: 'not an e-mail' }],
      addresses: [{ country: 'XX' }],
    });
    expect(res.status, res.text).toBe(422);
    const paths = res.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort();
    expect(paths).toEqual(['addresses[0].country', 'contacts[1].email']);
    expect(await clientCount()).toBe(before);
    expect((await api.get('/api/contacts?email=ok@broken.test')).body.totalItems).toBe(0);
    // An item names no client: the one it is written with is its client.
    const other = (await api.post('/api/clients', { name: 'Someone else' })).body['@id'];
    const named = await api.post('/api/clients', { name: 'Naming Co', contacts: [{ client: other, firstName: 'Nat', email: 'nat@naming.test' }] });
    expect(named.status, named.text).toBe(422);
    expect(named.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['contacts[0].client']);
    expect(await count('/api/contacts', other)).toBe(0);
  });

  it('updates, adds and removes children with the client; a failure changes nothing', async () => {
    const made = await api.post('/api/clients', { name: 'Umbrella', contacts: [{ firstName: 'Alice', email: 'alice@umbrella.test' }, { firstName: 'Bob', email: 'bob@umbrella.test' }] });
    const iri = made.body['@id'];
    const contacts = (await api.get(`/api/contacts?client=${encodeURIComponent(iri)}`)).body.member as { '@id': string; id: string; firstName: string }[];
    const alice = contacts.find((c) => c.firstName === 'Alice')!;
    // Alice changed (kept by her id), Bob left out (deleted), Carol new.
    const res = await api.patch(iri, { notes: 'Renamed', contacts: [{ id: alice['@id'], firstName: 'Alicia', email: 'alice@umbrella.test' }, { firstName: 'Carol', email: 'carol@umbrella.test' }] });
    expect(res.status, res.text).toBe(200);
    const after = (await api.get(`/api/contacts?client=${encodeURIComponent(iri)}`)).body.member as { id: string; firstName: string }[];
    expect(after.map((c) => c.firstName).sort()).toEqual(['Alicia', 'Carol']);
    expect(after.find((c) => c.firstName === 'Alicia')!.id).toBe(alice.id);

    // An invalid item: the client's own change and the other items' are undone too.
    const bad = await api.patch(iri, { notes: 'Not saved', contacts: [{ firstName: 'Zed', email: 'zed@umbrella.test' }, { firstName: '', email: 'x@umbrella.test' }] });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['contacts[1].firstName']);
    expect((await api.get(iri)).body.notes).toBe('Renamed');
    expect((await api.get(`/api/contacts?client=${encodeURIComponent(iri)}`)).body.member.map((c: { firstName: string }) => c.firstName).sort()).toEqual(['Alicia', 'Carol']);

    // Another client's contact cannot be taken over by its id.
    const other = await api.post('/api/clients', { name: 'Other', contacts: [{ firstName: 'Olga', email: 'olga@other.test' }] });
    const olga = (await api.get(`/api/contacts?client=${encodeURIComponent(other.body['@id'])}`)).body.member[0];
    const stolen = await api.patch(iri, { contacts: [{ id: olga.id, firstName: 'Olga', email: 'olga@other.test' }] });
    expect(stolen.status).toBe(422);
    expect(stolen.body.violations[0].propertyPath).toBe('contacts[0].id');
    expect(await count('/api/contacts', other.body['@id'])).toBe(1);

    // A body without them, a PUT included, leaves them as they are.
    expect((await api.patch(iri, { notes: 'Again' })).status).toBe(200);
    expect((await api.put(iri, { name: 'Umbrella' })).status).toBe(200);
    expect(await count('/api/contacts', iri)).toBe(2);
  });

  it('documents the nested bodies in OpenAPI', async () => {
    const doc = (await api.get('/api/docs.json')).body;
    const schemas = doc.components.schemas;
    expect(schemas['Client-write'].properties.contacts.items.$ref).toMatch(/Contact-nested-write$/);
    expect(schemas['Contact-nested-write'].properties).not.toHaveProperty('client');
    expect(schemas['Contact-nested-write'].properties).toHaveProperty('id');
    expect(doc.paths['/api/clients/{id}/balances'].get).toBeTruthy();
  });
});

describe('open balance per currency', () => {
  it('sums the balances of pending and overdue invoices per currency', async () => {
    const c = (await api.post('/api/clients', { name: 'Owing', currency: 'EUR' })).body['@id'];
    const empty = await api.get(`${c}/balances`, { accept: 'application/json' });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual([]);
    const invoice = async (price: number, issue: boolean) => {
      const inv = await api.post('/api/invoices', { client: c, dueDate: '2099-01-01', lines: [{ description: 'Work', price }] });
      expect(inv.status, inv.text).toBe(201);
      if (issue) expect((await api.patch(inv.body['@id'], { status: 'pending' })).status).toBe(200);
      return inv.body['@id'];
    };
    const a = await invoice(10000, true);
    await invoice(2550, true);
    await invoice(999, false); // a draft is not owed
    expect((await api.post('/api/payments', { invoice: a, amount: 4000 })).status).toBe(201);
    const res = await viewer.get(`${c}/balances`, { accept: 'application/json' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([{ currency: 'EUR', balance: 8550, invoices: 2 }]);
  });
});
