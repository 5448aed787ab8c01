// Importing clients from CSV (CONTRACT §21): `POST /api/clients/import`, all rows or none. Errors
// in three rows change nothing and are all listed (row and column); a dry run answers what would
// be created and changes nothing; 10,000 rows import in one transaction; unknown columns, a file
// that is not UTF-8, one over the row limit: 422; over the size limit: 413; GraphQL too.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { dbState } from './support/db-state.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

type X = Record<string, any>;
let t: TestServer;
let admin: Client;
let viewer: Client;

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'a@import.test', company: 'Import Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'v@import.test', company: 'Import Co', role: 'viewer' }));
  expect((await admin.post('/api/clients', { name: 'Already There' })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

const post = (c: Client, body: string | Buffer, query = '', contentType = 'text/csv') =>
  fetch(`${t.url}/api/clients/import${query}`, { method: 'POST', headers: { 'x-api-token': c.token, 'content-type': contentType, accept: 'application/json' }, body: body as BodyInit }).then(async (res) => ({ status: res.status, body: (await res.json()) as X }));

const count = async (table: string) => rowsOf<{ n: number }>(await t.db.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;

const HEADER = 'name,currency,website,vatNumber,email,firstName,lastName,street1,zip,city,country';

describe('importing clients from CSV', () => {
  it('lists every row and column in error, and changes nothing', async () => {
    const file = [
      HEADER,
      'Good One,EUR,https://good.example,,ann@good.example,Ann,,1 Main St,1000,Brussels,BE',
      'Bad Currency,EURO,,,,,,,,,', // line 3: currency
      '"Quoted, Name",USD,,,not-an-email,Bob,,,,,', // line 4: email
      'Good Two,,,,,,,,,,',
      ',EUR,,,,,,,,,XX', // line 6: name (blank) and country
      'already there,EUR,,,,,,,,,', // line 7: name taken (ignoring case)
    ].join('\r\n');
    const before = await dbState(t.db.database.db);
    const res = await post(admin, file);
    expect(res.status).toBe(422);
    const paths = res.body.violations.map((v: X) => v.propertyPath);
    expect(paths).toEqual(expect.arrayContaining(['rows[3].currency', 'rows[4].email', 'rows[6].name', 'rows[6].country', 'rows[7].name']));
    expect(paths.every((p: string) => /^rows\[(3|4|6|7)\]\./.test(p))).toBe(true);
    expect(await dbState(t.db.database.db)).toEqual(before);
    // The same file as a dry run: the same answer.
    expect((await post(admin, file, '?dryRun=true')).body.violations).toEqual(res.body.violations);
  });

  it('answers a dry run with what would be created, changing nothing; then imports it with contacts and addresses', async () => {
    const file = `${HEADER}\nAcme SA,,https://acme.example,BE0123456749,jo@acme.example,Jo,Doe,Rue 1,1000,Brussels,BE\n"=Formula ""Ltd""",USD,,,,,,,,,\nÜnïcödé 日本,JPY,,,,,,,,,\n`;
    const before = await dbState(t.db.database.db);
    const dry = await post(admin, file, '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      dryRun: true, created: 3,
      clients: [
        { line: 2, name: 'Acme SA', currency: 'EUR', client: null, contact: true, address: true },
        { line: 3, name: '=Formula "Ltd"', currency: 'USD', client: null, contact: false, address: false },
        { line: 4, name: 'Ünïcödé 日本', currency: 'JPY', client: null, contact: false, address: false },
      ],
    });
    expect(await dbState(t.db.database.db)).toEqual(before);
    const res = await post(admin, file);
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(3);
    const acme = (await admin.get(res.body.clients[0].client)).body;
    expect(acme).toMatchObject({ name: 'Acme SA', currency: 'EUR', website: 'https://acme.example', vatNumber: 'BE0123456749' });
    expect((await admin.get(`/api/contacts?client=${acme.id}`)).body.member).toMatchObject([{ firstName: 'Jo', lastName: 'Doe', email: 'jo@acme.example' }]);
    expect((await admin.get(`/api/addresses?client=${acme.id}`)).body.member).toMatchObject([{ street1: 'Rue 1', zip: '1000', city: 'Brussels', country: 'BE' }]);
    // Importing it again: every name is taken, nothing changes.
    const again = await post(admin, file);
    expect(again.status).toBe(422);
    expect(again.body.violations.map((v: X) => v.propertyPath)).toEqual(['rows[2].name', 'rows[3].name', 'rows[4].name']);
  });

  it('refuses unknown columns, a file that is not UTF-8, too many rows, a body too large, the wrong type, and viewers', async () => {
    const before = await dbState(t.db.database.db);
    const unknown = await post(admin, 'name,colour\nX,red\n');
    expect(unknown.status).toBe(422);
    expect(unknown.body.violations[0].message).toContain('"colour"');
    const latin1 = await post(admin, Buffer.from('name\nCaf\xe9 Latin\n', 'latin1'));
    expect(latin1.status).toBe(422);
    expect(latin1.body.violations[0].message).toMatch(/UTF-8/);
    const many = await post(admin, `name\n${Array.from({ length: 10_001 }, (_, i) => `Many ${i}`).join('\n')}\n`);
    expect(many.status).toBe(422);
    expect(many.body.violations[0].message).toMatch(/10,000/);
    const huge = await post(admin, `name\n${'x'.repeat(5 * 1024 * 1024)}\n`);
    expect(huge.status).toBe(413);
    expect((await post(admin, '{"name":"x"}', '', 'application/json')).status).toBe(415);
    expect((await post(admin, 'name\n"unterminated\n')).status).toBe(422);
    expect((await post(viewer, 'name\nViewer Co\n')).status).toBe(403);
    expect(await dbState(t.db.database.db)).toEqual(before);
  });

  it('imports through GraphQL', async () => {
    const q = 'mutation($csv: String!) { importClient(input: {csv: $csv, dryRun: false}) { clientImport { dryRun created clients { line name client } } } }';
    const res = await call(t, 'POST', '/api/graphql', { token: admin.token, contentType: 'application/json', body: { query: q, variables: { csv: 'name\nGraph Co\n' } } });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.importClient.clientImport).toMatchObject({ dryRun: false, created: 1, clients: [{ line: 2, name: 'Graph Co' }] });
    const bad = await call(t, 'POST', '/api/graphql', { token: admin.token, contentType: 'application/json', body: { query: q, variables: { csv: 'name,currency\nX,NOPE\n' } } });
    expect(bad.body.errors[0].extensions.status).toBe(422);
  });

  it('imports 10,000 rows in one transaction', async () => {
    const clients = await count('clients');
    const rows = Array.from({ length: 10_000 }, (_, i) => `Bulk client ${i},USD,https://c${i}.example,,c${i}@bulk.example,First${i},Last,Street ${i},${i},City,FR`);
    const file = `${HEADER}\n${rows.join('\n')}\n`;
    // One transaction: the rows' creates share one transaction id (xmin).
    const res = await post(admin, file);
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(10_000);
    expect(await count('clients')).toBe(clients + 10_000);
    const [tx] = rowsOf<{ n: number }>(await t.db.database.db.execute(sql`select count(distinct xmin::text)::int as n from clients where name like 'Bulk client %'`));
    expect(tx!.n).toBe(1);
    const [contacts] = rowsOf<{ n: number }>(await t.db.database.db.execute(sql`select count(*)::int as n from contacts where email like '%@bulk.example'`));
    expect(contacts!.n).toBe(10_000);
  }, 600_000);
});
