// Every endpoint declared on a descriptor (engine/declared.ts): in a temporary model, a resource
// with a custom item operation and a document format, and a singleton, each exercised through
// REST, GraphQL and the OpenAPI document, with no route, resolver or description written for them.
import Fastify, { type FastifyInstance } from 'fastify';
import { graphql, printSchema } from 'graphql';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldValues, Principal, Role } from '../engine/types.ts';
import { customEngine, type Processor, type Provider } from '../engine/custom.ts';
import { defineResource, text, type OperationServices } from '../engine/descriptor.ts';
import { operationRunner } from '../engine/declared.ts';
import { buildModel } from '../engine/model.ts';
import type { Engine } from '../engine/operations.ts';
import { buildGraphqlSchema } from '../engine/graphql/schema.ts';
import { Loaders } from '../engine/graphql/loaders.ts';
import { defaultFormats } from '../formats/negotiate.ts';
import { registerOpenapi } from '../http/docs.ts';
import { registerRest } from '../http/rest.ts';
import { installErrorHandling } from '../server/errors.ts';
import { uuidv7 } from '../engine/uuid.ts';

/** Notes kept in memory, per company; a note can be archived, and rendered as plain text. */
const notes = new Map<string, FieldValues & { company: string }>();
const strip = ({ company: _, ...rec }: FieldValues & { company: string }): FieldValues => rec;
const provider: Provider = {
  async list({ principal }, q) {
    const items = [...notes.values()].filter((n) => n.company === principal.company.id);
    return { items: items.slice(q.offset, q.offset + q.limit).map(strip), total: items.length };
  },
  async read({ principal }, id) {
    const n = notes.get(id);
    return n && n.company === principal.company.id ? strip(n) : null;
  },
};
const processor: Processor = {
  async create({ principal }, data) {
    const now = new Date();
    const n = { id: uuidv7(), title: data.title, archived: null, createdAt: now, updatedAt: now, company: principal.company.id };
    notes.set(n.id, n);
    return strip(n);
  },
  async update(_c, existing, changes) {
    const n = { ...notes.get(String(existing.id))!, ...changes, updatedAt: new Date() };
    notes.set(String(existing.id), n);
    return strip(n);
  },
  async remove(_c, existing) {
    notes.delete(String(existing.id));
  },
};

/** The singleton's records, one per company. */
const settings = new Map<string, FieldValues>();
const settingsOf = (company: string) => settings.get(company) ?? { id: company, motto: null, createdAt: new Date(0), updatedAt: new Date(0) };

const emitted: string[] = [];

const note = defineResource({
  name: 'Note',
  plural: 'notes',
  description: 'A note kept in memory.',
  fields: { title: text({ required: true, max: 40 }), archived: text({ readOnly: true }) },
  operations: {
    rest: ['list', 'read', 'create'],
    graphql: 'none',
    item: {
      archive: {
        method: 'POST',
        path: 'archive',
        summary: 'Archives the note, saying why',
        input: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 50 }) }, { additionalProperties: false }),
        output: { type: 'NoteArchive', schema: Type.Object({ note: Type.String(), reason: Type.String(), archivedBy: Type.String() }) },
        events: ['note.archived'],
        async run(ctx) {
          const { reason } = ctx.input as { reason: string };
          const n = notes.get(String(ctx.record!.id))!;
          n.archived = reason;
          emitted.push('note.archived');
          return { note: String(n.id), reason, archivedBy: ctx.principal.role };
        },
      },
    },
  },
  documents: {
    'text/plain': {
      description: 'the note as plain text',
      async render({ principal, id }) {
        const n = notes.get(id);
        if (!n || n.company !== principal.company.id) throw Object.assign(new Error('not found'), { statusCode: 404 });
        return { body: `NOTE: ${String(n.title)}\n`, contentType: 'text/plain; charset=utf-8' };
      },
    },
  },
  provider,
  processor,
});

const prefs = defineResource({
  name: 'Preferences',
  plural: 'preferences',
  path: 'preferences',
  description: "The company's preferences: one record per company.",
  singleton: true,
  fields: { motto: text({ max: 12, normalise: (s) => s.toUpperCase(), check: (s) => (s.includes('!') ? 'No shouting.' : null) }) },
  operations: { rest: ['read', 'update'], graphql: ['query', 'update'] },
  writers: ['admin'],
  provider: {
    list: async () => ({ items: [], total: 0 }),
    read: async ({ principal }, id) => (id === principal.company.id ? settingsOf(id) : null),
  },
  processor: {
    create: async () => ({}),
    update: async ({ principal }, existing, changes) => {
      const rec = { ...existing, ...changes, updatedAt: new Date() };
      settings.set(principal.company.id, rec);
      return rec;
    },
    remove: async () => {},
  },
});

const model = buildModel([note, prefs]);
const engine = customEngine({} as never, model);
const run = operationRunner(engine, {} as never, {} as OperationServices);
const principal = (role: Role, company = 'c1'): Principal => ({ userId: 'u1', role, company: { id: company, currency: 'EUR' } });

let app: FastifyInstance;
let url: string;
let doc: { paths: Record<string, Record<string, any>> };
beforeAll(async () => {
  app = Fastify();
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/ld+json', 'application/merge-patch+json', 'application/vnd.api+json'], { parseAs: 'string' }, jsonParser);
  installErrorHandling(app);
  await registerOpenapi(app, { model, formats: defaultFormats(), version: 'test' });
  const who = (req: { headers: Record<string, unknown> }) => principal((req.headers['x-role'] as Role) ?? 'member', (req.headers['x-company'] as string) ?? 'c1');
  await app.register(async (api) => registerRest(api, { engine, formats: defaultFormats(), principal: who, run, services: {} as OperationServices }), { prefix: '/api' });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  doc = app.swagger() as never;
});
afterAll(() => app.close());

async function call(method: string, path: string, o: { body?: unknown; accept?: string; role?: Role; company?: string; type?: string } = {}) {
  const headers: Record<string, string> = { 'x-role': o.role ?? 'member', 'x-company': o.company ?? 'c1' };
  if (o.accept) headers.accept = o.accept;
  if (o.body !== undefined) headers['content-type'] = o.type ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
  const res = await fetch(url + path, { method, headers, body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body) });
  const t = await res.text();
  return { status: res.status, headers: res.headers, text: t, body: /json/.test(res.headers.get('content-type') ?? '') && t ? JSON.parse(t) : undefined };
}

const gql = (role: Role, query: string, company = 'c1') =>
  graphql({ schema, source: query, contextValue: { principal: principal(role, company), loaders: new Loaders(engine as unknown as Engine, principal(role, company)) } });
const schema = buildGraphqlSchema(model, engine as unknown as Engine, { run });

describe('a custom item operation', () => {
  it('is a REST route with the engine’s answers: roles, 404, 415, 422, 405, 406', async () => {
    const made = await call('POST', '/api/notes', { body: { title: 'Call the bank' } });
    expect(made.status).toBe(201);
    const iri = made.body['@id'] as string;
    const ok = await call('POST', `${iri}/archive`, { body: { reason: 'done' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ '@context': '/api/contexts/NoteArchive', '@id': `${iri}/archive`, '@type': 'NoteArchive', note: made.body.id, reason: 'done', archivedBy: 'member' });
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect((await call('POST', `${iri}/archive`, { body: { reason: 'plain' }, accept: 'application/json' })).body).toEqual({ note: made.body.id, reason: 'plain', archivedBy: 'member' });
    expect(emitted).toEqual(['note.archived', 'note.archived']);

    expect((await call('POST', `${iri}/archive`, { body: { reason: 'x' }, role: 'viewer' })).status).toBe(403);
    expect((await call('POST', `${iri}/archive`, { body: { reason: 'x' }, company: 'c2' })).status).toBe(404);
    expect((await call('POST', `/api/notes/${uuidv7()}/archive`, { body: { reason: 'x' } })).status).toBe(404);
    expect((await call('POST', `${iri}/archive`, { body: 'reason=x', type: 'text/plain' })).status).toBe(415);
    const bad = await call('POST', `${iri}/archive`, { body: { reason: '' } });
    expect(bad.status).toBe(422);
    expect(bad.body.violations[0].propertyPath).toBe('reason');
    const wrongMethod = await call('GET', `${iri}/archive`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await call('POST', `${iri}/archive`, { body: { reason: 'x' }, accept: 'application/pdf' })).status).toBe(406);
    expect(emitted.length).toBe(2); // nothing refused ran
  });

  it('is a GraphQL mutation, with its input and output types derived from the schemas', async () => {
    const made = await call('POST', '/api/notes', { body: { title: 'Pay rent' } });
    const res = await gql('admin', `mutation { archiveNote(input: { id: "${made.body['@id']}", reason: "paid", clientMutationId: "m" }) { noteArchive { note reason archivedBy } clientMutationId } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.archiveNote).toEqual({ noteArchive: { note: made.body.id, reason: 'paid', archivedBy: 'admin' }, clientMutationId: 'm' });
    const refused = await gql('viewer', `mutation { archiveNote(input: { id: "${made.body['@id']}", reason: "no" }) { noteArchive { reason } } }`);
    expect((refused.errors![0]!.originalError as { status?: number }).status).toBe(403);
  });

  it('is in the OpenAPI document', () => {
    const op = doc.paths['/api/notes/{id}/archive']!.post;
    expect(op.operationId).toBe('api_notes_id_archive_post');
    expect(op.summary).toBe('Archives the note, saying why');
    expect(Object.keys(op.requestBody.content)).toContain('application/json');
    // In every format the engine has (CONTRACT §22).
    expect(Object.keys(op.responses['200'].content).sort()).toEqual(defaultFormats().forDocuments(true).mediaTypes.slice().sort());
    expect(Object.keys(op.responses['200'].content)).toEqual(expect.arrayContaining(['application/ld+json', 'application/json', 'application/hal+json', 'application/vnd.api+json', 'application/xml']));
    expect(op.responses).toHaveProperty('415');
    expect(op.responses).toHaveProperty('422');
    expect(op.description).toContain('note.archived');
  });
});

describe('a document format', () => {
  it('is negotiated by Accept on the read route, and described in OpenAPI', async () => {
    const made = await call('POST', '/api/notes', { body: { title: 'Plain' } });
    const text = await call('GET', made.body['@id'], { accept: 'text/plain' });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.text).toBe('NOTE: Plain\n');
    expect((await call('GET', made.body['@id'])).body['@type']).toBe('Note');
    expect(Object.keys(doc.paths['/api/notes/{id}']!.get.responses['200'].content)).toContain('text/plain');
    expect((await call('GET', made.body['@id'], { accept: 'application/pdf' })).status).toBe(406);
  });
});

describe('a singleton', () => {
  it('is GET and PATCH on the resource root, validated by the engine, admins writing', async () => {
    const first = await call('GET', '/api/preferences');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ '@id': '/api/preferences', '@type': 'Preferences', motto: null });
    const patched = await call('PATCH', '/api/preferences', { body: { motto: 'quiet' }, role: 'admin' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.motto).toBe('QUIET');
    const shout = await call('PATCH', '/api/preferences', { body: { motto: 'loud!' }, role: 'admin' });
    expect(shout.status).toBe(422);
    expect(shout.body.violations).toEqual([expect.objectContaining({ propertyPath: 'motto', message: 'No shouting.' })]);
    expect((await call('PATCH', '/api/preferences', { body: { motto: 'x' }, role: 'member' })).status).toBe(403);
    expect((await call('PATCH', '/api/preferences', { body: { colour: 'red' }, role: 'admin' })).status).toBe(400);
    const del = await call('DELETE', '/api/preferences', { role: 'admin' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, PATCH');
    expect((await call('GET', '/api/preferences', { company: 'c2' })).body.motto).toBeNull();
    expect((await call('GET', '/api/preferences', { accept: 'application/hal+json' })).body._links.self.href).toBe('/api/preferences');
  });

  it('is a GraphQL query and update mutation', async () => {
    expect(printSchema(schema)).toContain('updatePreferences(input: updatePreferencesInput!): updatePreferencesPayload');
    const up = await gql('admin', 'mutation { updatePreferences(input: { motto: "calm" }) { preferences { id motto } } }', 'c3');
    expect(up.errors).toBeUndefined();
    expect(up.data!.updatePreferences).toEqual({ preferences: { id: '/api/preferences', motto: 'CALM' } });
    expect((await gql('viewer', '{ preferences { motto } }', 'c3')).data!.preferences).toEqual({ motto: 'CALM' });
    const refused = await gql('member', 'mutation { updatePreferences(input: { motto: "no" }) { preferences { motto } } }', 'c3');
    expect((refused.errors![0]!.originalError as { status?: number }).status).toBe(403);
  });

  it('is in the OpenAPI document at its root, without an id', () => {
    const path = doc.paths['/api/preferences']!;
    expect(path.get.operationId).toBe('api_preferences_get');
    expect(path.patch.operationId).toBe('api_preferences_patch');
    expect(path.patch.responses).toHaveProperty('403');
    expect(doc.paths['/api/preferences/{id}']).toBeUndefined();
  });
});
