// The Hydra API documentation (CONTRACT §22) and the OpenAPI document, read by API Platform's own
// client library (@api-platform/api-doc-parser, under API Platform Admin): every resource of the
// model is found with its fields, types, required flags and relations — derived here from the
// model, so a resource added later is checked with no change to this file. Also: the Link header
// on every /api response, the contexts' @vocab resolving into the documentation (expanded by the
// `jsonld` package), and a resource of a test model appearing in both documents with no other code.
import SwaggerParser from '@apidevtools/swagger-parser';
import { parseHydraDocumentation, parseOpenApi3Documentation, type Field, type Resource } from '@api-platform/api-doc-parser';
import Fastify, { type FastifyInstance } from 'fastify';
import jsonld from 'jsonld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel, type Model, type ModelField, type ModelResource } from '../engine/model.ts';
import { customEngine } from '../engine/custom.ts';
import { HYDRA_DOCS_PATH } from '../formats/hydra.ts';
import { defaultFormats } from '../formats/negotiate.ts';
import { documentShape } from '../formats/types.ts';
import { nameFieldOf, shownFields } from '../formats/present.ts';
import { registerDocs, registerOpenapi } from '../http/docs.ts';
import { documentationLink, registerContexts, registerEntrypoint, registerRest, type RestEngine } from '../http/rest.ts';
import { descriptors } from '../resources/index.ts';
import { model } from '../server/model.ts';
import { call, client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import expense from './fixtures/expense.ts';

type Obj = Record<string, any>;
const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

let t: TestServer;
let docs: Obj;

beforeAll(async () => {
  t = await startTestServer();
  const res = await call(t, 'GET', HYDRA_DOCS_PATH);
  expect(res.status).toBe(200);
  docs = res.body;
});
afterAll(() => t.close());

/** Resources a client finds from the entrypoint: those with a collection. */
const listed = (m: Model) => m.resources.filter((r) => r.rest.has('list') && !r.singleton);
/** What the model says a field's range is. */
function rangeOf(f: ModelField, vocab: string): string | undefined {
  if (f.kind === 'ref' || f.kind === 'children') return `${vocab}${f.target}`;
  const xsd: Record<string, string> = { text: 'string', enum: 'string', textList: 'string', integer: 'integer', decimal: 'decimal', boolean: 'boolean', date: 'date', timestamp: 'dateTime' };
  return xsd[f.kind] ? XSD + xsd[f.kind] : undefined;
}
const writeable = (r: ModelResource, f: ModelField) =>
  (r.rest.has('create') || r.rest.has('update') || r.rest.has('replace') || Boolean(r.owner)) && !f.readOnly && (r.creatable.includes(f) || r.updatable.includes(f));
const requiredOnCreate = (f: ModelField) => f.required && !f.readOnly && (f.def as { default?: unknown }).default === undefined && !(f.def as { sequence?: unknown }).sequence;

/** A document loader that reads every context from the server under test, never from elsewhere. */
const loader = (base: string) => async (url: string) => {
  if (!url.startsWith(base)) throw new Error(`no remote context outside the server: ${url}`);
  const res = await call({ url: base }, 'GET', url.slice(base.length), { accept: 'application/ld+json' });
  return { contextUrl: undefined, documentUrl: url, document: res.body };
};

describe('the Hydra documentation', () => {
  it('is served without a token at /api/docs.jsonld and at /api/docs for JSON-LD; Swagger UI stays at /api/docs', async () => {
    const plain = await call(t, 'GET', HYDRA_DOCS_PATH);
    expect(plain.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(plain.body['@type']).toBe('hydra:ApiDocumentation');
    expect(plain.body['hydra:entrypoint']).toBe('/api');
    const negotiated = await call(t, 'GET', '/api/docs', { accept: 'application/ld+json' });
    expect(negotiated.status).toBe(200);
    expect(negotiated.body).toEqual(plain.body);
    const page = await fetch(`${t.url}/api/docs`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.headers.get('content-type') ?? '').not.toMatch(/ld\+json/);
    expect((await call(t, 'GET', HYDRA_DOCS_PATH, { accept: 'text/csv' })).status).toBe(406);
  });

  it('has a class per resource with its properties and operations, plus Entrypoint and the violations', async () => {
    const base = `${t.url}${HYDRA_DOCS_PATH}`;
    const [expanded] = (await jsonld.expand(structuredClone(docs), { base, documentLoader: loader(t.url) as never })) as Obj[];
    const classes = new Map<string, Obj>((expanded![`${HYDRA}supportedClass`] as Obj[]).map((c) => [c['@id'], c]));
    for (const name of ['Entrypoint', 'ConstraintViolation', 'ConstraintViolationList', 'Error']) expect(classes.has(`${base}#${name}`), name).toBe(true);
    const value = (o: Obj, key: string) => o[key]?.[0]?.['@value'];
    // One model: the resources the server stores (the company profile, API tokens, people) too.
    for (const m of [model]) {
      for (const r of m.resources.filter((x) => x.rest.size || x.owner)) {
        const c = classes.get(`${base}#${r.name}`);
        expect(c, r.name).toBeDefined();
        expect(value(c!, `${HYDRA}title`)).toBe(r.name);
        expect(value(c!, `${HYDRA}description`)).toBe(r.description);
        const props = new Map<string, Obj>((c![`${HYDRA}supportedProperty`] as Obj[]).map((p) => [value(p, `${HYDRA}title`), p]));
        expect([...props.keys()].sort(), r.name).toEqual([...shownFields(r).map((f) => f.name), 'createdAt', 'updatedAt'].sort());
        for (const f of shownFields(r)) {
          const p = props.get(f.name)!;
          const prop = p[`${HYDRA}property`][0];
          expect(prop['@id']).toBe(f === nameFieldOf(r) ? 'https://schema.org/name' : `${base}#${r.name}/${f.name}`);
          expect(prop[`${RDFS}range`]?.[0]?.['@id'], `${r.name}.${f.name} range`).toBe(rangeOf(f, `${base}#`));
          expect(value(p, `${HYDRA}required`), `${r.name}.${f.name} required`).toBe(requiredOnCreate(f));
          expect(value(p, `${HYDRA}readable`)).toBe(true);
          expect(value(p, `${HYDRA}writeable`), `${r.name}.${f.name} writeable`).toBe(writeable(r, f));
          expect(typeof value(p, `${HYDRA}description`)).toBe('string');
          if (f.kind === 'ref') expect(prop['@type']).toEqual([`${HYDRA}Link`]);
        }
        const methods = (c![`${HYDRA}supportedOperation`] ?? []).map((o: Obj) => value(o, `${HYDRA}method`));
        const expected = [...(r.rest.has('read') ? ['GET'] : []), ...(r.rest.has('replace') ? ['PUT'] : []), ...(r.rest.has('update') ? ['PATCH'] : []), ...(r.rest.has('delete') ? ['DELETE'] : [])];
        expect(methods, r.name).toEqual([...expected, ...r.operations.filter((o) => o.on === 'item').map((o) => o.method)]);
        for (const o of c![`${HYDRA}supportedOperation`] ?? []) {
          expect(o[`${HYDRA}returns`]?.[0]?.['@id'], `${r.name} ${value(o, `${HYDRA}method`)} returns`).toBeTruthy();
          if (['PUT', 'PATCH'].includes(value(o, `${HYDRA}method`))) expect(o[`${HYDRA}expects`][0]['@id']).toBe(`${base}#${r.name}`);
        }
      }
    }
    // The entrypoint: one property per collection, with the collection's operations.
    const entry = classes.get(`${base}#Entrypoint`)!;
    const links = (entry[`${HYDRA}supportedProperty`] as Obj[]).map((p) => p[`${HYDRA}property`][0]);
    expect(links.map((l) => l['@id']).sort()).toEqual(listed(model).map((r) => `${base}#Entrypoint/${r.name.charAt(0).toLowerCase()}${r.name.slice(1)}`).sort());
    for (const r of listed(model)) {
      const l = links.find((x) => x['@id'].endsWith(`/${r.name.charAt(0).toLowerCase()}${r.name.slice(1)}`))!;
      const ops = l[`${HYDRA}supportedOperation`].map((o: Obj) => value(o, `${HYDRA}method`));
      expect(ops).toEqual([...(r.rest.has('list') ? ['GET'] : []), ...(r.rest.has('create') ? ['POST'] : []), ...r.operations.filter((o) => o.on === 'collection').map((o) => o.method)]);
    }
  });

  it('has a class for each type of the declared operations\' documents, with its members', () => {
    for (const m of [model]) {
      for (const r of m.resources) {
        for (const op of r.operations) {
          const shape = documentShape(r, op);
          if (!shape?.objects || m.find(shape.type)) continue;
          const c = docs['hydra:supportedClass'].find((x: Obj) => x['@id'] === `#${shape.type}`);
          expect(c, `${r.name} ${op.name}: ${shape.type}`).toBeDefined();
          const names = Object.keys((shape.schema as unknown as { properties: Obj }).properties);
          expect(c['hydra:supportedProperty'].map((p: Obj) => p['hydra:title']).sort()).toEqual(names.sort());
        }
      }
    }
    const delivery = docs['hydra:supportedClass'].find((x: Obj) => x['@id'] === '#WebhookDelivery');
    expect(delivery['hydra:supportedProperty'].find((p: Obj) => p['hydra:title'] === 'createdAt')['hydra:property'].range).toBe('xsd:dateTime');
  });

  it('is what the contexts name: a record type and its members expand to the classes and properties documented', async () => {
    const vocab = `${t.url}${HYDRA_DOCS_PATH}#`;
    const api = client(t, await tokenFor(t, { email: 'hydra@a.test', company: 'Hydra' }));
    const created = await api.post('/api/clients', { name: 'Hydra client' });
    expect(created.status).toBe(201);
    const [node] = (await jsonld.expand(created.body, { base: t.url, documentLoader: loader(t.url) as never })) as Obj[];
    expect(node!['@type']).toEqual([`${vocab}Client`]);
    // The field that names a record is schema:name, in the context and the documentation alike.
    expect(node!['https://schema.org/name'][0]['@value']).toBe('Hydra client');
    expect(node![`${vocab}Client/currency`][0]['@value']).toBe('USD');
    const documented = JSON.stringify(docs);
    for (const r of listed(model)) {
      const ctx = await call(t, 'GET', `/api/contexts/${r.name}`);
      expect(ctx.body['@context']['@vocab']).toBe(vocab);
      expect(documented).toContain(`"#${r.name}"`);
    }
  });

  it('is named by a Link header on every /api response: entrypoint, errors, collections with their own links', async () => {
    const link = `<${t.url}${HYDRA_DOCS_PATH}>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"`;
    const api = client(t, await tokenFor(t, { email: 'link@a.test', company: 'Link' }));
    const hook = await api.post('/api/webhooks', { url: 'https://example.test/link', events: ['*'] });
    expect(hook.status, hook.text).toBe(201);
    for (const [status, res] of [
      [200, await call(t, 'GET', '/api')],
      [200, await call(t, 'GET', '/api/docs', { accept: 'text/html' })],
      // A declared operation in the default format (it was a 406 once), GraphQL, a refused write.
      [200, await api.get(`${hook.body['@id']}/deliveries`, { accept: 'application/ld+json' })],
      [200, await api.post('/api/graphql', { query: '{ clients { totalCount } }' }, { contentType: 'application/json' })],
      [422, await api.post('/api/clients', { name: '' })],
      [405, await api.delete('/api/webhooks/event-types')],
      [415, await api.post('/api/clients', { name: 'x' }, { contentType: 'text/plain' })],
      [200, await call(t, 'GET', '/api/contexts/Client')],
      [200, await call(t, 'GET', '/api/docs.json')],
      [200, await call(t, 'GET', HYDRA_DOCS_PATH)],
      [401, await call(t, 'GET', '/api/clients')],
      [404, await api.get('/api/nothing-here')],
      [200, await api.get('/api/clients')],
      [406, await api.get('/api/clients', { accept: 'text/plain' })],
    ] as const) {
      expect(res.status).toBe(status);
      expect(res.headers.get('link'), `${status}`).toContain(link);
    }
    for (let i = 0; i < 3; i++) expect((await api.post('/api/taxes', { name: `T${i}`, rate: 5 })).status).toBe(201);
    const paged = await api.get('/api/taxes?itemsPerPage=1', { accept: 'application/json' });
    expect(paged.headers.get('link')).toMatch(new RegExp(`^${link.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, .*rel="next"`));
  });
});

/** The fields api-doc-parser found for `r`, by name. */
const fieldsOf = (res: Resource) => new Map<string, Field>((res.fields ?? []).map((f) => [f.name, f]));

describe('api-doc-parser (API Platform Admin\'s reader)', () => {
  it('finds every resource from the Hydra documentation, with fields, types, required flags and relations', async () => {
    const { api } = await parseHydraDocumentation(`${t.url}/api`);
    const resources = api.resources ?? [];
    expect(resources.map((r) => r.title).sort()).toEqual(listed(model).map((r) => r.name).sort());
    for (const r of listed(model)) {
      const found = resources.find((x) => x.title === r.name)!;
      expect(found.url).toBe(`${t.url}${r.iri}`);
      const fields = fieldsOf(found);
      expect([...fields.keys()].sort()).toEqual([...shownFields(r).map((f) => f.name), 'createdAt', 'updatedAt'].sort());
      for (const f of shownFields(r)) {
        const got = fields.get(f.name)!;
        expect(got.required, `${r.name}.${f.name}`).toBe(requiredOnCreate(f));
        const type = { integer: 'integer', decimal: 'decimal', boolean: 'boolean', date: 'date', timestamp: 'dateTime' }[f.kind as string] ?? 'string';
        expect(got.type, `${r.name}.${f.name}`).toBe(type);
        if (f.kind === 'ref' && listed(model).some((x) => x.name === f.target)) {
          expect((got.reference as Resource | null)?.title, `${r.name}.${f.name} refers to ${f.target}`).toBe(f.target);
          expect(got.maxCardinality).toBe(1);
        }
      }
      expect(found.readableFields?.length).toBe(fields.size);
      const writable = new Set((found.writableFields ?? []).map((f) => f.name));
      for (const f of shownFields(r)) expect(writable.has(f.name), `${r.name}.${f.name} writable`).toBe(writeable(r, f));
      const types = new Set((found.operations ?? []).map((o) => o.type));
      if (r.rest.has('list')) expect(types.has('list')).toBe(true);
      if (r.rest.has('create')) expect(types.has('create')).toBe(true);
      if (r.rest.has('read')) expect(types.has('show')).toBe(true);
      if (r.rest.has('update') || r.rest.has('replace')) expect(types.has('edit')).toBe(true);
      if (r.rest.has('delete')) expect(types.has('delete')).toBe(true);
    }
  });

  it('finds every resource from /api/docs.json (OpenAPI mode), which also passes an OpenAPI validator', async () => {
    const { api, response } = await parseOpenApi3Documentation(`${t.url}/api/docs.json`);
    await expect(SwaggerParser.validate(structuredClone(response) as never)).resolves.toBeTruthy();
    const resources = api.resources ?? [];
    for (const r of listed(model).filter((x) => x.rest.has('read'))) {
      const found = resources.find((x) => x.name === r.path);
      expect(found, r.name).toBeDefined();
      const fields = fieldsOf(found!);
      for (const f of shownFields(r)) {
        expect(fields.has(f.name), `${r.name}.${f.name}`).toBe(true);
        if (requiredOnCreate(f)) expect(fields.get(f.name)!.required, `${r.name}.${f.name} required`).toBe(true);
      }
      // Its item operations. (It looks a collection's operations up at `/<name>`, without the
      // path's prefix, as it does in API Platform's own documents, whose paths carry `/api` too.)
      expect(new Set((found!.operations ?? []).map((o) => o.type))).toEqual(
        new Set([...(r.rest.has('read') ? ['show'] : []), ...(r.rest.has('update') || r.rest.has('replace') ? ['edit'] : []), ...(r.rest.has('delete') ? ['delete'] : [])]),
      );
    }
  });
});

describe('a resource added by a test model', () => {
  let app: FastifyInstance;
  let url: string;
  const extended = buildModel([...descriptors, expense]);
  beforeAll(async () => {
    // The documentation of a server of the extended model: the same functions the service uses.
    const formats = defaultFormats();
    app = Fastify();
    await registerOpenapi(app, { model: extended, formats, version: 'test' });
    await app.register(async (docsApp) => registerDocs(docsApp, { path: '/api/docs', swaggerUi: { dir: process.cwd(), logo: Buffer.from('<svg/>') }, hydra: { entrypoint: extended } }));
    await app.register(
      async (api) => {
        api.addHook('onRequest', documentationLink());
        registerEntrypoint(api, { model: extended, formats });
        registerContexts(api, { models: [extended] });
        // Routes for the documentation only: no request reaches their handlers here.
        registerRest(api, { engine: customEngine(t.db.database.db, extended) as unknown as RestEngine, formats, principal: () => { throw new Error('not called'); } });
      },
      { prefix: '/api' },
    );
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it('appears in the Hydra documentation, the OpenAPI document and api-doc-parser with no other code', async () => {
    const e: ModelResource = extended.get('Expense');
    const hydra = (await call({ url }, 'GET', HYDRA_DOCS_PATH)).body;
    const cls = hydra['hydra:supportedClass'].find((c: Obj) => c['@id'] === '#Expense');
    expect(cls['hydra:supportedProperty'].map((p: Obj) => p['hydra:title'])).toEqual(['client', 'label', 'amount', 'createdAt', 'updatedAt']);
    const oa = (await call({ url }, 'GET', '/api/docs.json')).body;
    await expect(SwaggerParser.validate(structuredClone(oa) as never)).resolves.toBeTruthy();
    expect(Object.keys(oa.paths)).toEqual(expect.arrayContaining([e.iri, `${e.iri}/{id}`]));
    const { api } = await parseHydraDocumentation(`${url}/api`);
    const found = api.resources!.find((r) => r.title === 'Expense')!;
    expect(found.fields!.map((f) => [f.name, f.type, f.required])).toEqual([
      ['client', 'string', true],
      ['label', 'string', true],
      ['amount', 'integer', true],
      ['createdAt', 'dateTime', false],
      ['updatedAt', 'dateTime', false],
    ]);
    expect((found.fields![0]!.reference as Resource).title).toBe('Client');
    const { api: fromOpenapi } = await parseOpenApi3Documentation(`${url}/api/docs.json`);
    expect(fromOpenapi.resources!.find((r) => r.name === 'expenses')?.fields?.map((f) => f.name)).toEqual(expect.arrayContaining(['client', 'label', 'amount']));
  });
});

describe('declared query parameters', () => {
  it('are read, converted and checked by the operation runner (400 naming them), and documented from the same declaration', async () => {
    const api = client(t, await tokenFor(t, { email: 'query@a.test', company: 'Query' }));
    const hook = await api.post('/api/webhooks', { url: 'https://example.test/hook', events: ['*'] });
    expect(hook.status, hook.text).toBe(201);
    const deliveries = `${hook.body['@id']}/deliveries`;
    for (const [q, path] of [
      ['itemsPerPage=abc', 'itemsPerPage'],
      ['itemsPerPage=101', 'itemsPerPage'],
      ['page=0', 'page'],
      ['status=nope', 'status'],
      ['status[]=failed&status[]=nope', 'status[]'],
      ['status=failed&status=pending', 'status'],
      ['after=%25%25', 'after'],
    ] as const) {
      const res = await api.get(`${deliveries}?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.violations.map((v: Obj) => v.propertyPath), q).toContain(path);
    }
    for (const q of ['', 'status[]=failed&status[]=pending', 'type=webhook.ping&itemsPerPage=100&page=2', 'unknown=ignored']) {
      const res = await api.get(`${deliveries}?${q}`);
      expect(res.status, `${q}: ${res.text}`).toBe(200);
      expect(res.body['@type']).toBe('Collection');
    }
    // GraphQL goes through the same runner.
    const gql = await api.post('/api/graphql', { query: `{ webhookDeliveries(id: "${hook.body['@id']}", itemsPerPage: 500) { totalCount } }` }, { contentType: 'application/json', accept: 'application/json' });
    expect(gql.body.errors?.[0]?.message ?? '').toMatch(/itemsPerPage/);
    // Documented from the same declaration: OpenAPI parameters and the Hydra operation's IRI template.
    const op = model.get('Webhook').operations.find((o) => o.name === 'deliveries')!;
    const oa = (await call(t, 'GET', '/api/docs.json')).body;
    const params = oa.paths[op.template].get.parameters.filter((p: Obj) => p.in === 'query');
    const declared = Object.keys((op.def.query as unknown as { properties: Obj }).properties);
    expect(params.map((p: Obj) => p.name).sort()).toEqual([...declared].sort());
    expect(params.find((p: Obj) => p.name === 'itemsPerPage').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    const webhook = docs['hydra:supportedClass'].find((c: Obj) => c['@id'] === '#Webhook');
    const documented = webhook['hydra:supportedOperation'].find((o: Obj) => o['hydra:title'] === 'deliveries');
    expect(documented['hydra:search']['hydra:template']).toBe(`${op.template}{?${declared.join(',')}}`);
    expect(documented['hydra:search']['hydra:mapping'].map((m: Obj) => m['hydra:variable'])).toEqual(declared);
  });
});

describe('what API Platform Admin sends', () => {
  it('a PUT body with react-admin\'s originId is accepted as read-only members are; other unknown members stay a 400', async () => {
    const api = client(t, await tokenFor(t, { email: 'origin@a.test', company: 'Origin' }));
    const made = await api.post('/api/clients', { name: 'Origin' });
    const back = { ...made.body, id: made.body['@id'], originId: made.body.id, name: 'Origin renamed' };
    const put = await api.put(made.body['@id'], back);
    expect(put.status, put.text).toBe(200);
    expect(put.body.name).toBe('Origin renamed');
    const bad = await api.put(made.body['@id'], { ...back, bogus: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('bogus');
  });
});
