// "Send" with a preview (CONTRACT §20): POST /api/emails/preview takes the create's input and
// answers the e-mail as creating it would send it — the client's contacts, the company's template
// rendered by the create's own code — and writes nothing: the draft stays a draft, no e-mail, no
// client link (`{{link}}` is a placeholder), nothing queued. The same 422s as the create; a viewer
// (who may not create e-mails) gets 403.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { LINK_PLACEHOLDER, NUMBER_PLACEHOLDER } from '../resources/rules/email-preview.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let other: Client;
let buyer: string;

async function counts(): Promise<{ emails: number; links: number; queued: number }> {
  const n = async (table: string) => rowsOf<{ n: number }>(await t.db.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;
  return { emails: await n('emails'), links: await n('document_links'), queued: await n('email_queue') };
}

beforeAll(async () => {
  t = await startTestServer({ SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'billing@sender.test' });
  admin = client(t, await tokenFor(t, { email: 'owner@preview.test', company: 'Preview Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@preview.test', company: 'Preview Co', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'owner@other.test', company: 'Other Co' }));
  // Both parties can make an e-invoice (CONTRACT §18): electronic addresses and countries.
  buyer = (await admin.post('/api/clients', { name: 'Buyer Ltd', currency: 'EUR', vatNumber: 'BE0417497106', peppolId: '0208:0417497106' })).body['@id'];
  expect((await admin.post('/api/addresses', { client: buyer, street1: 'Grote Markt 1', city: 'Antwerpen', zip: '2000', country: 'BE' })).status).toBe(201);
  expect((await admin.post('/api/contacts', { client: buyer, firstName: 'Ann', email: 'ann@buyer.test' })).status).toBe(201);
  expect((await admin.post('/api/contacts', { client: buyer, firstName: 'Bob', email: 'bob@buyer.test' })).status).toBe(201);
  const templates = { invoice: { subject: '{{company.name}}: invoice {{number}} for {{client.name}}', body: 'Total {{total}}, due {{dueDate}}. Pay at {{link}}' } };
  expect((await admin.patch('/api/company', { emailTemplates: templates, peppolId: '0208:0876543270', vatNumber: 'BE0876543270', street1: 'Wetstraat 16', city: 'Brussel', zip: '1000', country: 'BE' })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function draft(): Promise<Record<string, any>> {
  const r = await admin.post('/api/invoices', { client: buyer, dueDate: '2099-01-31', lines: [{ description: 'Work', qty: 2, price: 12_345 }] });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('POST /api/emails/preview', () => {
  it('renders what the create would send, writing nothing', async () => {
    const inv = await draft();
    const before = await counts();
    const r = await admin.post('/api/emails/preview', { document: inv['@id'], attach: ['pdf', 'ubl'] });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      document: inv['@id'],
      to: ['ann@buyer.test', 'bob@buyer.test'],
      cc: [],
      bcc: [],
      subject: `Preview Co: invoice ${inv.number} for Buyer Ltd`,
      attachments: [{ kind: 'pdf', filename: `${inv.number}.pdf` }, { kind: 'ubl', filename: `${inv.number}.xml` }],
      offered: ['pdf', 'ubl'],
    });
    expect(r.body.body).toBe(`Total EUR 246.90, due 2099-01-31. Pay at ${LINK_PLACEHOLDER}`);
    expect(await counts()).toEqual(before);
    expect((await admin.get(inv['@id'])).body.status).toBe('draft');

    // Then sent: the e-mail carries what the preview showed, the link aside.
    const sent = await admin.post('/api/emails', { document: inv['@id'], attach: ['pdf', 'ubl'] });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.subject).toBe(r.body.subject);
    expect(sent.body.to).toEqual(r.body.to);
    expect(sent.body.body.startsWith('Total EUR 246.90, due 2099-01-31. Pay at ')).toBe(true);
    expect(sent.body.body).not.toContain(LINK_PLACEHOLDER);
    expect((await counts()).links).toBe(before.links + 1);
  });

  it('keeps literal text, given recipients and a default PDF; a quote offers the PDF only', async () => {
    const inv = await draft();
    const r = await admin.post('/api/emails/preview', { document: inv['@id'], to: ['Carl <carl@buyer.test>'], subject: 'Hello', body: 'Literal {{number}}' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ to: ['carl@buyer.test'], subject: 'Hello', body: 'Literal {{number}}', attachments: [{ kind: 'pdf', filename: `${inv.number}.pdf` }] });
    const q = await admin.post('/api/quotes', { client: buyer, lines: [{ description: 'Work', qty: 1, price: 100 }] });
    const qp = await admin.post('/api/emails/preview', { document: q.body['@id'] });
    expect(qp.status, qp.text).toBe(200);
    expect(qp.body.offered).toEqual(['pdf']);
    expect(qp.body.subject).toBe(`Quote ${q.body.number} from Preview Co`);
  });

  it('a draft credit note without a number yet shows a placeholder for it', async () => {
    const inv = await draft();
    expect((await admin.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
    const note = (await admin.post(`${inv['@id']}/credit`, {})).body;
    expect(note.number ?? null).toBeNull();
    const r = await admin.post('/api/emails/preview', { document: note['@id'] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.subject).toBe(`Credit note ${NUMBER_PLACEHOLDER} from Preview Co`);
    expect(r.body.attachments[0].filename).toBe(`${NUMBER_PLACEHOLDER}.pdf`);
  });

  it('refuses what the create refuses, changing nothing; a viewer gets 403; another company’s document is missing', async () => {
    const inv = await draft();
    const before = await counts();
    const bad = await admin.post('/api/emails/preview', { document: inv['@id'], to: ['not an address'], subject: 'a\r\nBcc: x@y.test' });
    expect(bad.status).toBe(422);
    expect(bad.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort()).toEqual(['subject', 'to[0]']);
    const quote = (await admin.post('/api/quotes', { client: buyer, lines: [{ description: 'Work', qty: 1, price: 100 }] })).body;
    expect((await admin.post('/api/emails/preview', { document: quote['@id'], attach: ['ubl'] })).body.violations?.[0]?.propertyPath).toBe('attach');
    const cancelled = await draft();
    expect((await admin.patch(cancelled['@id'], { status: 'cancelled' })).status).toBe(200);
    const c = await admin.post('/api/emails/preview', { document: cancelled['@id'] });
    expect(c.status).toBe(422);
    expect(c.body.violations[0].propertyPath).toBe('document');
    const v = await viewer.post('/api/emails/preview', { document: inv['@id'] });
    expect(v.status).toBe(403);
    expect((await other.post('/api/emails/preview', { document: inv['@id'] })).status).toBe(422);
    expect((await admin.post('/api/emails/preview', { document: inv['@id'], extra: 1 })).status).toBeGreaterThanOrEqual(400);
    expect(await counts()).toEqual(before);
    expect((await admin.get(inv['@id'])).body.status).toBe('draft');
  });
});
