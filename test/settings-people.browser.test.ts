// Settings › People of /app in Chromium (CONTRACT §2, §20), with e-mail held (no SMTP_URL): an
// admin invites a colleague from the page and, e-mail being held, is shown the link to hand over;
// the colleague opens it in a fresh browser context, joins as a viewer and sees the page
// read-only (no enabled write control); the admin makes them a member; the last admin can be
// neither demoted nor removed (the server's 422, shown on the page, nothing changed); a pending
// invitation is revoked; a person is removed; one's own password is changed from the page.
// Screenshots land in test-results/settings-people-*.png.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn, watch } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
const PATH = '/app/settings/people';
let t: TestServer;
let browser: Browser;
let api: Client;
const problems: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'robot@people-page.test', company: 'People Page Co', role: 'member' }));
  await userCreate({ db: t.db.database.db }, { email: 'boss@people-page.test', password: PASSWORD, company: 'People Page Co', role: 'admin' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const asBoss = () => signedIn(browser, { base: t.url, email: 'boss@people-page.test', password: PASSWORD, path: PATH, heading: 'People', problems, clipboard: true });
const members = async () => (await api.get('/api/members', { accept: 'application/json' })).body as { id: string; email: string; role: string; name: string }[];
const row = (page: Page, email: string) => page.locator(`tr[data-member="${email}"]`);

describe('Settings › People in a browser', () => {
  it('an admin invites a colleague; with e-mail held the link is shown; the colleague joins as a viewer and reads only', async () => {
    const page = await asBoss();
    await row(page, 'boss@people-page.test').waitFor();
    expect(await row(page, 'boss@people-page.test').innerText()).toContain('(you)');
    await page.getByRole('button', { name: 'Invite' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite someone' });
    await dialog.getByLabel('Email').fill('not an address');
    await dialog.getByRole('button', { name: 'Send the invitation' }).click();
    await expect.poll(() => dialog.locator('#invite-email-error').count()).toBe(1);
    await dialog.getByLabel('Email').fill('vera@people-page.test');
    await dialog.getByLabel('Role').selectOption('viewer');
    await dialog.getByRole('button', { name: 'Send the invitation' }).click();
    const held = page.getByRole('dialog', { name: 'Hand over this link' });
    await held.waitFor();
    const link = await held.getByLabel('Invitation link for vera@people-page.test').inputValue();
    expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]+$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-people-link');
    await held.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.locator('tr[data-invitation="vera@people-page.test"]').innerText()).toContain('Pending');

    // The colleague, in a fresh context.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC', locale: 'en-US' });
    const vera = await context.newPage();
    watch(vera, t.url, problems);
    await vera.goto(`${t.url}${new URL(link).pathname}`);
    await vera.getByLabel('Your name').fill('Vera Viewer');
    await vera.getByLabel('Password').fill('vera secret phrase');
    await vera.getByRole('button', { name: 'Create account and join' }).click();
    await vera.waitForURL(`${t.url}/app`);
    await vera.goto(`${t.url}${PATH}`);
    await vera.getByRole('heading', { name: 'People', level: 1 }).waitFor();
    await row(vera, 'vera@people-page.test').waitFor();
    expect(await vera.getByRole('status').first().innerText()).toContain('Only an admin of People Page Co');
    expect(await vera.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    expect(await vera.locator('main select:not([disabled])').count()).toBe(0);
    expect(await vera.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await screenshot(vera, 'settings-people-viewer');
    await context.close();

    // The admin makes her a member.
    await page.reload();
    await row(page, 'vera@people-page.test').waitFor();
    await page.getByLabel('Role of Vera Viewer').selectOption('member');
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Vera Viewer is now member.');
    expect((await members()).find((m) => m.email === 'vera@people-page.test')!.role).toBe('member');
    expect(await page.locator('tr[data-invitation="vera@people-page.test"]').innerText()).toContain('Accepted');
    await page.context().close();
  });

  it('the last admin can be neither demoted nor removed: the page shows the refusal, nothing changes', async () => {
    const page = await asBoss();
    await row(page, 'boss@people-page.test').waitFor();
    const own = page.getByLabel('Role of boss');
    await own.selectOption('member');
    await expect.poll(() => page.getByRole('alert').first().innerText()).toContain("This is the company's last admin");
    await expect.poll(() => own.inputValue()).toBe('admin');
    await screenshot(page, 'settings-people-last-admin');
    await row(page, 'boss@people-page.test').getByRole('button', { name: 'Remove boss' }).click();
    await page.getByRole('dialog', { name: 'Remove boss?' }).getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByRole('alert').first().innerText()).toContain("This is the company's last admin");
    expect((await members()).find((m) => m.email === 'boss@people-page.test')!.role).toBe('admin');
    await page.context().close();
  });

  it('an admin revokes an invitation and removes a person', async () => {
    expect((await api.get('/api/invitations', { accept: 'application/json' })).status).toBe(200);
    const page = await asBoss();
    await page.getByRole('button', { name: 'Invite' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite someone' });
    await dialog.getByLabel('Email').fill('gone@people-page.test');
    await dialog.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByRole('dialog', { name: 'Hand over this link' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke the invitation of gone@people-page.test' }).click();
    await page.getByRole('dialog', { name: 'Revoke the invitation?' }).getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.locator('tr[data-invitation="gone@people-page.test"]').count()).toBe(0);

    await row(page, 'vera@people-page.test').getByRole('button', { name: 'Remove Vera Viewer' }).click();
    await page.getByRole('dialog', { name: 'Remove Vera Viewer?' }).getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => row(page, 'vera@people-page.test').count()).toBe(0);
    expect((await members()).map((m) => m.email)).not.toContain('vera@people-page.test');
    await page.context().close();
  });

  it('one changes one’s own password from the page', async () => {
    const page = await asBoss();
    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password').fill('a brand new phrase');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await expect.poll(() => page.locator('#password-current-error').innerText()).toContain('not right');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await expect.poll(() => page.locator('#password-new-error').count()).toBe(1);
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('a brand new phrase');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Your password is changed.' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-people-password');
    await page.context().close();
    // The new password signs in.
    const again = await signedIn(browser, { base: t.url, email: 'boss@people-page.test', password: 'a brand new phrase', path: PATH, heading: 'People', problems });
    await again.context().close();
  });

  it('loaded nothing from outside and raised no error', () => {
    expect(problems).toEqual([]);
  });
});
