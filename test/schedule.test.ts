// schedule:run (CONTRACT §5): recurring invoices issue pending invoices, idempotently and once per
// run date even when runs overlap; month ends; completion after endDate; overdue marking; the
// CLI's summary; the in-server scheduler.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../engine/operations.ts';
import { scheduleRun } from '../server/cli/commands.ts';
import { commands } from '../server/cli/command-list.ts';
import { model, tables } from '../server/model.ts';
import { startScheduler } from '../server/scheduler.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;
let tax: string;

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'owner@sched.test', company: 'Schedule Co' }));
  clientIri = (await api.post('/api/clients', { name: 'Subscriber', currency: 'EUR' })).body['@id'];
  tax = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
});
afterAll(() => t.close());

const run = (date: string) => scheduleRun({ db: t.db.database.db }, { date });

async function recurring(body: Record<string, unknown>, status = 'active') {
  const res = await api.post('/api/recurring-invoices', {
    client: clientIri, frequency: 'monthly', dueInDays: 14, terms: 'Net 14', notes: 'Thank you',
    lines: [{ description: 'Hosting', price: 10000, tax }, { description: 'Support', qty: 0.5, price: 3000 }],
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  if (status !== 'draft') expect((await api.patch(res.body['@id'], { status })).status).toBe(200);
  return (await api.get(res.body['@id'])).body as Record<string, any>;
}

/** Invoices issued from one recurring invoice, oldest first. */
async function issued(iri: string): Promise<Record<string, any>[]> {
  const all = (await api.get('/api/invoices?itemsPerPage=100&order[invoiceDate]=asc')).body.member as Record<string, any>[];
  return all.filter((i) => i.recurringInvoice === iri);
}

describe('recurring invoices', () => {
  it('issues one pending invoice per run date, idempotently, and follows month ends', async () => {
    const r = await recurring({ startDate: '2026-01-31' });
    expect(r).toMatchObject({ nextRunDate: '2026-01-31', lastRunDate: null, total: 13500 });

    const first = await run('2026-01-31');
    expect(first.created).toBeGreaterThanOrEqual(1);
    const [inv] = await issued(r['@id']);
    expect(inv).toMatchObject({
      status: 'pending', client: clientIri, invoiceDate: '2026-01-31', dueDate: '2026-02-14', currency: 'EUR',
      subtotal: 11500, taxTotal: 2000, total: 13500, balance: 13500, terms: 'Net 14', notes: 'Thank you',
    });
    expect(inv!.number).toMatch(/^INV-\d{6}$/);
    expect(inv!.lines.map((l: any) => [l.description, l.qty, l.price, l.total, l.taxRate])).toEqual([['Hosting', 1, 10000, 10000, 20], ['Support', 0.5, 3000, 1500, null]]);
    expect((await api.get(r['@id'])).body).toMatchObject({ lastRunDate: '2026-01-31', nextRunDate: '2026-02-28', status: 'active' });

    // The same day again, or a day in between: nothing new.
    expect((await run('2026-01-31')).created).toBe(0);
    expect((await run('2026-02-15')).created).toBe(0);
    expect(await issued(r['@id'])).toHaveLength(1);

    await run('2026-02-28');
    expect((await api.get(r['@id'])).body.nextRunDate).toBe('2026-03-31');
    await run('2026-03-31');
    expect((await api.get(r['@id'])).body.nextRunDate).toBe('2026-04-30');
    expect((await issued(r['@id'])).map((i) => i.invoiceDate)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31']);
  });

  it('issues a single invoice when runs overlap (several instances)', async () => {
    const r = await recurring({ startDate: '2026-06-01', frequency: 'weekly' });
    const results = await Promise.all([run('2026-06-01'), run('2026-06-01'), run('2026-06-01')]);
    expect(results.map((x) => x.failed)).toEqual([[], [], []]);
    expect(await issued(r['@id'])).toHaveLength(1);
    expect((await api.get(r['@id'])).body.nextRunDate).toBe('2026-06-08');
  });

  it('enforces one invoice per recurring invoice and date in the database', async () => {
    const r = await recurring({ startDate: '2026-07-01' });
    await run('2026-07-01');
    const [inv] = await issued(r['@id']);
    const other = (await api.post('/api/invoices', { client: clientIri, invoiceDate: '2026-07-01' })).body;
    const engine = createEngine(t.db.database.db, model, tables);
    const invoices = tables.get('Invoice');
    const err = await engine
      .transaction((tx) => tx.update(invoices).set({ recurringInvoice: r.id }).where(eq(invoices.id, other.id)))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, violations: [{ propertyPath: 'invoiceDate' }] });
    expect(inv).toBeDefined();
    expect((await api.get(other['@id'])).body.recurringInvoice).toBeNull();
  });

  it('completes a series after its end date, and leaves drafts and paused ones alone', async () => {
    const r = await recurring({ startDate: '2026-08-01', endDate: '2026-08-10', frequency: 'weekly' });
    const draft = await recurring({ startDate: '2026-08-01' }, 'draft');
    const paused = await recurring({ startDate: '2026-08-01' }, 'active');
    await api.patch(paused['@id'], { status: 'paused' });

    await run('2026-08-01');
    expect((await api.get(r['@id'])).body).toMatchObject({ status: 'active', nextRunDate: '2026-08-08' });
    const second = await run('2026-08-08');
    expect(second.completed).toBeGreaterThanOrEqual(1);
    expect((await api.get(r['@id'])).body).toMatchObject({ status: 'completed', nextRunDate: null, lastRunDate: '2026-08-08' });
    await run('2026-08-15');
    expect((await issued(r['@id'])).map((i) => i.invoiceDate)).toEqual(['2026-08-01', '2026-08-08']);
    expect(await issued(draft['@id'])).toHaveLength(0);
    expect(await issued(paused['@id'])).toHaveLength(0);
    expect((await api.patch(r['@id'], { status: 'active' })).status).toBe(422);
  });

  it('completes a series whose end date was moved before its next run', async () => {
    const r = await recurring({ startDate: '2026-09-01', frequency: 'daily', interval: 2 });
    await run('2026-09-01');
    expect((await api.get(r['@id'])).body.nextRunDate).toBe('2026-09-03');
    expect((await api.patch(r['@id'], { endDate: '2026-09-02' })).status).toBe(200);
    await run('2026-09-05');
    expect((await api.get(r['@id'])).body).toMatchObject({ status: 'completed', nextRunDate: null });
    expect(await issued(r['@id'])).toHaveLength(1);
  });
});

describe('overdue marking', () => {
  it('marks pending invoices whose due date is before the run date as overdue, and nothing else', async () => {
    const mk = async (dueDate: string, status?: string) => {
      const inv = (await api.post('/api/invoices', { client: clientIri, invoiceDate: '2025-12-01', dueDate, lines: [{ description: 'x', price: 100 }] })).body;
      if (status) await api.patch(inv['@id'], { status });
      return inv['@id'] as string;
    };
    const late = await mk('2025-12-10', 'pending');
    const dueToday = await mk('2025-12-11', 'pending');
    const draft = await mk('2025-12-01');
    const cancelled = await mk('2025-12-01', 'cancelled');
    const paid = await mk('2025-12-01', 'pending');
    await api.post('/api/payments', { invoice: paid, amount: 100 });

    const summary = await run('2025-12-11');
    expect(summary.overdue).toBe(1);
    expect((await api.get(late)).body.status).toBe('overdue');
    for (const [iri, status] of [[dueToday, 'pending'], [draft, 'draft'], [cancelled, 'cancelled'], [paid, 'paid']]) {
      expect((await api.get(iri!)).body.status).toBe(status);
    }
    // An overdue invoice can still be paid, and a full payment marks it paid.
    expect((await api.post('/api/payments', { invoice: late, amount: 100 })).status).toBe(201);
    expect((await api.get(late)).body.status).toBe('paid');
    expect((await run('2025-12-11')).overdue).toBe(0);
  });
});

describe('the schedule:run command', () => {
  it('prints a short summary, also through the command table the admin socket uses', async () => {
    const r = await recurring({ startDate: '2027-01-01' });
    const count = async () => (await api.get('/api/invoices?itemsPerPage=1')).body.totalItems as number;
    const before = await count();
    const out = await commands['schedule:run']!({ db: t.db.database.db }, { date: '2027-01-01' });
    const made = (await count()) - before;
    expect(await issued(r['@id'])).toHaveLength(1);
    expect(out).toMatch(/^schedule:run 2027-01-01: \d+ invoices? issued from recurring invoices, \d+ recurring invoices? completed, \d+ invoices? marked overdue\.\n$/);
    expect(out).toContain(`: ${made} invoice${made === 1 ? '' : 's'} issued`);
    await expect(commands['schedule:run']!({ db: t.db.database.db }, { date: '2027-02-30' })).rejects.toThrow(/not a date/);
  });

  it('runs from the command line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invoicing-cli-'));
    // On PostgreSQL the CLI works on this test's database; on PGlite on a data directory of its own.
    const env = { ...process.env, LOG_LEVEL: 'silent', ...(t.db.url ? { DATABASE_URL: t.db.url } : { DATABASE_URL: '', DATA_DIR: dir }) };
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', ...args], { env, cwd: process.cwd() });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        p.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    try {
      const count = async () => (await api.get('/api/invoices?itemsPerPage=1')).body.totalItems as number;
      if (t.db.url) await recurring({ startDate: '2028-03-01' });
      const before = await count();
      const ok = await cli(['schedule:run', '--date', '2028-03-01']);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/^schedule:run 2028-03-01: \d+ invoices? issued from recurring invoices, \d+ recurring invoices? completed, \d+ invoices? marked overdue\.\n$/);
      if (t.db.url) {
        const made = (await count()) - before;
        expect(made).toBeGreaterThanOrEqual(1);
        expect(ok.stdout).toContain(`: ${made} invoice${made === 1 ? '' : 's'} issued`);
      }
      const bad = await cli(['schedule:run', '--date', 'tomorrow']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/--date "tomorrow" is not a date/);
      expect(bad.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the in-server scheduler', () => {
  it('runs the job for today without being asked', async () => {
    const inv = (await api.post('/api/invoices', { client: clientIri, invoiceDate: '2020-01-01', dueDate: '2020-01-02' })).body;
    await api.patch(inv['@id'], { status: 'pending' });
    const engine = createEngine(t.db.database.db, model, tables);
    const scheduler = startScheduler({ db: t.db.database.db, engine, log: Fastify({ logger: false }).log, firstRunMs: 1 });
    try {
      let status = 'pending';
      for (let i = 0; i < 100 && status === 'pending'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await api.get(inv['@id'])).body.status;
      }
      expect(status).toBe('overdue');
    } finally {
      await scheduler.stop();
    }
  });
});
