// /app in a real browser (Debian's chromium through playwright-core): a person's day — sign in,
// create a client, a tax and an invoice with lines, issue it, download its PDF, record a payment
// and see it paid on the dashboard —, a violation shown at its field, a 409 on delete shown as
// the problem's detail, a viewer who cannot write, paging through 35 clients, reload showing the
// same view, and axe-core on every kind of page. Screenshots land in test-results/app-*.png.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, watch } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
const OWNER = 'owner@app.test';
const VIEWER = 'viewer@app.test';
const COMPANY = 'Browser Co';

let t: TestServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const tokens = new Map<string, string>();

async function signIn(email: string, path = '/app'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC', locale: 'en-US', acceptDownloads: true });
  const p = await context.newPage();
  watch(p, t.url, problems, /status of (403|404|409|422)/);
  await p.goto(`${t.url}${path}`);
  // No session: the sign-in page, which returns to the address asked for.
  expect(new URL(p.url()).pathname).toBe('/login');
  await p.getByLabel('Email').fill(email);
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${t.url}${path}`);
  return p;
}

/** axe-core, from node_modules: no serious or critical violation. */
async function axe(p: Page, what: string): Promise<void> {
  const bad = await seriousViolations(p);
  expect(bad, `${what}: ${JSON.stringify(bad)}`).toEqual([]);
}

const h1 = (p: Page = page) => p.getByRole('heading', { level: 1 });
const main = (p: Page = page) => p.locator('main');
const nav = (p: Page, name: string) => p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

beforeAll(async () => {
  t = await startTestServer();
  const ctx = { db: t.db.database.db };
  await userCreate(ctx, { email: OWNER, password: PASSWORD, company: COMPANY, role: 'admin', currency: 'USD' });
  await userCreate(ctx, { email: VIEWER, password: PASSWORD, company: COMPANY, role: 'viewer', currency: 'USD' });
  // The test's own calls (35 clients at once) use a token; the pages use the session.
  tokens.set(OWNER, await tokenFor(t, { email: OWNER, company: COMPANY, name: 'test' }));
  browser = await launchChromium();
  page = await signIn(OWNER);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/app in a browser', () => {
  it('shows the dashboard, with navigation built from the model', async () => {
    await expect.poll(() => h1().innerText()).toBe('Dashboard');
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
    // The business's resources first; the developer's under Settings (CONTRACT §20).
    expect(links).toEqual(['Dashboard', 'Clients', 'Contacts', 'Addresses', 'Taxes', 'Invoices', 'Quotes', 'Recurring invoices', 'Payments', 'Credit notes', 'Reports', 'Company', 'People', 'API tokens', 'Webhooks', 'Document links', 'Emails']);
    await page.getByRole('heading', { name: 'Invoices per status' }).waitFor();
    await axe(page, 'dashboard (empty)');
    // Keyboard: the first Tab reaches the skip link, with a visible focus ring; then the
    // navigation, whose links open their view with Enter.
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => ({ text: (document.activeElement as HTMLElement | null)?.innerText ?? '', outline: getComputedStyle(document.activeElement!).outlineStyle }));
    expect(await focused()).toEqual({ text: 'Skip to content', outline: 'solid' });
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab'); // brand, search, sign out, Dashboard
    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Clients');
    await page.keyboard.press('Enter');
    await expect.poll(() => h1().innerText()).toBe('Clients');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.goBack();
    await expect.poll(() => h1().innerText()).toBe('Dashboard');
  });

  it('a person’s day: a client, a tax, an invoice with lines, issued, its PDF, a payment, paid on the dashboard', async () => {
    // A client.
    await nav(page, 'Clients').click();
    await expect.poll(() => h1().innerText()).toBe('Clients');
    await page.getByRole('link', { name: 'New client' }).click();
    await expect.poll(() => h1().innerText()).toBe('New client');
    await axe(page, 'create form');
    await page.getByLabel('Name', { exact: false }).first().fill('Acme Ltd');
    await page.getByLabel('Website').fill('https://acme.test');
    await page.getByRole('button', { name: 'Create client' }).click();
    await expect.poll(() => h1().innerText()).toContain('Acme Ltd');
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/clients\/[0-9a-f-]{36}$/);

    // A tax.
    await nav(page, 'Taxes').click();
    await page.getByRole('link', { name: 'New tax' }).click();
    await page.getByLabel('Name', { exact: false }).first().fill('VAT 20');
    await page.getByLabel('Rate').fill('20');
    await page.getByRole('button', { name: 'Create tax' }).click();
    await expect.poll(() => h1().innerText()).toContain('VAT 20');

    // An invoice with lines: the client picked by search, three lines, one moved, one removed.
    await nav(page, 'Invoices').click();
    await page.getByRole('link', { name: 'New invoice' }).click();
    await expect.poll(() => h1().innerText()).toBe('New invoice');
    await page.getByLabel('Search clients for Client').fill('acm');
    await expect.poll(() => page.locator('#f-client option').allInnerTexts()).toContain('Acme Ltd');
    await page.locator('#f-client').selectOption({ label: 'Acme Ltd' });
    for (const [description, qty, price] of [['Design', '2', '150.00'], ['Hosting', '1', '19.99'], ['Mistake', '1', '1']]) {
      await page.getByRole('button', { name: 'Add line' }).click();
      const n = await page.locator('.line-table tbody tr').count();
      await page.getByLabel(`Description, line ${n}`).fill(description!);
      await page.getByLabel(`Qty, line ${n}`).fill(qty!);
      await page.getByLabel(`Price, line ${n}`).fill(price!);
    }
    await page.getByLabel('Tax, line 1', { exact: true }).selectOption({ label: 'VAT 20' });
    await page.getByRole('button', { name: 'Remove line 3' }).click();
    await page.getByRole('button', { name: 'Move line 2 up' }).click();
    expect(await page.getByLabel('Description, line 1').inputValue()).toBe('Hosting');
    await axe(page, 'invoice form with lines');
    await screenshot(page, 'app-invoice-form');
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await expect.poll(() => h1().innerText()).toMatch(/Invoice INV-000001\s+Draft/);
    const record = main();
    // 19.99 + 2 × 150.00 + 20 % on 300.00 = 379.99
    await expect.poll(() => record.locator('[data-field="total"]').innerText()).toBe('$379.99');
    await expect.poll(() => record.locator('[data-field="client"] a').innerText()).toBe('Acme Ltd');
    const lines = await page.locator('section[aria-labelledby="lines-lines"] tbody tr').allInnerTexts();
    expect(lines[0]).toContain('Hosting');
    expect(lines[1]).toContain('Design');
    expect(lines[1]).toContain('VAT 20');
    await axe(page, 'record');

    // Issued (after a confirmation naming what it does), then its PDF.
    await page.getByRole('button', { name: 'Issue' }).click();
    const confirm = page.getByRole('dialog', { name: 'Issue: INV-000001?' });
    expect(await confirm.innerText()).toContain('can no longer change');
    await axe(page, 'confirmation');
    await confirm.getByRole('button', { name: 'Issue' }).click();
    await expect.poll(() => h1().innerText()).toContain('Pending');
    await page.getByRole('status').filter({ hasText: 'now pending' }).waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
    expect(file.suggestedFilename()).toBe('INV-000001.pdf');
    const pdf = readFileSync((await file.path())!);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    await screenshot(page, 'app-invoice');
    // Reload: the same view.
    const here = page.url();
    await page.reload();
    await expect.poll(() => h1().innerText()).toContain('INV-000001');
    expect(page.url()).toBe(here);

    // A payment of the whole balance, from the invoice's page: the invoice is filled in.
    await page.getByRole('link', { name: 'New payment' }).click();
    await expect.poll(() => h1().innerText()).toBe('New payment');
    expect(new URL(page.url()).searchParams.get('invoice')).toMatch(/^\/api\/invoices\//);
    await expect.poll(() => page.locator('#f-invoice option:checked').innerText()).toBe('INV-000001');
    await page.getByLabel('Amount').fill('379.99');
    await page.getByLabel('Reference').fill('Wire 42');
    await page.getByRole('button', { name: 'Create payment' }).click();
    await expect.poll(() => h1().innerText()).toContain('Wire 42');
    await expect.poll(() => main().locator('[data-field="amount"]').innerText()).toBe('$379.99');

    // Paid, on the dashboard.
    await nav(page, 'Dashboard').click();
    await expect.poll(() => page.getByTestId('status-paid').innerText()).toBe('1');
    expect(await page.getByTestId('status-pending').innerText()).toBe('0');
    const month = new Date().toISOString().slice(0, 7);
    const [y, m] = month.split('-').map(Number);
    const label = `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][m! - 1]} ${y}`;
    // The chart's text alternative gives each month's amount.
    expect(await page.locator('table.visually-hidden tr', { hasText: label }).innerText()).toContain('$379.99');
    await axe(page, 'dashboard');
    await screenshot(page, 'app-dashboard');
  });

  it('shows the API’s violation at its field', async () => {
    await page.goto(`${t.url}/app/taxes/new`);
    await page.getByLabel('Name', { exact: false }).first().fill('Too much');
    await page.getByLabel('Rate').fill('150');
    await page.getByRole('button', { name: 'Create tax' }).click();
    const rate = page.getByLabel('Rate');
    await expect.poll(() => rate.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await rate.getAttribute('aria-describedby'))!.split(' ').pop()!;
    expect(await page.locator(`#${errorId}`).innerText()).toMatch(/100/);
    expect(await page.getByRole('alert').innerText()).toContain('Please correct the field marked below.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-rate');
    await axe(page, 'form with violations');
    await screenshot(page, 'app-violation');
    // An amount with more decimals than its currency is refused before anything is sent.
    await page.goto(`${t.url}/app/payments/new`);
    await page.getByLabel('Amount').fill('1.234');
    await page.getByRole('button', { name: 'Create payment' }).click();
    await expect.poll(() => page.locator('#f-amount-error').innerText()).toMatch(/“1.234” is ambiguous/);
  });

  it('runs an operation as a button: Credit drafts a credit note and shows it', async () => {
    const api = client(t, tokens.get(OWNER)!);
    const acme = (await api.get('/api/clients?name=Acme')).body.member[0]['@id'];
    const inv = (await api.post('/api/invoices', { client: acme, lines: [{ description: 'Support', qty: 1, price: 5000 }] })).body;
    expect((await api.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
    await page.goto(`${t.url}/app/invoices/${inv.id}`);
    await page.getByRole('button', { name: 'Credit' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Credit' }).click();
    await expect.poll(() => h1().innerText()).toMatch(/^Credit note/);
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/credit-notes\/[0-9a-f-]{36}$/);
    await expect.poll(() => main().locator('[data-field="total"]').innerText()).toBe('$50.00');
    await expect.poll(() => main().locator('[data-field="invoice"] a').innerText()).toBe(inv.number);
    await page.getByRole('button', { name: 'Issue' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Issue' }).click();
    await expect.poll(() => h1().innerText()).toMatch(/CN-000001\s+Issued/);
    // An issued credit note cannot change or be deleted: neither is offered.
    expect(await page.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
  });

  it('offers what names a record by IRI as buttons: a client link (its URL shown once) and an email, prefilled', async () => {
    const api = client(t, tokens.get(OWNER)!);
    // Acme (the person's day), so that the clients' count of the paging test stays as it was.
    const linked = (await api.get('/api/clients?name=Acme')).body.member[0]?.['@id'] ?? (await api.post('/api/clients', { name: 'Acme Ltd' })).body['@id'];
    const inv = (await api.post('/api/invoices', { client: linked, lines: [{ description: 'Link me', qty: 1, price: 1200 }] })).body;
    expect((await api.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
    await page.goto(`${t.url}/app/invoices/${inv.id}`);
    // An e-mail is made by "Send" (its dialog with a preview, test/app-send.browser.test.ts), not a plain form.
    await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Send', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'New email' }).count()).toBe(0);
    await page.getByRole('link', { name: 'New document link' }).click();
    await page.locator('form.app-form').waitFor();
    expect(await page.locator('form.app-form').getByRole('textbox', { name: /^Document/ }).inputValue()).toBe(inv['@id']);
    await page.getByRole('button', { name: 'Create document link' }).click();
    const once = page.getByTestId('shown-once');
    await once.waitFor();
    const url = await once.getByLabel('Link').inputValue();
    expect(url).toMatch(/\/d\/[A-Za-z0-9_-]{20,}$/);
    await axe(page, 'shown once');
    await screenshot(page, 'app-shown-once');
    const client_ = await fetch(t.url + new URL(url).pathname);
    expect(client_.status).toBe(200);
    expect(await client_.text()).toContain(inv.number);
    await once.getByRole('link', { name: 'Continue' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/document-links\/[0-9a-f-]{36}$/);
  });

  it('shows a 409 on delete as the problem’s detail', async () => {
    await page.goto(`${t.url}/app/clients?name=acme`);
    await page.getByRole('link', { name: 'Acme Ltd' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete client?' });
    await dialog.waitFor();
    await axe(page, 'delete confirmation');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.innerText()).toMatch(/invoices|payments|cannot|used/i);
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/clients\//);
  });

  it('a viewer reads and cannot write: no write buttons, and a form’s address shows the API’s 403', async () => {
    const viewer = await signIn(VIEWER, '/app/clients');
    await expect.poll(() => h1(viewer).innerText()).toBe('Clients');
    expect(await viewer.getByRole('link', { name: 'New client' }).count(), 'New client').toBe(0);
    await viewer.getByRole('link', { name: 'Acme Ltd' }).click();
    await expect.poll(() => h1(viewer).innerText()).toContain('Acme Ltd');
    expect(await viewer.getByRole('button', { name: 'Delete' }).count(), 'Delete').toBe(0);
    expect(await viewer.getByRole('link', { name: 'Edit', exact: true }).count(), 'Edit').toBe(0);
    await viewer.goto(`${viewer.url()}/edit`);
    await expect.poll(() => viewer.getByRole('alert').innerText()).toBe('A viewer may only read.');
    expect(await viewer.locator('form.app-form').count()).toBe(0);
    await axe(viewer, 'refused form');
    await viewer.goto(`${t.url}/app/invoices/new`);
    await expect.poll(() => viewer.getByRole('alert').innerText()).toBe('A viewer may only read.');
    await viewer.context().close();
  });

  it('pages through 35 more clients, 30 at a time, with the exact total; reload keeps the page', async () => {
    const api = client(t, tokens.get(OWNER)!);
    for (let i = 1; i <= 35; i++) expect((await api.post('/api/clients', { name: `Client ${String(i).padStart(2, '0')}` })).status).toBe(201);
    await page.goto(`${t.url}/app/clients?order=name:asc`);
    await expect.poll(() => page.getByTestId('total').innerText()).toBe('36 clients');
    const names = () => page.locator('main tbody th').allInnerTexts();
    await expect.poll(async () => (await names()).length).toBe(30);
    expect((await names())[0]).toBe('Acme Ltd');
    await axe(page, 'list');
    await screenshot(page, 'app-list');
    // A list page is one request to /api.
    const calls: string[] = [];
    const count = (r: { url(): string }) => void (r.url().startsWith(`${t.url}/api/`) && calls.push(r.url()));
    page.on('request', count);
    await page.getByRole('link', { name: 'Next' }).click();
    await expect.poll(async () => (await names()).length).toBe(6);
    page.off('request', count);
    expect(calls).toEqual([`${t.url}/api/graphql`]);
    expect((await names()).at(-1)).toBe('Client 35');
    expect(page.url()).toContain('after=');
    await page.reload();
    await expect.poll(async () => (await names()).length).toBe(6);
    await page.getByRole('link', { name: 'Previous' }).click();
    await expect.poll(async () => (await names()).length).toBe(30);
    expect((await names())[1]).toBe('Client 01');
    // Sorting by a column, descending.
    await page.getByRole('link', { name: 'Name' }).click();
    await expect.poll(async () => (await names())[0]).toBe('Client 35');
    // A filter.
    await page.getByRole('searchbox', { name: 'Name' }).fill('client 3');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.getByTestId('total').innerText()).toBe('6 clients');
  });

  it('every resource’s list and create form: built, labelled, no serious or critical axe violation', async () => {
    const { descriptors } = await import('../resources/index.ts');
    expect(descriptors.length).toBeGreaterThan(10);
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    // The reports page (a page of operations, test/reports.browser.test.ts) and the settings pages
    // (test/settings-axe.browser.test.ts) have no list or form; the webhooks' list and form stay
    // reachable though the navigation shows their settings page.
    expect(links).toContain('/app/settings/webhooks');
    for (const href of [...links.filter((h) => h.startsWith('/app/') && h !== '/app/reports' && !h.startsWith('/app/settings/')), '/app/webhooks']) {
      await page.goto(`${t.url}${href}`);
      await page.getByTestId('total').waitFor();
      await axe(page, `list ${href}`);
      await page.goto(`${t.url}${href}/new`);
      await page.locator('form.app-form').waitFor();
      // Every control has a name.
      const unnamed = await page.locator('form.app-form').evaluate((form) =>
        [...form.querySelectorAll('input, select, textarea')].filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute('aria-label')).map((el) => el.id),
      );
      expect(unnamed, href).toEqual([]);
      if (href === '/app/recurring-invoices') await page.getByRole('button', { name: 'Add line' }).click();
      await axe(page, `create form ${href}`);
      if (href === '/app/recurring-invoices' || href === '/app/webhooks') await screenshot(page, `app-form-${href.slice(5)}`);
    }
  });

  it('says that e-mails are held when SMTP_URL is not set (CONTRACT §15), on their list and form only', async () => {
    await page.goto(`${t.url}/app/emails`);
    await page.getByTestId('total').waitFor();
    expect(await page.getByTestId('notice').innerText()).toMatch(/E-mails are held: SMTP_URL is not set/);
    await page.goto(`${t.url}/app/emails/new`);
    await page.locator('form.app-form').waitFor();
    expect(await page.getByTestId('notice').count()).toBe(1);
    await page.goto(`${t.url}/app/clients`);
    await page.getByTestId('total').waitFor();
    expect(await page.getByTestId('notice').count()).toBe(0);
  });

  it('nothing went wrong on any page', () => {
    expect(problems).toEqual([]);
  });
});
