// The compiled GraphQL reads mark a value the resolvers cannot serialise with a JSON object whose
// key no response can contain (engine/graphql/compiled/values.ts). Text that looks like the mark
// is only text: such records are still compiled, and answered as the resolvers answer them.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../engine/types.ts';
import { createEngine } from '../engine/operations.ts';
import { createCompiler, type CompiledReads } from '../engine/graphql/compile.ts';
import { aliasRule, DEFAULT_LIMITS, depthRule, introspectionRule } from '../engine/graphql/limits.ts';
import { buildGraphqlSchema } from '../engine/graphql/schema.ts';
import { UNSERVABLE_TEXT } from '../engine/graphql/compiled/values.ts';
import { rowsOf } from '../server/db.ts';
import { model, tables } from '../server/model.ts';
import { lookupToken } from '../server/access/tokens.ts';
import { call, client, startTestServer, tokenFor, type TestServer } from './helpers.ts';

let t: TestServer;
let compiler: CompiledReads;
let token: string;
let principal: Principal;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  token = await tokenFor(t, { email: 'mark@unservable.test', company: 'Mark Co' });
  principal = (await lookupToken(t.db.database.db, token))!;
  const engine = createEngine(t.db.database.db, model, tables, { raw: t.db.database.raw });
  compiler = createCompiler({
    schema: buildGraphqlSchema(model, engine),
    engine,
    limits: DEFAULT_LIMITS,
    rules: [depthRule(DEFAULT_LIMITS), aliasRule(DEFAULT_LIMITS), introspectionRule()],
    maxTokens: 20_000,
  })!;
});
afterAll(() => t.close());

const gql = async (query: string) => (await call(t, 'POST', '/api/graphql', { token, body: { query }, contentType: 'application/json' })).body;

describe('the mark of an unservable value', () => {
  it('is never taken for text that looks like it', async () => {
    const api = client(t, token);
    const names = [UNSERVABLE_TEXT, `x${UNSERVABLE_TEXT}y`, '"}{"!":0}', '{\\"!\\":0}', '{"!" : 0}'];
    for (const name of names) expect((await api.post('/api/clients', { name, notes: UNSERVABLE_TEXT })).status).toBe(201);
    const query = '{ clients(order: [{name: "ASC"}]) { edges { node { name notes } } } }';
    const data = await compiler.run(query, undefined, undefined, principal);
    expect(data).toBeDefined();
    const served = JSON.parse(data!);
    expect(served.clients.edges.map((e: { node: { name: string } }) => e.node.name).sort()).toEqual([...names].sort());
    expect({ data: served }).toEqual(await gql(query));
  });

  it('sends a value out of its scalar’s range to the resolvers, which refuse it', async () => {
    const api = client(t, token);
    const c = (await api.post('/api/clients', { name: 'Huge' })).body;
    const invoice = (await api.post('/api/invoices', { client: c['@id'] })).body;
    await t.db.database.db.execute(sql`update invoices set total = 9007199254740993 where id = ${invoice.id}`);
    const query = '{ invoices { edges { node { number total } } } }';
    expect(await compiler.run(query, undefined, undefined, principal)).toBeUndefined();
    const res = await gql(query);
    expect(res.errors?.[0]?.message).toMatch(/Money must be a whole number/);
    const [row] = rowsOf<{ total: string }>(await t.db.database.db.execute(sql`select total::text from invoices where id = ${invoice.id}`));
    expect(row!.total).toBe('9007199254740993');
  });
});
