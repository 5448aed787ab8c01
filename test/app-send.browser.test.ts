// "Send" as one action with a preview (CONTRACT §20), in Chromium against a loopback SMTP server:
// a draft invoice's page offers Send; its dialog is prefilled with the client's contacts and the
// company's template, lists the PDF and the e-invoice checked, and previews the subject and body
// exactly as the API's preview renders them; Send issues the invoice (pending) and the SMTP
// server receives the message with the PDF attached. A cancelled invoice offers no Send; a viewer
// none at all. axe-core on the open dialog.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';
import { Mailbox, until } from './support/smtp.ts';

const PASSWORD = 'a long secret phrase';
let smtp: Mailbox;
let t: TestServer;
let browser: Browser;
let page: Page;
let api: Client;
let buyer: string;
const problems: string[] = [];

beforeAll(async () => {
  smtp = new Mailbox();
  await smtp.start();
  t = await startTestServer({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Billing <billing@send.test>', MAIL_POLL_INTERVAL: '100ms', MAIL_TIMEOUT: '3s' });
  await userCreate({ db: t.db.database.db }, { email: 'owner@send.test', password: PASSWORD, company: 'Send Co', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@send.test', company: 'Send Co' }));
  // Both parties can make an e-invoice (CONTRACT §18): electronic addresses and countries.
  buyer = (await api.post('/api/clients', { name: 'Buyer GmbH', currency: 'EUR', vatNumber: 'DE123456789', peppolId: '9930:DE123456789' })).body['@id'];
  expect((await api.post('/api/addresses', { client: buyer, street1: 'Hauptstraße 5', city: 'Berlin', zip: '10115', country: 'DE' })).status).toBe(201);
  expect((await api.post('/api/contacts', { client: buyer, firstName: 'Ann', email: 'ann@buyer.test' })).status).toBe(201);
  expect((await api.patch('/api/company', { peppolId: '0208:0876543270', vatNumber: 'BE0876543270', street1: 'Wetstraat 16', city: 'Brussel', zip: '1000', country: 'BE', emailTemplates: { invoice: { subject: 'Your invoice {{number}} from {{company.name}}', body: 'Dear {{client.name}},\n\n{{total}} by {{dueDate}}, please.' } } })).status).toBe(200);
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@send.test', password: PASSWORD, path: '/app', heading: 'Dashboard', problems });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.stop();
});

async function draft(): Promise<Record<string, any>> {
  const r = await api.post('/api/invoices', { client: buyer, dueDate: '2099-03-31', lines: [{ description: 'Consulting', qty: 3, price: 10_000 }] });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('Send with a preview', () => {
  it('previews the e-mail, sends it with the PDF, and issues the invoice', async () => {
    const inv = await draft();
    const before = smtp.arrived.length;
    await page.goto(`${t.url}/app/${inv['@id'].slice(5)}`);
    await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Send', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading', { level: 2 }).innerText()).toContain(inv.number);
    expect(await dialog.getByLabel('To', { exact: true }).inputValue()).toBe('ann@buyer.test');
    const subject = `Your invoice ${inv.number} from Send Co`;
    expect(await dialog.getByLabel('Subject').inputValue()).toBe(subject);
    // The attachments the document has, each checked.
    expect(await dialog.getByRole('checkbox', { name: 'PDF' }).isChecked()).toBe(true);
    expect(await dialog.getByRole('checkbox', { name: 'E-invoice (UBL)' }).isChecked()).toBe(true);
    // The preview: what the API's preview renders, as it will be sent.
    const preview = dialog.getByTestId('send-preview');
    await expect.poll(() => preview.locator('[data-preview="subject"]').count()).toBe(1);
    const expected = (await api.post('/api/emails/preview', { document: inv['@id'], attach: ['pdf', 'ubl'] })).body;
    expect(await preview.locator('[data-preview="to"]').innerText()).toBe('ann@buyer.test');
    expect(await preview.locator('[data-preview="subject"]').innerText()).toBe(subject);
    expect(await preview.locator('[data-preview="body"]').innerText()).toBe(expected.body);
    expect(expected.body).toBe('Dear Buyer GmbH,\n\nEUR 300.00 by 2099-03-31, please.');
    expect(await preview.locator('[data-preview="attachments"]').innerText()).toBe(`${inv.number}.pdf, ${inv.number}.xml`);
    // The e-invoice unchecked: the preview follows.
    await dialog.getByRole('checkbox', { name: 'E-invoice (UBL)' }).uncheck();
    await expect.poll(() => preview.locator('[data-preview="attachments"]').innerText()).toBe(`${inv.number}.pdf`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-send-preview');
    // Still a draft, no e-mail: the preview wrote nothing.
    expect((await api.get(inv['@id'])).body.status).toBe('draft');
    expect((await api.get(`/api/emails?document=${encodeURIComponent(inv['@id'])}`)).body.totalItems).toBe(0);

    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.getByRole('status').innerText()).toContain('ann@buyer.test');
    expect((await api.get(inv['@id'])).body.status).toBe('pending');
    await until(() => smtp.arrived.length > before, 15_000);
    const mail = smtp.arrived.at(-1)!;
    expect(mail.rcpt).toEqual(['ann@buyer.test']);
    expect(mail.parsed.subject).toBe(subject);
    expect(mail.parsed.text?.trim()).toBe(expected.body);
    expect(mail.parsed.attachments.map((a) => [a.filename, a.contentType])).toEqual([[`${inv.number}.pdf`, 'application/pdf']]);
    expect(mail.parsed.attachments[0]!.content.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await page.locator('.badge').first().innerText()).toMatch(/pending/i);
    expect(problems).toEqual([]);
  });

  it('shows a refused address at its field and sends nothing; a cancelled invoice offers no Send', async () => {
    const inv = await draft();
    await page.goto(`${t.url}/app/${inv['@id'].slice(5)}`);
    await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Send', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('To', { exact: true }).fill('not an address');
    await expect.poll(() => dialog.locator('#send-to-error').count()).toBe(1);
    expect(await dialog.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Not now' }).click();
    expect((await api.get(inv['@id'])).body.status).toBe('draft');

    expect((await api.patch(inv['@id'], { status: 'cancelled' })).status).toBe(200);
    await page.goto(`${t.url}/app/${inv['@id'].slice(5)}`);
    await page.getByRole('group', { name: 'Actions' }).waitFor();
    await page.locator('.badge').first().waitFor();
    expect(await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Send', exact: true }).count()).toBe(0);
  });
});
