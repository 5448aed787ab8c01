// People in Chromium (CONTRACT §20), with e-mail sent to a loopback SMTP server: an admin invites
// a colleague as a member; the e-mail arrives with its link; the colleague opens it in a fresh
// browser context, sets a name and password, lands in /app and acts as a member (writes) while a
// viewer's writes are refused; a forgotten password is reset end to end through its e-mail. axe
// finds no serious or critical violation on the new pages; each is screenshotted.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, watch } from './support/browser.ts';
import { Mailbox, until } from './support/smtp.ts';

let smtp: Mailbox;
let t: TestServer;
let browser: Browser;
let admin: Client;
const problems: string[] = [];

beforeAll(async () => {
  smtp = new Mailbox();
  await smtp.start();
  t = await startTestServer({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Invoicing <no-reply@people.test>', MAIL_POLL_INTERVAL: '100ms' });
  admin = client(t, await tokenFor(t, { email: 'admin@browser-people.test', company: 'Browser People' }));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.stop();
});

/** The link of the last e-mail to `to`, on the test server (PUBLIC_URL's origin replaced). */
async function linkTo(to: string, path: 'invite' | 'reset'): Promise<string> {
  const find = () => smtp.arrived.filter((a) => a.rcpt.includes(to) && new RegExp(`/${path}/`).test(a.parsed.text ?? '')).at(-1);
  await until(() => Boolean(find()), 20_000, `the ${path} e-mail to ${to}`);
  const m = new RegExp(`/${path}/([A-Za-z0-9_-]+)`).exec(find()!.parsed.text!)!;
  return `${t.url}/${path}/${m[1]}`;
}

async function freshPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC', locale: 'en-US' });
  const page = await context.newPage();
  watch(page, t.url, problems, /status of (403|410|422)/);
  return page;
}

/** A write from the signed-in page to /api, as the application makes it (session cookie and CSRF header). */
const postClient = (page: Page, name: string) =>
  page.evaluate(async (n) => {
    const boot = JSON.parse(document.getElementById('boot')!.textContent!) as { csrf: string };
    const r = await fetch('/api/clients', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': boot.csrf }, body: JSON.stringify({ name: n }) });
    return r.status;
  }, name);

describe('inviting a colleague', () => {
  it('the invited member joins from the e-mail in a fresh context and writes; a viewer cannot', async () => {
    const r = await admin.post('/api/invitations', { email: 'colleague@browser-people.test', role: 'member' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).not.toHaveProperty('link'); // e-mail is sent: the link is only in it
    const link = await linkTo('colleague@browser-people.test', 'invite');

    const page = await freshPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Join Browser People', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'people-invite');
    await page.getByLabel('Your name').fill('Colleague One');
    await page.getByLabel('Password').fill('colleague secret');
    await page.getByRole('button', { name: 'Create account and join' }).click();
    await page.waitForURL(`${t.url}/app`);
    expect(await postClient(page, 'Made by the member')).toBe(201);
    expect((await admin.get('/api/members', { accept: 'application/json' })).body.find((m: { email: string }) => m.email === 'colleague@browser-people.test')).toMatchObject({ role: 'member', name: 'Colleague One' });
    // The link again: refused.
    const again = await freshPage();
    const res = await again.goto(link);
    expect(res!.status()).toBe(410);
    await again.context().close();
    await page.context().close();

    // A viewer, invited the same way, reads but cannot write.
    await admin.post('/api/invitations', { email: 'reader@browser-people.test', role: 'viewer' });
    const viewerLink = await linkTo('reader@browser-people.test', 'invite');
    const v = await freshPage();
    await v.goto(viewerLink);
    await v.getByLabel('Your name').fill('Reader');
    await v.getByLabel('Password').fill('reader secret!');
    await v.getByRole('button', { name: 'Create account and join' }).click();
    await v.waitForURL(`${t.url}/app`);
    expect(await postClient(v, 'Not allowed')).toBe(403);
    const ids = (await admin.get('/api/members', { accept: 'application/json' })).body.find((m: { email: string }) => m.email === 'reader@browser-people.test').id;
    expect((await admin.patch(`/api/members/${ids}`, { role: 'member' })).status).toBe(200);
    await v.context().close();
  }, 120_000);
});

describe('a forgotten password', () => {
  it('is reset end to end through its e-mail; the pages pass axe', async () => {
    const page = await freshPage();
    await page.goto(`${t.url}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill('colleague@browser-people.test');
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('If an account has this address').waitFor();
    await screenshot(page, 'people-reset-asked');
    const link = await linkTo('colleague@browser-people.test', 'reset');

    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'people-reset-new');
    await page.getByLabel('New password').fill('a fresh secret');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.waitForURL(`${t.url}/login?reset=done`);
    await page.getByLabel('Email').fill('colleague@browser-people.test');
    await page.getByLabel('Password').fill('a fresh secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.url}/app`);

    await page.goto(`${t.url}/profile/password`);
    await page.getByRole('heading', { name: 'Change your password', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'people-change-password');
    await page.context().close();
    expect(problems).toEqual([]);
  }, 120_000);
});
