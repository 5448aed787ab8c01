// axe-core on the settings pages of /app (Company, People, API tokens, Webhooks), with their
// dialogs open, as an admin and as a viewer signs in to them: no serious or critical violation.
// The old addresses (/profile/api, /profile/company, /profile/webhooks) lead to them. axe comes
// from node_modules, evaluated in the page (the Content-Security-Policy allows no injected script
// tag). Screenshots land in test-results/settings-axe-*.png.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
let t: TestServer;
let browser: Browser;
const problems: string[] = [];

const PAGES = [
  ['/app/settings/company', 'Company profile', '/profile/company'],
  ['/app/settings/people', 'People', null],
  ['/app/settings/api-tokens', 'API tokens', '/profile/api'],
  ['/app/settings/webhooks', 'Webhooks', '/profile/webhooks'],
] as const;

beforeAll(async () => {
  t = await startTestServer();
  const ctx = { db: t.db.database.db };
  await userCreate(ctx, { email: 'admin@axe.test', password: PASSWORD, company: 'Axe Co', role: 'admin' });
  await userCreate(ctx, { email: 'viewer@axe.test', password: PASSWORD, company: 'Axe Co', role: 'viewer' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const settled = async (page: Page) => {
  await page.waitForLoadState('networkidle');
  await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
};

describe('the settings pages', () => {
  for (const [path, heading, old] of PAGES) {
    for (const who of ['admin', 'viewer'] as const) {
      it(`${path} as ${who}: no serious or critical axe violation`, async () => {
        const page = await signedIn(browser, { base: t.url, email: `${who}@axe.test`, password: PASSWORD, path, heading, problems, expected: /status of (403|404|422)/ });
        await settled(page);
        expect(await page.locator('nav[aria-label="Main"] a[aria-current="page"]').innerText()).toBeTruthy();
        await screenshot(page, `settings-axe${path.replaceAll('/', '-')}-${who}`);
        expect(await seriousViolations(page)).toEqual([]);
        if (who === 'admin') {
          // Each page's first dialog, open.
          const opener = page.locator('.page-head button.primary');
          if (await opener.count()) {
            await opener.first().click();
            await page.locator('dialog[open]').waitFor();
            await screenshot(page, `settings-axe${path.replaceAll('/', '-')}-dialog`);
            expect(await seriousViolations(page)).toEqual([]);
            await page.keyboard.press('Escape');
          }
        }
        if (old) {
          await page.goto(`${t.url}${old}`);
          await page.waitForURL(`${t.url}${path}`);
          await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        }
        await page.context().close();
      });
    }
  }

  it('loaded nothing from outside and raised no error', () => {
    expect(problems).toEqual([]);
  });
});
