// Property-based hostile input. REST: for every operation of the OpenAPI document the server
// serves, random bodies from the operation's own schema (in each accepted media type), mutated
// (wrong types, missing and extra fields, __proto__, huge, unicode and NUL strings, deep
// nesting), with random path and query parameters. GraphQL: random queries and mutations built
// from the schema the server reports through introspection, with random variables.
// Whatever comes in: never a 5xx; every REST error is problem+json; every GraphQL error is in
// `errors`; and a rejected write leaves every table exactly as it was.
// FUZZ_RUNS (default 12) sets the number of requests per REST operation; GraphQL gets 25×.
import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery, getNamedType, isInputType, isLeafType, isObjectType, isInterfaceType, typeFromAST, parseType, type GraphQLField, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, tokenFor, type Res, type TestServer } from './helpers.ts';
import { forInputType, fromSchema, mutation, nastyString, type SchemaContext } from './support/arbitraries.ts';
import { dbState } from './support/db-state.ts';
import { Seeder } from './support/samples.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

let t: TestServer;
let token: string;
let doc: any;
/** IRIs that exist, by collection path (kept up to date as the fuzzer creates and deletes). */
const known = new Map<string, Set<string>>();

function remember(iri: string) {
  const prefix = iri.slice(0, iri.lastIndexOf('/'));
  if (!known.has(prefix)) known.set(prefix, new Set());
  known.get(prefix)!.add(iri);
}

beforeAll(async () => {
  // The server logs its errors here (to the test's output): no input may cause one, and when one
  // does, its log says where (the response never does).
  t = await startTestServer({ RATE_LIMIT_MAX: '1000000', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error' });
  token = await tokenFor(t, { email: 'fuzz@f.test', company: 'Fuzz' });
  // Two of everything, so that valid references exist and deletes have something to delete.
  const seeder = new Seeder(t, token);
  await seeder.seedAll();
  await seeder.seedAll();
  for (const iris of seeder.records.values()) for (const iri of iris) remember(iri);
  doc = (await call(t, 'GET', '/api/docs.json')).body;
}, 120_000);
afterAll(() => t?.close());

const ctx: SchemaContext = {
  resolve: (ref) => doc.components.schemas[ref.replace('#/components/schemas/', '')],
  iris: (prefix) => [...(known.get(prefix) ?? [])],
};

/** Percent-encodes any string, lone surrogates included (they travel as U+FFFD's bytes). */
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** Runs a property; a failure reports its first 1,500 characters (counterexamples can be megabytes). */
async function check<T>(prop: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  const out = await fc.check(prop, { numRuns, endOnFailure: true });
  if (out.failed) {
    const why = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
    throw new Error(`after ${out.numRuns} runs (seed ${out.seed}, path ${out.counterexamplePath}):\n${why.slice(0, 1500)}`);
  }
}

function expectSane(res: Res, label: string) {
  label = `${label.slice(0, 600)} → ${res.status}`;
  expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.text, label).not.toMatch(/Internal Server Error|at [\w.<>]+ \(.*:\d+:\d+\)|node_modules/);
  if (res.status >= 400) {
    expect(res.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
    expect(res.body, label).toMatchObject({ status: res.status, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
  }
}

interface Operation {
  method: string;
  path: string;
  op: any;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) out.push({ method: method.toUpperCase(), path, op: item[method] });
  }
  return out;
}

/** A random request for an operation: path parameters, query parameters, a (mutated) body. */
function requestFor(o: Operation) {
  const params: any[] = o.op.parameters ?? [];
  const collection = o.path.replace(/\/\{[^}]+\}$/, '');
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params.filter((x) => x.in === 'path')) {
    const ids = ctx.iris(collection).map((i) => i.split('/').pop()!);
    pathArbs[p.name] = fc.oneof(
      { weight: 4, arbitrary: ids.length ? fc.constantFrom(...ids) : fc.uuid() },
      fc.uuid(),
      nastyString.map(pct),
      fc.constantFrom('Client', 'Invoice', 'Nope', '%00', '..%2F..', '%E0%A4%A', '%C0%AE'),
    );
  }
  const queryArb = fc.subarray(params.filter((x) => x.in === 'query')).chain((qs) =>
    fc.tuple(...qs.map((q) => fc.oneof(fromSchema(q.schema ?? {}, ctx).map((v) => (Array.isArray(v) ? v : [v])), nastyString.map((s) => [s])).map((vs) => vs.map((v) => `${pct(q.name)}=${pct(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&')))),
  );
  const content: Record<string, any> = o.op.requestBody?.content ?? {};
  const bodyArb = Object.keys(content).length
    ? fc.constantFrom(...Object.keys(content)).chain((type) => fc.tuple(fc.constant(type), fromSchema(content[type].schema, ctx), mutation))
    : fc.constant(null);
  return fc.record({ path: fc.record(pathArbs), query: queryArb, body: bodyArb });
}

describe('REST operations from the OpenAPI document', () => {
  it('the document lists every operation the fuzzer drives', () => {
    expect(operations().length).toBeGreaterThan(40);
  });

  it(`never answers 5xx, always problem+json on errors, and rejected writes change nothing (${RUNS} requests per operation)`, async () => {
    const seen = new Map<number, number>();
    for (const o of operations()) {
      await check(
        fc.asyncProperty(requestFor(o), async (req) => {
          let path = o.path;
          for (const [k, v] of Object.entries(req.path)) path = path.replace(`{${k}}`, v);
          if (req.query.length) path += `?${req.query.join('&')}`;
          const headers: Record<string, string> = { 'x-api-token': token, accept: 'application/ld+json' };
          let body: string | undefined;
          let label = `${o.method} ${path.slice(0, 200)}`;
          if (req.body) {
            const [type, valid, m] = req.body;
            headers['content-type'] = type;
            body = JSON.stringify(m.apply(valid)) ?? 'null';
            label += ` [${type}, ${m.kind}] ${body.slice(0, 300)}`;
          }
          const write = o.method !== 'GET';
          const before = write ? await dbState(t.db.database.db) : undefined;
          const res = await call(t, o.method, path, { headers, rawBody: body, contentType: headers['content-type'] });
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          expectSane(res, label);
          if (write && res.status >= 400) expect(await dbState(t.db.database.db), `${label} changed the database`).toEqual(before);
          if (res.status === 201 && res.headers.get('location')) remember(res.headers.get('location')!);
          if (res.status === 204) known.get(o.path.replace(/\/\{[^}]+\}$/, ''))?.delete(path.split('?')[0]!);
        }),
        RUNS,
      );
    }
    // The fuzzer reached both sides: accepted writes and each kind of refusal.
    for (const status of [200, 201, 400, 404, 422]) expect(seen.get(status) ?? 0, `status ${status} in ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
  }, 600_000);
});

// ---- GraphQL ----------------------------------------------------------------------------------

/** A small deterministic PRNG, so that a failing case is reproduced by its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random selection set for `type`, at most `depth` levels deep, with page sizes kept small. */
function selection(type: GraphQLNamedType, rand: () => number, depth: number): string {
  if (isLeafType(type)) return '';
  if (!isObjectType(type) && !isInterfaceType(type)) return '{ __typename }';
  const fields = Object.values(type.getFields()) as GraphQLField<unknown, unknown>[];
  const picked: string[] = [];
  for (const f of fields) {
    if (rand() > 0.35 && picked.length) continue;
    const named = getNamedType(f.type);
    if (!isLeafType(named) && depth <= 1) continue;
    const args = f.args.some((a) => a.name === 'first') ? `(first: ${Math.floor(rand() * 4)})` : '';
    const alias = rand() < 0.05 ? `a${picked.length}: ` : '';
    picked.push(`${alias}${f.name}${args} ${isLeafType(named) ? '' : selection(named, rand, depth - 1)}`);
  }
  return `{ ${picked.length ? picked.join(' ') : '__typename'} }`;
}

describe('GraphQL operations from introspection', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    const res = await call(t, 'POST', '/api/graphql', { token, body: { query: getIntrospectionQuery() }, contentType: 'application/json' });
    schema = buildClientSchema(res.body.data);
  });

  const gqlRequest = () => {
    const roots = [
      ...Object.values(schema.getQueryType()!.getFields()).map((f) => ['query', f] as const),
      ...Object.values(schema.getMutationType()!.getFields()).map((f) => ['mutation', f] as const),
    ];
    const ids = fc.oneof(fc.constantFrom(...[...known.values()].flatMap((s) => [...s])), fc.uuid(), fc.constantFrom('/api/clients/x', '/api/nope/00000000-0000-7000-8000-000000000000'));
    return fc.constantFrom(...roots).chain(([kind, field]) =>
      fc.record({
        kind: fc.constant(kind),
        field: fc.constant(field),
        args: fc.record(Object.fromEntries(field.args.map((a) => [a.name, forInputType(a.type, ids)])), { requiredKeys: field.args.filter((a) => String(a.type).endsWith('!')).map((a) => a.name) }),
        // Sometimes a variable of the wrong type altogether.
        wrong: fc.option(fc.tuple(fc.constantFrom(...(field.args.length ? field.args.map((a) => a.name) : ['x'])), fc.oneof(nastyString, fc.jsonValue({ maxDepth: 2 }))), { freq: 5 }),
        seed: fc.integer(),
        depth: fc.integer({ min: 1, max: 6 }),
      }),
    );
  };

  it(`never answers 5xx, always reports errors in "errors", and refused mutations change nothing (${RUNS * 25} documents)`, async () => {
    let ran = 0;
    let refused = 0;
    await check(
      fc.asyncProperty(gqlRequest(), async ({ kind, field, args, wrong, seed, depth }) => {
        const variables: Record<string, unknown> = { ...args };
        if (wrong) variables[wrong[0]] = wrong[1];
        const defs = field.args.map((a) => `$${a.name}: ${String(a.type)}`);
        const useArgs = field.args.map((a) => `${a.name}: $${a.name}`);
        const named = getNamedType(field.type);
        const sel = isLeafType(named) ? '' : selection(named, prng(seed), depth);
        const query = `${kind} Fuzz${defs.length ? `(${defs.join(', ')})` : ''} { ${field.name}${useArgs.length ? `(${useArgs.join(', ')})` : ''} ${sel} }`;
        const label = `${query} ${JSON.stringify(variables).slice(0, 300)}`;
        const before = kind === 'mutation' ? await dbState(t.db.database.db) : undefined;
        const res = await call(t, 'POST', '/api/graphql', { token, body: { query, variables }, contentType: 'application/json' });
        expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
        expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
        expect(res.text, label).not.toMatch(/Internal Server Error|at [\w.<>]+ \(.*:\d+:\d+\)|node_modules/);
        const errors = res.body.errors as { message: unknown }[] | undefined;
        if (errors) {
          expect(errors.length, label).toBeGreaterThan(0);
          for (const e of errors) expect(typeof e.message, label).toBe('string');
        }
        if (!errors) ran++;
        if (kind === 'mutation' && (errors || res.status !== 200) && !res.body.data?.[field.name]) {
          refused++;
          expect(await dbState(t.db.database.db), `${label} changed the database`).toEqual(before);
        }
      }),
      RUNS * 25,
    );
    // Both sides were reached: documents that ran and mutations that were refused.
    expect(ran).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 600_000);

  it('variable types in the generated documents are the schema\'s own', () => {
    // A sanity check of the generator: every argument type it declares parses against the schema.
    for (const f of Object.values(schema.getMutationType()!.getFields())) {
      for (const a of f.args) expect(isInputType(typeFromAST(schema, parseType(String(a.type)) as never))).toBe(true);
    }
  });
});
