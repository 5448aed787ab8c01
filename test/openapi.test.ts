// The OpenAPI 3.1 document at /api/docs.json: valid (swagger-parser), complete (every operation,
// filter, order, format and the X-API-TOKEN scheme, derived from the model), and true: real
// responses in each JSON format validate against the schemas it documents.
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ModelResource } from '../engine/model.ts';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYDRA_DOCS_PATH } from '../formats/hydra.ts';
import { defaultFormats } from '../formats/negotiate.ts';
import { model } from '../server/model.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { Seeder, type Records } from './support/samples.ts';

type Obj = Record<string, any>;
let t: TestServer;
let api: Client;
let doc: Obj;
let classes: Map<string, Obj>;
let records: Records;
/** What each REST create answered, by IRI. */
let created: Map<string, Obj>;
/** The model whose routes /api serves (one: the resources the server stores are in it too). */
const MODELS = [model];

const METHODS = { list: ['get', ''], create: ['post', ''], read: ['get', '/{id}'], update: ['patch', '/{id}'], replace: ['put', '/{id}'], delete: ['delete', '/{id}'] } as const;
const RESPONSE_TYPES = ['application/ld+json', 'application/json', 'application/hal+json', 'application/vnd.api+json', 'application/xml', 'text/xml'];

beforeAll(async () => {
  t = await startTestServer();
  const token = await tokenFor(t, { email: 'docs@a.test', company: 'Docs' });
  api = client(t, token);
  const res = await call(t, 'GET', '/api/docs.json');
  expect(res.status).toBe(200);
  doc = res.body;
  const hydra = await call(t, 'GET', HYDRA_DOCS_PATH);
  classes = new Map((hydra.body['hydra:supportedClass'] as Obj[]).map((c) => [c['@id'], c]));
  // One record of every resource, from the model with the sample builder (test/support/samples.ts).
  const seeder = new Seeder(t, token);
  records = await seeder.seedAll();
  created = seeder.created;
});
afterAll(() => t.close());

describe('the OpenAPI document', () => {
  it('is served without a token, negotiated, and valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    const oai = await call(t, 'GET', '/api/docs.json', { accept: 'application/vnd.oai.openapi+json' });
    expect(oai.headers.get('content-type')).toBe('application/vnd.oai.openapi+json; charset=utf-8');
    const refused = await call(t, 'GET', '/api/docs.json', { accept: 'text/csv' });
    expect(refused.status).toBe(406);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('declares the X-API-TOKEN scheme, required everywhere but on the public routes', () => {
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-TOKEN' }));
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/api'].get.security).toEqual([]);
    expect(doc.paths['/api/contexts/{name}'].get.security).toEqual([]);
    expect(doc.paths['/api/clients'].get.security).toBeUndefined();
  });

  it('has every REST operation of the model, and no other method on its paths', () => {
    // (A singleton, the company profile, is at its collection's path: test/company.test.ts.)
    for (const r of model.resources.filter((x) => !x.singleton)) {
      if (!r.rest.size) {
        expect(doc.paths[r.iri]).toBeUndefined();
        continue;
      }
      for (const [op, [method, suffix]] of Object.entries(METHODS)) {
        const o = doc.paths[`${r.iri}${suffix}`]?.[method];
        if (!r.rest.has(op as never)) {
          expect(o, `${r.name} ${op} is not offered`).toBeUndefined();
          continue;
        }
        expect(o, `${r.name} ${op}`).toBeDefined();
        expect(o.tags).toEqual([r.name]);
        expect(o.operationId).toMatch(/^api_[a-z_]+_(get_collection|post|id_get|id_patch|id_put|id_delete)$/);
        expect(o.summary).toContain(r.name);
        expect(o.description).toContain(r.description);
        if (suffix) expect(o.parameters.find((p: Obj) => p.in === 'path')).toMatchObject({ name: 'id', required: true });
        if (method === 'get') for (const type of RESPONSE_TYPES) expect(o.responses['200'].content, `${r.name} ${op} ${type}`).toHaveProperty([type]);
        if (method !== 'get') expect(o.responses[method === 'delete' ? '204' : method === 'post' ? '201' : '200']).toBeDefined();
        if (method === 'post' || method === 'put') expect(Object.keys(o.requestBody.content).sort()).toEqual(['application/json', 'application/ld+json', 'application/vnd.api+json']);
        if (method === 'patch') expect(Object.keys(o.requestBody.content).sort()).toEqual(['application/json', 'application/merge-patch+json', 'application/vnd.api+json']);
        if (method !== 'delete' && method !== 'get') expect(o.responses['422'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/ConstraintViolation');
        expect(o.responses['401'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Error');
      }
    }
    const operations = Object.values(doc.paths).flatMap((p: any) => Object.keys(p));
    // The CRUD and declared operations of every resource /api routes (server/api.ts), plus the
    // entrypoint and the contexts.
    const declared = model.resources.filter((r) => r.rest.size || r.operations.length);
    expect(operations.length).toBe(declared.reduce((n, r) => n + r.rest.size + r.operations.length, 0) + 2);
    for (const r of declared) for (const op of r.operations) expect(doc.paths[op.template]?.[op.method.toLowerCase()], op.template).toBeDefined();
    expect(doc.paths['/api/invoices/{id}/credit'].post.responses['201']).toBeDefined();
  });

  it('documents every filter, order and page parameter of each collection', () => {
    for (const r of model.resources.filter((x) => x.rest.has('list'))) {
      const names = doc.paths[r.iri].get.parameters.map((p: Obj) => p.name);
      expect(names).toEqual(expect.arrayContaining(['page', 'itemsPerPage', 'sort', ...r.orders.map((o) => `order[${o}]`)]));
      for (const f of r.filters) {
        if (f.filter === 'date') expect(names).toEqual(expect.arrayContaining([`${f.name}[before]`, `${f.name}[after]`, `${f.name}[strictly_before]`, `${f.name}[strictly_after]`]));
        else expect(names).toEqual(expect.arrayContaining([f.name, `${f.name}[]`]));
      }
    }
    const ipp = doc.paths['/api/invoices'].get.parameters.find((p: Obj) => p.name === 'itemsPerPage');
    expect(ipp.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 30 });
    const status = doc.paths['/api/invoices'].get.parameters.find((p: Obj) => p.name === 'status');
    expect(status.schema.enum).toEqual(['draft', 'pending', 'overdue', 'paid', 'cancelled']);
  });

  it('describes the write bodies from the model: required fields, read-only fields left out', () => {
    const write = doc.components.schemas['Client-write'];
    expect(write.required).toEqual(['name']);
    // Contacts are written with their client (descriptor `nested`), without the client; invoices never are.
    expect(write.properties.contacts.items.$ref).toBe('#/components/schemas/Contact-nested-write');
    expect(doc.components.schemas['Contact-nested-write'].properties).not.toHaveProperty('client');
    expect(Object.keys(write.properties)).not.toContain('invoices');
    const inv = doc.components.schemas['Invoice-write'];
    expect(inv.required).toEqual(['client']);
    expect(inv.properties).not.toHaveProperty('total');
    expect(inv.properties.lines.items.$ref).toBe('#/components/schemas/InvoiceLine-nested-write');
    expect(doc.components.schemas['InvoiceLine-nested-write'].properties).not.toHaveProperty('invoice');
    expect(Object.keys(doc.components.schemas['Payment-update'].properties).sort()).toEqual(['method', 'notes', 'reference']);
    expect(doc.components.schemas.Invoice.properties.total).toMatchObject({ type: ['integer', 'null'], readOnly: true });
  });
});

describe('real responses match the documented schemas', () => {
  let ajv: Ajv2020;
  let deref: Obj;
  beforeAll(async () => {
    deref = (await SwaggerParser.dereference(structuredClone(doc) as never)) as Obj;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('iri-reference', /^\/api(\/|$)|^https?:\/\//);
  });

  const check = (schema: Obj, body: unknown, what: string) => {
    const validate = ajv.compile(schema);
    expect(validate(body), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };

  /**
   * The JSON-LD record against the Hydra class of its type: every member a readable property, every
   * property there. `extra`: members the record may carry besides (a create's `shownOnce` ones).
   */
  const checkHydra = (r: ModelResource, body: Obj, what: string, extra: readonly string[] = []) => {
    const c = classes.get(`#${r.name}`);
    expect(c, `${r.name} has a Hydra class`).toBeDefined();
    expect(body['@type'], what).toBe(c!['hydra:title']);
    const props = (c!['hydra:supportedProperty'] as Obj[]).filter((p) => p['hydra:readable']).map((p) => p['hydra:title']);
    const members = Object.keys(body).filter((k) => !k.startsWith('@') && k !== 'id' && !extra.includes(k));
    expect(members.sort(), what).toEqual(props.sort());
    for (const p of c!['hydra:supportedProperty'] as Obj[]) {
      const v = body[p['hydra:title']];
      const range: string | undefined = p['hydra:property'].range;
      if (v === null || v === undefined || !range) continue;
      const xsd: Record<string, (x: unknown) => boolean> = {
        'xsd:string': (x) => typeof x === 'string' || (Array.isArray(x) && x.every((i) => typeof i === 'string')),
        'xsd:integer': Number.isInteger,
        'xsd:decimal': (x) => typeof x === 'number',
        'xsd:boolean': (x) => typeof x === 'boolean',
        'xsd:date': (x) => typeof x === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(x),
        'xsd:dateTime': (x) => typeof x === 'string' && !Number.isNaN(Date.parse(x)),
      };
      if (range.startsWith('#')) {
        const target = MODELS.map((m) => m.find(range.slice(1))).find(Boolean)!;
        // A relation is an IRI of the target; embedded children are objects of its class.
        if (p['hydra:property']['@type'] === 'hydra:Link') expect(v, `${what}.${p['hydra:title']}`).toMatch(new RegExp(`^${target.iri}/`));
        else for (const child of v as Obj[]) checkHydra(target, child, `${what}.${p['hydra:title']}`);
      } else expect(xsd[range]!(v), `${what}.${p['hydra:title']} is ${range}: ${JSON.stringify(v)}`).toBe(true);
    }
  };

  // Every resource of the model, those added later included: what its create answered, its seeded
  // record read in each JSON format, against the OpenAPI schemas and the Hydra class, its
  // collection likewise, a 404. (A singleton, the company profile, is read at its own path.)
  const readable = model.resources.filter((r) => r.rest.has('read'));
  it.each(readable.map((r) => r.name))('%s created, read and listed in each JSON format, against OpenAPI and Hydra', async (type) => {
    const r = model.get(type);
    const itemPath = r.singleton ? r.iri : `${r.iri}/{id}`;
    // A resource without create (the company's members) has records nonetheless: the first listed.
    const iri = r.singleton ? r.iri : records.get(type)?.[0] ?? (r.rest.has('create') ? undefined : (await api.get(r.iri)).body.member?.[0]?.['@id']);
    expect(iri, `${type} was seeded`).toBeDefined();
    if (r.rest.has('create')) {
      const answer = created.get(iri!);
      expect(answer, `${type} was created through REST`).toBeDefined();
      check(deref.paths[r.iri].post.responses['201'].content['application/ld+json'].schema, answer, `${type} created`);
      // A value given only by the create (a token, a link's URL): in the answer, and named by the
      // operation's documentation, as no class property (a record read never has it).
      const once = r.shownOnce.map((f) => f.name);
      for (const name of once) {
        expect(answer, `${type} created`).toHaveProperty([name]);
        expect(doc.paths[r.iri].post.description, `${type} create documents ${name}`).toContain(`\`${name}\``);
      }
      checkHydra(r, answer!, `${type} created`, once);
    }
    for (const accept of ['application/ld+json', 'application/json', 'application/hal+json', 'application/vnd.api+json']) {
      const item = await api.get(iri!, { accept });
      expect(item.status, item.text).toBe(200);
      check(deref.paths[itemPath].get.responses['200'].content[accept].schema, item.body, `${type} ${accept} item`);
      if (accept === 'application/ld+json') checkHydra(r, item.body, type);
      if (!r.rest.has('list')) continue;
      const list = await api.get(r.iri, { accept });
      expect(list.status, list.text).toBe(200);
      check(deref.paths[r.iri].get.responses['200'].content[accept].schema, list.body, `${type} ${accept} collection`);
      if (accept === 'application/ld+json') {
        expect(list.body.member.map((m: Obj) => m['@id'])).toContain(iri);
        for (const m of list.body.member) checkHydra(r, m, `${type} member`);
      }
    }
    if (r.singleton) return;
    const problem = await api.get(`${r.iri}/0190a0a0-0000-7000-8000-000000000000`);
    check(deref.paths[itemPath].get.responses['404'].content['application/problem+json'].schema, problem.body, `${type} 404`);
  });

  // Every declared GET of the model without parameters of its own, in every format the engine has
  // (a file, the company's logo, is no document: test/company-logo.test.ts).
  const gets = model.resources.flatMap((r) => r.operations.filter((op) => op.method === 'GET' && !op.params.length && !(typeof op.def.output === 'object' && 'binary' in op.def.output)).map((op) => [`${r.name} ${op.name}`, r, op] as const));
  it.each(gets)('%s answers every format, as documented', async (_name, r, op) => {
    // A collection operation of a resource without records (the reports) needs no id.
    const id = records.get(r.name)?.[0]?.split('/').pop();
    const url = id ? op.template.replace('{id}', id) : op.template;
    // Every format that writes documents: today all of them (JSON-LD, JSON, HAL, JSON:API, XML).
    const formats = defaultFormats();
    expect(formats.forDocuments(true).all.map((f) => f.name)).toEqual(expect.arrayContaining(['jsonld', 'json', 'jsonhal', 'jsonapi', 'xml']));
    for (const accept of formats.forDocuments(true).mediaTypes) {
      const res = await api.get(url, { accept });
      expect(res.status, `${url} ${accept}: ${res.text}`).toBe(200);
      if (/json/.test(accept)) check(deref.paths[op.template].get.responses['200'].content[accept].schema, res.body, `${url} ${accept}`);
      else if (/xml/.test(accept)) expect(res.text).toMatch(/^<\?xml/);
    }
  });

  // Every declared POST of the model whose answer is a record or a document, in every format the
  // engine has: the format is negotiated before any other work, so no answer is a 406; one that
  // runs on a seeded record without input or state of its own (a secret rotated, a ping) answers
  // in that format, as documented; the others answer their own refusal (an input missing, a
  // delivery unknown), the same in every format.
  const posts = model.resources.flatMap((r) =>
    r.operations
      .filter((op) => op.method === 'POST' && !(typeof op.def.output === 'object' && ('empty' in op.def.output || 'binary' in op.def.output)))
      .map((op) => [`${r.name} ${op.name}`, r, op] as const),
  );
  it('the declared POST operations are found in the model', () => expect(posts.length).toBeGreaterThan(3));
  it.each(posts)('%s answers every format, as documented', async (_name, r, op) => {
    const id = records.get(r.name)?.[0]?.split('/').pop();
    let url = id ? op.template.replace('{id}', id) : op.template;
    for (const p of op.params) url = url.replace(`{${p}}`, '0190a0a0-0000-7000-8000-000000000000');
    const required = ((op.def.input as { required?: string[] } | undefined)?.required ?? []).length > 0;
    const runs = !op.params.length && !required && !op.def.body && !op.def.when && (op.on === 'collection' || id !== undefined);
    const statuses = new Set<number>();
    for (const accept of defaultFormats().forDocuments(true).mediaTypes) {
      const res = await api.post(url, op.def.input ? {} : undefined, { accept });
      expect(res.status, `${url} ${accept}: ${res.text}`).not.toBe(406);
      statuses.add(res.status);
      if (!runs) continue;
      expect(res.status, `${url} ${accept}: ${res.text}`).toBe(op.def.status ?? 200);
      if (/json/.test(accept)) {
        expect(res.headers.get('content-type'), `${url} ${accept}`).toMatch(new RegExp(`^${accept.replace(/[+.]/g, '\\$&')}`));
        check(deref.paths[op.template].post.responses[String(res.status)].content[accept].schema, res.body, `${url} ${accept}`);
      } else expect(res.text).toMatch(/^<\?xml/);
    }
    expect([...statuses], `${url}: one answer whatever the format`).toHaveLength(1);
  });

  it('the token API: its items, collection, summary and history in JSON-LD and JSON', async () => {
    const made = await api.post('/api/api-tokens', { name: 'documented' });
    expect(made.status, made.text).toBe(201);
    check(deref.paths['/api/api-tokens'].post.responses['201'].content['application/ld+json'].schema, made.body, 'token created');
    expect(made.body.token).toMatch(/^inv_/);
    await api.get('/api/clients'); // some history
    for (const accept of ['application/ld+json', 'application/json']) {
      const paths: [string, string, string][] = [
        ['/api/api-tokens', '/api/api-tokens', 'collection'],
        [`/api/api-tokens/${made.body.id}`, '/api/api-tokens/{id}', 'item'],
        ['/api/api-tokens/summary', '/api/api-tokens/summary', 'summary'],
      ];
      const mine = (await api.get('/api/api-tokens', { accept: 'application/json' })).body as { id: string; usageCount: number }[];
      const used = mine.find((x) => x.usageCount > 0)!;
      paths.push([`/api/api-tokens/${used.id}/history?status=2xx`, '/api/api-tokens/{id}/history', 'history']);
      for (const [url, path, what] of paths) {
        const res = await api.get(url, { accept });
        expect(res.status, res.text).toBe(200);
        if (what === 'history') expect((accept === 'application/json' ? res.body : res.body.member).length).toBeGreaterThan(0);
        check(deref.paths[path].get.responses['200'].content[accept].schema, res.body, `token ${what} ${accept}`);
      }
    }
  });

  it('a 422 matches ConstraintViolation and a documented JSON:API write body is accepted', async () => {
    const bad = await api.post('/api/clients', { name: '' });
    check(deref.components.schemas.ConstraintViolation, bad.body, '422');
    const body = { data: { type: 'Tax', attributes: { name: 'Doc tax', rate: 5.5, _type: 'inclusive' } } };
    check(deref.paths['/api/taxes'].post.requestBody.content['application/vnd.api+json'].schema, body, 'JSON:API body');
    const created = await api.post('/api/taxes', body, { contentType: 'application/vnd.api+json', accept: 'application/json' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Doc tax', rate: 5.5, type: 'inclusive' });
  });
});

describe('Swagger UI', () => {
  it('is served at /api/docs without a token, from local files only', async () => {
    const page = await fetch(`${t.url}/api/docs`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(2);
    for (const ref of refs) {
      expect(ref, 'no external asset').not.toMatch(/^(https?:)?\/\//);
      const asset = await fetch(new URL(ref, page.url));
      expect(asset.status, ref).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(0); // read it all: an unread body keeps the connection busy
    }
    const init = await fetch(`${t.url}/api/docs/static/swagger-initializer.js`);
    expect(init.status).toBe(200);
    const js = await init.text();
    expect(js).toContain('validatorUrl: null'); // no badge fetched from the public validator
    expect(js).toContain("url: resolveUrl('./json')"); // the document comes from this server
  });
});
