// Creates in two statements: one reads every referenced record, one writes the record, its
// embedded lines and its number (atomic by itself, so no BEGIN/COMMIT), whatever the number of
// lines or of referenced resources — a document's totals also need its company's VAT registration
// (CONTRACT §18: a company not registered makes every line O), which comes with the principal,
// cached with the token. And every rule of the transactional path still holds:
// numbers without gaps that skip the ones users chose, nothing half-written, tenancy, database
// errors as API errors.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../engine/types.ts';
import { createEngine, type Engine } from '../engine/operations.ts';
import { rowsOf } from '../server/db.ts';
import { model, tables } from '../server/model.ts';
import { lookupToken } from '../server/access/tokens.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let principal: Principal;
let engine: Engine;
let clientIri: string;
let taxes: string[];

beforeAll(async () => {
  // The token cache on: a request's statements are then its own.
  t = await startTestServer({ TOKEN_CACHE: 'on' });
  const token = await tokenFor(t, { email: 'owner@create.test', company: 'Create Co' });
  api = client(t, token);
  principal = (await lookupToken(t.db.database.db, token))!;
  engine = createEngine(t.db.database.db, model, tables);
  clientIri = (await api.post('/api/clients', { name: 'Acme', currency: 'EUR' })).body['@id'];
  taxes = [];
  for (const [name, rate, type] of [['VAT 20', 20, 'exclusive'], ['VAT 10 incl', 10, 'inclusive'], ['VAT 5.5', 5.5, 'exclusive']] as const) {
    taxes.push((await api.post('/api/taxes', { name, rate, type })).body['@id']);
  }
});
afterAll(() => t.close());

/** The SQL statements one call runs. */
async function counted<T>(fn: () => Promise<T>): Promise<{ n: number; result: T }> {
  const before = t.db.database.statements();
  const result = await fn();
  return { n: t.db.database.statements() - before, result };
}

/** `n` lines, with this company's taxes (`taxed`) or none. */
const lines = (n: number, taxed = true) =>
  Array.from({ length: n }, (_, i) => ({ description: `Line ${i}`, qty: i % 2 ? 1.5 : 2, price: 1000 + i * 7, tax: !taxed || i % 4 === 3 ? null : taxes[i % 3] }));

async function execute(text: string): Promise<Record<string, unknown>[]> {
  return rowsOf(await t.db.database.db.execute(sql.raw(text)));
}

describe('statements of a create', () => {
  it('is two for a document whatever the number of lines and of referenced resources, and returns what a read returns', async () => {
    await api.get('/api/taxes'); // the token is cached from here on
    for (const n of [0, 1, 5, 12]) {
      const { n: statements, result: res } = await counted(() => api.post('/api/invoices', { client: clientIri, discountType: 'percentage', discountValue: 5, lines: lines(n) }));
      expect(res.status, res.text).toBe(201);
      expect(statements, `${n} lines`).toBe(2);
      expect(res.body.lines.map((l: { description: string }) => l.description)).toEqual(lines(n).map((l) => l.description));
      const read = await api.get(res.body['@id']);
      expect(res.body).toEqual(read.body);
    }
    // No reference: the insert alone.
    const { n, result } = await counted(() => api.post('/api/taxes', { name: 'VAT 0', rate: 0 }));
    expect(result.status, result.text).toBe(201);
    expect(n).toBe(1);
  });

  it('of an update does not grow with the number of lines or of referenced resources either', async () => {
    const inv = (await api.post('/api/invoices', { client: clientIri, lines: lines(2) })).body;
    const counts: number[] = [];
    for (const n of [1, 3, 10]) {
      const { n: statements, result } = await counted(() => api.patch(inv['@id'], { lines: lines(n), notes: `${n} lines` }));
      expect(result.status, result.text).toBe(200);
      expect(result.body.lines).toHaveLength(n);
      counts.push(statements);
    }
    expect(new Set(counts).size, String(counts)).toBe(1);
  });

  it('is the same through GraphQL (where lines have mutations of their own)', async () => {
    const query = 'mutation ($input: createInvoiceInput!) { createInvoice(input: $input) { invoice { number total currency } } }';
    const { n, result } = await counted(() => api.post('/api/graphql', { query, variables: { input: { client: clientIri, notes: 'via GraphQL' } } }, { contentType: 'application/json' }));
    expect(result.body.errors, result.text).toBeUndefined();
    expect(result.body.data.createInvoice.invoice).toMatchObject({ total: 0, currency: 'EUR' });
    expect(n).toBe(2);
  });

  it('keeps lone UTF-16 surrogates from failing the write: they are stored as U+FFFD, as in every other text', async () => {
    const res = await api.post('/api/invoices', { client: clientIri, notes: 'x\ud800y', lines: [{ description: 'a\udc00b', price: 1 }] });
    expect(res.status, res.text).toBe(201);
    expect(res.body.notes).toBe('x\ufffdy');
    expect(res.body.lines[0].description).toBe('a\ufffdb');
  });
});

describe('numbers', () => {
  it('skip the numbers users took, whether the counter is new or not', async () => {
    const other = client(t, await tokenFor(t, { email: 'numbers@create.test', company: 'Numbers Co' }));
    const c = (await other.post('/api/clients', { name: 'Numbered' })).body['@id'];
    const number = async (body: Record<string, unknown> = {}) => {
      const res = await other.post('/api/invoices', { client: c, ...body });
      expect(res.status, res.text).toBe(201);
      return res.body.number as string;
    };
    expect(await number({ number: 'INV-000001' })).toBe('INV-000001');
    expect(await number({ number: 'INV-000003' })).toBe('INV-000003');
    expect(await number()).toBe('INV-000002'); // a new counter, past 1
    expect(await number()).toBe('INV-000004'); // past 3
    expect(await number({ number: 'INV-000005' })).toBe('INV-000005');
    expect(await number({ number: 'INV-000006' })).toBe('INV-000006');
    expect(await number()).toBe('INV-000007');
    // A number taken twice: a 422 on number, and the refused create used no number.
    const dup = await other.post('/api/invoices', { client: c, number: 'INV-000007', lines: lines(2, false) });
    expect(dup.status, dup.text).toBe(422);
    expect(dup.body.violations).toEqual([{ propertyPath: 'number', message: 'This value is already used.', code: expect.any(String) }]);
    expect(await number()).toBe('INV-000008');
    expect((await other.get('/api/invoices?itemsPerPage=100')).body.totalItems).toBe(8);
  });

  it('are given without gaps to concurrent creates with lines', async () => {
    const other = client(t, await tokenFor(t, { email: 'concurrent@create.test', company: 'Concurrent Co' }));
    const c = (await other.post('/api/clients', { name: 'Busy' })).body['@id'];
    await other.post('/api/invoices', { client: c, number: 'INV-000004' });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => other.post('/api/invoices', { client: c, lines: lines(1 + (i % 4), false) })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const numbers = results.map((r) => r.body.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => `INV-${String(i < 3 ? i + 1 : i + 2).padStart(6, '0')}`));
  });
});

describe('a write that fails', () => {
  it('leaves nothing written and burns no number, on create and on a replacement of lines', async () => {
    const other = client(t, await tokenFor(t, { email: 'fail@create.test', company: 'Fail Co' }));
    const who = (await lookupToken(t.db.database.db, other.token))!;
    const c = (await other.post('/api/clients', { name: 'Fragile' })).body;
    const first = (await other.post('/api/invoices', { client: c['@id'], lines: lines(2, false) })).body;
    expect(first.number).toBe('INV-000001');
    // A line the database refuses, after the invoice row and the number were written in the same statement.
    await execute(`create or replace function test_refuse_line() returns trigger language plpgsql as $$
      begin if new.description = 'refused' then raise exception 'refused line'; end if; return new; end $$`);
    await execute('create trigger test_refuse_line before insert on invoice_lines for each row execute function test_refuse_line()');
    try {
      const invoice = model.get('Invoice');
      const body = { client: c.id, lines: [{ description: 'fine', price: 5 }, { description: 'refused', price: 5 }] };
      await expect(engine.create(who, invoice, body)).rejects.toThrow();
      await expect(engine.update(who, invoice, first.id, { lines: body.lines }, 'update')).rejects.toThrow();
    } finally {
      await execute('drop trigger test_refuse_line on invoice_lines');
      await execute('drop function test_refuse_line()');
    }
    const list = (await other.get('/api/invoices')).body;
    expect(list.totalItems).toBe(1);
    expect(list.member[0].lines.map((l: { description: string }) => l.description)).toEqual(['Line 0', 'Line 1']);
    expect((await other.post('/api/invoices', { client: c['@id'] })).body.number).toBe('INV-000002');
  });
});

describe('references', () => {
  it('a referenced record deleted between the check and the write is a 422 on its field, and nothing is written', async () => {
    const other = client(t, await tokenFor(t, { email: 'vanish@create.test', company: 'Vanish Co' }));
    const c = (await other.post('/api/clients', { name: 'Vanishing' })).body;
    // Another request deleting the client right after this one checked it, played by a trigger.
    await execute(`create or replace function test_vanish() returns trigger language plpgsql as $$
      begin delete from clients where id = new.client_id and name = 'Vanishing'; return new; end $$`);
    await execute('create trigger test_vanish before insert on invoices for each row execute function test_vanish()');
    try {
      const res = await other.post('/api/invoices', { client: c['@id'], lines: lines(2, false) });
      expect(res.status, res.text).toBe(422);
      expect(res.body.violations).toEqual([expect.objectContaining({ propertyPath: 'client', message: 'Item not found: it was deleted meanwhile.' })]);
    } finally {
      await execute('drop trigger test_vanish on invoices');
      await execute('drop function test_vanish()');
    }
    expect((await other.get('/api/invoices')).body.totalItems).toBe(0);
  });

  it("to another company's records are 422 violations on their fields, read in one statement", async () => {
    const stranger = client(t, await tokenFor(t, { email: 'stranger@create.test', company: 'Stranger Co' }));
    const theirClient = (await stranger.post('/api/clients', { name: 'Theirs' })).body['@id'];
    const theirTax = (await stranger.post('/api/taxes', { name: 'Their VAT', rate: 7 })).body['@id'];
    const before = (await api.get('/api/invoices?itemsPerPage=1')).body.totalItems;
    const { n, result } = await counted(() =>
      api.post('/api/invoices', { client: theirClient, lines: [{ description: 'a', price: 1, tax: taxes[0] }, { description: 'b', price: 1, tax: theirTax }] }),
    );
    expect(result.status, result.text).toBe(422);
    expect(result.body.violations.map((v: { propertyPath: string; message: string }) => [v.propertyPath, v.message])).toEqual([
      ['client', `Item not found for "${theirClient}".`],
      ['lines[1].tax', `Item not found for "${theirTax}".`],
    ]);
    expect(n).toBe(1);
    // Mine and theirs in one request: only theirs is refused.
    const mixed = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'a', price: 1, tax: theirTax }, { description: 'b', price: 1, tax: taxes[1] }] });
    expect(mixed.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['lines[0].tax']);
    expect((await api.get('/api/invoices?itemsPerPage=1')).body.totalItems).toBe(before);
  });
});

describe('a create whose rules need a transaction', () => {
  it('runs in one, with the references it already checked (a payment locks its invoice)', async () => {
    const invoice = (await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'Paid', price: 3000 }] })).body;
    expect((await api.patch(invoice['@id'], { status: 'pending' })).status).toBe(200);
    const { result } = await counted(() => api.post('/api/payments', { invoice: invoice['@id'], amount: 3000 }));
    expect(result.status, result.text).toBe(201);
    expect((await api.get(invoice['@id'])).body).toMatchObject({ status: 'paid', balance: 0, amountPaid: 3000 });
    // The engine's transactional create and the one-statement create agree.
    const viaTx = await engine.transaction((tx) => engine.bind(tx, principal, model.get('Invoice')).create('Invoice', { client: clientIri.split('/').pop(), lines: lines(6) }));
    const viaOne = await engine.create(principal, model.get('Invoice'), { client: clientIri.split('/').pop(), lines: lines(6) });
    const comparable = (rec: Record<string, unknown>) => {
      const { id: _id, number: _n, createdAt: _c, updatedAt: _u, lines: ls, ...rest } = rec;
      return { ...rest, lines: (ls as Record<string, unknown>[]).map(({ id: _i, invoice: _v, createdAt: _a, updatedAt: _b, ...l }) => l) };
    };
    expect(comparable(viaOne)).toEqual(comparable(viaTx));
  });
});
