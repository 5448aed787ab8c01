// A resource with its own provider and processor (engine/custom.ts): its records live outside
// the engine's tables (here, in the processor's own memory), while roles, validation, 404s,
// negotiation, formats, errors and the OpenAPI description still come from the engine and the
// HTTP layer. The API token resource (test/api-tokens.test.ts) is the real one.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal, FieldValues, Role } from '../engine/types.ts';
import { customEngine, type Processor, type Provider } from '../engine/custom.ts';
import { defineResource, text } from '../engine/descriptor.ts';
import { buildModel } from '../engine/model.ts';
import { buildTables } from '../engine/tables.ts';
import { readSchema } from '../engine/json-schemas.ts';
import { defaultFormats } from '../formats/negotiate.ts';
import { operationDoc } from '../http/openapi.ts';
import { registerRest } from '../http/rest.ts';
import { installErrorHandling } from '../server/errors.ts';
import { companies } from '../server/schema.ts';
import { uuidv7 } from '../engine/uuid.ts';

/** Notes kept by the processor itself, per company. */
const store = new Map<string, FieldValues & { company: string }>();
const visible = (p: Principal, id: string) => {
  const rec = store.get(id);
  return rec && rec.company === p.company.id ? rec : null;
};
const strip = ({ company: _, ...rec }: FieldValues & { company: string }): FieldValues => rec;

const provider: Provider = {
  async list({ principal }, q) {
    let items = [...store.values()].filter((r) => r.company === principal.company.id);
    for (const c of q.where) items = items.filter((r) => c.values.some((v) => String(r[c.field.name]).toLowerCase().includes(String(v).toLowerCase())));
    for (const o of [...q.order].reverse()) items.sort((a, b) => String(a[o.field]).localeCompare(String(b[o.field])) * (o.dir === 'desc' ? -1 : 1));
    return { items: items.slice(q.offset, q.offset + q.limit).map(strip), total: items.length };
  },
  async read({ principal }, id) {
    const rec = visible(principal, id);
    return rec ? strip(rec) : null;
  },
};
const processor: Processor = {
  async create({ principal }, data) {
    const now = new Date();
    const rec = { id: uuidv7(), title: data.title, body: data.body, createdAt: now, updatedAt: now, company: principal.company.id };
    store.set(rec.id, rec);
    return { ...strip(rec), secret: `s3cr3t-${rec.id}` };
  },
  async update({ principal }, existing, changes) {
    const rec = { ...visible(principal, existing.id as string)!, ...changes, updatedAt: new Date() };
    store.set(existing.id as string, rec);
    return strip(rec);
  },
  async remove(_ctx, existing) {
    store.delete(existing.id as string);
  },
};

const note = defineResource({
  name: 'Note',
  plural: 'notes',
  description: 'A note kept outside the engine.',
  fields: {
    title: text({ required: true, max: 20, filter: 'partial', order: true }),
    body: text(),
    secret: text({ shownOnce: true, description: 'Shown once, when the note is created.' }),
  },
  operations: { rest: ['list', 'read', 'create', 'update', 'delete'], graphql: 'none' },
  provider,
  processor,
});
const model = buildModel([note]);
const NOTE = model.get('Note');

const principal = (role: Role, company = 'c1'): Principal => ({ userId: 'u1', role, company: { id: company, currency: 'EUR' } });

let app: FastifyInstance;
let url: string;
beforeAll(async () => {
  app = Fastify();
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/ld+json', 'application/merge-patch+json', 'application/vnd.api+json'], { parseAs: 'string' }, jsonParser);
  installErrorHandling(app);
  // The caller, as the /api plugin's hooks would give it: here from two test headers.
  const who = (req: { headers: Record<string, unknown> }) => principal((req.headers['x-role'] as Role) ?? 'member', (req.headers['x-company'] as string) ?? 'c1');
  await app.register(async (api) => registerRest(api, { engine: customEngine({} as never, model), formats: defaultFormats(), principal: who }), { prefix: '/api' });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

async function call(method: string, path: string, o: { body?: unknown; accept?: string; role?: Role; company?: string } = {}) {
  const headers: Record<string, string> = { 'x-role': o.role ?? 'member', 'x-company': o.company ?? 'c1' };
  if (o.accept) headers.accept = o.accept;
  if (o.body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json';
  const res = await fetch(url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const t = await res.text();
  return { status: res.status, headers: res.headers, text: t, body: /json/.test(res.headers.get('content-type') ?? '') && t ? JSON.parse(t) : undefined };
}

describe('the model', () => {
  it('derives no table, and refuses what a provider cannot serve', () => {
    expect(buildTables(model, { table: companies, column: companies.id }).byResource.has('Note')).toBe(false);
    const base = { name: 'X', plural: 'xs', fields: { a: text() } };
    expect(() => buildModel([defineResource({ ...base, operations: { rest: ['list'], graphql: 'all' }, provider })])).toThrow(/no GraphQL/);
    expect(() => buildModel([defineResource({ ...base, operations: { rest: 'all', graphql: 'none' }, provider })])).toThrow(/need a processor/);
    expect(() => buildModel([defineResource({ ...base, operations: { rest: 'all', graphql: 'none' }, processor })])).toThrow(/needs a provider/);
  });

  it('documents the shownOnce field on the create operation only', () => {
    expect(operationDoc(model, NOTE, 'create', defaultFormats()).description).toContain('The response also carries `secret`: shown once, when the note is created.');
    expect(operationDoc(model, NOTE, 'read', defaultFormats()).description).not.toContain('secret');
  });

  it('describes the shownOnce field, optional and read-only, in the record schema of every format, never in a body', () => {
    const plain = readSchema(model, NOTE) as unknown as { properties: Record<string, { readOnly?: boolean }>; required?: string[] };
    expect(plain.properties.secret).toMatchObject({ type: 'string', readOnly: true });
    expect(plain.required ?? []).not.toContain('secret');
    for (const f of defaultFormats().all) {
      for (const [name, schema] of Object.entries(f.docs.components?.(model, NOTE) ?? {})) {
        const text = JSON.stringify(schema);
        if (/-(write|update)$/.test(name)) expect(text, name).not.toContain('"secret"');
        else expect(text, name).toContain('"secret"');
      }
    }
  });
});

describe('REST through the provider and processor', () => {
  it('creates (the shownOnce field in that response only), reads, lists, updates and deletes', async () => {
    const created = await call('POST', '/api/notes', { body: { title: 'Groceries', body: 'milk' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ '@context': '/api/contexts/Note', '@type': 'Note', title: 'Groceries', body: 'milk', secret: `s3cr3t-${created.body.id}` });
    expect(created.headers.get('location')).toBe(created.body['@id']);

    const read = await call('GET', created.body['@id']);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ title: 'Groceries' });
    expect(read.body).not.toHaveProperty('secret');

    await call('POST', '/api/notes', { body: { title: 'Books' } });
    const list = await call('GET', '/api/notes?order[title]=asc', { accept: 'application/json' });
    expect(list.body.map((n: FieldValues) => n.title)).toEqual(['Books', 'Groceries']);
    expect(list.headers.get('x-total-count')).toBe('2');
    const filtered = await call('GET', '/api/notes?title=groc');
    expect(filtered.body).toMatchObject({ totalItems: 1, member: [{ title: 'Groceries' }] });
    const hal = await call('GET', created.body['@id'], { accept: 'application/hal+json' });
    expect(hal.body._links.self.href).toBe(created.body['@id']);

    const patched = await call('PATCH', created.body['@id'], { body: { body: 'eggs' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Groceries', body: 'eggs' });

    expect((await call('DELETE', created.body['@id'])).status).toBe(204);
    expect((await call('GET', created.body['@id'])).status).toBe(404);
    expect((await call('DELETE', created.body['@id'])).status).toBe(404);
  });

  it('keeps the engine’s rules: validation, roles, 404, negotiation, 405', async () => {
    const before = store.size;
    const blank = await call('POST', '/api/notes', { body: { title: '' } });
    expect(blank.status).toBe(422);
    expect(blank.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(blank.body.violations[0]).toMatchObject({ propertyPath: 'title', message: 'This value should not be blank.' });
    expect((await call('POST', '/api/notes', { body: { title: 'x'.repeat(21) } })).status).toBe(422);
    const unknown = await call('POST', '/api/notes', { body: { title: 'ok', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('colour');
    // The shownOnce field is made by the server, not part of the record: sent in a body, it is unknown.
    const sneaky0 = await call('POST', '/api/notes', { body: { title: 'Sneaky', secret: 'mine' } });
    expect(sneaky0.status).toBe(400);
    expect(sneaky0.body.detail).toContain('secret');
    const sneaky = await call('POST', '/api/notes', { body: { title: 'Sneaky' } });
    expect(sneaky.status).toBe(201);
    expect(sneaky.body.secret).toBe(`s3cr3t-${sneaky.body.id}`);
    const viewer = await call('POST', '/api/notes', { body: { title: 'Viewer' }, role: 'viewer' });
    expect(viewer.status).toBe(403);
    expect((await call('PATCH', sneaky.body['@id'], { body: { title: 'Changed' }, role: 'viewer' })).status).toBe(403);
    expect((await call('GET', sneaky.body['@id'], { role: 'viewer' })).status).toBe(200);
    expect((await call('GET', sneaky.body['@id'], { company: 'c2' })).status).toBe(404);
    expect((await call('GET', '/api/notes', { accept: 'text/csv' })).status).toBe(406);
    const put = await call('PUT', sneaky.body['@id'], { body: { title: 'x' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, PATCH, DELETE');
    expect(store.size).toBe(before + 1);
    expect([...store.values()].map((n) => n.title)).not.toContain('Viewer');
  });
});
