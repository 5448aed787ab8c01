// The SQL statements of each request the bench measures (bench/scenarios.ts: S1 a JSON-LD page of
// invoices with their lines, S2 one invoice, S3 a create with 5 lines, S4 GraphQL's page of 30
// with clients and lines, S5 GraphQL's one invoice with lines and payments), sent exactly as the
// bench sends them, counted by the database's statement counter (every statement a request runs
// goes through it). And the request history's batched write: one statement per batch, however
// many requests it holds. A count is stable where a time is not: a request that needs one more
// round trip fails here (issue 48).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import type { FastifyBaseLogger } from 'fastify';
import { HistoryRecorder } from '../server/history.ts';
import { lookupToken } from '../server/access/tokens.ts';
import { workload, type ScenarioId } from '../bench/scenarios.ts';
import type { Seeded } from '../bench/seed.ts';
import { call, client, startTestServer, tokenFor, type TestServer } from './helpers.ts';

let t: TestServer;
let data: Seeded;

const idOf = (iri: string) => iri.slice(iri.lastIndexOf('/') + 1);

beforeAll(async () => {
  // The token cache as shipped (on unless turned off): from the second request on, a request's
  // statements are its own.
  t = await startTestServer();
  const token = await tokenFor(t, { email: 'owner@round-trips.test', company: 'Round Trips Co' });
  const api = client(t, token);
  const post = async (path: string, body: unknown) => {
    const res = await api.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const clients = [await post('/api/clients', { name: 'Acme', currency: 'EUR' }), await post('/api/clients', { name: 'Globex', currency: 'USD' })];
  const taxes: { '@id': string; rate: string; type: 'exclusive' | 'inclusive' }[] = [];
  for (const [name, rate, type] of [['VAT 20', 20, 'exclusive'], ['VAT 10 incl', 10, 'inclusive'], ['VAT 5.5', 5.5, 'exclusive']] as const) {
    taxes.push({ ...(await post('/api/taxes', { name, rate, type })), rate: String(rate), type });
  }
  const invoices: { '@id': string; id: string }[] = [];
  for (let i = 0; i < 6; i++) {
    invoices.push(
      await post('/api/invoices', {
        client: clients[i % 2]['@id'],
        lines: Array.from({ length: 1 + (i % 4) }, (_, k) => ({ description: `Line ${k}`, qty: 1 + k, price: 1000 + k, tax: k % 2 ? taxes[k % 3]!['@id'] : null })),
      }),
    );
  }
  expect((await api.patch(invoices[1]!['@id'], { status: 'pending' })).status).toBe(200);
  await post('/api/payments', { invoice: invoices[1]!['@id'], amount: 100, method: 'card' });
  data = {
    companyId: '',
    token,
    clientIds: clients.map((c) => idOf(c['@id'])),
    taxes: taxes.map((x) => ({ id: idOf(x['@id']), rate: x.rate, type: x.type })),
    invoiceIds: invoices.map((x) => x.id),
    paidInvoiceIds: [invoices[1]!.id],
    counts: { clients: 2, taxes: 3, invoices: 6, lines: 0, payments: 1 },
    ms: 0,
  };
});
afterAll(() => t?.close());

/** The statements the i-th request of a scenario runs, after a first request of it (statements prepared, token cached). */
async function statementsOf(id: ScenarioId, i: number): Promise<number> {
  const wl = workload(id, 'ours', data)!;
  const send = async (n: number) => {
    const r = wl.nth(n);
    const res = await call(t, r.method, r.path, { headers: r.headers, body: r.body === undefined ? undefined : JSON.parse(r.body) });
    // The bench's own check of the response (S3's total note aside).
    const verdict = wl.check(n, res.status, res.text);
    expect(verdict.error, `${id}: ${res.text.slice(0, 300)}`).toBeUndefined();
  };
  await send(i);
  const before = t.db.database.statements();
  await send(i + 1);
  return t.db.database.statements() - before;
}

describe('statements per request of the bench scenarios', () => {
  it('S1: a JSON-LD page of invoices with their lines and the total is one statement', async () => {
    expect(await statementsOf('S1', 0)).toBe(1);
  });

  it('S2: an invoice with its lines is one statement', async () => {
    expect(await statementsOf('S2', 0)).toBe(1);
  });

  it('S4: GraphQL invoices(first: 30) with client and lines is one statement', async () => {
    expect(await statementsOf('S4', 0)).toBe(1);
  });

  it('S5: GraphQL one invoice with lines and payments is one statement', async () => {
    expect(await statementsOf('S5', 0)).toBe(1);
  });

  // Last: the invoices it creates would change the pages the others check.
  // The company's VAT registration (CONTRACT §18) comes with the principal, read with the token
  // and cached with it (engine/types.ts): no statement of its own.
  it('S3: a create with 5 lines is two statements (the referenced records, then the write)', async () => {
    expect(await statementsOf('S3', 0)).toBe(2);
  });
});

describe('the request history', () => {
  it('writes a batch in one statement, whatever the number of requests in it', async () => {
    const principal = (await lookupToken(t.db.database.db, data.token))!;
    const silent = { warn() {}, error() {}, info() {} } as unknown as FastifyBaseLogger;
    // On the counted connection (the server's recorder uses uncounted ones), never flushed by its timer here.
    const recorder = new HistoryRecorder(t.db.database.db, silent, { intervalMs: 3_600_000, asyncCommit: t.db.database.kind === 'postgres', keep: 100_000 });
    const usage = async () => (await client(t, data.token).get('/api/api-tokens')).body.member.find((x: { id: string }) => x.id === principal.tokenId)?.usageCount;
    for (const n of [1, 40, 250]) {
      const before = await usage();
      for (let i = 0; i < n; i++) {
        recorder.record({ tokenId: principal.tokenId!, at: Date.now(), method: 'GET', endpoint: '/api/invoices', status: 200, ipAddress: '127.0.0.1', userAgent: 'round-trips' });
      }
      const statements = t.db.database.statements();
      await recorder.flush();
      expect(t.db.database.statements() - statements, `${n} requests`).toBe(1);
      // The usage read above and this one are requests of the server's own history too: not flushed yet (100 ms).
      expect(await usage()).toBeGreaterThanOrEqual(before + n);
    }
    await recorder.close();
  });

  it("keeps no foreign key check per row, and a user's deletion still deletes their tokens' history (the trigger that replaced the cascade)", async () => {
    const db = t.db.database.db;
    const token = await tokenFor(t, { email: 'gone@round-trips.test', company: 'Round Trips Co' });
    const api = client(t, token);
    for (let i = 0; i < 3; i++) expect((await api.get('/api/taxes')).status).toBe(200);
    // Reading through the token API writes this instance's queue first.
    expect((await api.get('/api/api-tokens')).status).toBe(200);
    const principal = (await lookupToken(db, token))!;
    const count = async () => Number(rowsOf<{ n: string | number }>(await db.execute(sql`select count(*) as n from api_token_history where token_id = ${principal.tokenId}`))[0]!.n);
    expect(await count()).toBeGreaterThanOrEqual(3);
    const fks = rowsOf(await db.execute(sql`select conname from pg_constraint where conrelid = 'api_token_history'::regclass and contype = 'f'`));
    expect(fks).toEqual([]);
    // The cascade from the user to their tokens fires the statement-level trigger too.
    await db.execute(sql`delete from users where id = ${principal.userId}`);
    expect(await count()).toBe(0);
  });
});
