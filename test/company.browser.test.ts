// Settings → Company in a real browser (Debian's chromium through playwright-core): an admin
// signs in, fills the profile, sees the server's violations beside their fields, saves, and the
// API and the invoice PDF show the change; a viewer sees the same page read-only. Screenshots
// land in test-results/company-*.png.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
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
  signInto(browser, { base: t.url, email, password: PASSWORD, path: '/profile/company', heading: 'Company profile', problems, viewport });

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
    await page.getByLabel('Street (optional)', { exact: true }).fill('Hauptstraße 1');
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
    const res = await fetch(t.url + inv, { headers: { 'x-api-token': api.token, accept: 'application/pdf' } });
    const dir = mkdtempSync(join(tmpdir(), 'company-pdf-'));
    try {
      writeFileSync(join(dir, 'i.pdf'), Buffer.from(await res.arrayBuffer()));
      const text = execFileSync('pdftotext', ['-layout', join(dir, 'i.pdf'), '-'], { encoding: 'utf8' });
      expect(text).toContain('Acme Handels GmbH · Amtsgericht Berlin HRB 1');
      expect(text).toContain('Hauptstraße 1');
      expect(text).toContain('DE89 3704 0044 0532 0130 00');
      execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', join(dir, 'i.pdf'), join(process.cwd(), 'test-results', 'company-invoice')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.context().close();
  });

  it('a viewer sees the profile read-only', async () => {
    const page = await signedIn('vic@acme.test');
    expect(await page.getByRole('status').first().innerText()).toContain('Only an admin of Acme can change these details.');
    expect(await page.getByLabel('Legal name').inputValue()).toBe('Acme Handels GmbH');
    expect(await page.getByLabel('Legal name').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
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
