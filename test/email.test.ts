// E-mail (CONTRACT §15) against a real SMTP server in the test process (smtp-server, messages
// parsed with mailparser): headers, text and HTML parts, attachments byte for byte what GET
// returns; a 451 then an accept (the second attempt carries the same Message-ID); a 550 fails at
// once; an SMTP server down between commit and delivery (sent once later); a server stopped
// before delivering (the next one sends it once); draft → pending together with the e-mail or
// neither; nothing queued by refused input; the hourly limit; tenancy; held without SMTP_URL.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { client, freshDatabase, startTestServer, tokenFor, type Client, type TestDatabase, type TestServer } from './helpers.ts';
import { Mailbox, until } from './support/smtp.ts';
import { checkEinvoice } from './support/einvoice-validate.ts';

const PDF = 'application/pdf';
const UBL = 'application/vnd.oasis.ubl+xml';

let smtp: Mailbox;
let db: TestDatabase;
let t: TestServer;
let admin: Client;
let other: Client;
let clientIri: string;
let lineTax: string;

const env = (port: number, extra: Record<string, string> = {}) => ({
  SMTP_URL: `smtp://127.0.0.1:${port}`,
  MAIL_FROM: 'Billing <billing@sender.test>',
  MAIL_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms',
  MAIL_POLL_INTERVAL: '100ms',
  MAIL_TIMEOUT: '3s',
  TOKEN_CACHE: 'on',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  ...extra,
});

async function queueRows(): Promise<number> {
  return rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from email_queue`))[0]!.n;
}

/** The e-mails written for a document, and those of them queued (other tests' e-mails leave the queue meanwhile). */
async function writtenFor(document: string): Promise<number> {
  return rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from emails e left join email_queue q on q.id = e.id where e.document = ${document}`))[0]!.n;
}

async function draftInvoice(c: Client = admin, clientRef = clientIri): Promise<{ iri: string; id: string }> {
  const r = await c.post('/api/invoices', { client: clientRef, dueDate: '2099-01-31', lines: [{ description: 'Design <work> & more', qty: 2, price: 12_345, tax: lineTax }] });
  expect(r.status).toBe(201);
  return { iri: r.body['@id'], id: r.body.id };
}

async function email(id: string, c: Client = admin): Promise<Record<string, any>> {
  return (await c.get(`/api/emails/${id}`, { accept: 'application/json' })).body;
}

beforeAll(async () => {
  smtp = new Mailbox();
  await smtp.start();
  db = await freshDatabase();
  t = await startTestServer(env(smtp.port), { db });
  admin = client(t, await tokenFor(t, { email: 'a@mail.test', company: 'Mail A' }));
  other = client(t, await tokenFor(t, { email: 'b@mail.test', company: 'Mail B' }));
  expect((await admin.patch('/api/company', { legalName: 'Mail A GmbH', email: 'office@mail-a.test', vatNumber: 'DE123456789', country: 'DE', city: 'Berlin', street1: 'Str. 1', zip: '10115', peppolId: '9930:DE123456789' })).status).toBe(200);
  const c = await admin.post('/api/clients', { name: 'Buyer <b>&Co</b>', vatNumber: 'NL999999999B01', peppolId: '9944:NL999999999B01' });
  clientIri = c.body['@id'];
  await admin.post('/api/addresses', { client: clientIri, city: 'Amsterdam', country: 'NL' });
  await admin.post('/api/contacts', { client: clientIri, firstName: 'Ann', email: 'ann@buyer.test' });
  await admin.post('/api/contacts', { client: clientIri, firstName: 'Bob', email: 'bob@buyer.test' });
  lineTax = (await admin.post('/api/taxes', { name: 'VAT 20', rate: 20 })).body['@id'];
  // A webhook for the e-mails' events (its endpoint refuses connections: only the log matters).
  expect((await admin.post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['email.sent', 'email.failed'] })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await db?.drop();
  await smtp?.stop();
});

describe('sending a document', () => {
  it('issues the draft invoice with the e-mail and delivers headers, parts and attachments byte for byte', async () => {
    const inv = await draftInvoice();
    const before = smtp.arrived.length;
    const r = await admin.post('/api/emails', { document: inv.iri, attach: ['pdf', 'ubl'], cc: ['Carl <carl@buyer.test>'], bcc: ['audit@sender.test'] });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ document: inv.iri, to: ['ann@buyer.test', 'bob@buyer.test'], cc: ['carl@buyer.test'], bcc: ['audit@sender.test'], kind: 'document', status: 'queued', attach: ['pdf', 'ubl'] });
    expect(r.body.messageId).toMatch(/^<[0-9a-f-]+@sender\.test>$/);
    const invoice = (await admin.get(`/api/invoices/${inv.id}`, { accept: 'application/json' })).body;
    expect(invoice.status).toBe('pending');
    expect(r.body.subject).toBe(`Invoice ${invoice.number} from Mail A`);

    await until(async () => (await email(r.body.id)).status === 'sent', 20_000, 'the e-mail sent');
    const e = await email(r.body.id);
    expect(e).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    expect(e.sentAt).toBeTruthy();
    const got = smtp.arrived.slice(before);
    expect(got).toHaveLength(1);
    const m = got[0]!.parsed;
    expect(m.messageId).toBe(r.body.messageId);
    expect(m.subject).toBe(r.body.subject);
    expect(m.from?.value[0]).toMatchObject({ address: 'billing@sender.test', name: 'Billing' });
    expect((Array.isArray(m.to) ? m.to : [m.to!]).flatMap((a) => a.value.map((v) => v.address))).toEqual(['ann@buyer.test', 'bob@buyer.test']);
    expect(m.headers.get('bcc')).toBeUndefined();
    expect(got[0]!.rcpt.sort()).toEqual(['ann@buyer.test', 'audit@sender.test', 'bob@buyer.test', 'carl@buyer.test']);
    // Text and HTML parts; the client's name is escaped in the HTML.
    expect(m.text).toContain('Dear Buyer <b>&Co</b>,');
    expect(m.html).toContain('Dear Buyer &lt;b&gt;&amp;Co&lt;/b&gt;,');
    expect(m.html).not.toContain('<b>&Co');
    // The attachments are what GET returns for that Accept, byte for byte.
    const pdf = await fetch(`${t.url}/api/invoices/${inv.id}`, { headers: { 'x-api-token': admin.token, accept: PDF } });
    const xml = await fetch(`${t.url}/api/invoices/${inv.id}`, { headers: { 'x-api-token': admin.token, accept: UBL } });
    expect(pdf.status).toBe(200);
    expect(xml.status).toBe(200);
    expect(m.attachments.map((a) => a.filename)).toEqual([`${invoice.number}.pdf`, `${invoice.number}.xml`]);
    expect(Buffer.compare(m.attachments[0]!.content, Buffer.from(await pdf.arrayBuffer()))).toBe(0);
    expect(Buffer.compare(m.attachments[1]!.content, Buffer.from(await xml.arrayBuffer()))).toBe(0);
    await checkEinvoice(UBL, m.attachments[1]!.content.toString('utf8'));
  }, 60_000);

  it('sends a draft quote (draft → sent) and lists e-mails by document, status and kind', async () => {
    const q = await admin.post('/api/quotes', { client: clientIri, lines: [{ description: 'Offer', price: 1000 }] });
    const r = await admin.post('/api/emails', { document: q.body['@id'], to: ['ann@buyer.test'], subject: 'Our offer', body: 'Hello {{client.name}}' });
    expect(r.status, r.text).toBe(201);
    // Literal text when given: placeholders are not filled in.
    expect(r.body).toMatchObject({ subject: 'Our offer', body: 'Hello {{client.name}}', attach: ['pdf'] });
    expect((await admin.get(`/api/quotes/${q.body.id}`, { accept: 'application/json' })).body.status).toBe('sent');
    const list = await admin.get(`/api/emails?document=${encodeURIComponent(q.body['@id'])}`, { accept: 'application/json' });
    expect(list.body.map((x: { id: string }) => x.id)).toEqual([r.body.id]);
    // A quote has no UBL.
    const ubl = await admin.post('/api/emails', { document: q.body['@id'], attach: ['ubl'] });
    expect(ubl.status).toBe(422);
    expect(ubl.body.violations[0].propertyPath).toBe('attach');
    await until(async () => (await email(r.body.id)).status === 'sent', 20_000, 'the quote sent');
    const kinds = await admin.get('/api/emails?kind=document&status=sent', { accept: 'application/json' });
    expect(kinds.body.some((x: { id: string }) => x.id === r.body.id)).toBe(true);
  }, 60_000);

  it('retries after a 451 with the same Message-ID, and fails at once on a 550 (email.failed)', async () => {
    const a = await draftInvoice();
    const before = smtp.arrived.length;
    smtp.plan.push(451);
    const r = await admin.post('/api/emails', { document: a.iri });
    expect(r.status).toBe(201);
    await until(async () => (await email(r.body.id)).status === 'sent', 20_000, 'the retry sent');
    const e = await email(r.body.id);
    expect(e.attempts).toBe(2);
    const got = smtp.arrived.slice(before);
    expect(got.map((g) => g.answer)).toEqual([451, 250]);
    expect(got.map((g) => g.parsed.messageId)).toEqual([r.body.messageId, r.body.messageId]);

    const b = await draftInvoice();
    const before2 = smtp.arrived.length;
    smtp.plan.push(550);
    const f = await admin.post('/api/emails', { document: b.iri });
    await until(async () => (await email(f.body.id)).status === 'failed', 20_000, 'the e-mail failed');
    await new Promise((res) => setTimeout(res, 1000));
    const failed = await email(f.body.id);
    expect(failed.attempts).toBe(1);
    expect(failed.lastError).toMatch(/^550 /);
    expect(smtp.arrived.length - before2).toBe(1);
    expect(await queueRows()).toBe(0);
    // The events, as webhook deliveries: email.sent for the first, email.failed for the second.
    const events = rowsOf<{ type: string; record_id: string }>(await db.database.db.execute(sql`select type, record_id from webhook_deliveries where record_id in (${r.body.id}, ${f.body.id}) order by type`));
    expect(events).toEqual([{ type: 'email.failed', record_id: f.body.id }, { type: 'email.sent', record_id: r.body.id }]);
    expect((await admin.get('/api/webhooks/event-types', { accept: 'application/json' })).text).toMatch(/email\.failed/);
  }, 60_000);

  it('loses nothing when the SMTP server is down between commit and delivery: sent once later', async () => {
    await smtp.stop();
    const port = smtp.port;
    const before = smtp.arrived.length;
    const a = await draftInvoice();
    const r = await admin.post('/api/emails', { document: a.iri });
    expect(r.status).toBe(201);
    await until(async () => (await email(r.body.id)).attempts >= 1, 20_000, 'a failed attempt');
    const down = await email(r.body.id);
    expect(down.status).toBe('queued');
    expect(down.lastError).toMatch(/ECONNREFUSED|ECONNECTION|ESOCKET/);
    const next = new Mailbox();
    next.arrived = smtp.arrived;
    smtp = next;
    await smtp.start(port);
    await until(async () => (await email(r.body.id)).status === 'sent', 20_000, 'sent after the outage');
    await new Promise((res) => setTimeout(res, 1000));
    expect(smtp.arrived.slice(before).filter((m) => m.parsed.messageId === r.body.messageId)).toHaveLength(1);
  }, 60_000);

  it('a server stopped before delivering: the next one sends the e-mail once', async () => {
    const stopped = await startTestServer(env(smtp.port, { MAIL_WORKER: 'off' }), { db });
    const a = await draftInvoice(client(stopped, admin.token));
    const r = await client(stopped, admin.token).post('/api/emails', { document: a.iri });
    expect(r.status).toBe(201);
    await stopped.close();
    await until(async () => (await email(r.body.id)).status === 'sent', 20_000, 'sent by the other server');
    await new Promise((res) => setTimeout(res, 800));
    expect(smtp.arrived.filter((m) => m.parsed.messageId === r.body.messageId)).toHaveLength(1);
  }, 60_000);
});

describe('one transaction', () => {
  it('refuses an e-mail asking for an e-invoice the document cannot make before any byte: 422 on attach (CONTRACT §15, §18)', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown> | null, RegExp][] = [
      [{ name: 'No Address GmbH', peppolId: '9930:DE111111111' }, null, /no address with a country/],
      [{ name: 'No Peppol BV' }, { city: 'Utrecht', country: 'NL' }, /no electronic address \(peppolId\)/],
      [{ name: 'Dinar WLL', currency: 'BHD', peppolId: '0088:4035811991014' }, { city: 'Manama', country: 'BH' }, /three decimals/],
    ];
    for (const [body, address, why] of cases) {
      const cl = (await admin.post('/api/clients', body)).body['@id'];
      if (address) await admin.post('/api/addresses', { client: cl, ...address });
      await admin.post('/api/contacts', { client: cl, firstName: 'Ann', email: 'ann@buyer.test' });
      const inv = await draftInvoice(admin, cl);
      const r = await admin.post('/api/emails', { document: inv.iri, attach: ['pdf', 'ubl'] });
      expect(r.status, String(body.name)).toBe(422);
      expect(r.body.violations[0]).toMatchObject({ propertyPath: 'attach', message: expect.stringMatching(why) });
      expect((await admin.get(`/api/invoices/${inv.id}`, { accept: 'application/json' })).body.status).toBe('draft');
      expect(await writtenFor(inv.iri)).toBe(0);
      // The PDF alone is fine.
      expect((await admin.post('/api/emails', { document: inv.iri, attach: ['pdf'] })).status).toBe(201);
    }
  });

  it('draft → pending together with the e-mail, or neither (no recipient: nothing changes, nothing queued)', async () => {
    const bare = await admin.post('/api/clients', { name: 'No Contacts Ltd' });
    const inv = await draftInvoice(admin, bare.body['@id']);
    const count = (await admin.get('/api/emails', { accept: 'application/json' })).headers.get('x-total-count');
    const r = await admin.post('/api/emails', { document: inv.iri });
    expect(r.status).toBe(422);
    expect(r.body.violations[0].propertyPath).toBe('to');
    expect((await admin.get(`/api/invoices/${inv.id}`, { accept: 'application/json' })).body).toMatchObject({ status: 'draft', number: expect.any(String) });
    expect(await writtenFor(inv.iri)).toBe(0);
    expect((await admin.get('/api/emails', { accept: 'application/json' })).headers.get('x-total-count')).toBe(count);
  });

  it('a credit note whose issue is refused is not sent (the e-mail rolls back with it)', async () => {
    const inv = await draftInvoice();
    await admin.patch(`/api/invoices/${inv.id}`, { status: 'pending' });
    const cn = await admin.post('/api/credit-notes', { client: clientIri, invoice: inv.iri, lines: [{ description: 'Too much', price: 10_000_000 }] });
    expect(cn.status).toBe(201);
    const r = await admin.post('/api/emails', { document: cn.body['@id'] });
    expect(r.status).toBe(422);
    expect((await admin.get(`/api/credit-notes/${cn.body.id}`, { accept: 'application/json' })).body.status).toBe('draft');
    expect(await writtenFor(cn.body['@id'])).toBe(0);
  });

  it('a cancelled document is refused on `document`', async () => {
    const inv = await draftInvoice();
    await admin.patch(`/api/invoices/${inv.id}`, { status: 'cancelled' });
    const r = await admin.post('/api/emails', { document: inv.iri });
    expect(r.status).toBe(422);
    expect(r.body.violations[0].propertyPath).toBe('document');
  });
});

describe('bad input: 422 naming the field, nothing queued', () => {
  it.each([
    [{ to: ['not an address'] }, 'to[0]'],
    [{ to: ['a@b.test\r\nBcc: victim@evil.test'] }, 'to[0]'],
    [{ cc: ['x@y.test', 'Eve <eve@evil.test>\nX-Injected: 1'] }, 'cc[1]'],
    [{ subject: 'Hello\r\nBcc: victim@evil.test' }, 'subject'],
    [{ to: Array.from({ length: 30 }, (_, i) => `to${i}@x.test`), cc: Array.from({ length: 21 }, (_, i) => `cc${i}@x.test`) }, 'to'],
    [{ document: '/api/clients/0192a8b0-0000-7000-8000-000000000000' }, 'document'],
  ])('%j → %s', async (extra, path) => {
    const inv = await draftInvoice();
    const r = await admin.post('/api/emails', { document: inv.iri, ...extra });
    expect(r.status, r.text).toBe(422);
    expect(r.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toContain(path);
    // Nothing of this document written or queued (other tests' e-mails leave the queue meanwhile).
    expect(rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from emails where document = ${inv.iri}`))[0]!.n).toBe(0);
    expect((await admin.get(`/api/invoices/${inv.id}`, { accept: 'application/json' })).body.status).toBe('draft');
  });

  it('more than 200 e-mails in an hour: 429 with Retry-After, nothing queued', async () => {
    const c = client(t, await tokenFor(t, { email: 'rate@mail.test', company: 'Mail Rate' }));
    const cl = await c.post('/api/clients', { name: 'R' });
    await c.post('/api/contacts', { client: cl.body['@id'], firstName: 'R', email: 'r@r.test' });
    const inv = await c.post('/api/invoices', { client: cl.body['@id'], lines: [{ description: 'x', price: 100 }] });
    const company = rowsOf<{ id: string }>(await db.database.db.execute(sql`select id from companies where name = 'Mail Rate'`))[0]!.id;
    await db.database.db.execute(sql`insert into emails (id, company_id, document, kind, status, created_at, updated_at)
      select gen_random_uuid(), ${company}, ${inv.body['@id']}, 'document', 'held', now() - interval '30 minutes', now() from generate_series(1, 200)`);
    const queued = await writtenFor(inv.body['@id']);
    const r = await c.post('/api/emails', { document: inv.body['@id'] });
    expect(r.status).toBe(429);
    const after = Number(r.headers.get('retry-after'));
    expect(after).toBeGreaterThan(1700);
    expect(after).toBeLessThanOrEqual(1801);
    expect(await writtenFor(inv.body['@id'])).toBe(queued);
    expect((await c.get(`/api/invoices/${inv.body.id}`, { accept: 'application/json' })).body.status).toBe('draft');
  });
});

describe('tenancy and GraphQL', () => {
  it("company B never sees A's e-mails, and cannot send A's documents", async () => {
    const inv = await draftInvoice();
    const r = await admin.post('/api/emails', { document: inv.iri });
    expect(r.status).toBe(201);
    expect((await other.get(`/api/emails/${r.body.id}`)).status).toBe(403);
    expect((await other.get('/api/emails', { accept: 'application/json' })).body).toEqual([]);
    const steal = await other.post('/api/emails', { document: (await draftInvoice()).iri, to: ['x@y.test'] });
    expect(steal.status).toBe(422);
    expect(steal.body.violations[0].propertyPath).toBe('document');
    const gql = await other.post('/api/graphql', { query: `{ email(id: "/api/emails/${r.body.id}") { id } emails { totalCount } }` }, { contentType: 'application/json' });
    expect(gql.body.data).toEqual({ email: null, emails: { totalCount: 0 } });
  });

  it('createEmail and emails in GraphQL', async () => {
    const inv = await draftInvoice();
    const r = await admin.post('/api/graphql', { query: `mutation { createEmail(input: { document: "${inv.iri}", to: ["ann@buyer.test"] }) { email { id status kind to document messageId } } }` }, { contentType: 'application/json' });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.createEmail.email).toMatchObject({ status: 'queued', kind: 'document', to: ['ann@buyer.test'], document: inv.iri });
    const bad = await admin.post('/api/graphql', { query: `mutation { createEmail(input: { document: "${inv.iri}", to: ["nope"] }) { email { id } } }` }, { contentType: 'application/json' });
    expect(bad.body.errors[0].extensions.status).toBe(422);
  });

  it('a viewer cannot create e-mails', async () => {
    const viewer = client(t, await tokenFor(t, { email: 'v@mail.test', company: 'Mail A', role: 'viewer' }));
    expect((await viewer.post('/api/emails', { document: (await draftInvoice()).iri })).status).toBe(403);
  });
});

describe('without SMTP_URL', () => {
  it('keeps e-mails held and queues nothing', async () => {
    const held = await startTestServer({ TOKEN_CACHE: 'on' });
    try {
      const c = client(held, await tokenFor(held, { email: 'h@mail.test', company: 'Held' }));
      const cl = await c.post('/api/clients', { name: 'H' });
      await c.post('/api/contacts', { client: cl.body['@id'], firstName: 'H', email: 'h@h.test' });
      const inv = await c.post('/api/invoices', { client: cl.body['@id'], lines: [{ description: 'x', price: 100 }] });
      const r = await c.post('/api/emails', { document: inv.body['@id'] });
      expect(r.status).toBe(201);
      expect(r.body.status).toBe('held');
      expect(rowsOf<{ n: number }>(await held.db.database.db.execute(sql`select count(*)::int as n from email_queue`))[0]!.n).toBe(0);
      expect((await c.get(`/api/invoices/${inv.body.id}`, { accept: 'application/json' })).body.status).toBe('pending');
    } finally {
      await held.close();
    }
  }, 60_000);
});

describe('templates and reminders', () => {
  it('the company profile keeps templates; unknown placeholders are a 422; {{link}} is a client link for the first recipient; values are text', async () => {
    const bad = await admin.patch('/api/company', { emailTemplates: { invoice: { subject: 'Invoice {{numbr}}' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.violations[0].propertyPath).toBe('emailTemplates.invoice.subject');
    expect(bad.body.violations[0].message).toContain('{{numbr}}');
    // {{link}}: a client link (CONTRACT §16) made with the e-mail, for the contact of its first address.
    const link = await admin.patch('/api/company', { emailTemplates: { invoice: { body: 'Pay at {{link}}' } } });
    expect(link.status, link.text).toBe(200);
    const payer = await admin.post('/api/clients', { name: 'Link Payer' });
    const contact = await admin.post('/api/contacts', { client: payer.body['@id'], firstName: 'P', email: 'payer@link.test' });
    const linked = await draftInvoice(admin, payer.body['@id']);
    const sent = await admin.post('/api/emails', { document: linked.iri });
    expect(sent.status, sent.text).toBe(201);
    const path = /\/d\/[A-Za-z0-9_-]+/.exec(sent.body.body)?.[0];
    expect(path, sent.body.body).toBeDefined();
    const page = await fetch(t.url + path);
    expect(page.status).toBe(200);
    const issued = (await admin.get(`/api/invoices/${linked.id}`, { accept: 'application/json' })).body;
    expect(await page.text()).toContain(issued.number);
    const links = (await admin.get(`/api/document-links?invoice=${encodeURIComponent(linked.iri)}`, { accept: 'application/json' })).body as { contact: string | null }[];
    expect(links.map((l) => l.contact)).toEqual([contact.body['@id']]);
    expect((await admin.patch('/api/company', { emailTemplates: { extra: {} } })).status).toBe(422);
    expect((await admin.patch('/api/company', { reminders: ['x'] })).status).toBe(422);
    const ok = await admin.patch('/api/company', { emailTemplates: { invoice: { subject: '{{company.name}}: {{number}} ({{total}})', body: 'To {{client.name}}: {{balance}} by {{dueDate}}.' } } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.emailTemplates.invoice.subject).toBe('{{company.name}}: {{number}} ({{total}})');
    const gql = await admin.post('/api/graphql', { query: '{ company { emailTemplates { invoice { subject } } reminders } }' }, { contentType: 'application/json' });
    expect(gql.body.data.company).toEqual({ emailTemplates: { invoice: { subject: '{{company.name}}: {{number}} ({{total}})' } }, reminders: [] });
    // A client whose name looks like a placeholder: inserted as text, never filled in again.
    const sly = await admin.post('/api/clients', { name: 'Sly {{company.name}}' });
    await admin.post('/api/contacts', { client: sly.body['@id'], firstName: 'S', email: 's@sly.test' });
    const inv = await draftInvoice(admin, sly.body['@id']);
    const r = await admin.post('/api/emails', { document: inv.iri });
    expect(r.status, r.text).toBe(201);
    const invoice = (await admin.get(`/api/invoices/${inv.id}`, { accept: 'application/json' })).body;
    expect(r.body.subject).toBe(`Mail A: ${invoice.number} (USD 296.28)`);
    expect(r.body.body).toBe('To Sly {{company.name}}: USD 296.28 by 2099-01-31.');
    await admin.patch('/api/company', { emailTemplates: null });
  });

  it('sends one reminder per invoice and offset, even with two runs at the same time', async () => {
    const { scheduleRun } = await import('../server/cli/commands.ts');
    const c = client(t, await tokenFor(t, { email: 'rem@mail.test', company: 'Mail Rem' }));
    expect((await c.patch('/api/company', { reminders: [-3, 1, 40] })).status).toBe(200);
    const cl = await c.post('/api/clients', { name: 'Late Payer' });
    await c.post('/api/contacts', { client: cl.body['@id'], firstName: 'L', email: 'late@payer.test' });
    const inv = await c.post('/api/invoices', { client: cl.body['@id'], invoiceDate: '2026-01-01', dueDate: '2026-01-10', lines: [{ description: 'x', price: 5000 }] });
    // Sent once by hand to a chosen address: reminders go to the same recipients.
    const sent = await c.post('/api/emails', { document: inv.body['@id'], to: ['boss@payer.test'] });
    expect(sent.status).toBe(201);
    const paid = await c.post('/api/invoices', { client: cl.body['@id'], invoiceDate: '2026-01-01', dueDate: '2026-01-10', lines: [{ description: 'y', price: 100 }], status: 'pending' });
    await c.post('/api/payments', { invoice: paid.body['@id'], amount: 100 });
    // The CLI's schedule:run, with the servers' settings: its reminders are queued for their workers.
    const ctx = { db: db.database.db };
    process.env.SMTP_URL = t.config.mail.smtpUrl;
    const runs = await Promise.all([scheduleRun(ctx, { date: '2026-01-12' }), scheduleRun(ctx, { date: '2026-01-12' })]);
    expect(runs.reduce((n, s) => n + (s.reminders ?? 0), 0)).toBe(2);
    const list = (await c.get(`/api/emails?kind=reminder&order[createdAt]=asc`, { accept: 'application/json' })).body;
    expect(list.map((e: { reminder: string; document: string; to: string[] }) => [e.reminder, e.document, e.to])).toEqual([
      ['-3', inv.body['@id'], ['boss@payer.test']],
      ['1', inv.body['@id'], ['boss@payer.test']],
    ]);
    expect(list[0].subject).toMatch(/^Reminder: invoice INV-/);
    // Again the same day, and later: only the offsets newly reached.
    expect((await scheduleRun(ctx, { date: '2026-01-12' })).reminders).toBe(0);
    expect((await scheduleRun(ctx, { date: '2026-02-19' })).reminders).toBe(1);
    expect((await c.get('/api/emails?kind=reminder', { accept: 'application/json' })).body).toHaveLength(3);
    // The hourly limit counts e-mails created through the API, not reminders; reminders are sent.
    delete process.env.SMTP_URL;
    await until(async () => (await c.get('/api/emails?kind=reminder&status=sent', { accept: 'application/json' })).body.length === 3, 20_000, 'reminders sent');
  }, 60_000);
});
