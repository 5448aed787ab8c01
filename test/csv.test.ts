// CSV (CONTRACT §21): `Accept: text/csv` on collections and reports, parsed back with csv-parse.
// Every record matching the filters once (several keyset windows), in the collection's order;
// money in major units with the currency column, references by number or name; cells that a
// spreadsheet would take for a formula neutralised, Unicode, quotes and newlines round-trip.
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { insertInvoices } from './support/explain.ts';
import { cell, major, textCell } from '../formats/csv.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

type X = Record<string, any>;
let t: TestServer;
let admin: Client;
let other: Client;
let companyId: string;
let bulkClient: X;

const NASTY = ['=SUM(A1:A9)', '+33 1 23', '-minus', '@handle', '\tTabbed', '\rCarriage', 'Ünïcödé 日本 🧾 "quoted", with comma\nand a newline', 'plain'];

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'a@csv.test', company: 'CSV Co', currency: 'EUR' }));
  other = client(t, await tokenFor(t, { email: 'o@csv.test', company: 'CSV Other' }));
  bulkClient = (await admin.post('/api/clients', { name: 'Bulk' })).body;
  companyId = rowsOf<{ id: string }>(await t.db.database.db.execute(sql`select company_id::text as id from clients where id = ${bulkClient.id}`))[0]!.id;
  // 1,234 invoices: three windows of the export and a part of a fourth.
  await insertInvoices(t.db.database, companyId, bulkClient.id, 1, 1234);
  const o = (await other.post('/api/clients', { name: 'Elsewhere' })).body;
  const otherCompany = rowsOf<{ id: string }>(await t.db.database.db.execute(sql`select company_id::text as id from clients where id = ${o.id}`))[0]!.id;
  await insertInvoices(t.db.database, otherCompany, o.id, 1, 300);
});
afterAll(async () => {
  await t.close();
});

async function csv(c: Client, path: string): Promise<{ header: string[]; rows: X[]; text: string }> {
  const res = await c.get(path, { accept: 'text/csv' });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const records = parse(res.text, { bom: false, relax_quotes: false }) as string[][];
  const header = records[0]!;
  // RFC 4180 as written: CRLF after every record, the header included.
  expect(res.text.endsWith('\r\n')).toBe(true);
  expect(res.text.split('\r\n')[0]).toBe(header.join(','));
  return { header, text: res.text, rows: records.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) };
}

describe('CSV cells', () => {
  it('prefix text that starts like a formula (=, +, -, @, tab, CR), never numbers, and quote what must be', () => {
    for (const s of ['=1+1', '+1', '-1', '@SUM(1)', '\tx', '\rx']) expect(parse(row(textCell(s)))[0][0]).toBe(`'${s}`);
    expect(cell(-12)).toBe('-12');
    expect(major(-5, 'EUR')).toBe('-0.05');
    expect(major(123456, 'EUR')).toBe('1234.56');
    expect(major(123456, 'JPY')).toBe('123456');
    expect(major(123456, 'BHD')).toBe('123.456');
    expect(textCell('a "b", c\nd')).toBe('"a ""b"", c\nd"');
    expect(parse(row(textCell('a "b", c\r\nd')))[0][0]).toBe('a "b", c\r\nd');
    expect(textCell('plain text')).toBe('plain text');
  });
});
const row = (c: string) => `${c},x\r\n`;

describe('CSV', () => {
  it('exports every record matching the filters once, in the collection\'s order, over several windows', async () => {
    const all = await csv(admin, '/api/invoices');
    const ids = rowsOf<{ id: string }>(await t.db.database.db.execute(sql`select id::text from invoices where company_id = ${companyId} order by id`)).map((r) => r.id);
    expect(all.rows.map((r) => r.id)).toEqual(ids);
    expect(new Set(all.rows.map((r) => r.id)).size).toBe(1234);
    expect(all.header.slice(0, 3)).toEqual(['id', 'number', 'client']);
    expect(all.header).toContain('currency');
    expect(all.header).not.toContain('lines');
    // References by name, never an IRI.
    expect(new Set(all.rows.map((r) => r.client))).toEqual(new Set(['Bulk']));
    expect(all.text).not.toContain('/api/');
    // A filter and an order: the same records as the JSON collection, every page of it.
    const filtered = await csv(admin, '/api/invoices?total=300&order[total]=desc&dueDate[after]=2026-02-02');
    const expected = rowsOf<{ id: string }>(await t.db.database.db.execute(sql`select id::text from invoices where company_id = ${companyId} and due_date >= '2026-02-02' order by total desc, id desc`)).map((r) => r.id);
    expect(filtered.rows.map((r) => r.id)).toEqual(expected);
    const byTotal = await csv(admin, '/api/invoices?order[total]=desc');
    const totals = byTotal.rows.map((r) => Number(r.total));
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    expect(byTotal.rows).toHaveLength(1234);
    // Another company's export holds its own.
    expect((await csv(other, '/api/invoices')).rows).toHaveLength(300);
  });

  it('reads no embedded children for a collection whose CSV shows none (the invoices\' lines)', async () => {
    const before = t.db.database.statements();
    const all = await csv(admin, '/api/invoices?itemsPerPage=1');
    expect(all.rows).toHaveLength(1234);
    const ran = t.db.database.statements() - before;
    const texts = t.db.database.recentStatements().slice(-ran);
    expect(texts.some((s) => s.includes('from "invoices"'))).toBe(true);
    expect(texts.filter((s) => s.includes('invoice_lines'))).toEqual([]);
  });

  it('neutralises formulas in text cells, and round-trips Unicode, quotes and newlines', async () => {
    for (const name of NASTY) expect((await admin.post('/api/clients', { name, website: name === 'plain' ? 'https://=x.example' : undefined })).status).toBe(201);
    const { rows } = await csv(admin, '/api/clients?order[name]=asc');
    const names = rows.map((r) => r.name);
    for (const sent of NASTY) {
      // Leading white space (tab, CR) is trimmed on input (the engine's text rule): see below for those.
      const name = sent.trim();
      const risky = /^[=+\-@\t\r]/.test(name);
      expect(names, JSON.stringify(name)).toContain(risky ? `'${name}` : name);
    }
    expect(names).toContain('Bulk');
    expect(rows).toHaveLength(NASTY.length + 1);
  });

  it('writes money in major units with the currency, numbers without a prefix, and reports with names', async () => {
    const jpy = (await admin.post('/api/clients', { name: 'Tokyo KK', currency: 'JPY' })).body;
    const eur = (await admin.post('/api/clients', { name: 'Paris SA', currency: 'EUR' })).body;
    const vat = (await admin.post('/api/taxes', { name: 'VAT 20', rate: 20 })).body;
    const a = (await admin.post('/api/invoices', { client: eur['@id'], invoiceDate: '2026-03-01', dueDate: '2026-03-31', lines: [{ description: '-dash', price: 12345, tax: vat['@id'] }] })).body;
    const b = (await admin.post('/api/invoices', { client: jpy['@id'], invoiceDate: '2026-03-02', dueDate: '2026-03-31', lines: [{ description: 'x', price: 500 }] })).body;
    for (const i of [a, b]) expect((await admin.patch(i['@id'], { status: 'pending' })).status).toBe(200);
    const note = (await admin.post('/api/credit-notes', { client: eur['@id'], issueDate: '2026-03-05', lines: [{ description: 'back', price: 1000, tax: vat['@id'] }] })).body;
    expect((await admin.patch(note['@id'], { status: 'issued' })).status).toBe(200);

    const invoices = (await csv(admin, `/api/invoices?client=${eur.id}`)).rows;
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ client: 'Paris SA', currency: 'EUR', subtotal: '123.45', taxTotal: '24.69', total: '148.14', balance: '148.14', invoiceDate: '2026-03-01', status: 'pending' });
    expect((await csv(admin, `/api/invoices?client=${jpy.id}`)).rows[0]).toMatchObject({ currency: 'JPY', total: '500' });
    const payments = await csv(admin, '/api/payments');
    expect(payments.header).toContain('amount');

    const tax = await csv(admin, '/api/reports/tax?from=2026-03-01&to=2026-03-31');
    expect(tax.header).toEqual(['currency', 'category', 'rate', 'taxable', 'tax']);
    expect(tax.rows).toEqual([
      { currency: 'EUR', category: 'S', rate: '20', taxable: '113.45', tax: '22.69' },
      { currency: 'JPY', category: 'Z', rate: '0', taxable: '500', tax: '0' },
    ]);
    const rev = await csv(admin, '/api/reports/revenue?from=2026-03-01&to=2026-03-31');
    expect(rev.rows).toContainEqual({ period: '2026-03', currency: 'EUR', invoiced: '148.14', credited: '12.00', paid: '0.00' });
    const aging = await csv(admin, '/api/reports/aging?date=2026-04-15');
    expect(aging.rows).toContainEqual({ client: 'Paris SA', currency: 'EUR', notDue: '0.00', days1to30: '148.14', days31to60: '0.00', days61to90: '0.00', over90: '0.00', total: '148.14' });
  });

  it('answers every collection and report of the API as CSV, each listed with text/csv in OpenAPI', async () => {
    const doc = (await call(t, 'GET', '/api/docs.json')).body;
    // Every GET without a path parameter that answers a list (JSON-LD: a Collection), but the
    // webhooks' event types: a list of names, not of records.
    const lists = Object.entries(doc.paths as Record<string, X>)
      .filter(([path, ops]) => !path.includes('{') && path !== '/api/webhooks/event-types' && ops.get && JSON.stringify(ops.get.responses?.['200'] ?? {}).includes('member'))
      .map(([path]) => path);
    expect(lists.length).toBeGreaterThan(15);
    expect(lists).toEqual(expect.arrayContaining(['/api/clients', '/api/invoices', '/api/credit-notes', '/api/payments', '/api/taxes', '/api/reports/revenue', '/api/reports/tax', '/api/reports/aging']));
    const failed: string[] = [];
    for (const path of lists) {
      if (!doc.paths[path].get.responses['200'].content['text/csv']) failed.push(`${path}: no text/csv in OpenAPI`);
      const res = await admin.get(path, { accept: 'text/csv' });
      if (res.status !== 200 || !res.text.endsWith('\r\n')) {
        failed.push(`${path}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const [header, ...rows] = parse(res.text) as string[][];
      if (!header?.length || rows.some((r) => r.length !== header.length)) failed.push(`${path}: ${res.text.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
  });

  it('leaves the other formats as they were, lists text/csv in OpenAPI, and answers errors as problems', async () => {
    const json = await admin.get('/api/clients', { accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(Array.isArray(json.body)).toBe(true);
    expect((await admin.get('/api/clients', { accept: 'text/csv;q=0.1, application/ld+json' })).headers.get('content-type')).toMatch(/ld\+json/);
    expect((await admin.get('/api/clients', { accept: 'text/plain' })).status).toBe(406);
    const bad = await admin.get('/api/invoices?invoiceDate[after]=someday', { accept: 'text/csv' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await admin.get('/api/reports/tax?from=x', { accept: 'text/csv' })).status).toBe(400);
    expect((await call(t, 'GET', '/api/invoices', { accept: 'text/csv' })).status).toBe(401);
    const doc = (await call(t, 'GET', '/api/docs.json')).body;
    expect(doc.paths['/api/invoices'].get.responses['200'].content).toHaveProperty(['text/csv']);
    expect(doc.paths['/api/reports/aging'].get.responses['200'].content).toHaveProperty(['text/csv']);
    expect((await csv(admin, '/api/api-tokens')).rows.length).toBeGreaterThan(0);
  });
});
