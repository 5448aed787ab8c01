// A client in /app (CONTRACT §20): contacts and addresses added inside the client's form and
// saved with it, all or nothing (an invalid contact refuses the whole save, shown at its field,
// nothing written — checked through the API); the client's page with its contacts, addresses,
// open balance per currency (from the API, in major units with the currency), invoices and quotes.
// Screenshots in test-results/app-client-*.png.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
let t: TestServer;
let browser: Browser;
let page: Page;
let api: Client;
const problems: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: 'owner@client.test', password: PASSWORD, company: 'Client Co', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@client.test', company: 'Client Co' }));
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@client.test', password: PASSWORD, path: '/app/clients/new', heading: 'New client', problems });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const count = async (path: string) => (await api.get(path)).body.totalItems as number;

describe("a client's form and page", () => {
  it('adds contacts and an address inside the new client form; an invalid contact refuses the whole save', async () => {
    await page.locator('#f-name').fill('Wayne Enterprises');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByLabel('First name, contact 1').fill('Lucius');
    await page.getByLabel('Email, contact 1').fill('lucius@wayne.test');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByLabel('First name, contact 2').fill('Alfred');
    await page.getByLabel('Email, contact 2').fill('alfred at wayne');
    await page.getByRole('button', { name: 'Add address' }).click();
    await page.getByLabel('Street1, address 1').fill('1007 Mountain Drive');
    await page.getByLabel('City, address 1').fill('Gotham');
    await page.getByLabel('Country, address 1').selectOption('US');
    await page.getByRole('button', { name: 'Create client' }).click();
    const bad = page.getByLabel('Email, contact 2');
    await expect.poll(() => bad.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'app-client-refused');
    // Nothing was written: neither the client nor its valid contact.
    expect(await count('/api/clients')).toBe(0);
    expect(await count('/api/contacts')).toBe(0);
    expect(await count('/api/addresses')).toBe(0);

    await bad.fill('alfred@wayne.test');
    await page.getByRole('button', { name: 'Create client' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toContain('Wayne Enterprises');
    expect(await count('/api/contacts')).toBe(2);
    expect(await count('/api/addresses')).toBe(1);
  });

  it("shows the client's contacts, addresses, open balance per currency, invoices and quotes", async () => {
    const c = (await api.get('/api/clients')).body.member[0]['@id'];
    const inv = await api.post('/api/invoices', { client: c, dueDate: '2099-01-01', lines: [{ description: 'Armour', price: 123456 }] });
    expect((await api.patch(inv.body['@id'], { status: 'pending' })).status).toBe(200);
    await api.post('/api/invoices', { client: c, lines: [{ description: 'Draft', price: 100 }] });
    await api.post('/api/quotes', { client: c, lines: [{ description: 'Batmobile', price: 5000000 }] });
    await page.reload();
    const balance = page.getByTestId('panel-balances');
    await expect.poll(() => balance.innerText()).toContain('€1,234.56');
    for (const name of ['Contacts', 'Addresses', 'Invoices', 'Quotes']) await page.getByRole('heading', { name: new RegExp(`^${name}`), level: 2 }).waitFor();
    await expect.poll(() => page.getByTestId('related-Contact-client').innerText()).toContain('lucius@wayne.test');
    await expect.poll(() => page.getByTestId('related-Address-client').innerText()).toContain('1007 Mountain Drive');
    await expect.poll(() => page.getByTestId('related-Invoice-client').innerText()).toContain('(2)');
    await expect.poll(() => page.getByTestId('related-Quote-client').innerText()).toContain('(1)');
    await screenshot(page, 'app-client-page');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("edits the client's contacts in its form: one changed, one removed, one added", async () => {
    await page.getByRole('group', { name: 'Actions' }).getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Email, contact 2').waitFor();
    const first = await page.getByLabel('First name, contact 1').inputValue();
    // Remove the contact that is not Lucius, rename Lucius, add Selina.
    const alfredRow = first === 'Alfred' ? 1 : 2;
    const luciusRow = 3 - alfredRow;
    await page.getByLabel(`First name, contact ${luciusRow}`).fill('Lucius Jr');
    await page.getByRole('button', { name: `Remove contact ${alfredRow}` }).click();
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByLabel('First name, contact 2').fill('Selina');
    await page.getByLabel('Email, contact 2').fill('selina@wayne.test');
    await screenshot(page, 'app-client-edit');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toContain('Wayne Enterprises');
    const contacts = (await api.get('/api/contacts')).body.member as { firstName: string; email: string }[];
    expect(contacts.map((x) => `${x.firstName} ${x.email}`).sort()).toEqual(['Lucius Jr lucius@wayne.test', 'Selina selina@wayne.test']);
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
  });

  it("reads a list's page and its client filter's choices in one request", async () => {
    // Away from the client's page first: its related lists may still be loading (under load), and
    // their requests are not the list's.
    await page.goto('about:blank');
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => void (new URL(r.url()).pathname.startsWith('/api/') && asked.push(r.url()));
    page.on('request', onRequest);
    await page.goto(`${t.url}/app/invoices`);
    await page.locator('main tbody th a').first().waitFor();
    await expect.poll(() => page.locator('#filter-client option').allInnerTexts()).toContain('Wayne Enterprises');
    page.off('request', onRequest);
    expect(asked, asked.join('\n')).toHaveLength(1);
  });
});
