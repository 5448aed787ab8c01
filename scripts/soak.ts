// `npm run soak [-- --seconds N] [-- --connections C]`: a bounded load test with invariants.
//
// Starts the real server (`tsx server/cli/cli.ts serve`) on a fresh PostgreSQL database, drives it
// with C keep-alive connections (undici) for N seconds (SOAK_SECONDS, default 60) with a mix of
// writes and reads: invoices with lines, status changes, payments and their voiding, line and
// note edits, lists, items and GraphQL queries. Then it stops the server with SIGTERM (which
// flushes the request history) and checks, in SQL, against the CONTRACT §6 rules:
//   - every line's total is round(price × qty); every invoice's subtotal, taxTotal,
//     discountTotal and total follow from its lines (with the rate each line was computed with,
//     which for drafts is the tax's current rate) and its discount;
//   - amountPaid = Σ payments, balance = total − amountPaid (never overpaid), and the status agrees;
//   - invoice numbers are unique per company;
//   - nothing acknowledged is lost: every invoice and payment answered 201 (and not deleted)
//     exists, with the lines last sent;
//   - each token's usageCount (and monthly counter) equals the requests sent with it;
//   - no 5xx, no network error, no unexpected status.
// Exits 1 when any check fails. DATABASE_URL names the PostgreSQL server (the soak creates and
// drops its own database there; default postgres://postgres@127.0.0.1:5432/postgres).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { Pool } from 'undici';
import { openDatabase } from '../server/db.ts';
import { tokenCreate, userCreate } from '../server/cli/commands.ts';
import { invoiceInvariants, type Check } from './invariants.ts';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string' }, connections: { type: 'string' }, keep: { type: 'boolean' } },
  strict: true,
});
const SECONDS = Number(args.seconds ?? process.env.SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(args.connections ?? 50);
const ADMIN = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const log = (s: string) => process.stdout.write(`${s}\n`);

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  return port;
}

// ---- the service under test -------------------------------------------------------------------

const dbName = `soak_${randomBytes(5).toString('hex')}`;
const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const dbUrl = Object.assign(new URL(ADMIN), { pathname: `/${dbName}` }).toString();

// Users, companies and tokens, written directly (as `invoicing user:create` / `token:create` do).
const setup = await openDatabase({ databaseUrl: dbUrl, maxConnections: 2 });
await setup.migrate();
interface Tenant { name: string; tokens: string[]; taxes: string[]; clients: string[] }
const tenants: Tenant[] = [];
for (const name of ['Soak A', 'Soak B']) {
  const email = `${name.replace(' ', '').toLowerCase()}@soak.test`;
  await userCreate({ db: setup.db }, { email, password: 'soak-password', company: name, role: 'admin', currency: 'EUR' });
  const tokens = [];
  for (const n of ['one', 'two']) tokens.push((await tokenCreate({ db: setup.db }, { email, company: name, name: n })).trim());
  tenants.push({ name, tokens, taxes: [], clients: [] });
}
await setup.close();

const port = await freePort();
const server = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], {
  env: { ...process.env, DATABASE_URL: dbUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000000', SCHEDULER: 'off', REDIS_URL: '' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  const up = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
  if (up) break;
  if (i > 300 || server.exitCode !== null) throw new Error('the server did not start');
  await new Promise((r) => setTimeout(r, 100));
}

// ---- the load -----------------------------------------------------------------------------------

const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1, keepAliveTimeout: 30_000 });
const sentPerToken = new Map<string, number>();
const statuses = new Map<string, number>();
const latencies: number[] = [];
const failures: string[] = [];
let requests = 0;

interface Reply { status: number; body: any; headers: Record<string, string | string[] | undefined> }

async function request(token: string, method: string, path: string, body?: unknown, label = `${method} ${path.split('?')[0]!.replace(/[0-9a-f-]{36}/g, ':id')}`): Promise<Reply | null> {
  const started = performance.now();
  sentPerToken.set(token, (sentPerToken.get(token) ?? 0) + 1);
  requests++;
  try {
    const res = await pool.request({
      method: method as 'GET',
      path,
      headers: {
        'x-api-token': token,
        accept: 'application/ld+json',
        ...(body !== undefined ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    latencies.push(performance.now() - started);
    const key = `${label} ${res.statusCode}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    if (res.statusCode >= 500) failures.push(`${key}: ${text.slice(0, 300)}`);
    return { status: res.statusCode, body: text ? JSON.parse(text) : null, headers: res.headers };
  } catch (e) {
    failures.push(`${label}: network error ${(e as Error).message}`);
    return null;
  }
}

// Setup through the API: taxes and clients per company.
for (const t of tenants) {
  const tok = t.tokens[0]!;
  for (const [name, rate, type] of [['VAT 20', 20, 'exclusive'], ['VAT 5.5', 5.5, 'exclusive'], ['Incl 19', 19, 'inclusive'], ['Odd 7.125', 7.125, 'inclusive']] as const) {
    t.taxes.push((await request(tok, 'POST', '/api/taxes', { name, rate, type }))!.body['@id']);
  }
  for (let i = 0; i < 8; i++) t.clients.push((await request(tok, 'POST', '/api/clients', { name: `Client ${i}`, currency: i % 2 ? 'EUR' : 'USD' }))!.body['@id']);
}

/** What the soak knows it has written, to check that nothing acknowledged is lost. */
const created = new Map<string, { tenant: Tenant; lines: number; deleted: boolean }>();
const payments = new Map<string, { invoice: string; amount: number; deleted: boolean }>();
const drafts: string[] = [];
const issued: string[] = [];

const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];
const QTYS = [1, 1, 2, 3, 0.5, 1.25, 0.3333, 7, 12.5];

function lines(t: Tenant) {
  return Array.from({ length: 1 + Math.floor(Math.random() * 5) }, (_, i) => ({
    description: `Item ${i} ✓`,
    qty: pick(QTYS),
    price: Math.floor(Math.random() * 100_000) + (Math.random() < 0.05 ? -500 : 1),
    tax: Math.random() < 0.8 ? pick(t.taxes) : null,
  }));
}

function discount() {
  const r = Math.random();
  if (r < 0.6) return { discountType: 'none' };
  if (r < 0.85) return { discountType: 'percentage', discountValue: Math.floor(Math.random() * 5000) / 100 };
  return { discountType: 'fixed', discountValue: Math.floor(Math.random() * 500) };
}

type Action = (t: Tenant, token: string) => Promise<void>;
const actions: [number, Action][] = [
  [18, async (t, tok) => {
    const ls = lines(t);
    const res = await request(tok, 'POST', '/api/invoices', { client: pick(t.clients), ...discount(), lines: ls, notes: 'soak' });
    if (res?.status === 201) {
      created.set(res.body['@id'], { tenant: t, lines: ls.length, deleted: false });
      drafts.push(res.body['@id']);
    } else if (res && res.status !== 422) failures.push(`POST /api/invoices: unexpected ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  }],
  [10, async (t, tok) => {
    const iri = drafts.shift();
    if (!iri) return;
    const res = await request(created.get(iri)!.tenant.tokens[0]!, 'PATCH', iri, { status: 'pending', dueDate: '2099-12-31' });
    if (res?.status === 200) issued.push(iri);
    else drafts.push(iri);
  }],
  [15, async (_t, _tok) => {
    const iri = pick(issued);
    if (!iri) return;
    const tok = created.get(iri)!.tenant.tokens[1]!;
    const inv = await request(tok, 'GET', iri);
    const balance = Number(inv?.body?.balance ?? 0);
    if (!inv || inv.status !== 200 || balance <= 0) return;
    const amount = Math.random() < 0.3 ? balance : 1 + Math.floor(Math.random() * balance);
    const res = await request(tok, 'POST', '/api/payments', { invoice: iri, amount, method: pick(['card', 'cash', 'bank_transfer']) });
    if (res?.status === 201) payments.set(res.body['@id'], { invoice: iri, amount, deleted: false });
    // Two payments racing for one balance: the second is refused (422), never both accepted.
    else if (res && res.status !== 422) failures.push(`POST /api/payments: unexpected ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  }],
  [3, async () => {
    const live = [...payments.entries()].filter(([, p]) => !p.deleted);
    const [iri, p] = pick(live) ?? [];
    if (!iri || !p) return;
    p.deleted = true;
    const res = await request(created.get(p.invoice)!.tenant.tokens[0]!, 'DELETE', iri);
    if (res?.status !== 204) p.deleted = res?.status === 404;
  }],
  [3, async () => {
    const iri = pick(drafts);
    if (!iri) return;
    const c = created.get(iri)!;
    const res = await request(c.tenant.tokens[0]!, 'PATCH', iri, { lines: lines(c.tenant), ...discount() });
    if (res?.status === 200) c.lines = res.body.lines.length;
  }],
  [5, async () => {
    const iri = pick([...issued, ...drafts]);
    if (!iri) return;
    await request(created.get(iri)!.tenant.tokens[1]!, 'PATCH', iri, { notes: `note ${Math.random()}` });
  }],
  [20, async (_t, tok) => {
    const q = pick(['', '?status=pending', '?status[]=draft&status[]=paid', '?order[total]=desc', '?itemsPerPage=5&page=2', '?invoiceDate[after]=2020-01-01'])!;
    await request(tok, 'GET', `/api/invoices${q}`);
  }],
  [14, async (t, tok) => {
    const iri = pick([...issued, ...drafts].filter((i) => created.get(i)!.tenant === t));
    if (iri) await request(tok, 'GET', iri);
    else await request(tok, 'GET', '/api/payments');
  }],
  [12, async (_t, tok) => {
    const res = await request(tok, 'POST', '/api/graphql', {
      query: 'query($s: String) { invoices(first: 10, status: $s) { totalCount edges { node { id number total balance client { name currency } lines(first: 5) { edges { node { description qty price total } } } } } } }',
      variables: { s: pick([null, 'pending', 'paid', 'draft']) },
    }, 'POST /api/graphql');
    if (res && res.body?.errors) failures.push(`GraphQL errors: ${JSON.stringify(res.body.errors).slice(0, 300)}`);
  }],
];
const totalWeight = actions.reduce((s, [w]) => s + w, 0);

const startedAt = Date.now();
const deadline = startedAt + SECONDS * 1000;
log(`soak: ${CONNECTIONS} connections for ${SECONDS} s against ${base} (database ${dbName})`);
await Promise.all(
  Array.from({ length: CONNECTIONS }, async (_, w) => {
    const t = tenants[w % tenants.length]!;
    const tok = t.tokens[w % t.tokens.length]!;
    while (Date.now() < deadline) {
      let r = Math.random() * totalWeight;
      const action = actions.find(([weight]) => (r -= weight) < 0)![1];
      await action(t, tok);
    }
  }),
);
const elapsed = (Date.now() - startedAt) / 1000;
await pool.close();

// SIGTERM: the server finishes, writes the queued history, and exits 0.
server.kill('SIGTERM');
const [code] = await once(server, 'exit');
if (code !== 0) failures.push(`the server exited with ${code} after SIGTERM`);

// ---- the invariants -----------------------------------------------------------------------------

const db = postgres(dbUrl, { max: 1, onnotice: () => {} });
const checks: Check[] = [];
const check = (name: string, ok: boolean, detail = '') => checks.push([name, ok, detail]);

const { checks: docChecks, invoices: docs } = await invoiceInvariants(db);
checks.push(...docChecks);
const n = (v: unknown) => Number(v);
const show = (rows: readonly Record<string, unknown>[]) => rows.slice(0, 3).map((r) => JSON.stringify(r)).join('\n    ');
const byId = new Map(docs.map((d) => [String(d.id), d]));
const lostInvoices = [...created.entries()].filter(([iri, c]) => !c.deleted && (!byId.has(iri.split('/').pop()!) || n(byId.get(iri.split('/').pop()!)!.lines) !== c.lines));
check('every invoice answered 201 exists with the lines last sent', lostInvoices.length === 0, lostInvoices.slice(0, 3).map(([i, c]) => `${i} expected ${c.lines} lines, found ${byId.get(i.split('/').pop()!)?.lines ?? 'no invoice'}`).join('; '));
const storedPayments = new Set((await db`select id from payments`).map((r) => String(r.id)));
const livePayments = [...payments.entries()].filter(([, p]) => !p.deleted);
const lostPayments = livePayments.filter(([iri]) => !storedPayments.has(iri.split('/').pop()!));
check('every payment answered 201 (and not voided) exists, and no other', lostPayments.length === 0 && storedPayments.size === livePayments.length, `${lostPayments.length} lost; ${storedPayments.size} stored, ${livePayments.length} expected`);

const tokens = await db`select t.name, c.name as company, t.usage_count, (select coalesce(sum(count), 0) from api_token_monthly m where m.token_id = t.id) as monthly from api_tokens t join companies c on c.id = t.company_id order by c.name, t.name`;
const expectedUsage = tenants.flatMap((t) => t.tokens.map((tok) => sentPerToken.get(tok) ?? 0));
const usageOk = tokens.length === expectedUsage.length && tokens.every((row, i) => n(row.usage_count) === expectedUsage[i] && n(row.monthly) === expectedUsage[i]);
check('each token\'s usageCount and monthly count equal the requests sent with it', usageOk, tokens.map((row, i) => `${row.company}/${row.name}: ${row.usage_count} (monthly ${row.monthly}), sent ${expectedUsage[i]}`).join('; '));
check('no 5xx, no network error, no unexpected status', failures.length === 0, failures.slice(0, 5).join('\n    '));

await db.end();
if (!args.keep) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
await admin.end();

// ---- the report -------------------------------------------------------------------------------

latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(1);
const byStatus = new Map<number, number>();
for (const [k, v] of statuses) byStatus.set(Number(k.split(' ').pop()), (byStatus.get(Number(k.split(' ').pop())) ?? 0) + v);
log(`soak: ${requests} requests in ${elapsed.toFixed(1)} s (${(requests / elapsed).toFixed(0)}/s) over ${CONNECTIONS} connections; latency p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`);
log(`soak: statuses ${[...byStatus].sort().map(([s, c]) => `${s}×${c}`).join(', ')}`);
log(`soak: ${docs.length} invoices (${created.size} created by the soak), ${storedPayments.size} payments, ${[...payments.values()].filter((p) => p.deleted).length} voided`);
for (const [k, v] of [...statuses].sort()) if (!/ 2\d\d$/.test(k)) log(`soak:   ${k} ×${v}`);
let failed = 0;
for (const [name, ok, detail] of checks) {
  log(`soak: ${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `\n    ${detail}`}`);
  if (!ok) failed++;
}
log(failed ? `soak: ${failed} of ${checks.length} invariants broken` : `soak: all ${checks.length} invariants hold`);
process.exit(failed ? 1 : 0);
