// /app in German and in French (CONTRACT §20: the application in the user's language, from the
// browser's Accept-Language): <html lang>, the navigation, a list, the invoice editor with the
// money parser's message, a confirmation dialog, dates and amounts by locale, the settings pages'
// messages (a name in bold inside a sentence, a role, a token made and revoked: plurals); axe-core on each.
// Screenshots land in test-results/app-<language>-*.png.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { launchChromium, screenshot, seriousViolations, signedIn } from './support/browser.ts';

const PASSWORD = 'a long secret phrase';
const OWNER = 'owner@i18n.test';
const COMPANY = 'Sprachen GmbH';

let t: TestServer;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  await userCreate({ db: t.db.database.db }, { email: OWNER, password: PASSWORD, company: COMPANY, role: 'admin', currency: 'EUR' });
  const c = client(t, await tokenFor(t, { email: OWNER, company: COMPANY, name: 'test' }));
  const cl = await c.post('/api/clients', { name: 'Müller & Fils', currency: 'EUR' });
  expect(cl.status).toBe(201);
  const inv = await c.post('/api/invoices', { client: cl.body['@id'], invoiceDate: '2026-03-05', dueDate: '2026-04-04', lines: [{ description: 'Beratung', qty: 2, price: 123450 }] });
  expect(inv.status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function axe(p: Page, what: string): Promise<void> {
  const bad = await seriousViolations(p);
  expect(bad, `${what}: ${JSON.stringify(bad)}`).toEqual([]);
}

const LANGUAGES = [
  {
    locale: 'de-DE',
    lang: 'de',
    home: 'Übersicht',
    nav: 'Hauptnavigation',
    links: ['Übersicht', 'Kunden', 'Kontakte', 'Adressen', 'Steuersätze', 'Rechnungen', 'Angebote', 'Serienrechnungen', 'Zahlungen', 'Gutschriften', 'Berichte', 'Unternehmen', 'Personen', 'API-Tokens', 'Webhooks', 'Dokumentlinks', 'E-Mails'],
    invoices: 'Rechnungen',
    count: '1 Rechnung',
    headers: ['Nummer', 'Kunde', 'Status', 'Rechnungsdatum', 'Fällig am'],
    draft: 'Entwurf',
    date: '05.03.2026',
    total: '2.469,00\u00a0€',
    newInvoice: 'Neue Rechnung',
    addLine: 'Position hinzufügen',
    price: 'Preis, Position 1',
    ambiguous: '„1,234“ ist mehrdeutig: 1.234,00 EUR oder 1,234 EUR? Bitte mit 2 Nachkommastellen eingeben, etwa 1.234,00.',
    lineTotal: '1.234,50\u00a0€',
    issue: 'Ausstellen',
    confirm: 'Die Rechnung wird ausgestellt',
    notNow: 'Nicht jetzt',
    newClient: 'Neuer Kunde',
    settings: { company: 'Unternehmensprofil', legend: 'Zahlungsangaben', trading: 'Handelsname', language: 'Deutsch', people: 'Personen', members: 'Mitglieder', admin: 'Administrator', tokens: 'API-Tokens', create: 'API-Token erstellen', webhooks: 'Webhooks', add: 'Webhook hinzufügen' },
    token: { save: 'Speichern', copyNow: 'Kopieren Sie dieses Token jetzt.', done: 'Fertig', created: 'Das Token „CI de“ wurde erstellt.', select: 'CI de auswählen', selected: '1 ausgewählt', revoke: 'Widerrufen', revoked: '1 Token widerrufen. Es funktioniert ab sofort nicht mehr.' },
    client: { addContact: 'Kontakt hinzufügen', noAddress: 'Noch keine Adressen.', removeContact: 'Kontakt 1 entfernen', balance: 'Offener Saldo', none: 'Keine.' },
    report: { title: 'Berichte', tab: 'Umsatz', query: 'Gruppieren nach', column: 'Zeitraum', choice: 'Quartal' },
  },
  {
    locale: 'fr-FR',
    lang: 'fr',
    home: 'Tableau de bord',
    nav: 'Navigation principale',
    links: ['Tableau de bord', 'Clients', 'Contacts', 'Adresses', 'Taxes', 'Factures', 'Devis', 'Factures récurrentes', 'Paiements', 'Avoirs', 'Rapports', 'Entreprise', 'Personnes', 'Jetons d’API', 'Webhooks', 'Liens de documents', 'E-mails'],
    invoices: 'Factures',
    count: '1 facture',
    headers: ['Numéro', 'Client', 'Statut', 'Date de facture', 'Échéance'],
    draft: 'Brouillon',
    date: '5 mars 2026',
    total: '2\u202f469,00\u00a0€',
    newInvoice: 'Nouvelle facture',
    addLine: 'Ajouter une ligne',
    price: 'Prix, ligne 1',
    ambiguous: '«\u00a01,234\u00a0» est ambigu\u00a0: 1\u202f234,00 EUR ou 1,234 EUR\u202f? Saisissez-le avec 2 décimales, par exemple 1\u202f234,00.',
    lineTotal: '1\u202f234,50\u00a0€',
    issue: 'Émettre',
    confirm: 'La facture est émise',
    notNow: 'Pas maintenant',
    newClient: 'Nouveau client',
    settings: { company: 'Profil de l’entreprise', legend: 'Coordonnées bancaires', trading: 'Nom commercial', language: 'Deutsch', people: 'Personnes', members: 'Membres', admin: 'Administrateur', tokens: 'Jetons d’API', create: 'Créer un jeton d’API', webhooks: 'Webhooks', add: 'Ajouter un webhook' },
    token: { save: 'Enregistrer', copyNow: 'Copiez ce jeton maintenant.', done: 'Terminé', created: 'Le jeton « CI fr » est créé.', select: 'Sélectionner CI fr', selected: '1 sélectionné', revoke: 'Révoquer', revoked: '1 jeton révoqué. Il cesse de fonctionner immédiatement.' },
    client: { addContact: 'Ajouter un contact', noAddress: 'Aucune adresse pour l’instant.', removeContact: 'Supprimer le contact 1', balance: 'Solde ouvert', none: 'Aucun.' },
    report: { title: 'Rapports', tab: 'Chiffre d’affaires', query: 'Regrouper par', column: 'Période', choice: 'Trimestre' },
  },
] as const;

describe.each(LANGUAGES)('/app in $lang', (l) => {
  let page: Page;
  const h1 = () => page.getByRole('heading', { level: 1 });

  it('the navigation and the dashboard', async () => {
    page = await signedIn(browser, { base: t.url, email: OWNER, password: PASSWORD, path: '/app', heading: l.home, problems, locale: l.locale, expected: /status of 404/ });  // the company's logo: it has none
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(l.lang);
    // The answer says its language, and that it varies with the asked one.
    const again = (await page.reload())!;
    expect(again.headers()['content-language']).toBe(l.lang);
    expect(again.headers()['vary']).toMatch(/Accept-Language/i);
    await expect.poll(() => h1().innerText()).toBe(l.home);
    const links = await page.getByRole('navigation', { name: l.nav }).getByRole('link').allInnerTexts();
    expect(links).toEqual(l.links);
    expect(await page.title()).toBe(`${l.home} · Invoicing`);
    await screenshot(page, `app-${l.lang}-dashboard`);
    await axe(page, `${l.lang} dashboard`);
  });

  it('a list: headers, choices, dates and amounts in the language', async () => {
    await page.getByRole('navigation', { name: l.nav }).getByRole('link', { name: l.invoices, exact: true }).click();
    await expect.poll(() => h1().innerText()).toBe(l.invoices);
    await expect.poll(() => page.getByTestId('total').innerText()).toBe(l.count);
    const headers = await page.locator('main table thead th').allInnerTexts();
    expect(headers.map((h) => h.trim()).slice(0, 5)).toEqual(l.headers);
    const row = page.locator('main table tbody tr').first();
    expect(await row.innerText()).toContain(l.draft);
    expect(await row.innerText()).toContain(l.date);
    expect(await row.innerText()).toContain(l.total);
    await screenshot(page, `app-${l.lang}-invoices`);
    await axe(page, `${l.lang} invoices`);
  });

  it('the invoice editor: labels, lines and the money parser’s message', async () => {
    await page.getByRole('link', { name: l.newInvoice }).click();
    await expect.poll(() => h1().innerText()).toBe(l.newInvoice);
    await page.locator('#f-client').selectOption({ label: 'Müller & Fils' });
    await page.getByRole('button', { name: l.addLine }).click();
    const price = page.getByLabel(l.price, { exact: true });
    await price.fill('1,234');
    await price.blur();
    await expect.poll(() => page.locator('.field-error').first().innerText()).toBe(l.ambiguous);
    await price.fill('1234,5');
    await price.blur();
    await expect.poll(() => page.getByTestId('line-total-1').innerText()).toBe(l.lineTotal);
    await screenshot(page, `app-${l.lang}-invoice-form`);
    await axe(page, `${l.lang} invoice form`);
  });

  it('a dialog asks first, naming the consequence', async () => {
    await page.getByRole('navigation', { name: l.nav }).getByRole('link', { name: l.invoices, exact: true }).click();
    await expect.poll(() => h1().innerText()).toBe(l.invoices);
    await page.locator('main table tbody tr').first().locator('a').first().click();
    await page.getByRole('button', { name: l.issue, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(l.confirm);
    expect(await dialog.getByRole('button', { name: l.notNow }).count()).toBe(1);
    await screenshot(page, `app-${l.lang}-dialog`);
    await axe(page, `${l.lang} dialog`);
    await dialog.getByRole('button', { name: l.notNow }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    // The nouns' gender: "Neuer Kunde", "Nouveau client".
    await page.getByRole('navigation', { name: l.nav }).getByRole('link', { name: l.links[1], exact: true }).click();
    await page.getByRole('link', { name: l.newClient }).waitFor();
  });

  it('a client: its open balance, and its form’s nested rows with their noun’s gender', async () => {
    await page.locator('main table tbody tr').first().locator('a').first().click();
    const panel = page.getByRole('region', { name: l.client.balance });
    await panel.waitFor();
    // Its invoice is a draft: nothing open.
    await expect.poll(() => panel.innerText()).toContain(l.client.none);
    await page.goto(`${page.url()}/edit`);
    await page.getByRole('button', { name: l.client.addContact }).waitFor();
    expect(await page.locator('main').innerText()).toContain(l.client.noAddress);
    await page.getByRole('button', { name: l.client.addContact }).click();
    await page.getByRole('button', { name: l.client.removeContact }).waitFor();
    await screenshot(page, `app-${l.lang}-client-form`);
    await axe(page, `${l.lang} client form`);
  });

  it('the settings pages: company, people, API tokens, webhooks', async () => {
    const nav = page.getByRole('navigation', { name: l.nav });
    await nav.getByRole('link', { name: l.links[11], exact: true }).click();
    await expect.poll(() => h1().innerText()).toBe(l.settings.company);
    await page.getByRole('group', { name: l.settings.legend }).waitFor();
    // The profile's fields come from the description, in the person's language; languages are named in themselves.
    expect(await page.getByLabel(l.settings.trading).inputValue()).not.toBe('');
    expect(await page.locator('#company-locale option[value="de"]').innerText()).toBe(l.settings.language);
    await screenshot(page, `app-${l.lang}-settings-company`);
    await axe(page, `${l.lang} company settings`);
    await nav.getByRole('link', { name: l.settings.people, exact: true }).click();
    await expect.poll(() => h1().innerText()).toBe(l.settings.people);
    await page.getByRole('heading', { name: l.settings.members }).waitFor();
    // The catalogue's messages: the company's name in bold inside the sentence, a role by its value.
    expect(await page.locator('.lead strong').innerText()).toBe(COMPANY);
    const role = page.locator(`tr[data-member="${OWNER}"] select`);
    await expect.poll(() => role.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent)).toBe(l.settings.admin);
    await screenshot(page, `app-${l.lang}-settings-people`);
    await axe(page, `${l.lang} people`);
    await nav.getByRole('link', { name: l.settings.tokens, exact: true }).click();
    await expect.poll(() => h1().innerText()).toBe(l.settings.tokens);
    await page.getByRole('button', { name: l.settings.create }).first().waitFor();
    await axe(page, `${l.lang} API tokens`);
    // A token made and revoked: the value's warning, the message naming it, and the count's plural.
    await page.getByRole('button', { name: l.settings.create }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('#token-name').fill(`CI ${l.lang}`);
    await dialog.getByRole('button', { name: l.token.save, exact: true }).click();
    await expect.poll(() => dialog.locator('.warning strong').innerText()).toBe(l.token.copyNow);
    await screenshot(page, `app-${l.lang}-settings-token-created`);
    await dialog.getByRole('button', { name: l.token.done, exact: true }).click();
    await expect.poll(() => page.locator('.banner-success').innerText()).toContain(l.token.created);
    await page.getByRole('checkbox', { name: l.token.select, exact: true }).check();
    await expect.poll(() => page.locator('.batch').innerText()).toContain(l.token.selected);
    await page.locator('.batch').getByRole('button', { name: l.token.revoke, exact: true }).click();
    await expect.poll(() => page.locator('.banner-success').innerText()).toContain(l.token.revoked);
    await nav.getByRole('link', { name: l.settings.webhooks, exact: true }).click();
    await page.getByRole('button', { name: l.settings.add }).first().waitFor();
    await screenshot(page, `app-${l.lang}-settings-webhooks`);
    await axe(page, `${l.lang} webhooks`);
  });

  it('a report: its name, query, choices and columns', async () => {
    await page.getByRole('navigation', { name: l.nav }).getByRole('link', { name: l.report.title, exact: true }).click();
    await expect.poll(() => h1().innerText()).toBe(l.report.title);
    await page.getByRole('link', { name: l.report.tab, exact: true }).waitFor();
    const groupBy = page.getByLabel(l.report.query, { exact: true });
    expect(await groupBy.locator('option').allInnerTexts()).toContain(l.report.choice);
    await page.getByRole('columnheader', { name: l.report.column, exact: true }).waitFor();
    await screenshot(page, `app-${l.lang}-report`);
    await axe(page, `${l.lang} report`);
  });
});

describe('English stays the default', () => {
  it('a browser asking for a language the application does not have gets English', async () => {
    const page = await signedIn(browser, { base: t.url, email: OWNER, password: PASSWORD, path: '/app', heading: 'Dashboard', problems, locale: 'es-ES' });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(problems).toEqual([]);
  });
});

describe('the credit dialog in French', () => {
  it('asks what to credit in the person’s language, with the noun’s article', async () => {
    await userCreate({ db: t.db.database.db }, { email: 'owner@avoir.test', password: PASSWORD, company: 'Avoir SARL', role: 'admin', currency: 'EUR' });
    const api = client(t, await tokenFor(t, { email: 'owner@avoir.test', company: 'Avoir SARL' }));
    const buyer = (await api.post('/api/clients', { name: 'Acheteur SA', currency: 'EUR' })).body['@id'];
    const inv = await api.post('/api/invoices', { client: buyer, dueDate: '2099-01-01', lines: [{ description: 'Conseil', qty: 2, price: 10000 }] });
    expect(inv.status, inv.text).toBe(201);
    const issued = await api.patch(inv.body['@id'], { status: 'pending' });
    expect(issued.status).toBe(200);
    const page = await signedIn(browser, { base: t.url, email: 'owner@avoir.test', password: PASSWORD, path: `/app/${inv.body['@id'].slice(5)}`, heading: String(issued.body.number), problems, locale: 'fr-FR', expected: /status of 404/ });
    await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Créer un avoir', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('group', { name: 'Que créditer' }).count()).toBe(1);
    expect(await dialog.getByRole('radio', { name: 'La totalité (reste dû, 200,00\u00a0€)' }).isChecked()).toBe(true);
    expect(await dialog.getByTestId('credit-total').innerText()).toBe('200,00\u00a0€');
    expect(await dialog.innerText()).toContain('Total de l’avoir');
    expect(await dialog.innerText()).toContain('Un avoir est créé en brouillon');
    await dialog.getByRole('radio', { name: 'Un montant' }).check();
    await dialog.getByLabel('Montant (EUR)').fill('300');
    await expect.poll(() => dialog.getByTestId('credit-invalid').innerText()).toBe('C’est plus que 200,00\u00a0€ (reste dû).');
    await screenshot(page, 'app-fr-credit');
    await axe(page, 'fr credit dialog');
    await dialog.getByRole('button', { name: 'Pas maintenant' }).click();
    expect(problems).toEqual([]);
  });
});
