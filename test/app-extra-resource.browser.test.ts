// A resource added by one descriptor gets its pages in /app with no UI code: the whole server
// runs here with the README's `Expense` descriptor (test/fixtures/expense.ts) added to the
// service's resources (its table made as test/add-resource.test.ts makes it), and Chromium finds
// it in the navigation, lists it, creates one through its form (a reference picked, an amount in
// the client's currency) and reads its record.
import { sql } from 'drizzle-orm';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countsDdl } from '../engine/counts.ts';
import { buildModel } from '../engine/model.ts';
import { buildTables } from '../engine/tables.ts';
import { versionTriggers } from '../engine/versions.ts';
import { userCreate } from '../server/cli/commands.ts';
import * as system from '../server/schema.ts';
import { client, freshDatabase, startTestServer, tokenFor, type TestDatabase, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, watch } from './support/browser.ts';

// The service's resources, plus one.
vi.mock('../resources/index.ts', async (original) => {
  const real = await original<typeof import('../resources/index.ts')>();
  const { default: expense } = await import('./fixtures/expense.ts');
  return { descriptors: [...real.descriptors, expense] };
});

const PASSWORD = 'a long secret phrase';
let db: TestDatabase;
let t: TestServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  const { descriptors } = await import('../resources/index.ts');
  const { default: expense } = await import('./fixtures/expense.ts');
  expect(descriptors).toContain(expense);
  db = await freshDatabase();
  t = await startTestServer({}, { db });
  // The migration `npm run db:generate` would write for the new descriptor.
  const anchor = { table: system.companies, column: system.companies.id };
  const before = buildTables(buildModel(descriptors.filter((d) => d !== expense)), anchor);
  const model = buildModel(descriptors);
  const tables = buildTables(model, anchor);
  const snapshot = (x: typeof tables) => {
    const all: Record<string, unknown> = { ...system, engineSequences: x.sequences, engineIdempotency: x.idempotency, engineCounts: x.counts };
    for (const [name, table] of x.byResource) all[name] = table;
    return generateDrizzleJson(all);
  };
  const ddl = [...(await generateMigration(snapshot(before), snapshot(tables))), ...countsDdl(model, anchor).filter((s) => s.includes('expenses')), ...versionTriggers(model)];
  await db.database.db.transaction(async (tx) => {
    for (const statement of ddl) await tx.execute(sql.raw(statement));
  });
  await userCreate({ db: db.database.db }, { email: 'owner@expense.test', password: PASSWORD, company: 'Expense Co', role: 'admin', currency: 'EUR' });
  const api = client(t, await tokenFor(t, { email: 'owner@expense.test', company: 'Expense Co' }));
  expect((await api.post('/api/clients', { name: 'Initech', currency: 'JPY' })).status).toBe(201);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC', locale: 'en-US' });
  page = await context.newPage();
  watch(page, t.url, problems);
  await page.goto(`${t.url}/login?next=/app`);
  await page.getByLabel('Email').fill('owner@expense.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${t.url}/app`);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await db?.drop();
});

describe('/app with one more descriptor', () => {
  it('lists, creates and shows expenses with no UI code', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Expenses', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Expenses');
    await expect.poll(() => page.getByTestId('total').innerText()).toBe('0 expenses');
    expect(await page.locator('main thead th').allInnerTexts()).toEqual(['Label', 'Client', 'Amount']);
    await page.getByRole('link', { name: 'New expense' }).click();
    await page.getByLabel('Search clients for Client').fill('ini');
    await expect.poll(() => page.locator('#f-client option').allInnerTexts()).toContain('Initech');
    await page.locator('#f-client').selectOption({ label: 'Initech' });
    await page.getByLabel('Label').fill('Taxi');
    // An expense has no currency of its own: its amount is in the company's (EUR).
    await page.getByLabel('Amount').fill('15.00');
    await page.getByRole('button', { name: 'Create expense' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toContain('Taxi');
    expect(await page.locator('[data-field="client"] a').innerText()).toBe('Initech');
    await page.getByRole('link', { name: 'Expenses' }).first().click();
    await expect.poll(() => page.getByTestId('total').innerText()).toBe('1 expense');
    expect(await page.locator('main tbody tr').first().innerText()).toMatch(/Taxi\s+Initech\s+€15\.00/);
    await screenshot(page, 'app-extra-expenses');
    expect(problems).toEqual([]);
  });
});
