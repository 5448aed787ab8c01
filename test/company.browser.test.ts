// Settings › Company of /app in a real browser (Debian's chromium through playwright-core): an
// admin signs in, fills the profile, sees the server's violations beside their fields, saves, and
// the API and the invoice PDF show the change; uploads a logo and sees it on the PDF (rendered by
// pdftoppm, its pixels checked and the PNG looked at); changes the numbering and the next invoice
// takes that number; edits an e-mail template and sees its preview; a viewer sees the same page
// read-only. Screenshots land in test-results/company-*.png.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, signedIn as signInto } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';

let t: TestServer;
let browser: Browser;
let api: Client;
const problems: string[] = [];

const signedIn = (email: string, viewport?: { width: number; height: number }): Promise<Page> =>
  signInto(browser, { base: t.url, email, password: PASSWORD, path: '/app/settings/company', heading: 'Company profile', problems, viewport, expected: /status of (403|404|422)/ });

/** A PNG of `w` × `h`, pure red: easy to find on a rendered page. */
function redPng(w = 200, h = 80): Buffer {
  const img = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) img.data.set([230, 0, 0, 255], i * 4);
  return PNG.sync.write(img);
}

/** Page 1 of the PDF at `iri` rendered by pdftoppm (kept as test-results/<name>-1.png): its text and pixels. */
async function renderPdf(iri: string, name: string): Promise<{ text: string; png: PNG }> {
  const res = await fetch(t.url + iri, { headers: { 'x-api-token': api.token, accept: 'application/pdf' } });
  expect(res.status).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'company-pdf-'));
  try {
    writeFileSync(join(dir, 'i.pdf'), Buffer.from(await res.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', join(dir, 'i.pdf'), '-'], { encoding: 'utf8' });
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', join(dir, 'i.pdf'), join(process.cwd(), 'test-results', name)]);
    const out = readFileSync(join(process.cwd(), 'test-results', `${name}-1.png`));
    return { text, png: PNG.sync.read(out) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many pixels are strongly red. */
const redPixels = (png: PNG) => {
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! > 200 && png.data[i + 1]! < 60 && png.data[i + 2]! < 60) n++;
  return n;
};

const shot = (page: Page, name: string) => screenshot(page, `company-${name}`);

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'admin@acme.test', company: 'Acme', currency: 'EUR' }));
  const ctx = { db: t.db.database.db };
  await userCreate(ctx, { email: 'owner@acme.test', password: PASSWORD, company: 'Acme', role: 'admin' });
  await userCreate(ctx, { email: 'vic@acme.test', password: PASSWORD, company: 'Acme', role: 'viewer' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('Settings → Company in a browser', () => {
  it('an admin fills the profile, sees violations beside their fields, and saves', async () => {
    const page = await signedIn('owner@acme.test');
    expect(await page.getByRole('link', { name: 'Company' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByLabel('Trading name').inputValue()).toBe('Acme');
    await page.getByLabel('Legal name').fill('Acme Handels GmbH');
    await page.getByLabel('VAT number').fill('DE 123 456 789');
    await page.getByLabel('Billing email').fill('billing@acme.test');
    await page.getByLabel('Street', { exact: true }).fill('Hauptstraße 1');
    await page.getByLabel('Postal code').fill('10115');
    await page.getByLabel('City').fill('Berlin');
    await page.getByLabel('Country').selectOption('DE');
    await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
    await page.getByLabel('BIC').fill('COBADEFF');
    await page.getByLabel('Footer').fill('Acme Handels GmbH · Amtsgericht Berlin HRB 1');
    await page.getByRole('button', { name: 'Save' }).click();
    // The IBAN's check digits are wrong: the field says so, and keeps what was typed.
    await expect.poll(() => page.locator('#company-iban-error').innerText()).toMatch(/check digits/);
    expect(await page.getByLabel('IBAN').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('company-iban');
    expect(await page.getByRole('alert').innerText()).toContain('Please correct the field marked below.');
    await shot(page, 'violation');
    expect((await api.get('/api/company', { accept: 'application/json' })).body.legalName).toBeNull();

    await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Saved.');
    expect(await page.getByLabel('IBAN').inputValue()).toBe('DE89370400440532013000');
    await shot(page, 'saved');
    const profile = (await api.get('/api/company', { accept: 'application/json' })).body;
    expect(profile).toMatchObject({ legalName: 'Acme Handels GmbH', vatNumber: 'DE123456789', country: 'DE', iban: 'DE89370400440532013000', bic: 'COBADEFF', city: 'Berlin' });

    // The invoice PDF prints it.
    const c = (await api.post('/api/clients', { name: 'Printed Client' })).body['@id'];
    const inv = (await api.post('/api/invoices', { client: c, lines: [{ description: 'Work', price: 1000 }] })).body['@id'];
    const { text } = await renderPdf(inv, 'company-invoice');
    expect(text).toContain('Acme Handels GmbH · Amtsgericht Berlin HRB 1');
    expect(text).toContain('Hauptstraße 1');
    expect(text).toContain('DE89 3704 0044 0532 0130 00');
    await page.context().close();
  });

  it('an admin uploads a logo, sees its preview, and the PDF shows it; a wrong file is refused at the field', async () => {
    const page = await signedIn('owner@acme.test');
    await page.getByText('No logo yet.').waitFor();
    const c = (await api.post('/api/clients', { name: 'Logo Client' })).body['@id'];
    const inv = (await api.post('/api/invoices', { client: c, lines: [{ description: 'Work', price: 1000 }] })).body['@id'];
    const before = await renderPdf(inv, 'company-invoice-no-logo');
    expect(redPixels(before.png)).toBe(0);
    // Not an image: refused before anything is sent.
    await page.locator('#company-logo').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') });
    await expect.poll(() => page.locator('.logo-panel [role="alert"]').innerText()).toContain('PNG or JPEG');
    await page.locator('#company-logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: redPng() });
    await expect.poll(() => page.locator('.logo-panel [role="status"]').innerText()).toContain('The logo is saved');
    const preview = page.getByRole('img', { name: 'The logo of Acme' });
    await preview.waitFor();
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(200);
    await shot(page, 'logo');
    const after = await renderPdf(inv, 'company-invoice-logo');
    // The logo's red, on the rendered page (60 dpi: the 200 × 80 px logo is drawn at its printed size).
    expect(redPixels(after.png)).toBeGreaterThan(200);
    // Removed: the PDF goes back to none.
    await page.getByRole('button', { name: 'Remove the logo' }).click();
    await page.getByText('No logo yet.').waitFor();
    expect((await fetch(`${t.url}/api/company/logo`, { headers: { 'x-api-token': api.token } })).status).toBe(404);
    await page.context().close();
  });

  it('an admin changes the numbering: the next invoice takes that number; a number already given is refused', async () => {
    const page = await signedIn('owner@acme.test');
    const c = (await api.post('/api/clients', { name: 'Numbered Client' })).body['@id'];
    const newInvoice = async () => {
      const r = await api.post('/api/invoices', { client: c, lines: [{ description: 'Work', price: 1000 }] });
      expect(r.status, r.text).toBe(201);
      return r.body.number as string;
    };
    const first = await newInvoice();
    expect(first).toMatch(/^INV-\d{6}$/);
    await page.getByLabel('Invoice prefix').fill('ACME-');
    await page.getByLabel('Next invoice number').fill('500');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Saved.');
    await shot(page, 'numbering');
    expect(await newInvoice()).toBe('ACME-000500');
    expect(await newInvoice()).toBe('ACME-000501');
    await page.reload();
    await page.getByRole('heading', { name: 'Company profile', level: 1 }).waitFor();
    await expect.poll(() => page.getByLabel('Next invoice number').inputValue()).toBe('502');
    // Below a number already given with that prefix: the field says so, nothing changes.
    await page.getByLabel('Next invoice number').fill('501');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#company-nextInvoiceNumber-error').count()).toBe(1);
    expect(await newInvoice()).toBe('ACME-000502');
    await page.context().close();
  });

  it('an admin writes an e-mail template and reminders, with a preview', async () => {
    const page = await signedIn('owner@acme.test');
    await page.getByRole('button', { name: 'Reminder', exact: true }).click();
    await page.getByLabel('Subject').fill('Still open: {{number}}');
    await page.getByLabel('Body').fill('Hello {{client.name}},\n{{number}} of {{company.name}} is due on {{dueDate}}: {{balance}}.');
    const preview = page.getByRole('region', { name: 'Preview of the reminder e-mail' });
    await expect.poll(() => preview.innerText()).toContain('Still open: INV-000042');
    expect(await preview.innerText()).toContain('Hello Example Client Ltd,');
    expect(await preview.innerText()).toMatch(/of Acme is due on .*: €1,190\.00\./);
    await page.getByLabel('Days from the due date').fill('-3, 7, 14');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Saved.');
    await shot(page, 'templates');
    const profile = (await api.get('/api/company', { accept: 'application/json' })).body;
    expect(profile.emailTemplates).toEqual({ reminder: { subject: 'Still open: {{number}}', body: 'Hello {{client.name}},\n{{number}} of {{company.name}} is due on {{dueDate}}: {{balance}}.' } });
    expect(profile.reminders).toEqual([-3, 7, 14]);
    // An unknown placeholder: refused beside its field.
    await page.getByLabel('Subject').fill('{{nope}}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#company-reminder-subject-error').innerText()).toContain('Unknown placeholder');
    await page.context().close();
  });

  it('a viewer sees the profile read-only', async () => {
    const page = await signedIn('vic@acme.test');
    expect(await page.getByRole('status').first().innerText()).toContain('Only an admin of Acme can change these details.');
    expect(await page.getByLabel('Legal name').inputValue()).toBe('Acme Handels GmbH');
    expect(await page.getByLabel('Legal name').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.locator('#company-logo').count()).toBe(0);
    // No write control is enabled.
    expect(await page.locator('main input:not([disabled]):not([type=hidden]), main textarea:not([disabled]), main select:not([disabled])').count()).toBe(0);
    await shot(page, 'viewer');
    await page.context().close();
  });

  it('fits a phone screen', async () => {
    const page = await signedIn('owner@acme.test', { width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'phone');
    await page.context().close();
  });

  it('loaded nothing from outside and raised no error', () => {
    expect(problems).toEqual([]);
  });
});
