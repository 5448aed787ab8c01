// Reports, CSV download and import in /app (issue 46), in Chromium: the reports page with its
// period chosen, a chart and a table (figures as the API gives them); the download button of a
// list keeps its filters; an import shows its preview (the dry run) before importing, and a file
// with errors lists them and imports nothing. axe-core: no serious or critical violation.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
let t: TestServer;
let browser: Browser;
let page: Page;
let api: Client;
const problems: string[] = [];
const year = new Date().toISOString().slice(0, 4);

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: 'owner@reports-app.test', password: PASSWORD, company: 'Reports App', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@reports-app.test', company: 'Reports App' }));
  const vat = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body;
  const acme = (await api.post('/api/clients', { name: 'Acme' })).body;
  const globex = (await api.post('/api/clients', { name: 'Globex', currency: 'USD' })).body;
  for (const [c, day, price] of [[acme, `${year}-01-15`, 10000], [acme, `${year}-02-10`, 25000], [globex, `${year}-02-20`, 5000]] as const) {
    const inv = (await api.post('/api/invoices', { client: c['@id'], invoiceDate: day, dueDate: day, lines: [{ description: 'Work', price, tax: vat['@id'] }] })).body;
    expect((await api.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
  }
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@reports-app.test', password: PASSWORD, path: '/app', heading: 'Dashboard', problems });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/app reports, downloads and imports', () => {
  it('shows the revenue per month with a chart and a table, and the period chosen', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('main tbody tr').count()).toBe(3);
    const rows = await page.locator('main tbody tr').allInnerTexts();
    expect(rows[0]).toContain(`${year}-01`);
    expect(rows[0]).toContain('120.00');
    expect(rows[1]).toContain(`${year}-02`);
    expect(rows[1]).toContain('300.00');
    expect(await page.locator('main figure svg rect').count()).toBeGreaterThan(0);
    await screenshot(page, 'reports-revenue');
    expect(await seriousViolations(page)).toEqual([]);
    // Another period and grouping: the year.
    await page.getByLabel('Group by').selectOption('year');
    await page.getByLabel('From').fill(`${year}-02-01`);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('main tbody tr').allInnerTexts()).toEqual([expect.stringContaining('300.00'), expect.stringContaining('60.00')]);
    expect(page.url()).toContain('groupBy=year');
    // The aging report names clients; the date chosen (typed while the report of today may still be
    // loading) is the one asked for: on 25 February, Acme's invoices are 41 and 15 days past due.
    // Today's aging report is held back until the date is typed, as on a slow connection.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/reports/aging', async (route) => {
      await held;
      await route.continue();
    });
    // The clients are named by GraphQL (one request per 30 of them), not by a request per client.
    const perClient: string[] = [];
    const countPerClient = (r: { url(): string }) => /^\/api\/clients\/[^/]+$/.test(new URL(r.url()).pathname) && perClient.push(r.url());
    page.on('request', countPerClient);
    await page.getByRole('link', { name: 'Aging' }).click();
    await page.getByLabel('Date').fill(`${year}-02-25`);
    const today = page.waitForResponse((r) => r.url().endsWith('/api/reports/aging'));
    release();
    await today;
    await page.unroute('**/api/reports/aging');
    await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.url()).toContain(`date=${year}-02-25`);
    await expect.poll(() => page.locator('main tbody tr').allInnerTexts()).toEqual([
      ['Acme', 'EUR', '€0.00', '€300.00', '€120.00', '€0.00', '€0.00', '€420.00'].join('\t'),
      ['Globex', 'USD', '$0.00', '$60.00', '$0.00', '$0.00', '$0.00', '$60.00'].join('\t'),
    ]);
    await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
    expect(await page.getByLabel('Date').inputValue()).toBe(`${year}-02-25`);
    page.off('request', countPerClient);
    expect(perClient).toEqual([]);
    await screenshot(page, 'reports-aging');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('downloads a list as CSV with its filters', async () => {
    await page.goto(`${t.url}/app/clients?name=Acme`);
    await page.getByRole('heading', { name: 'Clients', level: 1 }).waitFor();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const text = readFileSync((await dl.path())!, 'utf8');
    expect(text.split('\r\n')[0]).toMatch(/^id,name,currency/);
    expect(text).toContain(',Acme,');
    expect(text).not.toContain('Globex');
    // The invoices, filtered by status and ordered by total: those the list shows, all of them.
    const draft = (await api.post('/api/invoices', { client: (await api.get('/api/clients?name=Acme')).body.member[0]['@id'], lines: [{ description: 'Draft', price: 999 }] })).body;
    expect(draft.status).toBe('draft');
    await page.goto(`${t.url}/app/invoices?status=pending&order=total:asc`);
    await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
    await expect.poll(() => page.locator('main tbody tr').count()).toBe(3);
    const [inv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const rows = parse(readFileSync((await inv.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.status, r.total])).toEqual([['pending', '60.00'], ['pending', '120.00'], ['pending', '300.00']]);
    // Every list of the navigation (a page with a pager) offers it. The company's page is left out:
    // its missing logo is a 404 in the console.
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((as) => as.map((a) => [a.textContent!.trim(), (a as HTMLAnchorElement).pathname]));
    const lists: string[] = [];
    const without: string[] = [];
    for (const [name, path] of links) {
      if (path === '/app/settings/company') continue;
      await page.goto(`${t.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      if (!(await page.locator('main nav.pager').count())) continue;
      lists.push(name!);
      if ((await page.getByRole('button', { name: 'Download CSV' }).count()) !== 1) without.push(`${name} ${path}`);
    }
    expect(lists).toEqual(expect.arrayContaining(['Clients', 'Contacts', 'Addresses', 'Taxes', 'Invoices', 'Quotes', 'Recurring invoices', 'Payments', 'Credit notes']));
    expect(without).toEqual([]);
  });

  it('imports clients from a CSV file after a preview, and lists the errors of a bad file', async () => {
    await page.goto(`${t.url}/app/clients`);
    await page.getByRole('link', { name: 'Import CSV' }).click();
    await page.getByRole('heading', { name: 'Import clients', level: 1 }).waitFor();
    await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('name,currency,email\nGood,EUR,\nBad,EURO,\n,USD,x@y.example\n') });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('alert').waitFor();
    const errors = await page.locator('.import-errors li').allInnerTexts();
    expect(errors.some((e) => e.startsWith('Line 3, currency'))).toBe(true);
    expect(errors.some((e) => e.startsWith('Line 4, name'))).toBe(true);
    await screenshot(page, 'import-errors');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('CSV file').setInputFiles({ name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from('name,currency,email,firstName\nInitech,USD,bill@initech.example,Bill\nHooli,,,\n') });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'Preview: 2 rows to import' }).waitFor();
    expect(await page.locator('main tbody tr').allInnerTexts()).toEqual([expect.stringContaining('Initech'), expect.stringContaining('Hooli')]);
    // The preview changed nothing.
    expect((await api.get('/api/clients?name=Initech')).body.totalItems).toBe(0);
    await screenshot(page, 'import-preview');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Import 2 rows' }).click();
    await page.getByText('Imported 2 rows.').waitFor();
    expect((await api.get('/api/clients?name=Initech')).body.totalItems).toBe(1);
    expect(problems).toEqual([]);
  });
});
