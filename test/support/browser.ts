// What every browser test shares: Debian's chromium through playwright-core (never a downloaded
// browser), a page that records what should never happen (page errors, console errors other than
// the refusals a test provokes, requests to anything but our own server), signing in through the
// login form, and full-page screenshots in test-results/ to look at.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`The browser tests need Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH; .ci/run does it).`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * Records on `problems` a page error, a console error not matching `expected` (the statuses of
 * refusals the test provokes) and any request outside `base`.
 */
export function watch(page: Page, base: string, problems: string[], expected = /status of (403|422)/): void {
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected.test(m.text())) problems.push(m.text());
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('data:')) problems.push(`outside request: ${r.url()}`);
  });
}

export interface SignIn {
  base: string;
  email: string;
  password: string;
  /** Where the login form leads, e.g. /profile/company. */
  path: string;
  /** The level-1 heading that says the page is there. */
  heading: string;
  problems: string[];
  viewport?: { width: number; height: number };
  /** Grants the clipboard (for "copy" buttons). */
  clipboard?: boolean;
  /** Console errors that are no problem (see watch), e.g. the 404 of a company without a logo. */
  expected?: RegExp;
  /** The browser's language (its Accept-Language and navigator.language); en-US by default. */
  locale?: string;
}

/** A new browser context signed in through the login form, on `path`. */
export async function signedIn(browser: Browser, o: SignIn): Promise<Page> {
  const context = await browser.newContext({ viewport: o.viewport ?? { width: 1280, height: 900 }, timezoneId: 'UTC', locale: o.locale ?? 'en-US' });
  if (o.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: o.base });
  const page = await context.newPage();
  watch(page, o.base, o.problems, o.expected);
  await page.goto(`${o.base}/login?next=${o.path}`);
  // The form's fields by id: the sign-in page speaks the browser's language (de-DE: "Passwort").
  await page.locator('#email').fill(o.email);
  await page.locator('#password').fill(o.password);
  await page.locator('form[action="/login"] button[type=submit]').click();
  await page.waitForURL(`${o.base}${o.path}`);
  await page.getByRole('heading', { name: o.heading, level: 1 }).waitFor();
  return page;
}

/** A full-page screenshot at test-results/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: `test-results/${name}.png`, fullPage: true });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now (axe from node_modules,
 * evaluated through the DevTools protocol: the pages' Content-Security-Policy refuses inline scripts).
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate(async () => {
    const w = window as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } };
    const r = await w.axe.run({ resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  })) as Violation[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
