// Actions that cannot misfire (CONTRACT §20), in Chromium: every state an invoice, a quote and a
// credit note can be in is made through the API, and its page's buttons are compared with what
// the API does. For each state and each action — every state change, every operation, delete —
// a fresh record in that state is asked through the API: the page offers the button exactly when
// the API accepts it. Then: lists are newest first, and each irreversible action asks first,
// naming its consequence, and does nothing when the person says "Not now".
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleRun, userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
let t: TestServer;
let browser: Browser;
let page: Page;
let api: Client;
let acme: string;
let description: { resources: { name: string; path: string; states?: { field: string; transitions: Record<string, string[]>; actions?: Record<string, { label: string; confirm?: string }> }; fields: { name: string; values?: string[] }[]; operations: { name: string; label?: string; on: string; method: string; input?: boolean; view?: string; params?: boolean }[] }[] };
const problems: string[] = [];

beforeAll(async () => {
  // The walk makes a few hundred records through the API in a minute.
  t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
  await userCreate({ db: t.db.database.db }, { email: 'owner@actions.test', password: PASSWORD, company: 'Actions Co', role: 'admin', currency: 'EUR' });
  api = client(t, await tokenFor(t, { email: 'owner@actions.test', company: 'Actions Co' }));
  acme = (await api.post('/api/clients', { name: 'Acme', currency: 'EUR' })).body['@id'];
  description = await (await fetch(`${t.url}/app/description.json`)).json();
  browser = await launchChromium();
  page = await signedIn(browser, { base: t.url, email: 'owner@actions.test', password: PASSWORD, path: '/app', heading: 'Dashboard', problems });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const ok = <R extends { status: number; text: string }>(res: R, what: string): R => {
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(300);
  return res;
};
const lines = [{ description: 'Work', qty: 1, price: 10000 }];

async function invoice(body: Record<string, unknown> = {}): Promise<string> {
  return ok(await api.post('/api/invoices', { client: acme, lines, ...body }), 'invoice').body['@id'];
}
async function to(iri: string, status: string): Promise<string> {
  ok(await api.patch(iri, { status }), `${iri} → ${status}`);
  return iri;
}
async function pay(iri: string, amount: number): Promise<string> {
  ok(await api.post('/api/payments', { invoice: iri, amount }), 'payment');
  return iri;
}
async function credited(iri: string): Promise<string> {
  const note = ok(await api.post(`${iri}/credit`, {}), 'credit').body;
  await to(note['@id'], 'issued');
  return iri;
}
async function overdue(): Promise<string> {
  const iri = await to(await invoice({ invoiceDate: '2020-01-01', dueDate: '2020-01-31' }), 'pending');
  await scheduleRun({ db: t.db.database.db }, { date: new Date().toISOString().slice(0, 10) });
  expect((await api.get(iri)).body.status).toBe('overdue');
  return iri;
}
async function creditNote(): Promise<string> {
  const inv = await to(await invoice(), 'pending');
  return ok(await api.post(`${inv}/credit`, {}), 'credit').body['@id'];
}
async function quote(): Promise<string> {
  return ok(await api.post('/api/quotes', { client: acme, lines }), 'quote').body['@id'];
}

/** The states to walk, each made afresh by a function (a new record per action tried). */
const WALK: Record<string, Record<string, () => Promise<string>>> = {
  Invoice: {
    draft: () => invoice(),
    pending: async () => to(await invoice(), 'pending'),
    'pending, partly paid': async () => pay(await to(await invoice(), 'pending'), 4000),
    'pending, partly credited': async () => {
      const iri = await pay(await to(await invoice(), 'pending'), 4000);
      return credited(iri);
    },
    overdue,
    paid: async () => pay(await to(await invoice(), 'pending'), 10000),
    'cancelled from draft': async () => to(await invoice(), 'cancelled'),
    'cancelled by its credit note': async () => credited(await to(await invoice(), 'pending')),
  },
  Quote: {
    draft: quote,
    sent: async () => to(await quote(), 'sent'),
    accepted: async () => to(await to(await quote(), 'sent'), 'accepted'),
    declined: async () => to(await to(await quote(), 'sent'), 'declined'),
    cancelled: async () => to(await quote(), 'cancelled'),
  },
  CreditNote: {
    draft: creditNote,
    issued: async () => to(await creditNote(), 'issued'),
    cancelled: async () => to(await creditNote(), 'cancelled'),
  },
};

/** The buttons of a record's page that act on it (not downloads, not links). */
async function offered(iri: string): Promise<string[]> {
  await page.goto(`${t.url}/app/${iri.slice('/api/'.length)}`);
  await page.getByRole('group', { name: 'Actions' }).waitFor();
  return (await page.getByRole('group', { name: 'Actions' }).getByRole('button').allInnerTexts()).filter((b) => !b.startsWith('Download'));
}

describe('actions that cannot misfire', () => {
  for (const [name, states] of Object.entries(WALK)) {
    it(`offers on a ${name}'s page exactly what the API accepts, in every state`, async () => {
      const r = description.resources.find((x) => x.name === name)!;
      const all = r.fields.find((f) => f.name === r.states!.field)!.values!;
      const label = (state: string) => r.states!.actions?.[state]?.label ?? `Mark as ${state}`;
      // Operations with an input that asks for it in a view of its own (Credit) are tried with none.
      const ops = r.operations.filter((o) => o.on === 'item' && o.method === 'POST' && (!o.input || o.view) && !o.params);
      const report: string[] = [];
      for (const [state, make] of Object.entries(states)) {
        const buttons = await offered(await make());
        // Each action, tried on a record of its own in this state.
        const tries: [string, (iri: string) => Promise<{ status: number }>][] = [
          ...all.map((s): [string, (iri: string) => Promise<{ status: number }>] => [label(s), (iri) => api.patch(iri, { [r.states!.field]: s })]),
          ...ops.map((o): [string, (iri: string) => Promise<{ status: number }>] => [o.label ?? o.name, (iri) => api.post(`${iri}/${o.name}`, {})]),
          ['Delete', (iri) => api.delete(iri)],
        ];
        for (const [action, run] of tries) {
          const iri = await make();
          const before = (await api.get(iri)).body[r.states!.field];
          const status = (await run(iri)).status;
          // A change to the state it is already in changes nothing: not an action to offer.
          const accepted = status < 300 && !(action === label(before) && status === 200 && (await api.get(iri)).body[r.states!.field] === before);
          if (accepted !== buttons.includes(action)) report.push(`${name} ${state}: "${action}" ${buttons.includes(action) ? 'offered' : 'not offered'}, API ${status}`);
        }
      }
      expect(report).toEqual([]);
    }, 240_000);
  }

  it('asks before what cannot be undone, naming its consequence; "Not now" does nothing', async () => {
    const iri = await invoice();
    await page.goto(`${t.url}/app/${iri.slice(5)}`);
    await page.getByRole('button', { name: 'Cancel invoice' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.innerText()).toContain('is no longer owed');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-confirm-cancel');
    await dialog.getByRole('button', { name: 'Not now' }).click();
    expect((await api.get(iri)).body.status).toBe('draft');
    await page.getByRole('button', { name: 'Issue' }).click();
    expect(await dialog.innerText()).toContain('can no longer change');
    await dialog.getByRole('button', { name: 'Not now' }).click();
    expect((await api.get(iri)).body.status).toBe('draft');
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await dialog.innerText()).toContain('cannot be undone');
    await dialog.getByRole('button', { name: 'Not now' }).click();
    expect((await api.get(iri)).status).toBe(200);
    // Said yes: done.
    await page.getByRole('button', { name: 'Cancel invoice' }).click();
    await dialog.getByRole('button', { name: 'Cancel invoice' }).click();
    await expect.poll(async () => (await api.get(iri)).body.status).toBe('cancelled');
  });

  it('lists documents newest first', async () => {
    const first = (await api.get(await invoice())).body.number;
    const last = (await api.get(await invoice())).body.number;
    expect(last > first).toBe(true);
    await page.goto(`${t.url}/app/invoices`);
    const numbers = () => page.locator('main tbody th').allInnerTexts();
    await expect.poll(async () => (await numbers())[0]).toBe(last);
    expect((await numbers()).indexOf(first)).toBeGreaterThan(0);
    expect(await page.locator('#filter-order').inputValue()).toBe('');
    expect(await page.locator('#filter-order option:checked').innerText()).toBe('Newest first');
  });

  it('lists on a record’s page the records that refer to it', async () => {
    const iri = await pay(await to(await invoice(), 'pending'), 2500);
    const number = (await api.get(iri)).body.number;
    await page.goto(`${t.url}/app/${iri.slice(5)}`);
    const payments = page.getByTestId('related-Payment-invoice');
    await expect.poll(() => payments.locator('tbody tr').count()).toBe(1);
    expect(await payments.locator('tbody tr').innerText()).toContain('€25.00');
    expect(await payments.getByRole('heading').innerText()).toBe('Payments (1)');
    // A client's page: its invoices, newest first.
    await page.goto(`${t.url}/app/${acme.slice(5)}`);
    const invoices = page.getByTestId('related-Invoice-client');
    await expect.poll(async () => (await invoices.locator('tbody th').allInnerTexts())[0]).toBe((await api.get('/api/invoices?order[createdAt]=desc')).body.member[0].number);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-client-related');
    expect(number).toMatch(/^INV-/);
  });

  it('finds a client by part of its name and an invoice by part of its number, from Ctrl-K', async () => {
    const number = (await api.get(await invoice())).body.number;
    await page.goto(`${t.url}/app/quotes`);
    await page.getByTestId('total').waitFor();
    await page.keyboard.press('Control+k');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('app-search');
    await page.keyboard.type('cm');
    const results = page.locator('#app-search-results');
    await expect.poll(() => results.getByRole('link', { name: 'Acme', exact: true }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'app-search');
    await results.getByRole('link', { name: 'Acme', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toContain('Acme');
    await page.keyboard.press('Control+k');
    await page.keyboard.type(number.slice(-4));
    await expect.poll(() => results.getByRole('link', { name: number, exact: true }).count()).toBe(1);
    // Enter opens the first found; the arrow keys move through the others.
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.closest('#app-search-results') !== null)).toBe(true);
    await page.keyboard.press('Escape');
    await page.getByRole('searchbox', { name: /^Search clients/ }).fill(number);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toContain(number);
  });

  it('nothing went wrong on any page', () => {
    expect(problems).toEqual([]);
  });
});
