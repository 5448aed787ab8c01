// The German account pages in Chromium (CONTRACT §20): a browser whose language is German signs
// in (a wrong password first), asks for a reset link and sets a new password through it, every
// page in German and saying so (<html lang="de">); axe finds no serious or critical violation on
// any of them, each is screenshotted (test-results/account-de-*.png). E-mail is held (no
// SMTP_URL): the reset link is read from the held e-mail.
import type { Browser, Page } from 'playwright-core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, watch } from './support/browser.ts';

let t: TestServer;
let browser: Browser;
const problems: string[] = [];
const EMAIL = 'inhaber@konten-seiten.test';

beforeAll(async () => {
  t = await startTestServer();
  await tokenFor(t, { email: EMAIL, company: 'Müller & Söhne GmbH', currency: 'EUR' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function germanPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin', locale: 'de-DE' });
  const page = await context.newPage();
  // 401 and 422: the refusals this test provokes; 404: the company's logo in /app (it has none).
  watch(page, t.url, problems, /status of (401|404|422)/);
  return page;
}

const lang = (page: Page) => page.evaluate(() => document.documentElement.lang);

describe('the account pages in German', () => {
  it('sign-in (a wrong password, then right), a reset asked for and used: in German, axe-clean, screenshotted', async () => {
    const page = await germanPage();
    const first = await page.goto(`${t.url}/login`);
    expect(first!.headers()['content-language']).toBe('de');
    expect(await lang(page)).toBe('de');
    expect(await page.title()).toBe('Anmelden · Invoicing');
    await page.getByRole('heading', { name: 'Anmelden', level: 1 }).waitFor();
    await page.getByLabel('E-Mail-Adresse').fill(EMAIL);
    await page.getByLabel('Passwort').fill('nicht das Passwort');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('E-Mail-Adresse oder Passwort ist falsch.');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'account-de-sign-in');

    await page.getByRole('link', { name: 'Passwort vergessen?' }).click();
    await page.getByRole('heading', { name: 'Passwort zurücksetzen', level: 1 }).waitFor();
    expect(await lang(page)).toBe('de');
    await page.getByLabel('E-Mail-Adresse').fill(EMAIL);
    await page.getByRole('button', { name: 'Link senden' }).click();
    await page.getByRole('status').getByText('Wenn ein Konto diese Adresse hat').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'account-de-reset-asked');

    const [mail] = rowsOf<{ body: string }>(await t.db.database.db.execute(sql`select body from account_emails where purpose = 'reset' and "to" = ${EMAIL} order by created_at desc limit 1`));
    // The e-mail too is in the language the request asked for.
    expect(mail!.body).toContain('Jemand hat darum gebeten');
    const token = /\/reset\/([A-Za-z0-9_-]+)/.exec(mail!.body)![1]!;
    await page.goto(`${t.url}/reset/${token}`);
    await page.getByRole('heading', { name: 'Wählen Sie ein neues Passwort', level: 1 }).waitFor();
    expect(await lang(page)).toBe('de');
    // Too short: the browser's own check (minlength) would stop it, so the server's answer is seen without it.
    await page.getByLabel('Neues Passwort').evaluate((el) => el.removeAttribute('minlength'));
    await page.getByLabel('Neues Passwort').fill('kurz');
    await page.getByRole('button', { name: 'Passwort speichern' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('Verwenden Sie 8 bis 1024 Zeichen.');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'account-de-reset-new');
    await page.getByLabel('Neues Passwort').fill('ein neues Geheimnis');
    await page.getByRole('button', { name: 'Passwort speichern' }).click();
    await page.waitForURL(`${t.url}/login?reset=done`);
    await page.getByRole('status').getByText('Ihr Passwort ist geändert: Melden Sie sich damit an.').waitFor();
    await page.getByLabel('E-Mail-Adresse').fill(EMAIL);
    await page.getByLabel('Passwort').fill('ein neues Geheimnis');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(`${t.url}/app`);
    await page.context().close();
    expect(problems).toEqual([]);
  }, 120_000);
});
