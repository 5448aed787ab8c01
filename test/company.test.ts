// The company profile (CONTRACT §13): GET for any role, PATCH for admins, validated, in every
// REST format and in GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { ibanProblem } from '../server/company.ts';

let t: TestServer;
let admin: Client;
let member: Client;
let viewer: Client;
let other: Client;

const PROFILE = {
  legalName: 'Acme Trading GmbH',
  email: 'billing@acme.test',
  phone: '+49 30 1234567',
  website: 'https://acme.test',
  vatNumber: 'de 123 456 789',
  registrationNumber: 'HRB 12345',
  street1: 'Hauptstraße 1',
  city: 'Berlin',
  zip: '10115',
  country: 'de',
  iban: 'DE89 3704 0044 0532 0130 00',
  bic: 'COBADEFFXXX',
  invoiceFooter: 'Thank you for your business.',
};

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'admin@acme.test', company: 'Acme', currency: 'EUR' }));
  member = client(t, await tokenFor(t, { email: 'member@acme.test', company: 'Acme', role: 'member' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@acme.test', company: 'Acme', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'o@other.test', company: 'Other' }));
});
afterAll(() => t.close());

describe('company profile over REST', () => {
  it('starts with the name and currency and every other field empty', async () => {
    const res = await admin.get('/api/company', { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Acme', currency: 'EUR', legalName: null, vatNumber: null, iban: null, country: null });
  });

  it('admins change it; IBAN, BIC, VAT and country are normalised', async () => {
    const res = await admin.patch('/api/company', PROFILE);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      '@context': '/api/contexts/Company',
      '@id': '/api/company',
      '@type': 'Company',
      name: 'Acme',
      legalName: 'Acme Trading GmbH',
      vatNumber: 'DE123456789',
      country: 'DE',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      currency: 'EUR',
    });
    expect((await viewer.get('/api/company', { accept: 'application/json' })).body.iban).toBe('DE89370400440532013000');
  });

  it('members and viewers read it but get 403 on PATCH, and nothing changes', async () => {
    for (const c of [member, viewer]) {
      expect((await c.get('/api/company')).status).toBe(200);
      const res = await c.patch('/api/company', { legalName: 'Hijacked' });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
    expect((await admin.get('/api/company')).body.legalName).toBe('Acme Trading GmbH');
  });

  it('is the calling token’s company only', async () => {
    const res = await other.get('/api/company', { accept: 'application/json' });
    expect(res.body).toMatchObject({ name: 'Other', legalName: null, iban: null });
    expect((await call(t, 'GET', '/api/company')).status).toBe(401);
  });

  it('refuses invalid values with 422 violations naming each field, changing nothing', async () => {
    const res = await admin.patch('/api/company', {
      country: 'XX',
      iban: 'DE89 3704 0044 0532 0130 01',
      bic: 'NOPE',
      vatNumber: '12',
      email: 'not-an-email',
      name: '',
    });
    expect(res.status).toBe(422);
    const paths = res.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort();
    expect(paths).toEqual(['bic', 'country', 'email', 'iban', 'name', 'vatNumber']);
    expect(res.body.violations.find((v: { propertyPath: string }) => v.propertyPath === 'iban').message).toMatch(/check digits/);
    const now = (await admin.get('/api/company', { accept: 'application/json' })).body;
    expect(now).toMatchObject({ country: 'DE', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Acme' });
  });

  it('refuses unknown and read-only changes as the other resources do', async () => {
    expect((await admin.patch('/api/company', { colour: 'red' })).status).toBe(400);
    const ro = await admin.patch('/api/company', { currency: 'JPY' });
    expect(ro.status).toBe(200);
    expect(ro.body.currency).toBe('EUR');
    expect((await admin.patch('/api/company', { name: 'Other' })).status).toBe(422);
    expect((await call(t, 'PATCH', '/api/company', { token: admin.token, rawBody: '{}', contentType: 'text/plain' })).status).toBe(415);
    expect((await call(t, 'DELETE', '/api/company', { token: admin.token })).status).toBe(405);
  });

  it('clears a field with null', async () => {
    expect((await admin.patch('/api/company', { street2: 'Hof 2' })).body.street2).toBe('Hof 2');
    expect((await admin.patch('/api/company', { street2: null })).body.street2).toBeNull();
  });

  it('answers in every format', async () => {
    const hal = await admin.get('/api/company', { accept: 'application/hal+json' });
    expect(hal.body._links.self.href).toBe('/api/company');
    expect(hal.body.iban).toBe('DE89370400440532013000');
    const api = await admin.get('/api/company', { accept: 'application/vnd.api+json' });
    expect(api.body.data).toMatchObject({ id: '/api/company', type: 'Company', attributes: { bic: 'COBADEFFXXX' } });
    const xml = await admin.get('/api/company', { accept: 'application/xml' });
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    const parsed = new XMLParser().parse(xml.text);
    expect(JSON.stringify(parsed)).toContain('COBADEFFXXX');
    expect((await admin.get('/api/company', { accept: 'text/csv' })).status).toBe(406);
    const viaJsonApi = await call(t, 'PATCH', '/api/company', {
      token: admin.token,
      contentType: 'application/vnd.api+json',
      accept: 'application/vnd.api+json',
      body: { data: { type: 'Company', attributes: { phone: '+49 30 7654321' } } },
    });
    expect(viaJsonApi.status).toBe(200);
    expect(viaJsonApi.body.data.attributes.phone).toBe('+49 30 7654321');
    const ctx = await call(t, 'GET', '/api/contexts/Company');
    expect(ctx.status).toBe(200);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await call(t, 'GET', '/api/docs.json')).body;
    expect(doc.paths['/api/company'].get.operationId).toBe('api_company_get');
    expect(doc.paths['/api/company'].patch.responses['403']).toBeDefined();
    expect(Object.keys(doc.paths['/api/company'].get.responses['200'].content)).toContain('application/hal+json');
  });
});

describe('company profile over GraphQL', () => {
  const gql = (c: Client, query: string, variables?: unknown) => call(t, 'POST', '/api/graphql', { token: c.token, body: { query, variables }, contentType: 'application/json' });

  it('reads it with `company`', async () => {
    const res = await gql(viewer, '{ company { id _id name legalName vatNumber iban bic country currency } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.company).toMatchObject({ id: '/api/company', name: 'Acme', vatNumber: 'DE123456789', country: 'DE', currency: 'EUR' });
  });

  it('changes it with `updateCompany` (admins), with violations in the GraphQL shape', async () => {
    const ok = await gql(admin, 'mutation($i: updateCompanyInput!) { updateCompany(input: $i) { company { city } clientMutationId } }', { i: { city: 'München', clientMutationId: 'm1' } });
    expect(ok.body.data.updateCompany).toEqual({ company: { city: 'München' }, clientMutationId: 'm1' });
    const bad = await gql(admin, 'mutation { updateCompany(input: {iban: "GB00 0000"}) { company { iban } } }');
    expect(bad.body.data.updateCompany).toBeNull();
    expect(bad.body.errors[0].message).toMatch(/^iban: /);
    expect(bad.body.errors[0].extensions.status).toBe(422);
    const refused = await gql(viewer, 'mutation { updateCompany(input: {city: "Paris"}) { company { city } } }');
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions.status).toBe(403);
    expect((await gql(admin, '{ company { city } }')).body.data.company.city).toBe('München');
  });

  it('reads the e-mail templates a company set in part: the members it left out are null, not an error', async () => {
    // Found by the fuzzer: optional members of a json field were non-null in the schema, so reading
    // an absent one failed the whole field with a server error.
    expect((await admin.patch('/api/company', { emailTemplates: { invoice: { subject: 'Invoice {{number}}' } } })).status).toBe(200);
    const res = await gql(viewer, '{ company { emailTemplates { invoice { subject body } quote { subject } } } }');
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.company.emailTemplates).toEqual({ invoice: { subject: 'Invoice {{number}}', body: null }, quote: null });
    expect((await admin.patch('/api/company', { emailTemplates: null })).status).toBe(200);
  });
});

describe('IBAN check digits', () => {
  it('accepts real IBANs and refuses a changed digit', () => {
    for (const iban of ['GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NL91ABNA0417164300', 'DE89370400440532013000']) expect(ibanProblem(iban)).toBeNull();
    for (const iban of ['GB82WEST12345698765433', 'FR1420041010050500013M02607', 'NL91ABNA0417164301']) expect(ibanProblem(iban)).toMatch(/check digits/);
  });
});
