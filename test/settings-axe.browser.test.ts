// axe-core on the settings pages (/profile/api, /profile/company, /profile/webhooks) as an admin
// signs in to them: no serious or critical violation. axe comes from node_modules, evaluated in
// the page (the pages' Content-Security-Policy allows no injected script tag).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
let t: TestServer;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: 'admin@axe.test', password: PASSWORD, company: 'Axe Co', role: 'admin' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the settings pages', () => {
  for (const [path, heading] of [['/profile/api', 'API Keys'], ['/profile/company', 'Company'], ['/profile/webhooks', 'Webhooks']] as const) {
    it(`${path}: no serious or critical axe violation`, async () => {
      const page = await signedIn(browser, { base: t.url, email: 'admin@axe.test', password: PASSWORD, path, heading, problems });
      await page.waitForLoadState('networkidle');
      await screenshot(page, `settings-axe${path.replaceAll('/', '-')}`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.context().close();
    });
  }
});
