// Document links (CONTRACT §16): the resource (create with the URL shown once, list, read, revoke,
// expiry defaults and bounds, tenancy, roles, GraphQL), and the public page /d/<token>: headers,
// 404 / 410 showing nothing, downloads byte for byte, views and the viewed events (at most once per
// link and hour), the quote's accept and decline through the engine, and the per-IP rate limit.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.ts';
import { rowsOf } from '../server/db.ts';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { checkEinvoice } from './support/einvoice-validate.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let other: Client;
let now = Date.now();
let clientIri: string;
let contactIri: string;
let otherContactIri: string;
const DAY = 86_400_000;

const pathOf = (url: string) => new URL(url).pathname;
async function page(path: string, init: RequestInit = {}) {
  const res = await fetch(t.url + path, { redirect: 'manual', ...init });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, text: bytes.toString('utf8'), bytes };
}
const post = (path: string) => page(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
async function db<T = Record<string, unknown>>(q: ReturnType<typeof sql>): Promise<T[]> {
  return rowsOf<T>(await t.db.database.db.execute(q));
}
async function deliveries(type: string): Promise<number> {
  const [r] = await db<{ n: number }>(sql`select count(*)::int as n from webhook_deliveries where type = ${type}`);
  return Number(r!.n);
}

async function invoice(o: Record<string, unknown> = {}) {
  const res = await admin.post('/api/invoices', { client: clientIri, dueDate: '2099-03-01', lines: [{ description: 'Design work', qty: 2, price: 12500 }], ...o });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
async function link(document: string, o: Record<string, unknown> = {}, c: Client = admin) {
  return c.post('/api/document-links', { document, ...o });
}

beforeAll(async () => {
  // The rate limiter's clock: moved a minute on before each test, so the 60 a minute never runs out by accident.
  t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_WORKER: 'off' }, { clock: () => now });
  admin = client(t, await tokenFor(t, { email: 'admin@links.test', company: 'Links Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@links.test', company: 'Links Co', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'o@other-links.test', company: 'Other Links Co' }));
  expect((await admin.patch('/api/company', { legalName: 'Links Company GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', country: 'DE', city: 'Berlin' })).status).toBe(200);
  clientIri = (await admin.post('/api/clients', { name: 'Acme Buyer', currency: 'EUR' })).body['@id'];
  contactIri = (await admin.post('/api/contacts', { client: clientIri, firstName: 'Ann', email: 'ann@acme.test' })).body['@id'];
  const another = (await admin.post('/api/clients', { name: 'Someone Else' })).body['@id'];
  otherContactIri = (await admin.post('/api/contacts', { client: another, firstName: 'Bob', email: 'bob@else.test' })).body['@id'];
  // Every event recorded (the worker is off: nothing is sent).
  expect((await admin.post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).status).toBe(201);
});
afterAll(() => t?.close());
beforeEach(() => {
  now += 61_000;
});

describe('the resource', () => {
  it('creates a link whose URL only the create response shows, and only a hash is stored', async () => {
    const inv = await invoice();
    const res = await link(inv['@id'], { contact: contactIri });
    expect(res.status, res.text).toBe(201);
    const url: string = res.body.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/d\/[A-Za-z0-9_-]{32}$/);
    // 24 random bytes: 192 bits.
    expect(Buffer.from(url.split('/d/')[1]!, 'base64url').length).toBe(24);
    expect(res.body).toMatchObject({ document: inv['@id'], invoice: inv['@id'], quote: null, creditNote: null, contact: contactIri, views: 0, lastViewedAt: null });
    const read = await admin.get(res.body['@id']);
    expect(read.status).toBe(200);
    expect(read.body.url).toBeUndefined();
    expect(read.text).not.toContain(url.split('/d/')[1]);
    const list = await admin.get(`/api/document-links?document=${encodeURIComponent(inv['@id'])}`);
    expect(list.body.member.map((m: { '@id': string }) => m['@id'])).toEqual([res.body['@id']]);
    expect(list.text).not.toContain('/d/');
    // The database holds the SHA-256 of the token, never the token.
    const token = url.split('/d/')[1]!;
    const rows = await db(sql`select * from document_link_tokens`);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(await db(sql`select * from document_links`))).not.toContain(token);
    // A bare id names the document too.
    const bare = await link(String(inv.id));
    expect(bare.status, bare.text).toBe(201);
    expect(bare.body.document).toBe(inv['@id']);
  });

  it('defaults the expiry to the end of the day 30 days after the due date, within 30 to 120 days from now', async () => {
    const at = (body: { expiresAt: string }) => Date.parse(body.expiresAt);
    const dueIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
    const mid = (await link((await invoice({ dueDate: dueIn(45) }))['@id'])).body;
    expect(mid.expiresAt).toBe(`${new Date(Date.parse(`${dueIn(45)}T00:00:00Z`) + 30 * DAY).toISOString().slice(0, 10)}T23:59:59.999Z`);
    const early = (await link((await invoice({ invoiceDate: '2020-01-01', dueDate: '2020-01-10' }))['@id'])).body;
    expect(Math.abs(at(early) - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    const late = (await link((await invoice({ dueDate: '2099-01-01' }))['@id'])).body;
    expect(Math.abs(at(late) - (Date.now() + 120 * DAY))).toBeLessThan(60_000);
  });

  it('refuses an expiry in the past or beyond 120 days, a contact of another client, an unknown document', async () => {
    const inv = await invoice();
    const past = await link(inv['@id'], { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(422);
    expect(past.body.violations[0].propertyPath).toBe('expiresAt');
    const far = await link(inv['@id'], { expiresAt: new Date(Date.now() + 121 * DAY).toISOString() });
    expect(far.status).toBe(422);
    expect(far.body.violations[0].propertyPath).toBe('expiresAt');
    const ok = await link(inv['@id'], { expiresAt: new Date(Date.now() + 119 * DAY).toISOString() });
    expect(ok.status).toBe(201);
    const wrongContact = await link(inv['@id'], { contact: otherContactIri });
    expect(wrongContact.status).toBe(422);
    expect(wrongContact.body.violations[0].propertyPath).toBe('contact');
    for (const doc of ['/api/invoices/0190a7b0-0000-7000-8000-000000000000', '/api/clients/' + clientIri.split('/').pop(), 'nonsense']) {
      const res = await link(doc);
      expect(res.status, doc).toBe(422);
      expect(res.body.violations[0].propertyPath).toBe('document');
    }
    expect((await admin.post('/api/document-links', {})).status).toBe(422);
  });

  it('keeps companies apart and lets viewers only read', async () => {
    const inv = await invoice();
    // Another company's document reads as missing.
    const foreign = await link(inv['@id'], {}, other);
    expect(foreign.status).toBe(422);
    expect(foreign.body.violations[0].propertyPath).toBe('document');
    const mine = await link(inv['@id']);
    expect((await other.get(mine.body['@id'])).status).toBe(403);
    expect((await other.delete(mine.body['@id'])).status).toBe(403);
    expect((await other.get('/api/document-links')).body.totalItems).toBe(0);
    expect((await viewer.get(mine.body['@id'])).status).toBe(200);
    expect((await link(inv['@id'], {}, viewer)).status).toBe(403);
    expect((await viewer.delete(mine.body['@id'])).status).toBe(403);
  });

  it('GraphQL: documentLinks, documentLink, createDocumentLink with the url in its payload once, deleteDocumentLink', async () => {
    const inv = await invoice();
    const gql = (c: Client, query: string, variables: Record<string, unknown> = {}) => c.post('/api/graphql', { query, variables }, { contentType: 'application/json' });
    const created = await gql(admin, `mutation($d: String!) { createDocumentLink(input: { document: $d }) { url documentLink { id document views expiresAt invoice { id } } } }`, { d: inv['@id'] });
    expect(created.body.errors, created.text).toBeUndefined();
    const out = created.body.data.createDocumentLink;
    expect(out.url).toMatch(/\/d\/[A-Za-z0-9_-]{32}$/);
    expect(out.documentLink).toMatchObject({ document: inv['@id'], views: 0, invoice: { id: inv['@id'] } });
    // The type has no url: a query cannot ask for it.
    const asked = await gql(admin, `query($id: ID!) { documentLink(id: $id) { url } }`, { id: out.documentLink.id });
    expect(asked.body.errors?.[0]?.message).toMatch(/url/);
    const read = await gql(admin, `query($id: ID!) { documentLink(id: $id) { id views } documentLinks(first: 30) { totalCount } }`, { id: out.documentLink.id });
    expect(read.body.errors, read.text).toBeUndefined();
    expect(read.body.data.documentLink.id).toBe(out.documentLink.id);
    expect((await gql(other, `query($id: ID!) { documentLink(id: $id) { id } }`, { id: out.documentLink.id })).body.data.documentLink).toBeNull();
    const del = await gql(admin, `mutation($id: ID!) { deleteDocumentLink(input: { id: $id }) { documentLink { id } } }`, { id: out.documentLink.id });
    expect(del.body.errors, del.text).toBeUndefined();
    expect((await page(pathOf(out.url))).status).toBe(410);
  });
});

describe('the page', () => {
  it('answers with the headers of §16 on every response, and 404 for an unknown token, showing nothing', async () => {
    const inv = await invoice({ notes: 'Secret note for the client' });
    const url = (await link(inv['@id'])).body.url as string;
    for (const p of [pathOf(url), `${pathOf(url)}/pdf`, '/d/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/d/x']) {
      const res = await page(p);
      expect(res.headers.get('cache-control'), p).toBe('no-store');
      expect(res.headers.get('referrer-policy'), p).toBe('no-referrer');
      expect(res.headers.get('x-robots-tag'), p).toMatch(/noindex/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp, p).toMatch(/default-src 'none'/);
      expect(csp, p).not.toMatch(/unsafe-inline/);
      expect(csp, p).not.toMatch(/script-src/);
    }
    const unknown = await page('/d/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toMatch(/Secret note|INV-|Acme/);
    const body = (await page(pathOf(url))).text;
    expect(body).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it('shows the document as the PDF does: seller, buyer, lines, totals, balance and the bank transfer with an EPC QR code', async () => {
    const tax = (await admin.post('/api/taxes', { name: 'VAT', rate: 19 })).body['@id'];
    const inv = await invoice({ terms: 'Net 30', lines: [{ description: 'Consulting <b>hours</b>', qty: 3, price: 10000, tax }, { description: 'Travel', qty: 1, price: 5000 }] });
    await admin.patch(inv['@id'], { status: 'pending' });
    const url = (await link(inv['@id'])).body.url as string;
    const res = await page(pathOf(url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const text = res.text;
    for (const s of ['Links Company GmbH', 'Acme Buyer', inv.number, 'Consulting &#60;b&#62;hours&#60;/b&#62;', 'Travel', 'VAT 19%', '57.00', 'EUR 407.00', 'Balance due', 'DE89 3704 0044 0532 0130 00', 'COBADEFFXXX', 'Net 30', 'Download PDF', 'E-invoice (UBL)']) {
      expect(text, s).toContain(s);
    }
    expect(text).toMatch(/<svg[^>]*aria-hidden="true"/);
    expect(text).toContain('EPC QR code');
    // No provider configured: bank transfer only.
    expect(text).not.toContain('Pay by card');
  });

  it('serves the PDF and the UBL byte for byte as the API does, with their content types; a quote has no UBL', async () => {
    const inv = await invoice();
    await admin.patch(inv['@id'], { status: 'pending' });
    const url = (await link(inv['@id'])).body.url as string;
    const api = async (accept: string) => {
      const r = await fetch(t.url + inv['@id'], { headers: { 'x-api-token': admin.token, accept } });
      return { type: r.headers.get('content-type'), bytes: Buffer.from(await r.arrayBuffer()) };
    };
    const pdf = await page(`${pathOf(url)}/pdf`);
    const apiPdf = await api('application/pdf');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe(apiPdf.type);
    expect(pdf.bytes.equals(apiPdf.bytes)).toBe(true);
    // Without the company's electronic address and VAT numbers Peppol refuses: the same answer as the API's either way.
    const ubl = await page(`${pathOf(url)}/ubl`);
    const apiUbl = await fetch(t.url + inv['@id'], { headers: { 'x-api-token': admin.token, accept: 'application/vnd.oasis.ubl+xml' } });
    expect(ubl.status).toBe(apiUbl.status === 200 ? 200 : 422);
    if (apiUbl.status === 200) {
      expect(ubl.headers.get('content-type')).toBe(apiUbl.headers.get('content-type'));
      expect(ubl.bytes.equals(Buffer.from(await apiUbl.arrayBuffer()))).toBe(true);
      await checkEinvoice(ubl.headers.get('content-type'), ubl.bytes.toString('utf8'));
    }
    const quote = (await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'Offer', price: 1000 }] })).body;
    const qurl = (await link(quote['@id'])).body.url as string;
    expect((await page(`${pathOf(qurl)}/ubl`)).status).toBe(404);
    const qpdf = await page(`${pathOf(qurl)}/pdf`);
    expect(qpdf.headers.get('content-type')).toBe('application/pdf');
    const apiQpdf = Buffer.from(await (await fetch(t.url + quote['@id'], { headers: { 'x-api-token': admin.token, accept: 'application/pdf' } })).arrayBuffer());
    expect(qpdf.bytes.equals(apiQpdf)).toBe(true);
  });

  it('counts page views (not downloads) and emits invoice.viewed at most once per link and hour', async () => {
    const inv = await invoice();
    const created = (await link(inv['@id'])).body;
    const p = pathOf(created.url);
    const before = await deliveries('invoice.viewed');
    expect((await page(p)).status).toBe(200);
    expect((await page(p)).status).toBe(200);
    expect((await page(`${p}/pdf`)).status).toBe(200);
    const read = (await admin.get(created['@id'])).body;
    expect(read.views).toBe(2);
    expect(Date.parse(read.lastViewedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await deliveries('invoice.viewed')).toBe(before + 1);
    // An hour later (the last event moved back), the next view emits again.
    await db(sql`update document_link_tokens set last_event_at = now() - interval '61 minutes' where link_id = ${created.id}`);
    await page(p);
    expect(await deliveries('invoice.viewed')).toBe(before + 2);
    // Another link to the same invoice has its own hour.
    const second = (await link(inv['@id'])).body;
    await page(pathOf(second.url));
    expect(await deliveries('invoice.viewed')).toBe(before + 3);
    const [event] = await db<{ body: string }>(sql`select body from webhook_deliveries where type = 'invoice.viewed' and body is not null order by created_at desc limit 1`);
    if (event) expect(JSON.parse(event.body).data.number).toBe(inv.number);
    expect(await deliveries('invoice.viewed')).toBe(before + 3);
    // Webhooks can subscribe to them.
    const types = (await admin.get('/api/webhooks/event-types', { accept: 'application/json' })).text;
    for (const type of ['invoice.viewed', 'quote.viewed', 'document_link.created', 'document_link.deleted']) expect(types).toContain(type);
  });

  it('answers 410 for a revoked or expired link, showing nothing of the document, and the API 404 for a revoked one', async () => {
    const inv = await invoice({ notes: 'Private words' });
    const created = (await link(inv['@id'])).body;
    const p = pathOf(created.url);
    expect((await page(p)).status).toBe(200);
    expect((await admin.delete(created['@id'])).status).toBe(204);
    expect((await admin.get(created['@id'])).status).toBe(404);
    for (const sub of ['', '/pdf', '/ubl']) {
      const res = await page(p + sub);
      expect(res.status, sub).toBe(410);
      expect(res.text).not.toMatch(/Private words|Acme|INV-/);
      expect(res.text).toMatch(/ask the sender/i);
    }
    expect((await post(`${p}/accept`)).status).toBe(410);
    // Expired: a link given two seconds.
    const short = (await link(inv['@id'], { expiresAt: new Date(Date.now() + 1500).toISOString() })).body;
    expect((await page(pathOf(short.url))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    const expired = await page(pathOf(short.url));
    expect(expired.status).toBe(410);
    expect(expired.text).not.toMatch(/Private words|Acme|INV-/);
    // A deleted document takes its links with it.
    const draft = await invoice();
    const gone = (await link(draft['@id'])).body;
    expect((await admin.delete(draft['@id'])).status).toBe(204);
    expect((await page(pathOf(gone.url))).status).toBe(410);
  });

  it('never shows another company\'s document: the token alone decides', async () => {
    const otherClient = (await other.post('/api/clients', { name: 'Other Buyer' })).body['@id'];
    const otherInv = (await other.post('/api/invoices', { client: otherClient, lines: [{ description: 'Their work', price: 777 }] })).body;
    const theirs = (await other.post('/api/document-links', { document: otherInv['@id'] })).body;
    const mine = (await link((await invoice())['@id'])).body;
    const a = (await page(pathOf(theirs.url))).text;
    expect(a).toContain('Their work');
    expect(a).not.toContain('Acme Buyer');
    const b = (await page(pathOf(mine.url))).text;
    expect(b).not.toContain('Their work');
    expect(b).toContain('Acme Buyer');
  });

  it('accepts a sent quote through the engine (the invoice made, quote.accepted emitted); a quote no longer sent is a 409 and nothing changes', async () => {
    const quote = (await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'Offer', price: 5000 }] })).body;
    const url = (await link(quote['@id'])).body.url as string;
    const p = pathOf(url);
    // A draft: no buttons, and posting is a 409.
    expect((await page(p)).text).not.toContain('Accept quote');
    const early = await post(`${p}/accept`);
    expect(early.status).toBe(409);
    expect((await admin.get(quote['@id'])).body.status).toBe('draft');
    await admin.patch(quote['@id'], { status: 'sent' });
    const shown = (await page(p)).text;
    expect(shown).toContain('Accept quote');
    expect(shown).toContain('Decline');
    const accepted = await deliveries('quote.accepted');
    const res = await post(`${p}/accept`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${p}?done=accepted`);
    const after = (await admin.get(quote['@id'])).body;
    expect(after.status).toBe('accepted');
    expect(after.invoice).toMatch(/^\/api\/invoices\//);
    expect(await deliveries('quote.accepted')).toBe(accepted + 1);
    expect((await page(`${p}?done=accepted`)).text).toContain('the quote is accepted');
    // Again, or declining now: 409, nothing changes.
    const version = (await admin.get(quote['@id'])).headers.get('etag');
    for (const what of ['accept', 'decline']) {
      const again = await post(`${p}/${what}`);
      expect(again.status).toBe(409);
      expect(again.text).toContain('no longer open');
    }
    expect((await admin.get(quote['@id'])).headers.get('etag')).toBe(version);
    expect(await deliveries('quote.accepted')).toBe(accepted + 1);
    // Two answers at once: one wins.
    const q2 = (await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'Offer 2', price: 100 }] })).body;
    await admin.patch(q2['@id'], { status: 'sent' });
    const p2 = pathOf((await link(q2['@id'])).body.url);
    const declined = await deliveries('quote.declined');
    const both = await Promise.all([post(`${p2}/decline`), post(`${p2}/accept`)]);
    expect(both.map((r) => r.status).sort()).toEqual([303, 409]);
    const final = (await admin.get(q2['@id'])).body.status;
    expect(['accepted', 'declined']).toContain(final);
    expect((await deliveries('quote.declined')) - declined).toBe(final === 'declined' ? 1 : 0);
  });

  it('limits each IP to 60 requests a minute (429 with Retry-After), whatever the token', async () => {
    const url = (await link((await invoice())['@id'])).body.url as string;
    let last;
    for (let i = 0; i < 60; i++) {
      last = await page(i % 2 ? pathOf(url) : '/d/unknownunknownunknown');
      expect(last.status, String(i)).not.toBe(429);
    }
    const refused = await page(pathOf(url));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    // The API is not counted with the links.
    expect((await admin.get('/api/document-links')).status).toBe(200);
    now += 61_000;
    expect((await page(pathOf(url))).status).toBe(200);
  });
});

describe('the answer and payment boxes in the company’s language (CONTRACT §20)', () => {
  it.each([
    { locale: 'de', says: ['Ihre Antwort', 'Angebot annehmen', 'Ablehnen', 'Wartet auf Ihre Antwort'], pays: ['So bezahlen Sie', 'Überweisung', 'Empfänger', 'Verwendungszweck', 'EUR 250,00', 'Mit Ihrer Banking-App scannen', 'Zahlung ausstehend'], accepted: 'Das Angebot ist angenommen' },
    { locale: 'fr', says: ['Votre réponse', 'Accepter le devis', 'Refuser', 'En attente de votre réponse'], pays: ['Comment payer', 'Virement bancaire', 'Bénéficiaire', 'Référence', 'EUR 250,00', 'Scannez avec votre application bancaire', 'En attente de paiement'], accepted: 'le devis est accepté' },
  ])('$locale', async ({ locale, says, pays, accepted }) => {
    expect((await admin.patch('/api/company', { locale })).status).toBe(200);
    try {
      const quote = (await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'Offer', price: 5000 }] })).body;
      await admin.patch(quote['@id'], { status: 'sent' });
      const q = pathOf((await link(quote['@id'])).body.url as string);
      const shown = (await page(q)).text;
      for (const s of says) expect(shown, s).toContain(s);
      expect(shown).not.toContain('Your answer');
      expect((await post(`${q}/accept`)).status).toBe(303);
      expect((await page(`${q}?done=accepted`)).text).toContain(accepted);
      const inv = await invoice();
      await admin.patch(inv['@id'], { status: 'pending' });
      const paying = (await page(pathOf((await link(inv['@id'])).body.url as string))).text;
      for (const s of pays) expect(paying, s).toContain(s);
      expect(paying).not.toContain('How to pay');
    } finally {
      await admin.patch('/api/company', { locale: 'en' });
    }
  });
});

describe('PUBLIC_URL', () => {
  it('defaults to http://<HOST>:<PORT>, without a trailing slash when set', () => {
    expect(loadConfig({}).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl).toBe('http://0.0.0.0:9000');
    expect(loadConfig({ HOST: '::1' }).publicUrl).toBe('http://[::1]:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://billing.example.com/' }).publicUrl).toBe('https://billing.example.com');
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'paypal' })).toThrow(/PAYMENT_PROVIDER/);
  });
});
