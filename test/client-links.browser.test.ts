// The client's page of a document link in a real browser (Debian's chromium through playwright-core):
// an invoice with its bank transfer and EPC QR code (read back from a screenshot of the page, and from
// the PDF rendered to an image), a quote accepted with JavaScript turned off, a dead link; on a
// phone's width too. Every request goes to our server, no script runs, axe-core finds no serious or
// critical violation. Screenshots land in test-results/client-link-*.png.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, watch } from './support/browser.ts';
import { decodePng } from './support/qr.ts';
import { expectValidCii } from './support/einvoice-validate.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let t: TestServer;
let browser: Browser;
let api: Client;
const problems: string[] = [];
const links: Record<string, string> = {};
let invoice: { '@id': string; number: string };
let quote: { '@id': string; number: string };

async function open(path: string, o: { width?: number; js?: boolean; bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: o.width ?? 1200, height: 900 }, javaScriptEnabled: o.js ?? true, bypassCSP: o.bypassCSP ?? false, timezoneId: 'UTC', locale: 'en-US' });
  const page = await context.newPage();
  watch(page, t.url, problems, /status of (409|410)/);
  await page.goto(t.url + path);
  return page;
}

/**
 * axe-core, injected from node_modules, on the page at the same address opened again in a context
 * that lets the test's script run (the page's own policy allows no script at all): the serious and
 * critical violations.
 */
async function axe(shown: Page): Promise<string[]> {
  const viewport = shown.viewportSize()!;
  const page = await open(new URL(shown.url()).pathname + new URL(shown.url()).search, { width: viewport.width, bypassCSP: true });
  await page.addScriptTag({ content: AXE });
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as { violations: { id: string; impact: string; help: string; nodes: unknown[] }[] };
  await page.context().close();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} ×${v.nodes.length}`);
}

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  api = client(t, await tokenFor(t, { email: 'admin@page.test', company: 'Page Co', currency: 'EUR' }));
  expect((await api.patch('/api/company', {
    legalName: 'Nordlicht Design GmbH', email: 'billing@nordlicht.test', street1: 'Torstraße 12', zip: '10119', city: 'Berlin', country: 'DE',
    vatNumber: 'DE123456789', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', invoiceFooter: 'Nordlicht Design GmbH · Amtsgericht Berlin HRB 12345',
  })).status).toBe(200);
  const c = (await api.post('/api/clients', { name: 'Acme Trading Ltd', currency: 'EUR', vatNumber: 'FR12345678901' })).body['@id'];
  await api.post('/api/addresses', { client: c, street1: '5 Rue de la Paix', zip: '75002', city: 'Paris', country: 'FR' });
  await api.post('/api/contacts', { client: c, firstName: 'Claire', lastName: 'Martin', email: 'claire@acme.test' });
  const vat = (await api.post('/api/taxes', { name: 'VAT', rate: 19 })).body['@id'];
  invoice = (await api.post('/api/invoices', {
    client: c, dueDate: '2099-12-31', terms: 'Payable within 30 days.', notes: 'Thank you for your business.',
    lines: [
      { description: 'Brand identity: logo, colours and type', qty: 1, price: 240000, tax: vat },
      { description: 'Website design, 6 templates', qty: 6, price: 45000, tax: vat },
      { description: 'Stock photography licence', qty: 3, price: 4900 },
    ],
  })).body;
  expect((await api.patch(invoice['@id'], { status: 'pending' })).status).toBe(200);
  links.invoice = new URL((await api.post('/api/document-links', { document: invoice['@id'] })).body.url).pathname;
  quote = (await api.post('/api/quotes', { client: c, validUntil: '2099-06-30', lines: [{ description: 'Annual maintenance', qty: 12, price: 35000, tax: vat }] })).body;
  expect((await api.patch(quote['@id'], { status: 'sent' })).status).toBe(200);
  links.quote = new URL((await api.post('/api/document-links', { document: quote['@id'] })).body.url).pathname;
  const dead = (await api.post('/api/document-links', { document: invoice['@id'] })).body;
  await api.delete(dead['@id']);
  links.dead = new URL(dead.url).pathname;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the client page in a browser', () => {
  it('shows an invoice with its totals, bank transfer and a QR code a banking app reads', async () => {
    const page = await open(links.invoice!);
    await page.getByRole('heading', { level: 1, name: `Invoice ${invoice.number}` }).waitFor();
    const text = await page.locator('main').innerText();
    for (const s of ['Nordlicht Design GmbH', 'Acme Trading Ltd', 'Brand identity', 'VAT 19%', 'EUR 6,216.00', 'DE89 3704 0044 0532 0130 00', 'COBADEFFXXX']) expect(text).toContain(s);
    await screenshot(page, 'client-link-invoice');
    // The QR code as the screen shows it.
    const qr = await page.locator('.cl-qr svg').screenshot();
    const payload = decodePng(qr);
    expect(payload?.split('\n')).toEqual(['BCD', '002', '1', 'SCT', 'COBADEFFXXX', 'Nordlicht Design GmbH', 'DE89370400440532013000', 'EUR6216.00', '', '', invoice.number]);
    expect(await axe(page)).toEqual([]);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    // The PDF download carries the same code.
    const pdf = Buffer.from(await (await fetch(`${t.url}${links.invoice}/pdf`)).arrayBuffer());
    const dir = mkdtempSync(join(tmpdir(), 'client-link-pdf-'));
    try {
      writeFileSync(join(dir, 'i.pdf'), pdf);
      execFileSync('pdftoppm', ['-png', '-r', '200', '-f', '1', '-l', '1', join(dir, 'i.pdf'), join(dir, 'p')]);
      const png = readFileSync(join(dir, 'p-1.png'));
      expect(decodePng(png)).toBe(payload);
      const pdfText = execFileSync('pdftotext', ['-layout', join(dir, 'i.pdf'), '-'], { encoding: 'utf8' });
      expect(pdfText).toContain('Amount: EUR 6,216.00');
      expect(pdfText).toContain(`Reference: ${invoice.number}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.context().close();
  });

  it('fits a phone\'s width', async () => {
    const page = await open(links.invoice!, { width: 375 });
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await noHorizontalScroll(page)).toBe(true);
    await screenshot(page, 'client-link-invoice-phone');
    expect(await axe(page)).toEqual([]);
    await page.context().close();
  });

  it('lets the client accept a quote with JavaScript turned off', async () => {
    const page = await open(links.quote!, { js: false });
    await page.getByRole('heading', { level: 1, name: `Quote ${quote.number}` }).waitFor();
    await screenshot(page, 'client-link-quote');
    await page.getByRole('button', { name: 'Accept quote' }).click();
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').innerText()).toContain('the quote is accepted');
    expect(await page.getByRole('button', { name: 'Accept quote' }).count()).toBe(0);
    await screenshot(page, 'client-link-quote-accepted');
    expect((await api.get(quote['@id'])).body.status).toBe('accepted');
    await page.context().close();
    const withJs = await open(links.quote!);
    expect(await axe(withJs)).toEqual([]);
    await withJs.context().close();
  });

  it('shows a dead link with nothing of the document', async () => {
    const page = await open(links.dead!);
    await page.getByRole('heading', { level: 1, name: 'This link is no longer valid' }).waitFor();
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/Acme|Nordlicht|INV-/);
    await screenshot(page, 'client-link-dead');
    expect(await axe(page)).toEqual([]);
    await page.context().close();
  });

  it("offers a Factur-X client its e-invoice as the PDF download, which carries factur-x.xml (CONTRACT §19)", async () => {
    const c = (await api.post('/api/clients', { name: 'Boulangerie Dupont SARL', currency: 'EUR', vatNumber: 'FR98765432109', eInvoiceFormat: 'facturx' })).body['@id'];
    await api.post('/api/addresses', { client: c, street1: '8 Rue du Four', zip: '69002', city: 'Lyon', country: 'FR' });
    const inv = (await api.post('/api/invoices', { client: c, dueDate: '2099-12-31', lines: [{ description: 'Four à pain, entretien annuel', qty: 1, price: 89000 }] })).body;
    expect((await api.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
    const link = new URL((await api.post('/api/document-links', { document: inv['@id'] })).body.url).pathname;
    const page = await open(link);
    await page.getByRole('heading', { level: 1, name: `Invoice ${inv.number}` }).waitFor();
    expect(await page.locator('.cl-downloads a').allInnerTexts()).toEqual(['Download PDF (Factur-X e-invoice)']);
    await screenshot(page, 'client-link-facturx');
    expect(await axe(page)).toEqual([]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PDF (Factur-X e-invoice)' }).click()]);
    expect(download.suggestedFilename()).toBe(`${inv.number}.pdf`);
    const dir = mkdtempSync(join(tmpdir(), 'client-link-fx-'));
    try {
      await download.saveAs(join(dir, 'fx.pdf'));
      expect(execFileSync('pdfdetach', ['-list', join(dir, 'fx.pdf')], { encoding: 'utf8' })).toMatch(/^1: factur-x\.xml$/m);
      // The download is the document the API gives, and its CII passes the official artefacts (CONTRACT §18).
      expect(readFileSync(join(dir, 'fx.pdf')).equals(Buffer.from(await (await fetch(t.url + inv['@id'], { headers: { 'x-api-token': api.token, accept: 'application/pdf' } })).arrayBuffer()))).toBe(true);
      execFileSync('pdfdetach', ['-save', '1', '-o', join(dir, 'factur-x.xml'), join(dir, 'fx.pdf')]);
      await expectValidCii(readFileSync(join(dir, 'factur-x.xml'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.context().close();
  });

  it('loaded nothing from elsewhere and raised no error', () => {
    expect(problems).toEqual([]);
  });
});
