// /app on a phone (390×844 CSS px, deviceScaleFactor 2, touch) in a real browser: the dashboard,
// the invoice list, an invoice's record and the new-invoice form with a line. On each, the page
// never scrolls sideways (a wide table scrolls inside its own wrapper), the navigation is reachable
// (every link of it on screen, none cut off), the main actions are visible tap targets of at least
// 44×44 CSS px, and axe-core finds no serious or critical violation. Screenshots land in
// test-results/app-phone-*.png.
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, watch } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
const OWNER = 'owner@phone.test';
const COMPANY = 'Phone Co';
const WIDTH = 390;
/** The smallest comfortable tap target (WCAG 2.5.5, Apple's HIG), in CSS px. */
const TAP = 44;

let t: TestServer;
let browser: Browser;
let page: Page;
let invoiceId: string;
const problems: string[] = [];

/** axe-core, from node_modules: no serious or critical violation. */
async function axe(p: Page, what: string): Promise<void> {
  const bad = await seriousViolations(p);
  expect.soft(bad, `${what}: ${JSON.stringify(bad)}`).toEqual([]);
}

/** The page does not scroll sideways: whatever is wide scrolls inside its own container. */
async function fits(what: string): Promise<void> {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect.soft(inner, what).toBe(WIDTH);
  expect.soft(scroll, `${what}: the page is ${scroll} px wide`).toBeLessThanOrEqual(inner);
}

/** Visible, entirely on screen sideways, and at least 44×44 CSS px. */
async function tappable(target: Locator, what: string): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  expect(box, `${what}: not visible`).not.toBeNull();
  expect.soft(box!.x, `${what}: cut off on the left`).toBeGreaterThanOrEqual(0);
  expect.soft(box!.x + box!.width, `${what}: cut off on the right`).toBeLessThanOrEqual(WIDTH);
  expect.soft(box!.width, `${what}: ${box!.width} px wide`).toBeGreaterThanOrEqual(TAP);
  expect.soft(box!.height, `${what}: ${box!.height} px high`).toBeGreaterThanOrEqual(TAP);
}

/**
 * The main navigation folds behind a Menu button: tapping it shows every link, on screen and a tap
 * target; tapping it again folds them.
 */
async function navigable(what: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const menu = nav.getByRole('button', { name: 'Menu' });
  await tappable(menu, `${what}: Menu`);
  expect(await menu.getAttribute('aria-expanded')).toBe('false');
  expect(await nav.getByRole('link').count(), `${what}: links shown while folded`).toBe(0);
  await menu.tap();
  expect(await menu.getAttribute('aria-expanded')).toBe('true');
  const links = nav.getByRole('link');
  expect(await links.allInnerTexts()).toEqual(['Dashboard', 'Clients', 'Contacts', 'Addresses', 'Taxes', 'Invoices', 'Quotes', 'Recurring invoices', 'Payments', 'Credit notes', 'Reports', 'Company', 'People', 'API tokens', 'Webhooks', 'Document links', 'Emails']);
  for (const link of await links.all()) await tappable(link, `${what}: navigation link ${await link.innerText()}`);
  await fits(`${what}, menu open`);
  await axe(page, `${what}, menu open`);
  await screenshot(page, `app-phone-menu-${what.replace(/\W+/g, '-')}`);
  await menu.tap();
  expect(await nav.getByRole('link').count()).toBe(0);
}

const h1 = () => page.getByRole('heading', { level: 1 });

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: OWNER, password: PASSWORD, company: COMPANY, role: 'admin', currency: 'USD' });
  const api = client(t, await tokenFor(t, { email: OWNER, company: COMPANY, name: 'test' }));
  // A client with a long name, and invoices in several states, so that the list has wide rows.
  const acme = (await api.post('/api/clients', { name: 'Acme International Consulting Ltd', website: 'https://acme.test' })).body['@id'];
  const vat = (await api.post('/api/taxes', { name: 'VAT 20', rate: 20 })).body['@id'];
  for (let i = 0; i < 4; i++) {
    const inv = (await api.post('/api/invoices', { client: acme, lines: [{ description: `Design work, phase ${i + 1}`, qty: 2, price: 15000, tax: vat }, { description: 'Hosting', qty: 1, price: 1999 }] })).body;
    expect(inv['@id']).toBeTruthy();
    if (i > 0) expect((await api.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
    invoiceId = inv.id;
  }
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId: 'UTC', locale: 'en-US' });
  page = await context.newPage();
  watch(page, t.url, problems);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/app on a phone (390 px)', () => {
  it('the sign-in page and the dashboard fit, with the navigation reachable', async () => {
    // Signing in through the login page, on the phone.
    await page.goto(`${t.url}/app`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await fits('login');
    await tappable(page.getByRole('button', { name: 'Sign in' }), 'Sign in');
    await screenshot(page, 'app-phone-login');
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).tap();
    await page.waitForURL(`${t.url}/app`);
    await expect.poll(() => h1().innerText()).toBe('Dashboard');
    await page.getByRole('heading', { name: 'Invoices per status' }).waitFor();
    await fits('dashboard');
    await navigable('dashboard');
    await tappable(page.getByRole('button', { name: 'Sign out' }), 'Sign out');
    await axe(page, 'dashboard');
    await screenshot(page, 'app-phone-dashboard');
  });

  it('the invoice list fits, its rows as labelled cards; New invoice is a tap target', async () => {
    // Through the menu, which folds again once a link is chosen.
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('button', { name: 'Menu' }).tap();
    await nav.getByRole('link', { name: 'Invoices', exact: true }).tap();
    await expect.poll(() => nav.getByRole('link').count()).toBe(0);
    await expect.poll(() => h1().innerText()).toBe('Invoices');
    await expect.poll(() => page.getByTestId('total').innerText()).toBe('4 invoices');
    await fits('invoice list');
    await tappable(page.getByRole('link', { name: 'New invoice' }), 'New invoice');
    await tappable(page.getByRole('button', { name: 'Apply' }), 'Apply');
    await tappable(page.getByRole('link', { name: 'INV-000001' }), 'an invoice of the list');
    await axe(page, 'invoice list');
    await screenshot(page, 'app-phone-invoices');
  });

  it('an invoice’s record fits; its actions are tap targets', async () => {
    await page.goto(`${t.url}/app/invoices/${invoiceId}`);
    await expect.poll(() => h1().innerText()).toMatch(/INV-000004\s+Pending/);
    await page.locator('[data-field="total"]').waitFor();
    await fits('invoice record');
    const actions = page.getByRole('group', { name: 'Actions' });
    for (const name of ['Edit', 'Download PDF', 'New payment', 'Delete']) {
      const target = actions.getByRole(name === 'Edit' || name.startsWith('New') ? 'link' : 'button', { name, exact: true });
      if (await target.count()) await tappable(target, name);
    }
    await navigable('invoice record');
    await axe(page, 'invoice record');
    await screenshot(page, 'app-phone-invoice');
  });

  it('the new-invoice form with a line fits, labels above their fields; Add line and Create invoice are tap targets', async () => {
    await page.goto(`${t.url}/app/invoices/new`);
    await expect.poll(() => h1().innerText()).toBe('New invoice');
    await page.getByRole('button', { name: 'Add line' }).tap();
    await page.getByLabel('Description, line 1').fill('Design');
    await page.getByLabel('Qty, line 1').fill('2');
    await page.getByLabel('Price, line 1').fill('150.00');
    await fits('invoice form');
    // Fields stack: every visible label sits above its control, within the screen.
    const misplaced = await page.locator('form.app-form').evaluate((form, width) =>
      [...form.querySelectorAll('label')]
        .filter((l) => l.control && l.getBoundingClientRect().width > 0)
        .filter((l) => {
          const a = l.getBoundingClientRect();
          const c = l.control!.getBoundingClientRect();
          return c.right > width || a.right > width || (c.width > 0 && c.top < a.bottom - 1);
        })
        .map((l) => l.textContent),
      WIDTH,
    );
    expect.soft(misplaced).toEqual([]);
    for (const name of ['Add line', 'Create invoice', 'Remove line 1']) await tappable(page.getByRole('button', { name, exact: true }), name);
    await tappable(page.getByRole('link', { name: 'Cancel' }), 'Cancel');
    await axe(page, 'invoice form with a line');
    await screenshot(page, 'app-phone-invoice-form');
  });

  it('nothing went wrong on any page', () => {
    expect(problems).toEqual([]);
  });
});
