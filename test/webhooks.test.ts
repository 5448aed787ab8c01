// Webhooks (CONTRACT §11): the resource (secret shown once, masked, rotated; URL rules; 20 per
// company), events written by the engine's writes and delivered to a real HTTP receiver that
// verifies every signature with the `standardwebhooks` package, retries with the same
// webhook-id, timeouts, nothing for a rolled-back write, tenancy, deliveries that survive a
// server that stopped before delivering, and two instances delivering each event once.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleRun } from '../server/cli/commands.ts';
import { openDatabase, rowsOf } from '../server/db.ts';
import { call, client, databaseOptionsOf, freePort, freshDatabase, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { Relay } from './support/pg-relay.ts';

const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '150ms,150ms,150ms',
  WEBHOOK_POLL_INTERVAL: '50ms',
  WEBHOOK_TIMEOUT: '2s',
  TOKEN_CACHE: 'on',
};

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: { type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * A real HTTP receiver: every request's signature is verified with `standardwebhooks` against
 * the secret registered for its path (a request that fails verification fails the test).
 * `plan[path]` lists the answers to give in turn (a status, `hang` to answer too late, or `hold`
 * to answer 200 when `release()` is called).
 */
class Receiver {
  server: Server;
  received: Received[] = [];
  secrets = new Map<string, string>();
  plan = new Map<string, (number | 'hang' | 'hold')[]>();
  private held: (() => void)[] = [];
  failures: string[] = [];
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const secret = this.secrets.get(path);
        try {
          if (!secret) throw new Error(`no secret for ${path}`);
          const verified = new Webhook(secret).verify(body, req.headers as Record<string, string>) as Received['verified'];
          this.received.push({ path, headers: req.headers, body, verified });
        } catch (e) {
          this.failures.push(`${path}: ${(e as Error).message}`);
        }
        const next = this.plan.get(path)?.shift() ?? 200;
        if (next === 'hang') setTimeout(() => res.writeHead(200).end('late'), 4000);
        else if (next === 'hold') this.held.push(() => res.writeHead(200).end('ok'));
        else res.writeHead(next).end('ok');
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers 200 to every request held so far; returns how many. */
  release(): number {
    const held = this.held.splice(0);
    for (const answer of held) answer();
    return held.length;
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, n: number, ms = 10_000): Promise<Received[]> {
    const end = Date.now() + ms;
    while (this.at(path).length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(this.failures).toEqual([]);
    const got = this.at(path);
    expect(got.length, `${path}: ${got.map((r) => r.verified.type).join(', ')}`).toBeGreaterThanOrEqual(n);
    return got;
  }

  close() {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let t: TestServer;
/** WEBHOOK_ALLOW_PRIVATE of the running server: its URL policy is a service (resources/rules/webhook-url.ts). */
const allowPrivate = (allow: boolean) => void (t.running.services.webhookUrls.allowPrivate = allow);
let api: Client;
let other: Client;
let receiver: Receiver;
let clientIri: string;

/** Creates a webhook for `path` on the receiver and registers its secret there. */
async function hook(c: Client, path: string, events: string[] = ['*']) {
  const res = await c.post('/api/webhooks', { url: receiver.url + path, events, description: path });
  expect(res.status, res.text).toBe(201);
  receiver.secrets.set(path, res.body.secret);
  return res.body;
}

async function deliveryRows(where = sql`true`): Promise<Record<string, unknown>[]> {
  return rowsOf(await t.db.database.db.execute(sql`select * from webhook_deliveries where ${where}`));
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  t = await startTestServer(ENV);
  api = client(t, await tokenFor(t, { email: 'a@hooks.test', company: 'Hooks A' }));
  other = client(t, await tokenFor(t, { email: 'b@hooks.test', company: 'Hooks B' }));
  clientIri = (await api.post('/api/clients', { name: 'Globex' })).body['@id'];
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('the Webhook resource', () => {
  it('shows the secret whole once, masked everywhere else, and rotates it', async () => {
    const created = await hook(api, '/secret', ['client.created']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    const masked = `whsec_…${created.secret.slice(-4)}`;
    expect((await api.get(created['@id'])).body.secret).toBe(masked);
    expect((await api.get(created['@id'], { accept: 'application/hal+json' })).body.secret).toBe(masked);
    expect((await api.get('/api/webhooks', { accept: 'application/json' })).body.find((w: { id: string }) => w.id === created.id).secret).toBe(masked);
    expect((await api.patch(created['@id'], { description: 'edited' })).body.secret).toBe(masked);
    const gql = await api.post('/api/graphql', { query: `{ webhook(id: "${created['@id']}") { secret events active } }` }, { contentType: 'application/json' });
    expect(gql.body.data.webhook).toEqual({ secret: masked, events: ['client.created'], active: true });

    const rotated = await api.post(`${created['@id']}/rotate-secret`, undefined);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect((await api.get(created['@id'])).body.secret).toBe(`whsec_…${rotated.body.secret.slice(-4)}`);
    receiver.secrets.set('/secret', rotated.body.secret);
    // Deliveries after the rotation are signed with the new secret (the receiver checks).
    await api.post('/api/clients', { name: 'Rotated Ltd' });
    const [got] = await receiver.waitFor('/secret', 1);
    expect(got!.verified.type).toBe('client.created');
    expect(got!.verified.data.name).toBe('Rotated Ltd');
    expect((await api.delete(created['@id'])).status).toBe(204);
  });

  it('refuses unknown event types, private and link-local URLs, and redirects nothing', async () => {
    const bad = await api.post('/api/webhooks', { url: `${receiver.url}/x`, events: ['invoice.exploded'] });
    expect(bad.status).toBe(422);
    expect(bad.body.violations[0].propertyPath).toBe('events[0]');
    expect((await api.post('/api/webhooks', { url: `${receiver.url}/x`, events: [] })).status).toBe(422);
    expect((await api.post('/api/webhooks', { url: 'ftp://example.test/x', events: ['*'] })).status).toBe(422);
    // Link-local (cloud metadata) stays refused even with WEBHOOK_ALLOW_PRIVATE=true.
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/x', 'http://0.0.0.0:9/x']) {
      const res = await api.post('/api/webhooks', { url, events: ['*'] });
      expect(res.status, url).toBe(422);
      expect(res.body.violations[0].propertyPath).toBe('url');
    }
    allowPrivate(false);
    try {
      for (const url of [`${receiver.url}/x`, 'http://10.1.2.3/x', 'http://192.168.0.10/x', 'http://localhost:8080/x', 'http://[::1]/x', 'http://[fd00::1]/x']) {
        const res = await api.post('/api/webhooks', { url, events: ['*'] });
        expect(res.status, url).toBe(422);
        expect(res.body.violations[0].message).toMatch(/loopback or private/);
      }
    } finally {
      allowPrivate(true);
    }
    expect((await api.get('/api/webhooks', { accept: 'application/json' })).body).toEqual([]);
  });

  it('allows 20 per company', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await other.post('/api/webhooks', { url: `${receiver.url}/limit/${i}`, events: ['tax.created'] });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body['@id']);
    }
    const over = await other.post('/api/webhooks', { url: `${receiver.url}/limit/20`, events: ['tax.created'] });
    expect(over.status).toBe(422);
    expect(over.body.violations[0].message).toMatch(/at most 20/);
    for (const id of ids) expect((await other.delete(id)).status).toBe(204);
  });

  it('lists the event types', async () => {
    const res = await api.get('/api/webhooks/event-types', { accept: 'application/json' });
    expect(res.status).toBe(200);
    for (const type of ['invoice.created', 'invoice_line.updated', 'recurring_invoice.deleted', 'invoice.sent', 'invoice.paid', 'invoice.overdue', 'invoice.cancelled', 'quote.sent', 'quote.accepted', 'quote.declined', 'payment.voided', 'recurring_invoice.issued', 'webhook.ping']) {
      expect(res.body).toContain(type);
    }
  });
});

describe('events and deliveries', () => {
  it('delivers the record as GET returns it in plain JSON, signed, for creates, state events and deletes', async () => {
    await hook(api, '/invoices', ['invoice.created', 'invoice.updated', 'invoice.sent', 'invoice.paid', 'invoice.deleted', 'payment.voided', 'payment.deleted']);
    const inv = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'Work', qty: 2, price: 1500 }] });
    expect(inv.status).toBe(201);
    const [created] = await receiver.waitFor('/invoices', 1);
    expect(created!.verified.type).toBe('invoice.created');
    expect(created!.verified.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created!.verified.data).toEqual((await api.get(inv.body['@id'], { accept: 'application/json' })).body);
    expect(created!.headers['user-agent']).toMatch(/invoicing/);
    expect(created!.headers['content-type']).toBe('application/json');

    await api.patch(inv.body['@id'], { status: 'pending' });
    const afterSend = await receiver.waitFor('/invoices', 3);
    expect(afterSend.slice(1).map((r) => r.verified.type).sort()).toEqual(['invoice.sent', 'invoice.updated']);
    expect(afterSend[1]!.verified.data.status).toBe('pending');

    const pay = await api.post('/api/payments', { invoice: inv.body['@id'], amount: 3000 });
    expect(pay.status, pay.text).toBe(201);
    const afterPay = await receiver.waitFor('/invoices', 5);
    const paid = afterPay.slice(3).find((r) => r.verified.type === 'invoice.paid');
    expect(paid!.verified.data).toMatchObject({ status: 'paid', balance: 0, amountPaid: 3000 });
    expect((await api.delete(pay.body['@id'])).status).toBe(204);
    const afterVoid = await receiver.waitFor('/invoices', 8);
    expect(afterVoid.slice(5).map((r) => r.verified.type).sort()).toEqual(['invoice.updated', 'payment.deleted', 'payment.voided']);
    expect(afterVoid.slice(5).find((r) => r.verified.type === 'invoice.updated')!.verified.data).toMatchObject({ status: 'pending', amountPaid: 0 });
    expect(afterVoid.slice(5).find((r) => r.verified.type === 'payment.voided')!.verified.data.id).toBe(pay.body.id);
  });

  it('pages a long delivery log by cursor, filters it by index, and counts it up to 10,000', async () => {
    const w = await hook(api, '/long', ['webhook.ping']);
    // 12,000 past deliveries, one a minute, newest first: every 1,000th failed, every 500th a ping.
    await t.db.database.db.execute(sql`insert into webhook_deliveries (id, company_id, webhook_id, event_id, type, body, status, attempts, created_at, updated_at)
      select gen_random_uuid(), w.company_id, w.id, gen_random_uuid(), case when g % 500 = 0 then 'webhook.ping' else 'invoice.created' end, '{}',
        case when g % 1000 = 0 then 'failed' else 'succeeded' end, 1, now() - g * interval '1 minute', now() - g * interval '1 minute'
      from webhooks w cross join generate_series(1, 12000) g where w.id = ${w.id}`);
    const first = await api.get(`${w['@id']}/deliveries?itemsPerPage=100`, { accept: 'application/json' });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(100);
    // More than the counted bound: no total rather than a count of the whole log.
    expect(first.headers.get('x-total-count')).toBeNull();
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toMatch(/[?&]after=/);
    const second = await api.get(next!, { accept: 'application/json' });
    expect(second.body).toHaveLength(100);
    const times = [...first.body, ...second.body].map((x: { createdAt: string }) => Date.parse(x.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set([...first.body, ...second.body].map((x: { id: string }) => x.id)).size).toBe(200);
    // Filters: exact totals under the bound, pages in order.
    const failed = await api.get(`${w['@id']}/deliveries?status=failed&itemsPerPage=5`, { accept: 'application/json' });
    expect(failed.headers.get('x-total-count')).toBe('12');
    expect(failed.body.map((x: { status: string }) => x.status)).toEqual(Array(5).fill('failed'));
    const failedNext = /<([^>]+)>; rel="next"/.exec(failed.headers.get('link') ?? '')?.[1];
    expect(failedNext).toContain('status=failed');
    expect((await api.get(failedNext!, { accept: 'application/json' })).body).toHaveLength(5);
    const pings = await api.get(`${w['@id']}/deliveries?type=webhook.ping&itemsPerPage=100`, { accept: 'application/json' });
    expect(pings.headers.get('x-total-count')).toBe('24');
    expect(pings.headers.get('link')).not.toContain('rel="next"');
    // A forged or foreign cursor, and a page past the offset bound, are refused.
    for (const forged of ['bm90LWEtY3Vyc29y', Buffer.from(`0000-01-01T00:00:00.000Z|${w.id}`).toString('base64url'), Buffer.from(`2026-02-30T00:00:00.000Z|${w.id}`).toString('base64url'), '%%%']) {
      const res = await api.get(`${w['@id']}/deliveries?after=${forged}`, { accept: 'application/json' });
      expect(res.status, forged).toBe(400);
      expect(res.body.detail).toMatch(/cursor/);
    }
    const deep = await api.get(`${w['@id']}/deliveries?page=500&itemsPerPage=100`, { accept: 'application/json' });
    expect(deep.status).toBe(400);
    expect(deep.body.detail).toMatch(/next/);
    if (!process.env.DATABASE_URL) return;
    // On PostgreSQL, a filtered page reads its rows from an index in the list's order, not the log.
    const plan = rowsOf<{ 'QUERY PLAN': unknown }>(await t.db.database.db.execute(sql`explain (format json) select * from webhook_deliveries
      where webhook_id = ${w.id} and status in ('failed') order by created_at desc, id desc limit 6`))[0]!['QUERY PLAN'];
    expect(JSON.stringify(plan)).toContain('webhook_deliveries_status_idx');
    expect(JSON.stringify(plan)).not.toContain('"Sort"');
  });

  it('retries 500, 500, 200 with the same webhook-id, and logs the attempts', async () => {
    const w = await hook(api, '/flaky', ['tax.created']);
    receiver.plan.set('/flaky', [500, 500, 200]);
    await api.post('/api/taxes', { name: 'VAT flaky', rate: 20 });
    const got = await receiver.waitFor('/flaky', 3);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(got.map((r) => r.body)).toEqual([got[0]!.body, got[0]!.body, got[0]!.body]);
    await waitUntil(async () => (await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body[0]?.status === 'succeeded');
    const [log] = (await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body;
    expect(log).toMatchObject({ type: 'tax.created', status: 'succeeded', attempts: 3, responseStatus: 200, eventId: got[0]!.headers['webhook-id'] });
    expect((await api.get(`${w['@id']}/deliveries?status=failed`, { accept: 'application/json' })).body).toEqual([]);
    expect((await api.get(`${w['@id']}/deliveries?type=tax.created`, { accept: 'application/json' })).body).toHaveLength(1);
  });

  it('a create\'s payload is made from the record it wrote and saved with its first attempt; a delivery whose body was never saved gets the record as it is then, or its id once deleted', async () => {
    const w = await hook(api, '/bodies', ['client.created']);
    const made = await api.post('/api/clients', { name: 'Bodies Ltd' });
    expect(made.status, made.text).toBe(201);
    const [first] = await receiver.waitFor('/bodies', 1);
    expect(first!.verified.data).toEqual((await api.get(made.body['@id'], { accept: 'application/json' })).body);
    // The create recorded the delivery without a body; its first attempt's outcome saved the body sent.
    await waitUntil(async () => (await deliveryRows(sql`webhook_id = ${w.id}`))[0]?.status === 'succeeded');
    const [row] = await deliveryRows(sql`webhook_id = ${w.id}`);
    expect(row!.body).toBe(first!.body);
    expect(row!.record_id).toBe(made.body.id);

    // As after a server stopped between the create's commit and that outcome: no body saved. A
    // retry makes it from the record as it is now (renamed since), with the event's own type,
    // id and time, and saves it.
    await t.db.database.db.execute(sql`update webhook_deliveries set body = null where id = ${row!.id}`);
    expect((await api.patch(made.body['@id'], { name: 'Bodies Renamed' })).status).toBe(200);
    expect((await api.post(`${w['@id']}/deliveries/${row!.id}/retry`, undefined, { accept: 'application/json' })).status).toBe(202);
    const [, second] = await receiver.waitFor('/bodies', 2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.verified.type).toBe('client.created');
    expect(second!.verified.timestamp).toBe(first!.verified.timestamp);
    expect(second!.verified.data).toEqual((await api.get(made.body['@id'], { accept: 'application/json' })).body);
    expect(second!.verified.data.name).toBe('Bodies Renamed');
    await waitUntil(async () => (await deliveryRows(sql`id = ${row!.id}`))[0]?.body === second!.body);

    // Deleted meanwhile: what is left of the record is its id.
    await t.db.database.db.execute(sql`update webhook_deliveries set body = null where id = ${row!.id}`);
    expect((await api.delete(made.body['@id'])).status).toBe(204);
    expect((await api.post(`${w['@id']}/deliveries/${row!.id}/retry`, undefined, { accept: 'application/json' })).status).toBe(202);
    const [, , third] = await receiver.waitFor('/bodies', 3);
    expect(third!.verified).toEqual({ type: 'client.created', timestamp: first!.verified.timestamp, data: { id: made.body.id } });
  });

  it('retries an endpoint that answers too late, and gives up after the schedule', async () => {
    const slow = await hook(api, '/slow', ['contact.created']);
    receiver.plan.set('/slow', ['hang', 200]);
    await api.post('/api/contacts', { client: clientIri, firstName: 'Ada', email: 'ada@example.test' });
    const got = await receiver.waitFor('/slow', 2);
    expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
    await waitUntil(async () => (await api.get(`${slow['@id']}/deliveries`, { accept: 'application/json' })).body[0]?.status === 'succeeded');

    const down = await hook(api, '/down', ['address.created']);
    receiver.plan.set('/down', [503, 503, 503, 503]);
    await api.post('/api/addresses', { client: clientIri, city: 'Paris', country: 'FR' });
    await waitUntil(async () => (await api.get(`${down['@id']}/deliveries`, { accept: 'application/json' })).body[0]?.status === 'failed');
    const [failed] = (await api.get(`${down['@id']}/deliveries?status=failed`, { accept: 'application/json' })).body;
    expect(failed).toMatchObject({ attempts: 4, responseStatus: 503, lastError: 'HTTP 503', nextAttemptAt: null });
    // Retry now: one more attempt, which succeeds.
    const retried = await api.post(`${down['@id']}/deliveries/${failed.id}/retry`, undefined, { accept: 'application/json' });
    expect(retried.status).toBe(202);
    await waitUntil(async () => (await api.get(`${down['@id']}/deliveries`, { accept: 'application/json' })).body[0]?.status === 'succeeded');
    expect(receiver.at('/down')).toHaveLength(5);
  });

  it('does not follow redirects', async () => {
    const w = await hook(api, '/redirect', ['client.updated']);
    receiver.plan.set('/redirect', [302, 302, 302, 302]);
    await api.patch(clientIri, { notes: 'redirect me' });
    await waitUntil(async () => (await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body[0]?.status === 'failed');
    expect((await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body[0].lastError).toMatch(/redirects are not followed/);
  });

  it('checks the address again at each attempt: a name or an address the policy no longer allows is not connected to', async () => {
    const port = new URL(receiver.url).port;
    // Made while private addresses are allowed; `localhost` is looked up when a connection is made.
    const named = await api.post('/api/webhooks', { url: `http://localhost:${port}/by-name`, events: ['client.updated'] });
    const literal = await api.post('/api/webhooks', { url: `http://127.0.0.1:${port}/by-address`, events: ['client.updated'] });
    expect(named.status).toBe(201);
    expect(literal.status).toBe(201);
    receiver.secrets.set('/by-name', named.body.secret);
    receiver.secrets.set('/by-address', literal.body.secret);
    allowPrivate(false);
    try {
      await api.patch(clientIri, { notes: 'not to loopback' });
      for (const w of [named.body, literal.body]) {
        await waitUntil(async () => Boolean((await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body[0]?.lastError));
        const [d] = (await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body;
        expect(d.lastError).toMatch(/loopback or private/);
        expect(d.lastStatus ?? null).toBeNull();
      }
      expect(receiver.at('/by-name')).toHaveLength(0);
      expect(receiver.at('/by-address')).toHaveLength(0);
    } finally {
      // Removed before the policy is restored, and their retries (150 ms apart) left to pass:
      // no attempt of theirs is allowed afterwards.
      for (const w of [named.body, literal.body]) await api.delete(w['@id']);
      await new Promise((r) => setTimeout(r, 500));
      allowPrivate(true);
    }
  });

  it('pings one webhook', async () => {
    const w = await hook(api, '/ping', ['client.deleted']);
    const res = await api.post(`${w['@id']}/ping`, undefined, { accept: 'application/json' });
    expect(res.status).toBe(202);
    const [got] = await receiver.waitFor('/ping', 1);
    expect(got!.verified.type).toBe('webhook.ping');
    expect(got!.verified.data.id).toBe(w.id);
    expect(got!.verified.data.secret).toBe(`whsec_…${w.secret.slice(-4)}`);
  });

  it('emits nothing for a write that is refused (422) or rolled back', async () => {
    const none = await hook(api, '/none', ['*']);
    const mine = sql`webhook_id = ${none.id}`;
    const before = (await deliveryRows(mine)).length;
    expect((await api.post('/api/invoices', { client: clientIri, dueDate: '2000-01-01', invoiceDate: '2026-01-01' })).status).toBe(422);
    expect((await api.post('/api/taxes', { name: 'x'.repeat(40), rate: 10 })).status).toBe(422);
    // A payment above the balance is refused by a rule after the transaction began.
    const inv = await api.post('/api/invoices', { client: clientIri, status: 'pending', lines: [{ description: 'a', price: 100 }] });
    await receiver.waitFor('/none', 2);
    const n = (await deliveryRows(mine)).length;
    expect(n).toBe(before + 1);
    expect((await api.post('/api/payments', { invoice: inv.body['@id'], amount: 1000 })).status).toBe(422);
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveryRows(mine)).length).toBe(n);
    // Both may be attempted at once (their arrival order is not promised).
    expect(receiver.at('/none').map((r) => r.verified.type).sort()).toEqual(['invoice.created', 'webhook.created']);
  });

  it('deletes an endpoint\'s deliveries with it (through the API or by a statement of its own), and never claims one whose endpoint is gone', async () => {
    const db = t.db.database.db;
    for (const how of ['api', 'sql'] as const) {
      const c = client(t, await tokenFor(t, { email: `gone-${how}@hooks.test`, company: `Hooks gone ${how}` }));
      const w = await hook(c, `/gone-${how}`, ['client.created']);
      expect((await c.post('/api/clients', { name: 'Gone' })).status).toBe(201);
      await receiver.waitFor(`/gone-${how}`, 1);
      const mine = sql`webhook_id = ${w.id}`;
      expect(await deliveryRows(mine)).toHaveLength(1);
      if (how === 'api') expect((await c.delete(w['@id'])).status).toBe(204);
      else await db.execute(sql`delete from webhooks where company_id = (select company_id from webhooks where id = ${w.id})`);
      expect(rowsOf(await db.execute(sql`select 1 from webhooks where id = ${w.id}`))).toHaveLength(0);
      expect(await deliveryRows(mine)).toHaveLength(0);
    }
    // A delivery written by a write that read its endpoint before the endpoint's deletion
    // committed outlives it (there is no foreign key): it is never claimed.
    const orphan = '00000000-0000-4000-8000-0000000000a1';
    await db.execute(sql`insert into webhook_deliveries (id, company_id, webhook_id, event_id, type, body, status, attempts, next_attempt_at)
      values (${orphan}, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'client.created', '{}', 'pending', 0, now())`);
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveryRows(sql`id = ${orphan}`))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await db.execute(sql`delete from webhook_deliveries where id = ${orphan}`);
  });

  // PostgreSQL only: a second connection holds the invoice number's row meanwhile.
  it.runIf(process.env.DATABASE_URL)('an invoice create whose endpoint is deleted while it runs succeeds, and its delivery is made', async () => {
    const c = client(t, await tokenFor(t, { email: 'race@hooks.test', company: 'Hooks race' }));
    const cl = (await c.post('/api/clients', { name: 'Race' })).body['@id'];
    expect((await c.post('/api/invoices', { client: cl })).status).toBe(201);
    const w = await hook(c, '/race', ['invoice.created']);
    const db = t.db.database.db;
    const [{ company_id: company }] = rowsOf<{ company_id: string }>(await db.execute(sql`select company_id from webhooks where id = ${w.id}`)) as [{ company_id: string }];
    const locker = postgres(t.db.url!, { max: 1, onnotice: () => {} });
    try {
      let create!: Promise<{ status: number; text: string }>;
      await locker.begin(async (tx) => {
        await tx`select 1 from engine_sequences where company_id = ${company} and name = 'Invoice.number' for update`;
        // The create starts (its snapshot sees the endpoint) and waits for the number.
        create = c.post('/api/invoices', { client: cl });
        const waiting = async () => rowsOf(await db.execute(sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).length;
        for (let i = 0; i < 200 && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 10));
        expect(await waiting()).toBeGreaterThan(0);
        expect((await c.delete(w['@id'])).status).toBe(204);
      });
      // With a foreign key from the delivery to its endpoint, this create failed (409).
      const res = await create;
      expect(res.status, res.text).toBe(201);
      const [got] = await receiver.waitFor('/race', 1);
      expect(got!.verified.type).toBe('invoice.created');
    } finally {
      await locker.end();
    }
  });

  // An invoice's create is its reference read and its write (the company's VAT registration comes with the principal).
  it('adds no statement to the create, with or without a webhook listening', async () => {
    const fresh = client(t, await tokenFor(t, { email: 'c@hooks.test', company: 'Hooks C' }));
    const cl = (await fresh.post('/api/clients', { name: 'Counted' })).body['@id'];
    await fresh.get('/api/clients');
    const counted = async () => {
      const before = t.db.database.statements();
      const res = await fresh.post('/api/invoices', { client: cl, lines: [{ description: 'x', price: 10 }] });
      expect(res.status).toBe(201);
      return t.db.database.statements() - before;
    };
    await counted();
    expect(await counted()).toBe(2);
    await hook(fresh, '/counted', ['invoice.created']);
    await counted();
    expect(await counted()).toBe(2);
    await receiver.waitFor('/counted', 2);
  });
});

describe('events of scheduled jobs and of GraphQL', () => {
  it('schedule:run emits recurring_invoice.issued and invoice.overdue', async () => {
    await hook(api, '/schedule', ['recurring_invoice.issued', 'invoice.overdue']);
    const r = await api.post('/api/recurring-invoices', { client: clientIri, frequency: 'monthly', startDate: '2026-03-01', lines: [{ description: 'Hosting', price: 900 }] });
    expect((await api.patch(r.body['@id'], { status: 'active' })).status).toBe(200);
    const late = await api.post('/api/invoices', { client: clientIri, status: 'pending', invoiceDate: '2026-03-01', dueDate: '2026-03-02', lines: [{ description: 'Late', price: 100 }] });
    expect(late.status).toBe(201);
    const summary = await scheduleRun({ db: t.db.database.db }, { date: '2026-03-10' });
    expect(summary.created).toBe(1);
    const got = await receiver.waitFor('/schedule', 2);
    const issued = got.find((x) => x.verified.type === 'recurring_invoice.issued')!;
    expect(issued.verified.data).toMatchObject({ id: r.body.id, lastRunDate: '2026-03-10', nextRunDate: '2026-04-01' });
    const overdue = got.filter((x) => x.verified.type === 'invoice.overdue').map((x) => x.verified.data.id);
    expect(overdue).toContain(late.body.id);
    expect(got.find((x) => x.verified.data.id === late.body.id)!.verified.data.status).toBe('overdue');
  });

  it('GraphQL writes emit the same events, and its create returns the secret whole', async () => {
    const res = await api.post('/api/graphql', { query: `mutation { createWebhook(input: {url: "${receiver.url}/gql", events: ["tax.created", "tax.deleted"]}) { webhook { id secret active } } }` }, { contentType: 'application/json' });
    const created = res.body.data.createWebhook.webhook;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.secrets.set('/gql', created.secret);
    const tax = await api.post('/api/graphql', { query: 'mutation { createTax(input: {name: "GQL tax", rate: 7}) { tax { id } } }' }, { contentType: 'application/json' });
    const taxId = tax.body.data.createTax.tax.id;
    await api.post('/api/graphql', { query: `mutation { deleteTax(input: {id: "${taxId}"}) { tax { id } } }` }, { contentType: 'application/json' });
    const got = await receiver.waitFor('/gql', 2);
    // Deliveries run concurrently: the order they arrive in is not promised (as with Standard Webhooks).
    const events = got.map((x) => [x.verified.type, x.verified.data['@id'] ?? `/api/taxes/${x.verified.data.id}`]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(events).toEqual([['tax.created', taxId], ['tax.deleted', taxId]]);
  });
});

describe('tenancy', () => {
  it('company B never sees company A\'s webhooks, deliveries or events', async () => {
    const a = await hook(api, '/tenant-a', ['*']);
    await hook(other, '/tenant-b', ['*']);
    await api.post('/api/clients', { name: 'Only A' });
    await receiver.waitFor('/tenant-a', 1);
    const [delivery] = (await api.get(`${a['@id']}/deliveries`, { accept: 'application/json' })).body;
    for (const [method, path] of [['GET', a['@id']], ['GET', `${a['@id']}/deliveries`], ['POST', `${a['@id']}/ping`], ['POST', `${a['@id']}/rotate-secret`], ['POST', `${a['@id']}/deliveries/${delivery.id}/retry`], ['PATCH', a['@id']], ['DELETE', a['@id']]] as const) {
      const res = await call(t, method, path, { token: other.token, ...(method === 'PATCH' ? { body: { active: false } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.text).not.toContain(a.secret.slice(6, 20));
    }
    const list = (await other.get('/api/webhooks', { accept: 'application/json' })).body as { id: string }[];
    expect(list.map((w) => w.id)).not.toContain(a.id);
    const gql = await other.post('/api/graphql', { query: `{ webhook(id: "${a['@id']}") { id } webhooks { totalCount } }` }, { contentType: 'application/json' });
    expect(gql.body.data.webhook).toBeNull();
    expect(gql.body.data.webhooks.totalCount).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    // B's catch-all endpoint received only B's own events.
    expect(receiver.at('/tenant-b').map((r) => r.verified.type)).toEqual(['webhook.created']);
    const viewer = client(t, await tokenFor(t, { email: 'v@hooks.test', company: 'Hooks A', role: 'viewer' }));
    expect((await viewer.get(`${a['@id']}/deliveries`, { accept: 'application/json' })).status).toBe(200);
    expect((await viewer.post(`${a['@id']}/ping`, undefined, { accept: 'application/json' })).status).toBe(403);
    expect((await viewer.post('/api/webhooks', { url: `${receiver.url}/v`, events: ['*'] })).status).toBe(403);
  });
});

describe('inactive endpoints', () => {
  const rowsOf_ = async (webhookId: string) => deliveryRows(sql`webhook_id = ${webhookId} order by created_at`);

  it('get no deliveries for events while inactive; a pending delivery waits, and is attempted when set active again', async () => {
    const w = await hook(api, '/paused', ['tax.created']);
    // The first attempt is in flight (it will time out) when the endpoint is set inactive.
    receiver.plan.set('/paused', ['hang']);
    await api.post('/api/taxes', { name: 'Paused 1', rate: 1 });
    await receiver.waitFor('/paused', 1);
    const off = await api.patch(w['@id'], { active: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body.active).toBe(false);
    // An event while inactive: no delivery at all (it is not sent later either).
    await api.post('/api/taxes', { name: 'Paused 2', rate: 2 });
    await waitUntil(async () => (await rowsOf_(w.id))[0]?.attempts === 1 && (await rowsOf_(w.id))[0]?.last_error !== null);
    await new Promise((r) => setTimeout(r, 600)); // several polls and retry delays (150 ms)
    const held = await rowsOf_(w.id);
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ status: 'pending', attempts: 1 });
    expect(receiver.at('/paused')).toHaveLength(1);
    const log = (await api.get(`${w['@id']}/deliveries`, { accept: 'application/json' })).body;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'pending', attempts: 1, lastError: 'No response within 2 s.' });

    const on = await api.patch(w['@id'], { active: true });
    expect(on.status).toBe(200);
    const got = await receiver.waitFor('/paused', 2);
    expect(got.map((r) => r.verified.data.name)).toEqual(['Paused 1', 'Paused 1']);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    await waitUntil(async () => (await rowsOf_(w.id))[0]?.status === 'succeeded');
    expect(await rowsOf_(w.id)).toHaveLength(1);
    // Active again: new events are delivered.
    await api.post('/api/taxes', { name: 'Paused 3', rate: 3 });
    expect((await receiver.waitFor('/paused', 3))[2]!.verified.data.name).toBe('Paused 3');
  });

  it('an endpoint whose deliveries have all failed for 5 days is set inactive, keeps its pending deliveries, and resumes when set active', async () => {
    const w = await hook(api, '/dying', ['tax.updated']);
    receiver.plan.set('/dying', Array.from({ length: 20 }, () => 503));
    const tax = await api.post('/api/taxes', { name: 'Dying', rate: 5 });
    await api.patch(tax.body['@id'], { rate: 6 });
    await waitUntil(async () => (await rowsOf_(w.id))[0]?.status === 'failed');
    // Failing for minutes only: still active.
    expect((await api.get(w['@id'])).body).toMatchObject({ active: true });
    // The same failures, as if they had begun 6 days ago (the default WEBHOOK_DISABLE_AFTER is 5d).
    const db = t.db.database.db;
    await db.execute(sql`update webhooks set updated_at = now() - interval '6 days', created_at = now() - interval '6 days' where id = ${w.id}`);
    await db.execute(sql`update webhook_deliveries set created_at = now() - interval '6 days' where webhook_id = ${w.id}`);
    expect((await api.get(w['@id'])).body).toMatchObject({ active: true });
    // The next failed attempt disables it.
    await api.patch(tax.body['@id'], { rate: 7 });
    await waitUntil(async () => (await api.get(w['@id'])).body.active === false);
    const disabled = (await api.get(w['@id'])).body;
    expect(disabled.disabledReason).toBe('Every delivery failed for 5 days.');
    const attempts = receiver.at('/dying').length;
    expect(attempts).toBe(5);
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.at('/dying')).toHaveLength(attempts);
    const rows = await rowsOf_(w.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['failed', 4], ['pending', 1]]);
    // Nothing is queued for it while inactive.
    await api.patch(tax.body['@id'], { rate: 8 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await rowsOf_(w.id)).toHaveLength(2);

    // Set active again (the receiver is fixed): the reason goes, the pending delivery is made at once.
    receiver.plan.set('/dying', []);
    const on = await api.patch(w['@id'], { active: true });
    expect(on.body).toMatchObject({ active: true, disabledReason: null });
    const got = await receiver.waitFor('/dying', attempts + 1);
    expect(got.at(-1)!.verified.data.rate).toBe(7);
    await waitUntil(async () => (await rowsOf_(w.id))[1]?.status === 'succeeded');
    expect((await api.get(w['@id'])).body.active).toBe(true);
  });

  it('a re-activated endpoint that fails again gets a new 5 days', async () => {
    const w = await hook(api, '/relapse', ['tax.deleted']);
    receiver.plan.set('/relapse', Array.from({ length: 20 }, () => 500));
    const db = t.db.database.db;
    const tax = await api.post('/api/taxes', { name: 'Relapse', rate: 9 });
    await api.delete(tax.body['@id']);
    await waitUntil(async () => (await rowsOf_(w.id))[0]?.status === 'failed');
    await db.execute(sql`update webhooks set active = false, disabled_reason = 'Every delivery failed for 5 days.', updated_at = now() - interval '1 day' where id = ${w.id}`);
    await db.execute(sql`update webhook_deliveries set created_at = now() - interval '6 days' where webhook_id = ${w.id}`);
    expect((await api.patch(w['@id'], { active: true })).status).toBe(200);
    const again = await api.post('/api/taxes', { name: 'Relapse 2', rate: 9 });
    await api.delete(again.body['@id']);
    await waitUntil(async () => (await rowsOf_(w.id))[1]?.attempts === 2);
    expect((await api.get(w['@id'])).body).toMatchObject({ active: true, disabledReason: null });
  });
});

describe('durability', () => {
  it.skipIf(!process.env.DATABASE_URL)('the worker plans its statements at each execution: a queue emptied and refilled is not read by a plan made when it was empty', async () => {
    // A generic plan made while webhook_deliveries was (nearly) empty scans the whole table at
    // every claim and record once it holds thousands of rows (seen in the W1 bench: 1,700 blocks
    // per claim). The worker's connections plan each statement with the table's current size.
    const db = await freshDatabase();
    const own = db.database.separate('invoicing:webhooks-test', 1);
    try {
      const [row] = rowsOf<{ plan_cache_mode: string }>(await own.db.execute(sql`show plan_cache_mode`));
      if (db.database.pooled) {
        // Behind a transaction pooler nothing is prepared (unnamed statements are planned at each
        // execution), and no session setting is made.
        const [left] = rowsOf<{ n: number }>(await own.db.transaction(async (tx) => {
          await tx.execute(sql`select count(*) from webhook_deliveries where id = ${'00000000-0000-7000-8000-000000000000'}`);
          return tx.execute(sql`select count(*)::int as n from pg_prepared_statements`);
        }));
        expect([row!.plan_cache_mode, left!.n]).toEqual(['auto', 0]);
        return;
      }
      expect(row!.plan_cache_mode).toBe('force_custom_plan');
      const [req] = rowsOf<{ plan_cache_mode: string }>(await db.database.db.execute(sql`show plan_cache_mode`));
      expect(req!.plan_cache_mode).toBe('auto');
    } finally {
      await own.close();
      await db.drop();
    }
  });

  it('a server stopped between commit and delivery loses nothing: the next one delivers', async () => {
    const db = await freshDatabase();
    const first = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s', WEBHOOK_WORKER: 'off' }, { db });
    const c = client(first, await tokenFor(first, { email: 'd@hooks.test', company: 'Durable' }));
    const res = await c.post('/api/webhooks', { url: `${receiver.url}/durable`, events: ['client.created'] });
    receiver.secrets.set('/durable', res.body.secret);
    for (const name of ['One', 'Two', 'Three']) expect((await c.post('/api/clients', { name })).status).toBe(201);
    await first.close();
    expect(receiver.at('/durable')).toHaveLength(0);
    const second = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db });
    try {
      const got = await receiver.waitFor('/durable', 3);
      expect(got.map((r) => r.verified.data.name).sort()).toEqual(['One', 'Three', 'Two']);
    } finally {
      await second.close();
      await db.drop();
    }
  });

  it('deliveries handed back (more than the worker holds, or not attempted when it stops) keep the payload their create made: the next server sends the record as it was written', async () => {
    const db = await freshDatabase();
    const first = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s', WEBHOOK_CONCURRENCY: '1' }, { db });
    const c = client(first, await tokenFor(first, { email: 'hb@hooks.test', company: 'Handed back' }));
    const res = await c.post('/api/webhooks', { url: `${receiver.url}/handback`, events: ['client.created'] });
    receiver.secrets.set('/handback', res.body.secret);
    // One attempt at a time, held by the receiver: the worker holds 3 more (4 rounds of 1), and
    // hands the other 4 back at once; those 3 it hands back when it stops.
    receiver.plan.set('/handback', ['hold']);
    const made: { iri: string; name: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await c.post('/api/clients', { name: `Written ${i}` });
      expect(r.status).toBe(201);
      made.push({ iri: r.body['@id'], name: `Written ${i}` });
    }
    await receiver.waitFor('/handback', 1);
    const closing = first.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.release()).toBe(1);
    await closing;
    // Every delivery not yet made has the body its create made, saved when it was handed back.
    const waiting = rowsOf<{ body: string | null }>(await db.database.db.execute(sql`select body from webhook_deliveries where status = 'pending'`));
    expect(waiting).toHaveLength(7);
    expect(waiting.every((w) => typeof w.body === 'string')).toBe(true);
    // Renamed before the next server delivers them: the payloads are the records as written.
    for (const m of made) await db.database.db.execute(sql`update clients set name = ${`Renamed ${m.name}`} where id = ${m.iri.split('/').pop()!}`);
    const second = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db });
    try {
      const got = await receiver.waitFor('/handback', 8);
      expect(got.map((r) => r.verified.data.name).sort()).toEqual(made.map((m) => m.name).sort());
    } finally {
      await second.close();
      await db.drop();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('a server killed (SIGKILL) with attempts in flight loses nothing: another takes them over', async () => {
    const db = await freshDatabase();
    const seed = await startTestServer(ENV, { db });
    const token = await tokenFor(seed, { email: 'k@hooks.test', company: 'Killed' });
    await seed.running.stop();
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], {
      env: { ...process.env, ...ENV, WEBHOOK_TIMEOUT: '1s', DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'silent', SCHEDULER: 'off', REDIS_URL: '' },
      stdio: 'ignore',
    });
    const base = { url: `http://127.0.0.1:${port}` };
    await expect.poll(async () => (await call(base, 'GET', '/readyz').catch(() => ({ status: 0 }))).status, { timeout: 90_000, interval: 200 }).toBe(200);
    const c = client(base, token);
    const res = await c.post('/api/webhooks', { url: `${receiver.url}/killed`, events: ['client.created'] });
    receiver.secrets.set('/killed', res.body.secret);
    // The first attempts get no answer in time; the process dies while they are in flight.
    receiver.plan.set('/killed', ['hang', 'hang', 'hang', 'hang', 'hang', 'hang', 'hang', 'hang']);
    for (let i = 0; i < 10; i++) expect((await c.post('/api/clients', { name: `Killed ${i}` })).status).toBe(201);
    await receiver.waitFor('/killed', 3);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    receiver.plan.set('/killed', []);
    const next = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db });
    try {
      const names = () => new Set(receiver.at('/killed').map((r) => r.verified.data.name));
      await waitUntil(async () => names().size === 10 && rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`))[0]!.n === 0, 60_000);
      expect(names().size).toBe(10);
    } finally {
      await next.close();
      await db.drop();
    }
  }, 240_000);

  it.skipIf(!process.env.DATABASE_URL)('a PostgreSQL outage loses no event: attempts answered during it are recorded after it, the rest are delivered, the worker keeps going', async () => {
    const db = await freshDatabase();
    const relay = new Relay(new URL(db.url!));
    await relay.open();
    const url = relay.url(new URL(db.url!).pathname.slice(1));
    // The server reaches PostgreSQL through the relay; `db` (direct) is the test's view.
    const database = await openDatabase({ databaseUrl: url, maxConnections: 4, connectTimeoutSeconds: 2 });
    const s = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '5s', WEBHOOK_CONCURRENCY: '4' }, { db: { ...db, database, url, drop: async () => {} } });
    const warnings: string[] = [];
    const log = s.running.fastify.log;
    const warn = log.warn.bind(log);
    log.warn = ((obj: unknown, msg?: string) => {
      warnings.push(String(msg ?? obj));
      return warn(obj as never, msg as never);
    }) as typeof log.warn;
    try {
      const c = client(s, await tokenFor(s, { email: 'o@hooks.test', company: 'Outage' }));
      const res = await c.post('/api/webhooks', { url: `${receiver.url}/outage`, events: ['client.created'] });
      receiver.secrets.set('/outage', res.body.secret);
      // Four attempts (the concurrency) reach the receiver and wait for their answer; the other
      // events wait behind them, more than the worker claims ahead (4 rounds of 4): some are still
      // only in the database when it goes away.
      receiver.plan.set('/outage', ['hold', 'hold', 'hold', 'hold']);
      const names = Array.from({ length: 24 }, (_, i) => `Outage ${i}`);
      for (const name of names) expect((await c.post('/api/clients', { name })).status).toBe(201);
      await receiver.waitFor('/outage', 4);

      await relay.cut();
      // The receiver answers while the database is away: the worker cannot record those attempts
      // yet (nor those of the deliveries it had claimed ahead, which it now makes).
      expect(receiver.release()).toBe(4);
      expect((await c.post('/api/clients', { name: 'Refused' })).status).toBe(503);
      await new Promise((r) => setTimeout(r, 1500)); // claims fail for a while (every 50 ms)
      const beforeRestore = receiver.at('/outage').length;
      expect(beforeRestore).toBeGreaterThanOrEqual(4);
      expect(beforeRestore).toBeLessThanOrEqual(16);
      await relay.restore();

      await expect.poll(async () => (await c.get('/api/clients')).status, { timeout: 10_000, interval: 100 }).toBe(200);
      const after = await c.post('/api/clients', { name: 'After' });
      expect(after.status).toBe(201);
      const rows = async () => rowsOf<{ event_id: string; status: string; attempts: number }>(await db.database.db.execute(sql`select event_id, status, attempts from webhook_deliveries where type = 'client.created'`));
      await waitUntil(async () => (await rows()).every((r) => r.status === 'succeeded') && receiver.at('/outage').length >= 25, 30_000);
      const final = await rows();
      expect(final).toHaveLength(25);
      expect(final.every((r) => r.status === 'succeeded')).toBe(true);
      // Every event arrived; none twice: the attempts answered during the outage were recorded
      // after it (within their lease), not made again.
      const got = receiver.at('/outage');
      expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(final.map((r) => r.event_id)));
      expect(got.map((r) => r.verified.data.name).sort()).toEqual([...names, 'After'].sort());
      expect(got).toHaveLength(25);
      expect(final.map((r) => r.attempts)).toEqual(final.map(() => 1));
      expect(warnings.some((w) => /could not (claim|record)/.test(w)), warnings.join('\n')).toBe(true);
    } finally {
      await s.close();
      await database.close();
      await relay.cut();
      await db.drop();
    }
  }, 60_000);

  it.skipIf(!process.env.DATABASE_URL)('a write hands its deliveries to the worker (no claim: one update each, its record); a retry is claimed, and a claim writes no index entry (a HOT update)', async () => {
    const db = await freshDatabase();
    const s = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db });
    try {
      const c = client(s, await tokenFor(s, { email: 'h@hooks.test', company: 'Hot' }));
      const res = await c.post('/api/webhooks', { url: `${receiver.url}/hot`, events: ['client.created', 'client.updated'] });
      receiver.secrets.set('/hot', res.body.secret);
      // What makes a claim HOT: it sets no column any index of the table names (in its key, its
      // expressions or its predicate).
      const indexes = rowsOf<{ def: string }>(await db.database.db.execute(sql`select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = 'webhook_deliveries'::regclass`));
      expect(indexes.length).toBeGreaterThanOrEqual(5);
      for (const { def } of indexes) for (const claimed of ['attempts', 'leased_until', 'updated_at']) expect(def).not.toMatch(new RegExp(`\\b${claimed}\\b`));
      // The server's backends report their counts within a second or so.
      const counts = async () => rowsOf<{ upd: number; hot: number }>(await db.database.db.execute(sql`select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables where relname = 'webhook_deliveries'`))[0] ?? { upd: 0, hot: 0 };
      const settled = async (upd: number) => {
        await waitUntil(async () => (await counts()).upd >= upd, 15_000);
        await new Promise((r) => setTimeout(r, 1200));
        return counts();
      };
      // Answered at once: each delivery is updated once, by its record (its first attempt was
      // counted and leased by the insert, and the write handed it to the worker).
      const made: string[] = [];
      for (let i = 0; i < 10; i++) {
        const r = await c.post('/api/clients', { name: `Hot ${i}` });
        expect(r.status).toBe(201);
        made.push(r.body['@id']);
      }
      await receiver.waitFor('/hot', 10);
      const first = await settled(10);
      expect(first.upd).toBe(10);
      // A first answer of 500: recorded, claimed again when due (a HOT update: the lease and the
      // attempt count are in no index), recorded again. A claim is HOT when the row's page has room
      // for its new version, so what is measured must not depend on layout:
      // - these are updates' deliveries, written with their body (a create's is written without
      //   it, and grows by it at its first outcome);
      // - one is due at a time, so each claim is a statement of its own that updates one row (a
      //   claim of several rows of one page needs room for all their versions at once, which ~1 kB
      //   rows at the table's fillfactor of 50 do not always leave: 9 of 10 once in CI).
      for (const [i, iri] of made.entries()) {
        receiver.plan.set('/hot', [500]);
        expect((await c.patch(iri, { name: `Hot ${i} renamed` })).status).toBe(200);
        await receiver.waitFor('/hot', 10 + 2 * (i + 1));
      }
      const second = await settled(first.upd + 30);
      expect(second.upd - first.upd).toBe(30);
      expect(second.hot - first.hot).toBeGreaterThanOrEqual(10);
    } finally {
      await s.close();
      await db.drop();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)("the worker's statements read the deliveries due, not the endpoint's log", async () => {
    const db = await freshDatabase();
    const s = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db });
    try {
      const c = client(s, await tokenFor(s, { email: 'l@hooks.test', company: 'Log' }));
      const res = await c.post('/api/webhooks', { url: `${receiver.url}/log`, events: ['client.created'] });
      receiver.secrets.set('/log', res.body.secret);
      const hookId = res.body.id as string;
      // A long log of past deliveries of this endpoint, as a year of events leaves it.
      await db.database.db.execute(sql`insert into webhook_deliveries (id, company_id, webhook_id, event_id, type, body, status, attempts, created_at, updated_at)
        select gen_random_uuid(), w.company_id, w.id, gen_random_uuid(), 'client.created', repeat('x', 900), 'succeeded', 1, now() - g * interval '1 minute', now()
        from webhooks w cross join generate_series(1, 6000) g where w.id = ${hookId}`);
      const read = async () => rowsOf<{ seq: number; idx: number }>(await db.database.db.execute(sql`
        select coalesce(t.seq_tup_read, 0)::int as seq, coalesce((select sum(i.idx_tup_read) from pg_stat_user_indexes i where i.relid = t.relid and i.indexrelname <> 'webhook_deliveries_due_idx'), 0)::int as idx
        from pg_stat_user_tables t where t.relname = 'webhook_deliveries'`))[0]!;
      // The server's backends report their counts within a second or so.
      await new Promise((r) => setTimeout(r, 1500));
      const before = await read();
      for (let i = 0; i < 20; i++) expect((await c.post('/api/clients', { name: `Log ${i}` })).status).toBe(201);
      await receiver.waitFor('/log', 20);
      await new Promise((r) => setTimeout(r, 1500));
      const after = await read();
      // Twenty deliveries claimed and recorded: rows read by key or from the queue, never the 6,000.
      expect(after.seq - before.seq).toBeLessThan(1000);
      expect(after.idx - before.idx).toBeLessThan(1000);
    } finally {
      await s.close();
      await db.drop();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('two instances deliver each event once', async () => {
    const db = await freshDatabase();
    const pool2 = await openDatabase({ ...databaseOptionsOf(db), maxConnections: 4 });
    const a = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db });
    const b = await startTestServer({ ...ENV, WEBHOOK_TIMEOUT: '10s' }, { db: { ...db, database: pool2, drop: async () => {} } });
    try {
      const ca = client(a, await tokenFor(a, { email: 'e@hooks.test', company: 'Twice' }));
      const cb = client(b, ca.token);
      const res = await ca.post('/api/webhooks', { url: `${receiver.url}/twice`, events: ['client.created'] });
      receiver.secrets.set('/twice', res.body.secret);
      for (let i = 0; i < 20; i++) expect((await (i % 2 ? ca : cb).post('/api/clients', { name: `Client ${i}` })).status).toBe(201);
      const got = await receiver.waitFor('/twice', 20);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.at('/twice')).toHaveLength(20);
      expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(20);
    } finally {
      await a.close();
      await b.close();
      await pool2.close();
      await db.drop();
    }
  });
});

async function waitUntil(fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}
