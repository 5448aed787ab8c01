// "Adding a resource" (README) proven: one descriptor file (test/fixtures/expense.ts) added to
// the service's resources gives a table (its migration derived as `npm run db:generate` derives
// it), REST routes with validation, filters, ordering, formats and tenancy, and GraphQL queries
// and mutations — with no other code.
import { sql } from 'drizzle-orm';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../engine/model.ts';
import { createEngine } from '../engine/operations.ts';
import { buildTables } from '../engine/tables.ts';
import { countsDdl } from '../engine/counts.ts';
import { versionTriggers } from '../engine/versions.ts';
import type { Principal } from '../engine/types.ts';
import { defaultFormats } from '../formats/negotiate.ts';
import { registerRest } from '../http/rest.ts';
import { registerGraphql } from '../http/graphql.ts';
import { descriptors } from '../resources/index.ts';
import { userCreate } from '../server/cli/commands.ts';
import { installErrorHandling, toApiError } from '../server/errors.ts';
import * as system from '../server/schema.ts';
import { freshDatabase, type TestDatabase } from './helpers.ts';
import expense from './fixtures/expense.ts';

const anchor = { table: system.companies, column: system.companies.id };
const before = buildTables(buildModel(descriptors), anchor);
const model = buildModel([...descriptors, expense]);
const tables = buildTables(model, anchor);
const snapshot = (t: typeof tables) => {
  const all: Record<string, unknown> = { ...system, engineSequences: t.sequences, engineIdempotency: t.idempotency, engineCounts: t.counts };
  for (const [name, table] of t.byResource) all[name] = table;
  return generateDrizzleJson(all);
};

let db: TestDatabase;
let app: FastifyInstance;
let url: string;
const principals = new Map<string, Principal>();

beforeAll(async () => {
  db = await freshDatabase();
  // The migration the new descriptor calls for, as drizzle/generate.ts writes it: what
  // drizzle-kit derives, the counters' DDL of the new table, and the version triggers.
  const counters = countsDdl(model, anchor).filter((s) => s.includes('expenses'));
  const ddl = [...(await generateMigration(snapshot(before), snapshot(tables))), ...counters, ...versionTriggers(model)];
  expect(ddl.some((s) => /CREATE TABLE "expenses"/.test(s))).toBe(true);
  await db.database.db.transaction(async (tx) => {
    for (const statement of ddl) await tx.execute(sql.raw(statement));
  });

  for (const company of ['A', 'B']) {
    await userCreate({ db: db.database.db }, { email: `${company.toLowerCase()}@expense.test`, password: 'password123', company, role: 'admin', currency: 'EUR' });
    const [row] = await db.database.raw(`select c.id as company, m.user_id as "user" from companies c join memberships m on m.company_id = c.id where c.name = $1`, [company]);
    principals.set(company, { userId: row!.user as string, role: 'admin', company: { id: row!.company as string, currency: 'EUR' } });
  }
  const engine = createEngine(db.database.db, model, tables, { raw: db.database.raw });
  const principal = (req: { headers: Record<string, unknown> }) => principals.get((req.headers['x-company'] as string) ?? 'A')!;
  app = Fastify();
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/ld+json', 'application/merge-patch+json', 'application/vnd.api+json'], { parseAs: 'string' }, json);
  installErrorHandling(app);
  await app.register(async (api) => {
    registerRest(api, { engine, formats: defaultFormats(), principal });
    await registerGraphql(api, { engine, principal, toApiError, path: '/graphql' });
  }, { prefix: '/api' });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
}, 180_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function call(method: string, path: string, o: { body?: unknown; accept?: string; company?: string } = {}) {
  const headers: Record<string, string> = { 'x-company': o.company ?? 'A' };
  if (o.accept) headers.accept = o.accept;
  if (o.body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  const res = await fetch(url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined };
}
const graphql = (query: string, company = 'A') => call('POST', '/api/graphql', { body: { query }, company });

describe('a resource added by one descriptor file', () => {
  it('is served by REST: create, validation, filters, order, formats, update, delete, tenancy', async () => {
    const client = await call('POST', '/api/clients', { body: { name: 'Initech' } });
    expect(client.status).toBe(201);
    const created = await call('POST', '/api/expenses', { body: { client: client.body['@id'], label: 'Taxi to the airport', amount: 4250 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/expenses/${created.body.id}`);
    expect(created.body).toMatchObject({ '@type': 'Expense', client: client.body['@id'], label: 'Taxi to the airport', amount: 4250 });
    await call('POST', '/api/expenses', { body: { client: client.body.id, label: 'Hotel', amount: 18900 } });

    const invalid = await call('POST', '/api/expenses', { body: { client: client.body['@id'], label: '', amount: 0 } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort()).toEqual(['amount', 'label']);
    expect((await call('POST', '/api/expenses', { body: { label: 'x', amount: 1, colour: 'red' } })).status).toBe(400);

    const filtered = await call('GET', '/api/expenses?label=taxi');
    expect(filtered.body).toMatchObject({ totalItems: 1, member: [{ label: 'Taxi to the airport' }] });
    const ordered = await call('GET', '/api/expenses?order[label]=asc', { accept: 'application/json' });
    expect(ordered.body.map((e: { label: string }) => e.label)).toEqual(['Hotel', 'Taxi to the airport']);
    expect(ordered.headers.get('x-total-count')).toBe('2');
    const hal = await call('GET', `/api/expenses/${created.body.id}`, { accept: 'application/hal+json' });
    expect(hal.body._links.self.href).toBe(`/api/expenses/${created.body.id}`);

    const patched = await call('PATCH', `/api/expenses/${created.body.id}`, { body: { amount: 3900 } });
    expect(patched.status).toBe(200);
    expect(patched.body.amount).toBe(3900);

    expect((await call('GET', `/api/expenses/${created.body.id}`, { company: 'B' })).status).toBe(403);
    expect((await call('GET', '/api/expenses', { company: 'B' })).body.totalItems).toBe(0);

    expect((await call('DELETE', `/api/expenses/${created.body.id}`)).status).toBe(204);
    expect((await call('GET', `/api/expenses/${created.body.id}`)).status).toBe(404);
  });

  it('is served by GraphQL: a connection with its filters, the item, create and update mutations', async () => {
    const client = (await call('POST', '/api/clients', { body: { name: 'Globex' } })).body['@id'];
    const made = await graphql(`mutation { createExpense(input: {client: "${client}", label: "Train", amount: 7700}) { expense { id _id label amount client { name } } } }`);
    expect(made.status).toBe(200);
    const e = made.body.data.createExpense.expense;
    expect(e).toMatchObject({ id: `/api/expenses/${e._id}`, label: 'Train', amount: 7700, client: { name: 'Globex' } });

    const list = await graphql(`{ expenses(label: "trai", first: 10) { totalCount edges { node { label } } } }`);
    expect(list.body.data.expenses).toEqual({ totalCount: 1, edges: [{ node: { label: 'Train' } }] });
    const updated = await graphql(`mutation { updateExpense(input: {id: "${e.id}", amount: 8800}) { expense { amount } } }`);
    expect(updated.body.data.updateExpense.expense.amount).toBe(8800);
    const invalid = await graphql(`mutation { updateExpense(input: {id: "${e.id}", label: ""}) { expense { label } } }`);
    expect(invalid.body.errors[0].extensions.status).toBe(422);

    expect((await graphql(`{ expense(id: "${e.id}") { label } }`, 'B')).body.data.expense).toBeNull();
    expect((await graphql(`{ expense(id: "${e.id}") { label } }`)).body.data.expense.label).toBe('Train');
  });
});
