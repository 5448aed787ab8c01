// Swagger UI in a real browser (Debian's chromium through playwright-core): it loads from the
// server alone, takes a token through "Authorize", and "Try it out" on GET /api/clients gets a 200.
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium } from './support/browser.ts';


let t: TestServer;
let token: string;
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer();
  token = await tokenFor(t, { email: 'ui@a.test', company: 'UI' });
  expect((await client(t, token).post('/api/clients', { name: 'Seen in Swagger UI' })).status).toBe(201);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('Swagger UI at /api/docs', () => {
  it('authorizes with a token and runs "Try it out" on GET /api/clients', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const requested: string[] = [];
    page.on('request', (req) => requested.push(req.url()));
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));

    await page.goto(`${t.url}/api/docs`);
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Invoicing API' }).waitFor();

    // Without the token, the operation would get a 401: authorize first.
    await page.locator('.scheme-container button.authorize').click();
    const modal = page.locator('.modal-ux');
    await modal.locator('input[type=text], input[type=password]').first().fill(token);
    await modal.locator('button.authorize').click();
    await modal.locator('button.btn-done, button.close-modal').first().click();
    await page.locator('.scheme-container button.authorize.locked').waitFor(); // the padlock closes

    const op = page.locator('#operations-Client-api_clients_get_collection');
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    await expect(op.locator('.live-responses-table .microlight').first().innerText()).resolves.toContain('Seen in Swagger UI');

    mkdirSync('test-results', { recursive: true });
    await op.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/swagger-ui.png', fullPage: false });

    // Everything came from this server: no CDN, no validator badge.
    const origin = new URL(t.url).origin;
    const external = requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(external).toEqual([]);
    expect(requested.some((u) => u.endsWith('/api/clients') || u.includes('/api/clients?'))).toBe(true);
    expect(failures).toEqual([]);
    await page.close();
  });
});
