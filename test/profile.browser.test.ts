// Settings › API tokens of /app (spec §5.2; /profile/api opens it) in a real browser (Debian's
// chromium through playwright-core): first-run set-up, sign-in (and a wrong password), creating a
// token and calling the API with the value shown, the list with sorting and search, the summary
// cards, the history with each filter and its chart, batch revocation, the company switcher, CSRF
// refusal, the keyboard, and a phone-width screen. Dates read in the user's locale (en-US here). Screenshots of each screen land in test-results/profile-*.png.
import { mkdirSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { apiTokenHistory, apiTokens } from '../server/schema.ts';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium, seriousViolations } from './support/browser.ts';

const EMAIL = 'owner@acme.test';
const PASSWORD = 'a long secret phrase';

let t: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const outside: string[] = [];
const pageErrors: string[] = [];
const consoleErrors: string[] = [];
/** Token values shown by the page, by name. */
const values = new Map<string, string>();

function watch(p: Page): void {
  p.on('request', (r) => {
    if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) outside.push(r.url());
  });
  p.on('pageerror', (e) => pageErrors.push(e.message));
  // CSP violations are reported on the console as errors. Refused requests (401/403 of the
  // CSRF checks below, the 422 of a name already used) are too; those are expected and filtered.
  p.on('console', (m) => {
    if (m.type() === 'error' && !/status of (40[13]|422)/.test(m.text())) consoleErrors.push(m.text());
  });
}

async function shot(name: string, p: Page = page): Promise<void> {
  mkdirSync('test-results', { recursive: true });
  await p.screenshot({ path: `test-results/profile-${name}.png`, fullPage: true });
}

const rowNames = (p: Page = page) => p.locator('.token-table tbody td.name').allInnerTexts();
const dialog = (p: Page = page) => p.locator('dialog[open]');
const db = () => t.db.database.db;
/** A date and time as the page shows them to an en-US user in UTC: "Nov 28, 2026, 2:04 PM". */
const DATE_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/;
/** The start of that text for a day (YYYY-MM-DD). */
const dayText = (day: string) => new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
const PAGE = '/app/settings/api-tokens';

/** Opens "Create API Token", saves, and returns the value shown once. */
async function createToken(name: string, description = ''): Promise<string> {
  await page.getByRole('button', { name: 'Create API Token' }).first().click();
  await dialog().getByLabel('Name').fill(name);
  if (description) await dialog().getByLabel('Description').fill(description);
  await dialog().getByRole('button', { name: 'Save' }).click();
  const value = await dialog().locator('#token-value').inputValue();
  expect(value).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
  values.set(name, value);
  await dialog().getByRole('button', { name: 'Done' }).click();
  await expect.poll(() => dialog().count()).toBe(0);
  await expect.poll(() => rowNames()).toContain(name);
  return value;
}

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: 'UTC', locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  page = await context.newPage();
  watch(page);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('Settings › API tokens in a browser', () => {
  it('first run: / leads to the set-up page, which creates the first user and company and signs in', async () => {
    await page.goto(`${t.url}/`);
    expect(new URL(page.url()).pathname).toBe('/setup');
    await expect(page.getByRole('heading', { name: 'Welcome' }).isVisible()).resolves.toBe(true);
    await shot('setup');
    await page.getByLabel('Your name (optional)').fill('Olivia Owner');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Company name').fill('Acme');
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByRole('button', { name: 'Create account and sign in' }).click();
    // Set-up signs in and opens the web application; the settings are a link away.
    await page.waitForURL(`${t.url}/app`);
    await page.goto(`${t.url}/profile/api`);
    await page.waitForURL(`${t.url}${PAGE}`);
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await expect.poll(() => page.getByTestId('tokens-empty').innerText()).toContain('No API tokens yet.');
    await expect.poll(() => page.getByTestId('card-active').innerText()).toContain('0');
    expect(await page.getByTestId('card-last').innerText()).toContain('No activity yet');
    await shot('empty');
    // Set-up is over: /setup now sends to the sign-in page.
    const again = await fetch(`${t.url}/setup`, { redirect: 'manual' });
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('/login');
  });

  it('signs out, refuses a wrong password, and signs in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.url}/login`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Wrong email or password.');
    expect(await page.getByLabel('Email').inputValue()).toBe(EMAIL);
    await shot('login-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.url}/app`);
    await page.goto(`${t.url}/profile/api`);
    await page.waitForURL(`${t.url}${PAGE}`);
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
  });

  it('the create dialog is keyboard-friendly: focus starts on Name, stays inside, Escape closes, Name is required', async () => {
    const opener = page.getByRole('button', { name: 'Create API Token' }).first();
    await opener.focus();
    await page.keyboard.press('Enter');
    await dialog().waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token-name');
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('dialog[open]')))).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog().count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create API Token');

    await page.keyboard.press('Enter');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog().locator('.field-error').innerText()).toBe('Enter a name for the token.');
    expect(await dialog().getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token-name');
    await shot('create-required');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog().count()).toBe(0);
  });

  it('creates a token, shows its value once with a copy button, and the value works on the API', async () => {
    await page.getByRole('button', { name: 'Create API Token' }).first().click();
    await dialog().getByLabel('Name').fill('CI deploy');
    await dialog().getByLabel('Description').fill('Used by the deploy pipeline');
    await shot('create');
    await dialog().getByRole('button', { name: 'Save' }).click();
    const valueBox = dialog().locator('#token-value');
    await valueBox.waitFor();
    const value = await valueBox.inputValue();
    expect(value).toMatch(/^inv_/);
    values.set('CI deploy', value);
    expect(await dialog().getByRole('alert').innerText()).toContain('cannot be shown again');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Copy');
    await dialog().getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => dialog().getByRole('status').innerText()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    await shot('created');
    expect(await seriousViolations(page)).toEqual([]);

    const api = client(t, value);
    const list = await api.get('/api/clients');
    expect(list.status).toBe(200);
    expect(list.body.totalItems).toBe(0);

    await dialog().getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create API Token');
    await expect.poll(() => rowNames()).toEqual(['CI deploy']);
    // The value is never shown again: not on the page, not in what the page loads.
    await page.reload();
    await expect.poll(() => rowNames()).toEqual(['CI deploy']);
    expect(await page.content()).not.toContain(value);
  });

  it('lists tokens with Name, Description, Usage Count, Last Used (empty when never) and Created', async () => {
    await createToken('Nightly export', 'Exports invoices to the books');
    await createToken('zapier');
    const ci = client(t, values.get('CI deploy')!);
    const made = await ci.post('/api/clients', { name: 'Globex' });
    expect(made.status).toBe(201);
    expect((await ci.get('/api/clients')).status).toBe(200);
    expect((await ci.get('/api/clients/0190f3c2-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await ci.patch(`/api/clients/${made.body.id}`, { website: 'https://globex.test' })).status).toBe(200);
    expect((await ci.delete(`/api/clients/${made.body.id}`)).status).toBe(204);
    expect((await client(t, values.get('Nightly export')!).get('/api/invoices')).status).toBe(200);
    // Older requests, three days ago (UTC noon), straight into the stored history.
    const [row] = await db().select().from(apiTokens).where(eq(apiTokens.name, 'CI deploy'));
    const now = new Date();
    const threeDaysAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 3, 12));
    await db()
      .insert(apiTokenHistory)
      .values(Array.from({ length: 4 }, (_, i) => ({ tokenId: row!.id, date: new Date(threeDaysAgo.getTime() + i * 60_000), method: 'PUT', endpoint: '/api/taxes/x', status: 500, ipAddress: '192.0.2.7', userAgent: 'old-client/1.0' })));

    await page.reload();
    await expect.poll(() => rowNames()).toHaveLength(3);
    const headers = await page.locator('.token-table thead th').allInnerTexts();
    expect(headers.map((h) => h.trim()).filter(Boolean)).toEqual(['Name', 'Description', 'Usage Count', 'Last Used', 'Created', 'Actions']);
    const cells = async (name: string) => {
      const r = page.locator('.token-table tbody tr', { has: page.locator('td.name', { hasText: name }) });
      return Object.fromEntries(
        await Promise.all(['Description', 'Usage Count', 'Last Used', 'Created'].map(async (l) => [l, (await r.locator(`td[data-label="${l}"]`).innerText()).trim()])),
      );
    };
    const ciCells = await cells('CI deploy');
    expect(ciCells).toMatchObject({ Description: 'Used by the deploy pipeline', 'Usage Count': '6' });
    expect(ciCells['Last Used']).toMatch(DATE_TIME);
    expect(ciCells.Created).toMatch(DATE_TIME);
    const zapier = await cells('zapier');
    expect(zapier).toMatchObject({ 'Usage Count': '0', 'Last Used': '' });
    expect(zapier.Description).toBe('—');
    for (const v of values.values()) expect(await page.content()).not.toContain(v);
    await shot('list');
  });

  it('sorts on each column, both ways', async () => {
    const header = (name: string) => page.locator('.token-table thead th', { hasText: name });
    const sortBy = async (name: string, expected: string[], aria: 'ascending' | 'descending') => {
      await header(name).getByRole('button').click();
      await expect.poll(() => rowNames()).toEqual(expected);
      expect(await header(name).getAttribute('aria-sort')).toBe(aria);
    };
    // Default: newest first.
    expect(await rowNames()).toEqual(['zapier', 'Nightly export', 'CI deploy']);
    await sortBy('Name', ['CI deploy', 'Nightly export', 'zapier'], 'ascending');
    await sortBy('Name', ['zapier', 'Nightly export', 'CI deploy'], 'descending');
    await sortBy('Usage Count', ['CI deploy', 'Nightly export', 'zapier'], 'descending');
    await sortBy('Usage Count', ['zapier', 'Nightly export', 'CI deploy'], 'ascending');
    // Never used sorts last either way.
    await sortBy('Last Used', ['Nightly export', 'CI deploy', 'zapier'], 'descending');
    await sortBy('Last Used', ['CI deploy', 'Nightly export', 'zapier'], 'ascending');
    await sortBy('Description', ['Nightly export', 'CI deploy', 'zapier'], 'ascending');
    await sortBy('Created', ['zapier', 'Nightly export', 'CI deploy'], 'descending');
    await sortBy('Created', ['CI deploy', 'Nightly export', 'zapier'], 'ascending');
    expect(await header('Name').getAttribute('aria-sort')).toBe('none');
    await shot('sorted');
  });

  it('searches names, ignoring case (the name filter of /api)', async () => {
    const search = page.getByLabel('Search tokens');
    await search.fill('EXPort');
    await expect.poll(() => rowNames()).toEqual(['Nightly export']);
    await search.fill('DEPLOY');
    await expect.poll(() => rowNames()).toEqual(['CI deploy']);
    await search.fill('nothing like this');
    await expect.poll(() => page.getByTestId('tokens-empty').innerText()).toContain('No token matches “nothing like this”.');
    await shot('search-empty');
    await search.fill('');
    await expect.poll(() => rowNames()).toHaveLength(3);
  });

  it("edits a token's name and description, not its value; a name already used is refused", async () => {
    const hashes = async () => (await db().select().from(apiTokens)).map((r) => r.tokenHash).sort();
    const before = await hashes();
    await page.getByRole('button', { name: 'Edit Nightly export' }).click();
    expect(await dialog().getByRole('heading').innerText()).toBe('Edit API Token');
    expect(await dialog().getByLabel('Name').inputValue()).toBe('Nightly export');
    expect(await dialog().getByLabel('Description').inputValue()).toBe('Exports invoices to the books');
    await dialog().getByLabel('Name').fill('CI deploy');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog().locator('#token-name-error').innerText()).toBe('You already have a token with this name.');
    await dialog().getByLabel('Name').fill('Nightly export (books)');
    await dialog().getByLabel('Description').fill('Exports to the ledger');
    await shot('edit');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    await expect.poll(() => rowNames()).toContain('Nightly export (books)');
    expect(await page.locator('tr[data-token="Nightly export (books)"] td.description').innerText()).toBe('Exports to the ledger');
    expect(await hashes()).toEqual(before);
    // Back as it was, for the tests that follow.
    await page.getByRole('button', { name: 'Edit Nightly export (books)' }).click();
    await dialog().getByLabel('Name').fill('Nightly export');
    await dialog().getByLabel('Description').fill('Exports invoices to the books');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => rowNames()).toContain('Nightly export');
  });

  it('shows the four summary cards', async () => {
    await expect.poll(() => page.getByTestId('card-active').innerText()).toContain('3');
    expect(await page.getByTestId('card-active').innerText()).toMatch(/Active Tokens\s+3/i);
    expect(await page.getByTestId('card-calls').innerText()).toMatch(/API Calls This Month\s+7/i);
    const most = await page.getByTestId('card-most').innerText();
    expect(most).toContain('CI deploy');
    expect(most).toContain('6 requests');
    const last = await page.getByTestId('card-last').innerText();
    expect(last).not.toContain('No activity yet');
    expect(last.split('\n').at(-1)!.trim()).toMatch(DATE_TIME);
    await shot('cards');
  });

  it('shows a token’s history with the chart, filtered by date range, method and status', async () => {
    const row = page.locator('.token-table tbody tr', { has: page.locator('td.name', { hasText: 'CI deploy' }) });
    await row.getByRole('button', { name: /View History/ }).click();
    const d = dialog();
    await d.waitFor();
    expect(await d.getByRole('heading').first().innerText()).toBe('History of “CI deploy”');
    const rows = d.locator('.history-table tbody tr');
    await expect.poll(() => rows.count()).toBe(10);
    const firstRow = (await rows.first().innerText()).replace(/\s+/g, ' ');
    expect(firstRow).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M DELETE \/api\/clients\/[0-9a-f-]+ 204 127\.0\.0\.1 node$/);
    expect(await d.locator('.history-table thead th').allInnerTexts()).toEqual(['Date', 'Method', 'Endpoint', 'Status', 'IP Address', 'User Agent']);

    // The chart: 30 days, counted by the server.
    const chart = d.getByTestId('usage-chart');
    await expect.poll(() => chart.getAttribute('data-total')).toBe('10');
    expect(await chart.locator('rect').count()).toBe(30);
    const today = new Date().toISOString().slice(0, 10);
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    expect(await chart.locator(`rect[data-day="${today}"]`).getAttribute('data-count')).toBe('6');
    expect(await chart.locator(`rect[data-day="${threeDaysAgo}"]`).getAttribute('data-count')).toBe('4');
    expect(await chart.locator('svg').getAttribute('aria-label')).toContain('10 requests in total');
    await shot('history');
    expect(await seriousViolations(page)).toEqual([]);

    const texts = async () => (await rows.allInnerTexts()).map((r) => r.replace(/\s+/g, ' '));
    // Waits for exactly `n` rows that all pass `test` (a filter's answer replaces the previous one).
    const rowsWhere = (n: number, test: (row: string) => boolean) =>
      expect
        .poll(async () => {
          const r = await texts();
          return r.length === n && r.every(test);
        })
        .toBe(true);
    await d.getByLabel('Method').selectOption('POST');
    await rowsWhere(1, (r) => r.includes('POST /api/clients 201'));
    await d.getByLabel('Method').selectOption('');
    await d.getByLabel('Status').selectOption('4xx');
    await rowsWhere(1, (r) => r.includes('GET /api/clients/0190f3c2-0000-7000-8000-000000000000 404'));
    await d.getByLabel('Status').selectOption('5xx');
    await rowsWhere(4, (r) => r.includes('PUT /api/taxes/x 500 192.0.2.7 old-client/1.0'));
    await d.getByLabel('Status').selectOption('2xx');
    await rowsWhere(5, (r) => / 20[014] /.test(r));
    await shot('history-filtered');
    await d.getByRole('button', { name: 'Clear filters' }).click();
    await rowsWhere(10, () => true);

    await d.getByLabel('From', { exact: true }).fill(today);
    await rowsWhere(6, (r) => r.startsWith(dayText(today)));
    await d.getByLabel('From', { exact: true }).fill(threeDaysAgo);
    await d.getByLabel('To', { exact: true }).fill(threeDaysAgo);
    await rowsWhere(4, (r) => r.startsWith(dayText(threeDaysAgo)));
    await d.getByLabel('From', { exact: true }).fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
    await d.getByLabel('To', { exact: true }).fill('');
    await expect.poll(() => d.getByTestId('history-empty').innerText()).toContain('No request matches these filters.');
    await d.getByLabel('To', { exact: true }).fill(today);
    await expect.poll(() => d.getByRole('alert').innerText()).toContain('after the “To” date');
    await shot('history-empty');

    await page.keyboard.press('Escape');
    await expect.poll(() => dialog().count()).toBe(0);
  });

  it('revokes the selected tokens at once, without confirmation; their values then get 401', async () => {
    const check = (name: string) => page.getByLabel(`Select ${name}`, { exact: true });
    const revoke = page.getByRole('button', { name: 'Revoke' });
    expect(await revoke.isDisabled()).toBe(true);
    await check('CI deploy').check();
    await check('zapier').check();
    await expect.poll(() => page.locator('.batch').innerText()).toContain('2 selected');
    await shot('selected');
    await revoke.click();
    await expect.poll(() => rowNames()).toEqual(['Nightly export']);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Revoked' }).innerText()).toContain('Revoked 2 tokens.');
    await expect.poll(() => page.getByTestId('card-active').innerText()).toContain('1');
    for (const name of ['CI deploy', 'zapier']) {
      const res = await client(t, values.get(name)!).get('/api/clients');
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Invalid API token');
    }
    expect((await client(t, values.get('Nightly export')!).get('/api/clients')).status).toBe(200);
    // The select-all box selects what is listed.
    await page.getByLabel('Select all tokens').check();
    expect(await check('Nightly export').isChecked()).toBe(true);
    await page.getByLabel('Select all tokens').uncheck();
    await shot('revoked');
  });

  it('switches company: tokens are listed and created for the active one', async () => {
    await userCreate({ db: db() }, { email: EMAIL, password: 'ignored-for-existing', company: 'Beta Corp', currency: 'USD', role: 'member' });
    const beta = client(t, await tokenFor(t, { email: 'colleague@beta.test', company: 'Beta Corp' }));
    expect((await beta.post('/api/clients', { name: 'Only in Beta' })).status).toBe(201);

    await page.reload();
    const switcher = page.getByLabel('Company');
    await expect.poll(() => switcher.locator('option').allInnerTexts()).toEqual(['Acme', 'Beta Corp']);
    await switcher.selectOption({ label: 'Beta Corp' });
    await expect.poll(() => page.getByTestId('tokens-empty').innerText()).toContain('No API tokens yet.');
    expect(await page.locator('.lead').innerText()).toContain('Beta Corp');
    const value = await createToken('Beta sync');
    const seen = await client(t, value).get('/api/clients');
    expect(seen.body.member.map((c: { name: string }) => c.name)).toEqual(['Only in Beta']);
    await shot('switched');
    // The choice is kept in the session.
    await page.reload();
    await expect.poll(() => rowNames()).toEqual(['Beta sync']);
    expect(await page.getByLabel('Company').locator('option:checked').innerText()).toBe('Beta Corp');
    await page.getByLabel('Company').selectOption({ label: 'Acme' });
    await expect.poll(() => rowNames()).toEqual(['Nightly export']);
  });

  it('refuses state-changing calls without or with a wrong CSRF token (403), changing nothing', async () => {
    const before = await db().select().from(apiTokens);
    const statuses = await page.evaluate(async (ids) => {
      const post = (headers: Record<string, string>, body: unknown) =>
        fetch('/api/api-tokens', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then((r) => r.status);
      return {
        none: await post({}, { name: 'forged' }),
        wrong: await post({ 'x-csrf-token': 'forged-token' }, { name: 'forged' }),
        revoke: await fetch(`/api/api-tokens/${ids[0]}`, { method: 'DELETE' }).then((r) => r.status),
        edit: await fetch(`/api/api-tokens/${ids[0]}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ name: 'forged' }) }).then((r) => r.status),
        logout: await fetch('/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=nope' }).then((r) => r.status),
      };
    }, before.map((r) => r.id));
    expect(statuses).toEqual({ none: 403, wrong: 403, revoke: 403, edit: 403, logout: 403 });
    expect((await db().select().from(apiTokens)).map((r) => `${r.id} ${r.name}`).sort()).toEqual(before.map((r) => `${r.id} ${r.name}`).sort());
    await page.reload();
    await expect.poll(() => rowNames()).toEqual(['Nightly export']);
  });

  it('reads well at phone width (375 px): no sideways scrolling, dialogs fit', async () => {
    const phone = await context.newPage();
    watch(phone);
    await phone.setViewportSize({ width: 375, height: 780 });
    await phone.goto(`${t.url}/profile/api`);
    await expect.poll(() => rowNames(phone)).toEqual(['Nightly export']);
    const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth);
    expect(await overflow()).toBeLessThanOrEqual(375);
    await shot('phone', phone);

    await phone.getByRole('button', { name: 'Create API Token' }).first().click();
    const d = dialog(phone);
    await d.waitFor();
    expect((await d.boundingBox())!.width).toBeLessThanOrEqual(375);
    await shot('phone-create', phone);
    await d.getByLabel('Name').fill('Phone token');
    await d.getByRole('button', { name: 'Save' }).click();
    await d.locator('#token-value').waitFor();
    expect((await d.boundingBox())!.width).toBeLessThanOrEqual(375);
    expect(await overflow()).toBeLessThanOrEqual(375);
    await shot('phone-created', phone);
    await d.getByRole('button', { name: 'Done' }).click();

    const row = phone.locator('.token-table tbody tr', { has: phone.locator('td.name', { hasText: 'Nightly export' }) });
    await row.getByRole('button', { name: /View History/ }).click();
    await dialog(phone).locator('.history-table tbody tr').first().waitFor();
    expect((await dialog(phone).boundingBox())!.width).toBeLessThanOrEqual(375);
    expect(await overflow()).toBeLessThanOrEqual(375);
    await shot('phone-history', phone);
    await phone.keyboard.press('Escape');
    await phone.close();

    const visitor = await browser.newPage({ viewport: { width: 375, height: 700 } });
    watch(visitor);
    await visitor.goto(`${t.url}/profile/api`);
    expect(new URL(visitor.url()).pathname).toBe('/login');
    expect(await visitor.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot('phone-login', visitor);
    await visitor.close();
  });

  it('loaded nothing from outside the server and raised no script or CSP error', () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
