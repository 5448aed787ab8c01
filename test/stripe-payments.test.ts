// Card payment on client links with Stripe (CONTRACT §16), against a loopback stub of Stripe's API
// (the official `stripe` client pointed at it by STRIPE_API_BASE) and events signed with the
// library's own test helper: the Pay button's redirect to the Checkout Session made for the balance,
// exactly one `card` payment per completed session however often and concurrently the event comes,
// a session the service did not create recorded nowhere, a bad signature refused.
import { createServer, type Server } from 'node:http';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

const SECRET = 'whsec_test_links_secret';
const stripe = new Stripe('sk_test_dummy');

/** Stripe's API as far as the service uses it: POST /v1/checkout/sessions. */
class StripeStub {
  server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      this.requests.push({ method: req.method!, path: req.url!, auth: String(req.headers.authorization ?? ''), form: new URLSearchParams(body) });
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        const form = new URLSearchParams(body);
        const id = `cs_test_${++this.n}${Math.random().toString(36).slice(2, 8)}`;
        const session = {
          id, object: 'checkout.session', mode: 'payment', status: 'open', payment_status: 'unpaid',
          amount_total: Number(form.get('line_items[0][price_data][unit_amount]')), currency: form.get('line_items[0][price_data][currency]'),
          client_reference_id: form.get('client_reference_id'), success_url: form.get('success_url'), cancel_url: form.get('cancel_url'),
          url: `${this.url}/c/pay/${id}`,
        };
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${this.n}` }).end(JSON.stringify(session));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }));
    });
  });
  requests: { method: string; path: string; auth: string; form: URLSearchParams }[] = [];
  n = 0;
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }
  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let stub: StripeStub;
let t: TestServer;
let admin: Client;
let clientIri: string;

const pathOf = (url: string) => new URL(url).pathname;
const post = (path: string) => fetch(t.url + path, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

function completed(sessionId: string, amount: number, o: { type?: string; paid?: boolean } = {}) {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`, object: 'event', api_version: '2024-06-20', created: Math.floor(Date.now() / 1000), type: o.type ?? 'checkout.session.completed',
    data: { object: { id: sessionId, object: 'checkout.session', amount_total: amount, currency: 'eur', payment_status: o.paid === false ? 'unpaid' : 'paid', status: 'complete' } },
  });
}
async function deliver(payload: string, signature = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET })) {
  const res = await fetch(`${t.url}/payments/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
  return { status: res.status, body: await res.text() };
}
async function payable(price = 25000) {
  const inv = (await admin.post('/api/invoices', { client: clientIri, lines: [{ description: 'Work', price }] })).body;
  expect((await admin.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
  const url = (await admin.post('/api/document-links', { document: inv['@id'] })).body.url as string;
  return { inv, path: pathOf(url) };
}
async function checkout(path: string): Promise<string> {
  const res = await post(`${path}/pay`);
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  return location.split('/').pop()!;
}
async function cardPayments(invoiceIri: string) {
  return (await admin.get(`/api/payments?invoice=${encodeURIComponent(invoiceIri)}`)).body.member as { amount: number; method: string; reference: string }[];
}

beforeAll(async () => {
  stub = new StripeStub();
  await stub.start();
  t = await startTestServer({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_service', STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: stub.url, RATE_LIMIT_MAX: '100000' });
  admin = client(t, await tokenFor(t, { email: 'admin@stripe.test', company: 'Stripe Co', currency: 'EUR' }));
  clientIri = (await admin.post('/api/clients', { name: 'Card Buyer', currency: 'EUR' })).body['@id'];
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('Stripe', () => {
  it('shows a Pay button that creates a Checkout Session for the balance and redirects to it', async () => {
    const { inv, path } = await payable(25000);
    // Part paid by transfer: the session is for the balance.
    expect((await admin.post('/api/payments', { invoice: inv['@id'], amount: 5000, method: 'bank_transfer' })).status).toBe(201);
    const page = await fetch(t.url + path);
    const html = await page.text();
    expect(html).toContain('Pay by card');
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${stub.url}`);
    const res = await post(`${path}/pay`);
    expect(res.status).toBe(303);
    const req = stub.requests.at(-1)!;
    expect(req.path).toBe('/v1/checkout/sessions');
    expect(req.auth).toBe('Bearer sk_test_service');
    expect(req.form.get('mode')).toBe('payment');
    expect(req.form.get('line_items[0][price_data][unit_amount]')).toBe('20000');
    expect(req.form.get('line_items[0][price_data][currency]')).toBe('eur');
    expect(req.form.get('line_items[0][price_data][product_data][name]')).toBe(`Invoice ${inv.number}`);
    expect(req.form.get('success_url')).toMatch(new RegExp(`${path}\\?done=paid$`));
    expect(res.headers.get('location')).toMatch(new RegExp(`^${stub.url}/c/pay/cs_test_`));
  });

  it('records exactly one card payment per completed session, however often and concurrently the event comes', async () => {
    const { inv, path } = await payable(30000);
    const session = await checkout(path);
    const payload = completed(session, 30000);
    for (let i = 0; i < 3; i++) expect((await deliver(payload)).status).toBe(200);
    await Promise.all(Array.from({ length: 6 }, () => deliver(completed(session, 30000))).map(async (p) => expect((await p).status).toBe(200)));
    const payments = await cardPayments(inv['@id']);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ amount: 30000, method: 'card', reference: session });
    // The invoice moved as with any payment.
    const after = (await admin.get(inv['@id'])).body;
    expect(after).toMatchObject({ status: 'paid', balance: 0, amountPaid: 30000 });
  });

  it('records concurrent first deliveries of a session once', async () => {
    const { inv, path } = await payable(4200);
    const session = await checkout(path);
    const results = await Promise.all(Array.from({ length: 8 }, () => deliver(completed(session, 4200))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => JSON.parse(r.body).recorded === true)).toHaveLength(1);
    expect(await cardPayments(inv['@id'])).toHaveLength(1);
  });

  it('acknowledges a session the service did not create, and other events, recording nothing', async () => {
    const { inv, path } = await payable(1000);
    const session = await checkout(path);
    expect((await deliver(completed('cs_test_not_ours', 1000))).status).toBe(200);
    expect((await deliver(completed(session, 1000, { type: 'checkout.session.expired' }))).status).toBe(200);
    expect((await deliver(completed(session, 1000, { paid: false }))).status).toBe(200);
    expect(await cardPayments(inv['@id'])).toHaveLength(0);
  });

  it('refuses a bad signature with a 400, recording nothing', async () => {
    const { inv, path } = await payable(1500);
    const session = await checkout(path);
    const payload = completed(session, 1500);
    const wrong = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    for (const sig of [wrong, '', 't=1,v1=deadbeef']) {
      const res = await deliver(payload, sig);
      expect(res.status).toBe(400);
      expect(res.body).toMatch(/signature/i);
    }
    // A body changed after signing.
    const signed = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    expect((await deliver(payload.replace('1500', '1'), signed)).status).toBe(400);
    expect(await cardPayments(inv['@id'])).toHaveLength(0);
    expect((await deliver(payload)).status).toBe(200);
    expect(await cardPayments(inv['@id'])).toHaveLength(1);
  });

  it('offers no Pay button on a paid invoice, a quote, or without a balance', async () => {
    const quote = (await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'Offer', price: 100 }] })).body;
    const qpath = pathOf((await admin.post('/api/document-links', { document: quote['@id'] })).body.url);
    expect(await (await fetch(t.url + qpath)).text()).not.toContain('Pay by card');
    expect((await post(`${qpath}/pay`)).status).toBe(404);
    const { inv, path } = await payable(800);
    expect((await admin.post('/api/payments', { invoice: inv['@id'], amount: 800 })).status).toBe(201);
    expect(await (await fetch(t.url + path)).text()).not.toContain('Pay by card');
    expect((await post(`${path}/pay`)).status).toBe(409);
  });
});
