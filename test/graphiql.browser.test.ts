// GraphiQL in a real browser (Debian's chromium through playwright-core): the page loads from
// the server alone, a token typed into the headers editor authenticates the query, and the
// result, the documentation and the history show up. A screenshot lands in test-results/.
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium } from './support/browser.ts';


let t: TestServer;
let token: string;
let browser: Browser;
let page: Page;
const outside: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  token = await tokenFor(t, { email: 'browser@a.test', company: 'A' });
  const api = client(t, token);
  expect((await api.post('/api/clients', { name: 'Browser Test Co', currency: 'EUR' })).status).toBe(201);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('request', (r) => {
    if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) outside.push(r.url());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('GraphiQL', () => {
  it('runs a query with the token typed into the headers editor', async () => {
    const query = '{\n  clients {\n    totalCount\n    edges { node { name currency } }\n  }\n}';
    await page.goto(`${t.url}/api/graphql?query=${encodeURIComponent(query)}`);
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });

    // The headers editor is open, with a hint for the token header.
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').first();
    await expect.poll(() => headers.textContent()).toContain('X-API-TOKEN');
    await headers.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify({ 'X-API-TOKEN': token }));

    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toContain('Browser Test Co');
    const text = (await result.textContent()) ?? '';
    expect(text).toContain('"totalCount": 1');
    expect(text).toContain('"currency": "EUR"');

    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/graphiql.png' });
  });

  it('shows the schema documentation and the query history', async () => {
    await page.getByRole('button', { name: /documentation explorer/i }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => docs.textContent()).toContain('Query');
    await docs.getByText('Query', { exact: true }).first().click();
    await expect.poll(() => docs.textContent()).toContain('invoices');
    await page.screenshot({ path: 'test-results/graphiql-docs.png' });

    await page.getByRole('button', { name: /history/i }).click();
    await expect.poll(() => page.locator('.graphiql-history').textContent()).toContain('clients');
  });

  it('loaded nothing from outside the server and raised no script error', () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
