// "Credit" asks what to credit (CONTRACT §20, §14), in Chromium: the invoice's Credit opens a
// dialog offering the whole balance (the default), chosen lines with quantities, or an amount typed
// as people type money; it shows the credit note's total before confirming (the lines' by the
// server's own rules, with the invoice's discount) and refuses at the field what the API would; the
// credit note it makes has that total and its page is shown. A refusal by the API (the balance
// changed meanwhile) is shown and changes nothing. axe-core on the open dialog; screenshots.
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
let buyer: string;
const tax: Record<string, string> = {};
const problems: string[] = [];
type X = Record<string, any>;

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: 'owner@credit.test', password: PASSWORD, company: 'Credit Co', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@credit.test', company: 'Credit Co' }));
  buyer = (await api.post('/api/clients', { name: 'Buyer GmbH', currency: 'EUR' })).body['@id'];
  tax.s20 = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
  tax.s7 = (await api.post('/api/taxes', { name: 'Reduced VAT', rate: 7 })).body['@id'];
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@credit.test', password: PASSWORD, path: '/app', heading: 'Dashboard', problems });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A pending invoice of 3333 × 3 at 20 % and 4550 at 7 %, 10 % off: total 15181 (CONTRACT §6). */
async function pending(): Promise<X> {
  const inv = await api.post('/api/invoices', {
    client: buyer, dueDate: '2099-01-01', discountType: 'percentage', discountValue: 10,
    lines: [{ description: 'Design', qty: 3, price: 3333, tax: tax.s20 }, { description: 'Books', price: 4550, tax: tax.s7 }],
  });
  expect(inv.status, inv.text).toBe(201);
  const res = await api.patch(inv.body['@id'], { status: 'pending' });
  expect(res.body.total).toBe(15181);
  return res.body;
}

/** The invoice's page with the Credit dialog open. */
async function openCredit(inv: X) {
  await page.goto(`${t.url}/app/${inv['@id'].slice(5)}`);
  await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Credit', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  return dialog;
}

/** Confirms, and returns the credit note the page went to (read through the API). */
async function confirmed(dialog: ReturnType<Page['getByRole']>): Promise<X> {
  await dialog.getByRole('button', { name: 'Credit', exact: true }).click();
  await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/credit-notes\/[0-9a-f-]{36}$/);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toMatch(/^Credit note/);
  return (await api.get(`/api/${new URL(page.url()).pathname.slice(5)}`)).body;
}

const total = (dialog: ReturnType<Page['getByRole']>) => dialog.getByTestId('credit-total').innerText();

describe('Credit asks what to credit', () => {
  it('credits the whole balance by default', async () => {
    const inv = await pending();
    const dialog = await openCredit(inv);
    expect(await dialog.getByRole('heading', { level: 2 }).innerText()).toContain(inv.number);
    expect(await dialog.getByRole('radio', { name: 'The whole balance, €151.81' }).isChecked()).toBe(true);
    expect(await total(dialog)).toBe('€151.81');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-credit-whole');
    const note = await confirmed(dialog);
    expect(note).toMatchObject({ status: 'draft', total: 15181, invoice: inv['@id'] });
    expect(problems).toEqual([]);
  });

  it('credits chosen lines at chosen quantities, totalled as the API totals them', async () => {
    const inv = await pending();
    const dialog = await openCredit(inv);
    await dialog.getByRole('radio', { name: 'Chosen lines' }).check();
    expect(await total(dialog)).toBe('—');
    await dialog.getByRole('checkbox', { name: 'Design' }).check();
    const design = dialog.getByRole('textbox', { name: /Design/ });
    expect(await design.inputValue()).toBe('3');
    // 3 × 3333 = 9999, 10 % off: 8999 + 1800 tax.
    await expect.poll(() => total(dialog)).toBe('€107.99');
    await design.fill('1');
    await expect.poll(() => total(dialog)).toBe('€36.00');
    await dialog.getByRole('checkbox', { name: 'Books' }).check();
    // + 4550 − 455 = 4095 + 287.
    await expect.poll(() => total(dialog)).toBe('€79.82');
    // More than the line's quantity: refused at the line, nothing to confirm.
    await design.fill('4');
    await expect.poll(() => dialog.locator('.field-error').innerText()).toBe('At most 3.');
    expect(await dialog.getByRole('button', { name: 'Credit', exact: true }).isDisabled()).toBe(true);
    expect(await total(dialog)).toBe('—');
    // Typed as people type it: 1,5.
    await design.fill('1,5');
    // 3333 × 1.5 = 5000 − 500 = 4500 + 900; with the books: 5400 + 4382.
    await expect.poll(() => total(dialog)).toBe('€97.82');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-credit-lines');
    const note = await confirmed(dialog);
    expect(note.total).toBe(9782);
    expect(note.lines.map((l: X) => [l.description, l.qty, l.price])).toEqual([['Design', 1.5, 3333], ['Books', 1, 4550]]);
    // The page shows the credit note with that total.
    expect(await page.locator('[data-field="total"]').innerText()).toBe('€97.82');
  });

  it('credits an amount typed as people type money, at most the balance', async () => {
    const inv = await pending();
    const dialog = await openCredit(inv);
    await dialog.getByRole('radio', { name: 'An amount' }).check();
    const amount = dialog.getByLabel('Amount (EUR)');
    await amount.fill('1,234');
    await expect.poll(() => dialog.locator('#credit-amount-error').innerText()).toContain('ambiguous');
    expect(await dialog.getByRole('button', { name: 'Credit', exact: true }).isDisabled()).toBe(true);
    await amount.fill('151,82');
    await expect.poll(() => dialog.getByTestId('credit-invalid').innerText()).toBe('That is more than the balance, €151.81.');
    expect(await dialog.getByRole('button', { name: 'Credit', exact: true }).isDisabled()).toBe(true);
    await amount.fill('€50,00');
    await expect.poll(() => total(dialog)).toBe('€50.00');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-credit-amount');
    const note = await confirmed(dialog);
    expect(note.total).toBe(5000);
    // Over the tax groups: 1443 at 7 % and 3557 at 20 %.
    expect(note.lines.map((l: X) => [l.price, l.tax])).toEqual([[1349, tax.s7], [2964, tax.s20]]);
  });

  it('fits a phone: the lines, their quantities and the total', async () => {
    const inv = await pending();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const dialog = await openCredit(inv);
      await dialog.getByRole('radio', { name: 'Chosen lines' }).check();
      await dialog.getByRole('checkbox', { name: 'Books' }).check();
      await expect.poll(() => total(dialog)).toBe('€43.82');
      // Nothing wider than the screen.
      expect(await page.evaluate(() => document.querySelector('dialog')!.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'app-credit-phone');
      await dialog.getByRole('button', { name: 'Not now' }).click();
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("shows the API's refusal when the balance changed meanwhile, and changes nothing", async () => {
    const inv = await pending();
    const dialog = await openCredit(inv);
    await dialog.getByRole('radio', { name: 'Chosen lines' }).check();
    await dialog.getByRole('checkbox', { name: 'Design' }).check();
    await expect.poll(() => total(dialog)).toBe('€107.99');
    expect((await api.post('/api/payments', { invoice: inv['@id'], amount: 14000 })).status).toBe(201);
    const notes = (await api.get(`/api/credit-notes?invoice=${encodeURIComponent(inv['@id'])}`)).body.totalItems;
    await dialog.getByRole('button', { name: 'Credit', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').innerText()).toBe("The credit's total, 107.99 EUR, exceeds the invoice's balance, 11.81 EUR.");
    expect((await api.get(`/api/credit-notes?invoice=${encodeURIComponent(inv['@id'])}`)).body.totalItems).toBe(notes);
    expect((await api.get(inv['@id'])).body.balance).toBe(1181);
    await dialog.getByRole('button', { name: 'Not now' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    problems.length = 0; // the 422 above, expected
  });
});
