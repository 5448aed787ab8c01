// Money as people type it, in Chromium (CONTRACT §20): every example of §20 typed as a line's
// price in the invoice editor. Accepted ones are saved with the amount typed (checked through the
// API); refused ones say what was understood at the field, and leave the invoice unchanged. A
// fixed discount is typed in major units; the API's violation states the balance in major units
// with its currency.
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
let invoice: Record<string, any>;
const problems: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: 'owner@money.test', password: PASSWORD, company: 'Money Co', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@money.test', company: 'Money Co' }));
  const acme = (await api.post('/api/clients', { name: 'Acme', currency: 'EUR' })).body['@id'];
  invoice = (await api.post('/api/invoices', { client: acme, lines: [{ description: 'Work', qty: 1, price: 100 }] })).body;
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@money.test', password: PASSWORD, path: '/app', heading: 'Dashboard', problems });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const h1 = () => page.getByRole('heading', { level: 1 });
const current = async () => (await api.get(invoice['@id'])).body as Record<string, any>;

/** Types `text` as line 1's price and saves: the record's price, or the field's error. */
async function typePrice(text: string): Promise<{ saved?: number; error?: string }> {
  await page.goto(`${t.url}/app/invoices/${invoice.id}/edit`);
  const price = page.getByLabel('Price, line 1');
  await price.fill(text);
  await page.getByRole('button', { name: 'Save changes' }).click();
  const error = page.locator('#lines-0-price-error');
  await expect.poll(async () => (await error.count()) > 0 || !new URL(page.url()).pathname.endsWith('/edit')).toBe(true);
  if (await error.count()) {
    expect(await price.getAttribute('aria-invalid')).toBe('true');
    return { error: await error.innerText() };
  }
  await expect.poll(() => h1().innerText()).toContain(invoice.number);
  return { saved: (await current()).lines[0].price };
}

describe('money as people type it, in the invoice editor', () => {
  it('saves every accepted way of writing an amount with the amount typed', async () => {
    for (const [text, minor] of [
      ['1234.5', 123450], ['1234,50', 123450], ['1.234,50', 123450], ['1,234.50', 123450], ['1 234,50', 123450],
      ['€1.234,50', 123450], ['1234,50 €', 123450], ['EUR 1234.50', 123450], ['9,99', 999], ['9.99', 999], ['50', 5000],
    ] as const) {
      expect(await typePrice(text), text).toEqual({ saved: minor });
    }
    // The record page states it in the user's locale, with its currency.
    expect(await page.locator('section[aria-labelledby="lines-lines"] tbody tr').first().innerText()).toContain('€50.00');
  });

  it('refuses ambiguous and over-precise amounts at the field, saying what was understood; the invoice stays as it was', async () => {
    const before = await current();
    for (const [text, message] of [
      ['1,234', '“1,234” is ambiguous: 1,234.00 EUR, or 1.234 EUR? Type it with 2 decimals, such as 1,234.00.'],
      ['1.234', '“1.234” is ambiguous: 1,234.00 EUR, or 1.234 EUR? Type it with 2 decimals, such as 1,234.00.'],
      ['12,3456', '“12,3456” was read as 12.3456 EUR: EUR has 2 decimals, so it cannot be saved as typed.'],
      ['9.999,999', '“9.999,999” was read as 9,999.999 EUR: EUR has 2 decimals, so it cannot be saved as typed.'],
      ['$9.99', '“$9.99”: “$” is not this field\'s currency (EUR).'],
      ['nine', '“nine” is not an amount: type digits, such as 1234.50 or 1.234,50.'],
    ] as const) {
      expect(await typePrice(text), text).toEqual({ error: message });
    }
    expect(await page.getByRole('alert').innerText({ timeout: 5000 })).toContain('Please correct');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-money-refused');
    const after = await current();
    expect(after.lines[0].price).toBe(before.lines[0].price);
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('tells what it read when leaving the field', async () => {
    await page.goto(`${t.url}/app/payments/new`);
    const amount = page.getByLabel('Amount');
    await amount.fill('1.234,5');
    await amount.blur();
    await expect.poll(() => page.locator('#f-amount-hint').innerText()).toContain('Read as €1,234.50');
    await amount.fill('1,234');
    await amount.blur();
    await expect.poll(() => page.locator('#f-amount-error').innerText()).toMatch(/ambiguous/);
  });

  it('takes a fixed discount in major units and a percentage as one', async () => {
    await page.goto(`${t.url}/app/invoices/${invoice.id}/edit`);
    await page.getByLabel('Price, line 1').fill('200');
    await page.getByLabel('Discount type').selectOption('fixed');
    await page.getByLabel('Discount', { exact: true }).fill('50');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await current()).discountValue).toBe(5000);
    expect((await current()).total).toBe(15000);
    await expect.poll(() => page.locator('[data-field="discountValue"]').innerText()).toBe('€50.00');
    await page.goto(`${t.url}/app/invoices/${invoice.id}/edit`);
    expect(await page.getByLabel('Discount', { exact: true }).inputValue()).toBe('50.00');
    await page.getByLabel('Discount type').selectOption('percentage');
    await page.getByLabel('Discount', { exact: true }).fill('12,5 %');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await current()).discountValue).toBe(12.5);
    await expect.poll(() => page.locator('[data-field="discountValue"]').innerText()).toBe('12.5\u00a0%');
  });

  it('shows the API’s violation with the balance in major units and its currency', async () => {
    expect((await api.patch(invoice['@id'], { status: 'pending', discountType: 'none' })).status).toBe(200);
    await page.goto(`${t.url}/app/payments/new?invoice=${encodeURIComponent(invoice['@id'])}`);
    await expect.poll(() => page.locator('#f-invoice option:checked').innerText()).toBe(invoice.number);
    await page.getByLabel('Amount').fill('1.000,00');
    await page.getByRole('button', { name: 'Create payment' }).click();
    await expect.poll(() => page.locator('#f-amount-error').innerText()).toBe("This value should be at most the invoice's balance, 200.00 EUR.");
    expect((await api.get(`/api/payments?invoice=${encodeURIComponent(invoice['@id'])}`)).body.totalItems).toBe(0);
  });

  it('nothing went wrong on any page', () => {
    expect(problems).toEqual([]);
  });
});
