// Hand-picked hostile GraphQL: prototype keys, SQL metacharacters in every filter argument, huge
// and deeply nested documents and variables, aliases and limits on mutations (refused before
// anything runs, so nothing is written), bodies over 1 MiB, raw invalid bytes. Never a 5xx, every
// error in `errors`, and the database unchanged by every refused mutation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerFirst } from '../engine/names.ts';
import { model } from '../server/model.ts';
import { call, startTestServer, tokenFor, type Res, type TestServer } from './helpers.ts';
import { dbState } from './support/db-state.ts';
import { Seeder } from './support/samples.ts';

let t: TestServer;
let token: string;
let seeder: Seeder;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '1000000' });
  token = await tokenFor(t, { email: 'g@g.test', company: 'G' });
  seeder = new Seeder(t, token);
  await seeder.seedAll();
}, 120_000);
afterAll(() => t?.close());

const gql = (query: string, variables?: unknown, extra: Record<string, unknown> = {}) =>
  call(t, 'POST', '/api/graphql', { token, body: { query, variables, ...extra }, contentType: 'application/json' });

function expectRefused(res: Res, label: string, message?: RegExp) {
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(Array.isArray(res.body?.errors) && res.body.errors.length > 0, `${label}: ${res.text.slice(0, 300)}`).toBe(true);
  expect(res.text, label).not.toMatch(/Internal Server Error|node_modules|at [\w.]+ \(/);
  if (message) expect(res.body.errors[0].message, label).toMatch(message);
}

/** Runs `fn` and checks that no table changed meanwhile. */
async function unchanged(fn: () => Promise<void>) {
  const before = await dbState(t.db.database.db);
  await fn();
  expect(await dbState(t.db.database.db)).toEqual(before);
}

const clientIri = () => seeder.first('Client')!;

describe('prototype keys', () => {
  it('__proto__, constructor and prototype in input objects are unknown fields, and pollute nothing', async () => {
    await unchanged(async () => {
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const input = JSON.parse(`{"name": "p-${key}", "${key}": {"polluted": true}}`);
        const res = await gql('mutation($input: createClientInput!) { createClient(input: $input) { client { id } } }', { input });
        expectRefused(res, key);
      }
      const res = await call(t, 'POST', '/api/graphql', { token, rawBody: '{"query":"{ clients { totalCount } }","__proto__":{"polluted":true},"variables":{"__proto__":{"polluted":true}}}', contentType: 'application/json' });
      expect(res.status).toBeLessThan(500);
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('SQL metacharacters in every filter argument', () => {
  it('match nothing or are refused, never a 5xx', async () => {
    for (const r of model.resources.filter((x) => x.graphql.has('query'))) {
      for (const f of r.filters) {
        for (const v of ["' OR '1'='1", '%', '_', '\\', "'; drop table clients; --", '\u0000', '$1']) {
          const arg = f.filter === 'date' ? `${f.name}: [{after: $v}]` : `${f.name}: $v`;
          const res = await gql(`query($v: ${f.kind === 'integer' ? 'Int' : 'String'}) { ${r.plural}(${arg}) { totalCount } }`, { v });
          expect(res.status, `${r.plural} ${f.name} ${v}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
          if (res.body.errors) expectRefused(res, `${r.plural}(${f.name}: ${JSON.stringify(v)})`);
          else if (f.filter === 'partial' && v !== '%' && v !== '_') expect(res.body.data[r.plural].totalCount, `${r.plural}(${f.name}: ${v})`).toBe(0);
        }
      }
    }
  }, 120_000);
});

describe('huge and deep documents', () => {
  it('a document of more than 20,000 tokens is refused before parsing it all', async () => {
    const res = await gql(`{ ${Array.from({ length: 25_000 }, () => '__typename').join(' ')} }`);
    expectRefused(res, 'tokens', /tokens/i);
  });

  it('1,000 levels of nested selections are refused, not a stack overflow', async () => {
    const res = await gql(`${'{ clients { edges { node '.repeat(200)}{ id }${' } } }'.repeat(200)}`);
    expectRefused(res, 'deep');
  });

  it('deeply nested variables and lists of lists are refused', async () => {
    const deep = JSON.parse(`${'['.repeat(3000)}${']'.repeat(3000)}`);
    const res = await gql('query($v: [String]) { clients(name_list: $v) { totalCount } }', { v: deep });
    expectRefused(res, 'deep variables');
    let nested: unknown = 'x';
    for (let i = 0; i < 2000; i++) nested = { name: nested };
    expectRefused(await gql('query($o: [ClientFilter_order]) { clients(order: $o) { totalCount } }', { o: [nested] }), 'deep object');
  });

  it('a fragment that spreads itself is refused', async () => {
    expectRefused(await gql('{ clients { ...A } } fragment A on ClientCursorConnection { totalCount ...A }'), 'cycle', /within itself/);
  });

  it('the same field a thousand times through repeated fragment spreads costs what it selects', async () => {
    const res = await gql(`{ clients { ...F ${'...F '.repeat(999)} } } fragment F on ClientCursorConnection { totalCount }`);
    expect(res.status).toBeLessThan(500);
  });
});

describe('limits on mutations: refused before anything runs', () => {
  it('31 aliased creates: refused, none written', async () => {
    await unchanged(async () => {
      const many = Array.from({ length: 31 }, (_, i) => `c${i}: createClient(input: {name: "alias ${i}"}) { client { id } }`).join(' ');
      expectRefused(await gql(`mutation { ${many} }`), 'aliases', /aliases/);
    });
  });

  it('a create whose selection is too deep: refused, nothing written', async () => {
    await unchanged(async () => {
      const deep = 'client { invoices { edges { node { client { invoices { edges { node { client { name } } } } } } } } }';
      expectRefused(await gql(`mutation { createInvoice(input: {client: "${clientIri()}"}) { invoice { ${deep} } } }`), 'depth', /too deep/);
    });
  });

  it('a create whose selection is too expensive (page sizes from variables): refused, nothing written', async () => {
    await unchanged(async () => {
      const res = await gql(
        `mutation($n: Int) { createClient(input: {name: "costly"}) { client { invoices(first: $n) { edges { node { ${[1, 2, 3, 4, 5].map((i) => `l${i}: lines(first: $n) { edges { node { id description qty price total } } }`).join(' ')} } } } } } }`,
        { n: 30 },
      );
      expectRefused(res, 'cost', /too expensive/);
    });
  });

  it('first: 31 on a mutation\'s payload: refused, nothing written', async () => {
    await unchanged(async () => expectRefused(await gql(`mutation { createClient(input: {name: "page"}) { client { invoices(first: 31) { totalCount } } } }`), 'page', /between 0 and 30/));
  });

  it('two mutations in one document run one after the other; a refused one changes nothing', async () => {
    const before = await dbState(t.db.database.db);
    const res = await gql(`mutation { ok: createTax(input: {name: "two-1", rate: 1}) { tax { id } } bad: createTax(input: {name: "two-2", rate: 1000}) { tax { id } } }`);
    expect(res.body.data.ok.tax.id).toMatch(/^\/api\/taxes\//);
    expect(res.body.data.bad).toBeNull();
    const after = await dbState(t.db.database.db);
    expect(after.taxes!.rows).toBe(before.taxes!.rows + 1);
  });
});

describe('transport', () => {
  it('a body over 1 MiB is a 413 in the GraphQL shape', async () => {
    await unchanged(async () => {
      const res = await gql('mutation($n: String!) { createClient(input: {name: $n}) { client { id } } }', { n: 'x'.repeat(1024 * 1024 + 1) });
      expect(res.status).toBe(413);
      expectRefused(res, '413');
      expect(res.body.errors[0].extensions.status).toBe(413);
    });
  });

  it('invalid UTF-8, a batch array, a non-JSON body and a wrong content type are 4xx GraphQL errors', async () => {
    const cases: [string, BodyInit, string][] = [
      ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x71, 0x75, 0x65, 0x72, 0x79, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'application/json'],
      ['batch', JSON.stringify([{ query: '{ clients { totalCount } }' }]), 'application/json'],
      ['not JSON', '{ clients { totalCount } }', 'application/json'],
      ['form', 'query=%7B__typename%7D', 'application/x-www-form-urlencoded'],
      ['query not a string', JSON.stringify({ query: { a: 1 } }), 'application/json'],
      ['variables a string', JSON.stringify({ query: '{ __typename }', variables: '{"a":1}' }), 'application/json'],
    ];
    for (const [label, body, type] of cases) {
      const res = await fetch(`${t.url}/api/graphql`, { method: 'POST', headers: { 'x-api-token': token, 'content-type': type }, body });
      const text = await res.text();
      // Bytes that are not UTF-8 decode to U+FFFD: a syntax error of the document (200, as any).
      expect(res.status, `${label}: ${text}`).toBeGreaterThanOrEqual(label === 'invalid UTF-8' ? 200 : 400);
      expect(res.status, label).toBeLessThan(500);
      expect(JSON.parse(text).errors[0].message, label).toEqual(expect.any(String));
    }
  });

  it('a single-item query with garbage ids answers null or an error, never a 5xx', async () => {
    for (const r of model.resources.filter((x) => x.graphql.has('query'))) {
      for (const id of ['', ' ', '\u0000', '../../etc', `${r.iri}/`, `${r.iri}/x`, `${r.iri}/${'f'.repeat(10_000)}`, '/api/clients/00000000-0000-0000-0000-000000000000']) {
        const res = await gql(`query($id: ID!) { ${lowerFirst(r.name)}(id: $id) { id } }`, { id });
        expect(res.status, `${r.name} ${JSON.stringify(id).slice(0, 40)}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
        if (!res.body.errors) expect(res.body.data[lowerFirst(r.name)]).toBeNull();
      }
    }
  });
});
