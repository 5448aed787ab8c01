// Settings › Webhooks of /app in a real browser (Debian's chromium through playwright-core): a
// member adds a webhook to a local HTTP receiver, copies the secret shown once, pings it and sees
// the delivery succeed with its response code (signed with that secret), makes the receiver fail
// and retries, filters the delivery log, edits the events, rotates the secret and deletes the
// webhook; a viewer sees the list read-only; /profile/webhooks leads to the page. Screenshots land in test-results/webhooks-*.png.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn as signInto } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';

let t: TestServer;
let browser: Browser;
let api: Client;
let receiver: Server;
let receiverUrl: string;
/** The status the receiver answers with. */
let answer = 200;
const received: { headers: Record<string, string>; body: string }[] = [];
const problems: string[] = [];

const signedIn = (email: string, viewport?: { width: number; height: number }): Promise<Page> =>
  signInto(browser, { base: t.url, email, password: PASSWORD, path: '/app/settings/webhooks', heading: 'Webhooks', problems, viewport, clipboard: true });

const shot = (page: Page, name: string) => screenshot(page, `webhooks-${name}`);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  // A failed attempt is retried an hour later: the page's "Retry now" is what sends it again.
  t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1h,1h', WEBHOOK_POLL_INTERVAL: '50ms', WEBHOOK_TIMEOUT: '2s' });
  api = client(t, await tokenFor(t, { email: 'admin@acme.test', company: 'Acme', currency: 'EUR' }));
  const ctx = { db: t.db.database.db };
  await userCreate(ctx, { email: 'mia@acme.test', password: PASSWORD, company: 'Acme', role: 'member' });
  await userCreate(ctx, { email: 'vic@acme.test', password: PASSWORD, company: 'Acme', role: 'viewer' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await new Promise((ok) => receiver?.close(ok));
});

describe('Settings → Webhooks in a browser', () => {
  it('a member creates, pings, retries, edits, rotates and deletes a webhook', async () => {
    const page = await signedIn('mia@acme.test');
    expect(await page.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No webhooks yet.').waitFor();
    await shot(page, 'empty');

    // Create: url, description, two event types.
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add webhook' });
    await dialog.getByLabel('Endpoint URL').fill('http://169.254.169.254/latest');
    await dialog.getByLabel('Description').fill('Bookkeeping sync');
    await dialog.getByLabel('All events, including ones added later').uncheck();
    await dialog.getByLabel('invoice.created', { exact: true }).check();
    await dialog.getByLabel('invoice.paid', { exact: true }).check();
    await shot(page, 'create');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    // A link-local address is refused, beside the field.
    await expect.poll(() => dialog.locator('#webhook-url-note').innerText()).toMatch(/address|private|link-local/i);
    await dialog.getByLabel('Endpoint URL').fill(receiverUrl);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();

    // The secret, once, with its copy button.
    const created = page.getByRole('dialog', { name: 'Webhook created' });
    await created.waitFor();
    const secret = await created.getByLabel(/Signing secret for/).inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    await created.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => created.getByRole('status').innerText()).toContain('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot(page, 'secret');
    expect(await seriousViolations(page)).toEqual([]);
    await created.getByRole('button', { name: 'Done' }).click();

    // The list: url, description, events, state, the masked secret.
    const row = page.locator(`tr[data-webhook="${receiverUrl}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('Bookkeeping sync');
    expect(await row.innerText()).toContain('invoice.created, invoice.paid');
    expect(await row.innerText()).toContain('Active');
    const masked = await row.locator('code.secret').innerText();
    expect(masked).toMatch(/^whsec_…/);
    expect(masked.endsWith(secret.slice(-4))).toBe(true);
    expect(masked).not.toContain(secret.slice(6, 20));
    // The API sees the same webhook.
    const [hook] = (await api.get('/api/webhooks', { accept: 'application/json' })).body;
    expect(hook).toMatchObject({ url: receiverUrl, events: ['invoice.created', 'invoice.paid'], description: 'Bookkeeping sync', active: true });

    // Ping: the deliveries open and the ping succeeds with the receiver's 200, signed with the secret.
    await row.getByRole('button', { name: 'Send ping' }).click();
    const log = page.getByRole('dialog', { name: `Deliveries to ${receiverUrl}` });
    await log.waitFor();
    const first = log.locator('tbody tr').first();
    await expect.poll(() => first.innerText(), { timeout: 10_000 }).toMatch(/succeeded/i);
    expect(await first.innerText()).toContain('webhook.ping');
    expect(await first.locator('.status').innerText()).toBe('200');
    const ping = received.at(-1)!;
    const verified = new Webhook(secret).verify(ping.body, ping.headers) as { type: string };
    expect(verified.type).toBe('webhook.ping');
    await shot(page, 'deliveries-ok');

    // The receiver fails: the ping is pending again with its 500, its error and the next attempt.
    answer = 500;
    await log.getByRole('button', { name: 'Send ping' }).click();
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    await expect.poll(() => log.locator('tbody tr').first().innerText(), { timeout: 10_000 }).toMatch(/500/);
    const failing = log.locator('tbody tr').first();
    expect(await failing.innerText()).toMatch(/pending/i);
    expect(await failing.locator('[data-label="Next attempt"]').innerText()).toMatch(/in \d+ min|in 1 hour|in 60 min|hour/);
    expect(await failing.locator('[data-label="Attempts"]').innerText()).toContain('1');
    await shot(page, 'deliveries-failed');
    // Retry now, with the receiver fixed: it succeeds at the second attempt.
    answer = 202;
    await failing.getByRole('button', { name: /Retry now/ }).click();
    await expect.poll(() => log.locator('tbody tr').first().innerText(), { timeout: 10_000 }).toMatch(/succeeded/i);
    expect(await log.locator('tbody tr').first().locator('.status').innerText()).toBe('202');
    expect(await log.locator('tbody tr').first().locator('[data-label="Attempts"]').innerText()).toContain('2');
    await shot(page, 'deliveries-retried');
    // The log's filters: by status, by event type.
    await api.post('/api/clients', { name: 'Not subscribed' });
    await log.getByLabel('Status').selectOption('failed');
    await expect.poll(() => log.getByText('No delivery matches these filters.').count()).toBe(1);
    await log.getByLabel('Status').selectOption('succeeded');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    await log.getByLabel('Event type').selectOption('invoice.paid');
    await expect.poll(() => log.getByText('No delivery matches these filters.').count()).toBe(1);
    await log.getByLabel('Event type').selectOption('webhook.ping');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    await shot(page, 'deliveries-filtered');
    expect(await seriousViolations(page)).toEqual([]);
    await log.getByRole('button', { name: 'Close', exact: true }).first().click();

    // Edit: all events, inactive, a new description.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit webhook' });
    expect(await edit.getByLabel('invoice.paid', { exact: true }).isChecked()).toBe(true);
    await edit.getByLabel('invoice.paid', { exact: true }).uncheck();
    await edit.getByLabel('quote.created', { exact: true }).check();
    await edit.getByLabel('Description').fill('Quotes to the CRM');
    await edit.getByLabel(/Active/).uncheck();
    await shot(page, 'edit');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Saved the webhook');
    await expect.poll(() => row.innerText()).toContain('invoice.created, quote.created');
    expect(await row.innerText()).toContain('Disabled');
    expect((await api.get(`/api/webhooks/${hook.id}`, { accept: 'application/json' })).body).toMatchObject({ events: ['invoice.created', 'quote.created'], active: false, description: 'Quotes to the CRM' });

    // Rotate the secret from the edit dialog: a new one, shown once.
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('dialog', { name: 'Edit webhook' }).getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('dialog', { name: 'New signing secret' });
    const next = await rotated.getByLabel(/Signing secret for/).inputValue();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    await rotated.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => row.locator('code.secret').innerText()).toBe(`whsec_…${next.slice(-4)}`);
    await shot(page, 'list');

    // Delete, after a confirmation.
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete webhook?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks yet.').waitFor();
    expect((await api.get('/api/webhooks', { accept: 'application/json' })).body).toEqual([]);
    await page.context().close();
  });

  it('a viewer sees the webhooks and their deliveries read-only; the server refuses their writes', async () => {
    const made = await api.post('/api/webhooks', { url: receiverUrl, events: ['*'], description: 'Everything' });
    expect(made.status).toBe(201);
    await api.post(`/api/webhooks/${made.body.id}/ping`, {});
    const page = await signedIn('vic@acme.test');
    const row = page.locator(`tr[data-webhook="${receiverUrl}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('All events');
    expect(await page.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
    expect(await row.getByRole('button').allInnerTexts()).toEqual(['Deliveries']);
    await row.getByRole('button', { name: 'Deliveries' }).click();
    const log = page.getByRole('dialog', { name: `Deliveries to ${receiverUrl}` });
    await log.locator('tbody tr').first().waitFor();
    expect(await log.getByRole('button', { name: /Retry now|Send ping/ }).count()).toBe(0);
    await shot(page, 'viewer');
    // The endpoints themselves refuse: the page's own CSRF token, a viewer's session.
    const status = await page.evaluate(async (id) => {
      const csrf = JSON.parse(document.getElementById('boot')!.textContent!).csrf;
      const res = await fetch(`/api/webhooks/${id}/ping`, { method: 'POST', headers: { 'x-csrf-token': csrf } });
      const del = await fetch(`/api/webhooks/${id}`, { method: 'DELETE', headers: { 'x-csrf-token': csrf } });
      return [res.status, del.status];
    }, made.body.id);
    expect(status).toEqual([403, 403]);
    await page.context().close();
  });

  it('/profile/webhooks opens the page in the application', async () => {
    const page = await signedIn('mia@acme.test');
    await page.goto(`${t.url}/profile/webhooks`);
    await page.waitForURL(`${t.url}/app/settings/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.context().close();
  });

  it('fits a phone screen', async () => {
    const page = await signedIn('mia@acme.test', { width: 375, height: 812 });
    await page.locator('tr[data-webhook]').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'phone');
    await page.locator('tr[data-webhook]').first().getByRole('button', { name: 'Deliveries' }).click();
    await page.getByRole('dialog').locator('tbody tr').first().waitFor();
    await shot(page, 'phone-deliveries');
    await page.getByRole('dialog').getByRole('button', { name: 'Close', exact: true }).first().click();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await shot(page, 'phone-create');
    await page.context().close();
  });

  it('loaded nothing from outside and raised no error', () => {
    expect(problems.filter((p) => !/status of 403/.test(p))).toEqual([]);
  });
});
