// Documents that total as they are typed (CONTRACT §20), in Chromium: 50 random invoices — lines
// with prices typed in several ways, quantities, exclusive and inclusive taxes, percentage and
// fixed discounts — are typed into the new-invoice form; the totals, tax groups and line amounts
// it shows before saving are those of the record the API then saved. And a new invoice starts
// from the company's defaults: today, the due date after its default days, its terms and tax.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';
// @ts-expect-error: the pages' plain ES module.
import { formatMoney, formatPercent, moneyInput } from '../web/app/money.js';

const PASSWORD = 'a long secret phrase';
let t: TestServer;
let browser: Browser;
let page: Page;
let api: Client;
let acme: string;
const taxes: { name: string; rate: number; type: 'exclusive' | 'inclusive' }[] = [
  { name: 'VAT 20', rate: 20, type: 'exclusive' },
  { name: 'VAT 19', rate: 19, type: 'exclusive' },
  { name: 'Incl 7.5', rate: 7.5, type: 'inclusive' },
  { name: 'Incl 21', rate: 21, type: 'inclusive' },
];
const problems: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  await userCreate({ db: t.db.database.db }, { email: 'owner@totals.test', password: PASSWORD, company: 'Totals Co', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@totals.test', company: 'Totals Co' }));
  acme = (await api.post('/api/clients', { name: 'Acme', currency: 'EUR' })).body['@id'];
  for (const x of taxes) expect((await api.post('/api/taxes', x)).status).toBe(201);
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@totals.test', password: PASSWORD, path: '/app', heading: 'Dashboard', problems });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { int: (a: number, b: number) => a + Math.floor(next() * (b - a + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! };
}

const money = (minor: number) => formatMoney(minor, 'EUR', 'en-US');

describe('the invoice editor totals as it is typed', () => {
  it('shows, for 50 random invoices, the totals the API saves', async () => {
    const rnd = random(43);
    const mismatches: string[] = [];
    for (let n = 0; n < 50; n++) {
      const lines = Array.from({ length: rnd.int(1, 4) }, () => ({
        price: rnd.int(2000, 250000),
        qty: rnd.pick(['1', '2', '0,5', '1.25', '3', '2,3333']),
        tax: rnd.pick([null, ...taxes.map((x) => x.name)]),
        locale: rnd.pick(['en-US', 'de-DE']),
      }));
      const discount = rnd.pick(['none', 'percentage', 'fixed'] as const);
      await page.goto(`${t.url}/app/invoices/new?client=${encodeURIComponent(acme)}`);
      await page.getByRole('button', { name: 'Add line' }).waitFor();
      for (const [i, l] of lines.entries()) {
        await page.getByRole('button', { name: 'Add line' }).click();
        await page.getByLabel(`Description, line ${i + 1}`).fill(`Line ${i + 1}`);
        await page.getByLabel(`Qty, line ${i + 1}`).fill(l.qty);
        await page.getByLabel(`Price, line ${i + 1}`).fill(moneyInput(l.price, 'EUR', l.locale));
        if (l.tax) await page.getByLabel(`Tax, line ${i + 1}`, { exact: true }).selectOption({ label: l.tax });
      }
      if (discount !== 'none') {
        await page.getByLabel('Discount type').selectOption(discount);
        await page.getByLabel('Discount', { exact: true }).fill(discount === 'percentage' ? rnd.pick(['10', '12,5', '33.33', '5 %']) : moneyInput(rnd.int(0, 1500), 'EUR', 'de-DE'));
      }
      const shown = {
        total: await page.getByTestId('preview-total').innerText(),
        subtotal: await page.getByTestId('preview-subtotal').innerText(),
        taxTotal: await page.getByTestId('preview-taxTotal').innerText(),
        discountTotal: await page.getByTestId('preview-discountTotal').innerText(),
        groups: await page.getByTestId('preview-groups').locator('tbody tr').allInnerTexts(),
        lines: await Promise.all(lines.map((_, i) => page.getByTestId(`line-total-${i + 1}`).innerText())),
      };
      if (n === 0) {
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, 'app-totals-editor');
      }
      await page.getByRole('button', { name: 'Create invoice' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/invoices\/[0-9a-f-]{36}$/);
      const saved = (await api.get(`/api/invoices/${new URL(page.url()).pathname.split('/').pop()}`)).body;
      const expected = {
        total: money(saved.total),
        subtotal: money(saved.subtotal),
        taxTotal: money(saved.taxTotal),
        discountTotal: money(saved.discountTotal),
        groups: saved.taxGroups.map((g: { rate: number; category: string; exemptionReason: string | null; exemptionReasonCode: string | null; base: number; discount: number; taxable: number; tax: number }) => [formatPercent(g.rate, 'en-US'), g.category, g.exemptionReason ?? '', g.exemptionReasonCode ?? '', money(g.base), money(g.discount), money(g.taxable), money(g.tax)].join('\t')),
        lines: saved.lines.map((l: { total: number }) => money(l.total)),
      };
      if (JSON.stringify(shown) !== JSON.stringify(expected)) mismatches.push(`invoice ${n}: shown ${JSON.stringify(shown)}, saved ${JSON.stringify(expected)}`);
    }
    expect(mismatches).toEqual([]);
  }, 600_000);

  it('starts a new invoice from the company’s defaults: today, due after its days, its terms and tax', async () => {
    const vat20 = (await api.get('/api/taxes?name=VAT%2020')).body.member[0]['@id'];
    expect((await api.patch('/api/company', { defaultDueDays: 30, defaultTerms: 'Payable within 30 days.', defaultTax: vat20 })).status).toBe(200);
    await page.goto(`${t.url}/app/invoices/new`);
    const date = await page.getByLabel('Invoice date').inputValue();
    expect(date).toBe(await page.evaluate(() => new Date(Date.now() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 10)));
    expect(await page.getByLabel('Due date').inputValue()).toBe(new Date(Date.parse(`${date}T00:00:00Z`) + 30 * 86_400_000).toISOString().slice(0, 10));
    expect(await page.getByLabel('Terms').inputValue()).toBe('Payable within 30 days.');
    await page.getByRole('button', { name: 'Add line' }).click();
    await expect.poll(() => page.getByLabel('Tax, line 1', { exact: true }).locator('option:checked').innerText()).toBe('VAT 20');
    await page.getByLabel('Price, line 1').fill('100');
    await expect.poll(() => page.getByTestId('preview-total').innerText()).toBe('€120.00');
  });

  it('nothing went wrong on any page', () => {
    expect(problems).toEqual([]);
  });
});
