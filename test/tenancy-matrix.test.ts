// Tenancy, generated from the model: for every resource × operation × interface, a token of
// company B never sees, counts or changes company A's data. Both companies get one record of
// every resource (test/support/samples.ts derives valid input from the descriptors), then B
// tries everything on A's records. A new resource is covered by this file without new code.
//
// "Never sees" is checked on the raw text of every response B gets: none of A's record ids
// (bare, hence also inside IRIs) may appear in it, in any format. "Never changes" is checked on
// the database: row counts and checksums of every table are the same after all of B's attempts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelField, ModelResource } from '../engine/model.ts';
import { lowerFirst } from '../engine/names.ts';
import { rowsOf } from '../server/db.ts';
import { model } from '../server/model.ts';
import { call, startTestServer, tokenFor, type Res, type TestServer } from './helpers.ts';
import { dbState, type DbState } from './support/db-state.ts';
import { graphqlBody, sampleBody, Seeder } from './support/samples.ts';

let t: TestServer;
let A: Seeder;
let B: Seeder;
let companyB: string;
/** Every id of a record of company A, in any table (lines included). */
let aIds: string[];
let before: DbState;
/** A valid create body of B for each resource, made before `before` (a rule may create records for it). */
const bBodies = new Map<string, Record<string, unknown>>();

// The resources of the engine's tables; those the server stores itself (the company profile, API
// tokens, people: a provider of their own) have their tenancy tests beside them (company.test.ts,
// api-tokens.test.ts, people.test.ts).
const restResources = model.resources.filter((r) => r.rest.size > 0 && !r.provider);
const gqlResources = model.resources.filter((r) => r.graphql.has('query') && !r.provider);

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  A = new Seeder(t, await tokenFor(t, { email: 'a@a.test', company: 'Tenant A' }));
  B = new Seeder(t, await tokenFor(t, { email: 'b@b.test', company: 'Tenant B' }));
  await A.seedAll();
  await B.seedAll();
  const db = t.db.database.db;
  const companies = rowsOf<{ id: string; name: string }>(await db.execute(sql`select id, name from companies`));
  const companyA = companies.find((c) => c.name === 'Tenant A')!.id;
  companyB = companies.find((c) => c.name === 'Tenant B')!.id;
  aIds = [];
  for (const r of model.resources) {
    if (r.provider) continue; // no table (the reports)
    const rows = rowsOf<{ id: string }>(await db.execute(sql`select id from ${sql.identifier(r.table)} where company_id = ${companyA}`));
    aIds.push(...rows.map((x) => x.id.toLowerCase()));
  }
  for (const r of model.resources) if (r.rest.has('create') || r.graphql.has('create')) bBodies.set(r.name, await B.body(r));
  before = await dbState(db);
}, 180_000);
afterAll(() => t?.close());

/** The response must not mention any record of company A. */
function expectNoLeak(res: Res, label: string) {
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  const text = res.text.toLowerCase();
  const leaked = aIds.filter((id) => text.includes(id));
  expect(leaked, `${label} leaks company A's records`).toEqual([]);
}

async function countB(r: ModelResource): Promise<number> {
  const [row] = rowsOf<{ n: number }>(await t.db.database.db.execute(sql`select count(*)::int as n from ${sql.identifier(r.table)} where company_id = ${companyB}`));
  return Number(row!.n);
}

const aIri = (r: ModelResource) => A.records.get(r.name)![0]!;
const bIri = (r: ModelResource) => B.records.get(r.name)![0]!;

/** Values of A's record to filter B's collections with: the filter name and what to send. */
async function filterProbes(r: ModelResource): Promise<{ f: ModelField; value: string }[]> {
  const db = t.db.database.db;
  const [row] = rowsOf<Record<string, unknown>>(await db.execute(sql`select * from ${sql.identifier(r.table)} where id = ${aIri(r).split('/').pop()}`));
  const out: { f: ModelField; value: string }[] = [];
  for (const f of r.filters) {
    const v = row?.[f.column];
    if (v === null || v === undefined) continue;
    const value = f.kind === 'ref' ? `${model.get(f.target!).iri}/${String(v)}` : v instanceof Date ? v.toISOString() : String(v);
    out.push({ f, value });
  }
  return out;
}

/** Paths in a create body where a reference goes, with the resource it names. */
function refPaths(r: ModelResource): { path: (string | number)[]; label: string; target: string }[] {
  const out: { path: (string | number)[]; label: string; target: string }[] = [];
  for (const f of r.creatable) {
    const d = f.def;
    if (d.kind === 'ref') out.push({ path: [f.name], label: f.name, target: d.target });
    if (d.kind === 'list') for (const [n, sub] of Object.entries(d.of)) if (sub.kind === 'ref') out.push({ path: [f.name, 0, n], label: `${f.name}[0].${n}`, target: sub.target });
    if (d.kind === 'children') {
      const child = model.get(d.target);
      for (const cf of child.creatable) if (cf.def.kind === 'ref' && cf !== child.owner?.field) out.push({ path: [f.name, 0, cf.name], label: `${f.name}[0].${cf.name}`, target: cf.def.target });
    }
  }
  return out;
}

function withValue(body: Record<string, unknown>, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let cur: any = copy;
  for (const k of path.slice(0, -1)) cur = cur[k];
  cur[path.at(-1)!] = value;
  return copy;
}

const FORMATS: [string, (res: Res) => number][] = [
  ['application/ld+json', (res) => res.body.totalItems],
  ['application/json', (res) => Number(res.headers.get('x-total-count'))],
  ['application/hal+json', (res) => res.body.totalItems],
  ['application/vnd.api+json', (res) => res.body.meta.totalItems],
  ['application/xml', (res) => Number(res.headers.get('x-total-count'))],
];

describe.each(restResources.map((r) => [r.name, r] as const))('REST %s', (_name, r) => {
  it.runIf(r.rest.has('read'))('item: GET of A\'s record is a 403', async () => {
    const res = await B.rest('GET', aIri(r));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expectNoLeak(res, 'GET');
  });

  it.runIf(r.rest.has('update'))('write: PATCH of A\'s record with a valid body is a 403', async () => {
    const res = await call(t, 'PATCH', aIri(r), { token: B.token, body: sampleBody(r, (x) => B.first(x), 'update') });
    expect(res.status, res.text).toBe(403);
    expectNoLeak(res, 'PATCH');
  });

  it.runIf(r.rest.has('replace'))('write: PUT of A\'s record with a valid body is a 403', async () => {
    const res = await call(t, 'PUT', aIri(r), { token: B.token, body: sampleBody(r, (x) => B.first(x), 'create') });
    expect(res.status, res.text).toBe(403);
    expectNoLeak(res, 'PUT');
  });

  it.runIf(r.rest.has('delete'))('write: DELETE of A\'s record is a 403', async () => {
    const res = await B.rest('DELETE', aIri(r));
    expect(res.status).toBe(403);
    expectNoLeak(res, 'DELETE');
  });

  it.runIf(r.rest.has('list'))('collection: counts and lists only B\'s records, in every format', async () => {
    const n = await countB(r);
    expect(n).toBeGreaterThan(0);
    for (const [accept, total] of FORMATS) {
      const res = await call(t, 'GET', `${r.iri}?itemsPerPage=100`, { token: B.token, accept });
      expect(res.status, accept).toBe(200);
      expect(total(res), accept).toBe(n);
      expect(res.text, accept).toContain(bIri(r).split('/').pop());
      expectNoLeak(res, `${accept} list`);
    }
  });

  it.runIf(r.rest.has('list'))('collection: filtering on A\'s values finds nothing of A\'s', async () => {
    const probes = await filterProbes(r);
    for (const { f, value } of probes) {
      const q = f.filter === 'date' ? `${f.name}[after]=${encodeURIComponent(value.slice(0, 10))}` : `${f.name}=${encodeURIComponent(value)}`;
      const res = await call(t, 'GET', `${r.iri}?${q}`, { token: B.token });
      expect(res.status, q).toBe(200);
      expect(res.body.totalItems, q).toBeLessThanOrEqual(await countB(r));
      // The collection's own IRI repeats the query: B's input, not A's data.
      expectNoLeak({ ...res, text: res.text.replaceAll(q, '').replaceAll(decodeURIComponent(q), '') }, `filter ${q}`);
    }
  });

  const refs = refPaths(r);
  it.runIf(r.rest.has('create') && refs.length > 0)('write: POST naming A\'s records is a 422 on that field', async () => {
    const body = bBodies.get(r.name)!;
    for (const { path, label, target } of refs) {
      if (!A.first(target)) continue;
      const res = await call(t, 'POST', r.iri, { token: B.token, body: withValue(body, path, A.first(target)) });
      expect(res.status, `${label}: ${res.text}`).toBe(422);
      expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath), label).toContain(label);
      expectNoLeak({ ...res, text: res.text.replaceAll(A.first(target)!, '') }, label);
    }
  });

  const updatableRefs = r.updatable.filter((f) => f.kind === 'ref');
  it.runIf(r.rest.has('update') && updatableRefs.length > 0)('write: PATCH of B\'s record pointing at A\'s is a 422', async () => {
    for (const f of updatableRefs) {
      const res = await call(t, 'PATCH', bIri(r), { token: B.token, body: { [f.name]: A.first(f.target!) } });
      expect(res.status, `${f.name}: ${res.text}`).toBe(422);
    }
  });
});

/** A selection of every field of `r`: scalars, relations as `{ id }`, connections' nodes' ids. */
function selectionOf(r: ModelResource): string {
  const parts = ['id', '_id'];
  for (const f of r.fields) {
    const d = f.def;
    // A value shown once (a link's URL) is in the create's payload only, no member of the type.
    if (d.shownOnce) continue;
    if (d.kind === 'ref') parts.push(model.get(d.target).graphql.size ? `${f.name} { id }` : f.name);
    else if (d.kind === 'children') {
      if (model.get(d.target).graphql.size) parts.push(`${f.name}(first: 30) { totalCount edges { node { id } } }`);
    } else if (d.kind === 'list') {
      const subs = Object.entries(d.of).map(([n, sub]) => (sub.kind === 'ref' && model.get(sub.target).graphql.size ? `${n} { id }` : n));
      parts.push(`${f.name} { ${subs.join(' ')} }`);
    } else parts.push(f.name);
  }
  return parts.join(' ');
}

const gql = (query: string, variables?: Record<string, unknown>) => B.graphql(query, variables);

describe.each(gqlResources.map((r) => [r.name, r] as const))('GraphQL %s', (_name, r) => {
  const key = lowerFirst(r.name);

  it('single: A\'s record by IRI, by bare id and through node() is null', async () => {
    const iri = aIri(r);
    for (const id of [iri, iri.split('/').pop()!, `${r.iri}/${iri.split('/').pop()!.toUpperCase()}`]) {
      const res = await gql(`query($id: ID!) { ${key}(id: $id) { ${selectionOf(r)} } }`, { id });
      expect(res.status).toBe(200);
      expect(res.body.errors, res.text).toBeUndefined();
      expect(res.body.data[key], id).toBeNull();
      expectNoLeak(res, `${key}(id)`);
    }
    const node = await gql('query($id: ID!) { node(id: $id) { id } }', { id: iri });
    expect(node.body.data.node).toBeNull();
    expectNoLeak(node, 'node(id)');
  });

  it('collection: counts and lists only B\'s records, with every relation selected', async () => {
    const res = await gql(`{ ${r.plural}(first: 30) { totalCount edges { node { ${selectionOf(r)} } } } }`);
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data[r.plural].totalCount).toBe(await countB(r));
    expect(res.text).toContain(bIri(r));
    expectNoLeak(res, r.plural);
  });

  it('collection: filtering on A\'s values finds nothing of A\'s', async () => {
    for (const { f, value } of await filterProbes(r)) {
      const arg = f.filter === 'date' ? `${f.name}: [{after: ${JSON.stringify(value.slice(0, 10))}}]` : `${f.name}: ${f.kind === 'integer' ? value : JSON.stringify(value)}`;
      const res = await gql(`{ ${r.plural}(${arg}) { totalCount edges { node { id } } } }`);
      expect(res.body.errors, `${arg}: ${res.text}`).toBeUndefined();
      expectNoLeak(res, arg);
    }
  });

  it.runIf(r.graphql.has('update'))('mutation: update of A\'s record fails and changes nothing', async () => {
    const input = { ...graphqlBody(r, sampleBody(r, (x) => B.first(x), 'update')), id: aIri(r) };
    const res = await gql(`mutation($input: update${r.name}Input!) { update${r.name}(input: $input) { ${key} { ${selectionOf(r)} } } }`, { input });
    expect(res.body.errors?.[0]?.extensions?.status, res.text).toBe(404);
    expect(res.body.data?.[`update${r.name}`] ?? null).toBeNull();
    expectNoLeak({ ...res, text: res.text.replaceAll(aIri(r), '') }, 'update');
  });

  it.runIf(r.graphql.has('delete'))('mutation: delete of A\'s record fails and changes nothing', async () => {
    const res = await gql(`mutation($id: ID!) { delete${r.name}(input: {id: $id}) { ${key} { id } } }`, { id: aIri(r) });
    expect(res.body.errors?.[0]?.extensions?.status, res.text).toBe(404);
    expect(res.body.data?.[`delete${r.name}`] ?? null).toBeNull();
  });

  const refs = refPaths(r).filter((p) => r.byName.get(String(p.path[0]))?.kind !== 'children');
  it.runIf(r.graphql.has('create') && refs.length > 0)('mutation: create naming A\'s records is a 422 on that field', async () => {
    const body = graphqlBody(r, bBodies.get(r.name)!);
    for (const { path, label, target } of refs) {
      if (!A.first(target)) continue;
      const input = withValue(body, path, A.first(target));
      const res = await gql(`mutation($input: create${r.name}Input!) { create${r.name}(input: $input) { ${key} { id } } }`, { input });
      expect(res.body.errors?.[0]?.extensions?.status, `${label}: ${res.text}`).toBe(422);
      expect(res.body.errors[0].extensions.violations.map((v: { path: string }) => v.path), label).toContain(label);
      expect(res.body.data?.[`create${r.name}`] ?? null).toBeNull();
    }
  });
});

describe('after every attempt', () => {
  it('the database is exactly as it was: no row of either company changed', async () => {
    expect(await dbState(t.db.database.db)).toEqual(before);
  });

  it('A still reads every record it created', async () => {
    for (const [name, iris] of A.records) {
      const r = model.get(name);
      for (const iri of iris) {
        if (r.rest.has('read')) expect((await A.rest('GET', iri)).status, iri).toBe(200);
        else {
          const res = await A.graphql(`query($id: ID!) { ${lowerFirst(r.name)}(id: $id) { id } }`, { id: iri });
          expect(res.body.data[lowerFirst(r.name)]?.id, iri).toBe(iri);
        }
      }
    }
  });
});
