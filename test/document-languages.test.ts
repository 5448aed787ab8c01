// Documents in the company's language (CONTRACT §20): the same invoice as PDF in German and
// French (pdftotext: the words, dates and amounts of that language; the German page rendered by
// pdftoppm to test-results/ to be looked at), and the client page's totals.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../server/documents/messages.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: Client;
let invoiceId: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'admin@lang.test', company: 'Sprachen GmbH', currency: 'EUR' }));
  await admin.patch('/api/company', { iban: 'DE89 3704 0044 0532 0130 00', vatNumber: 'DE123456789' });
  tax = (await admin.post('/api/taxes', { name: 'MwSt', rate: 19 })).body['@id'];
  clientIri = (await admin.post('/api/clients', { name: 'Client SARL' })).body['@id'];
  invoiceId = await issue();
});
let tax: string;
let clientIri: string;

/** An invoice issued now: in the company's language of the moment, which it keeps (CONTRACT §18). */
async function issue(): Promise<string> {
  const inv = await admin.post('/api/invoices', { client: clientIri, invoiceDate: '2026-03-05', dueDate: '2026-04-04', status: 'pending', lines: [{ description: 'Beratung', qty: 2.5, price: 123_456, tax }] });
  expect(inv.status, inv.text).toBe(201);
  return inv.body.id;
}
afterAll(() => t.close());

async function pdfText(name: string): Promise<{ text: string; file: string }> {
  const res = await fetch(`${t.url}/api/invoices/${invoiceId}`, { headers: { 'x-api-token': admin.token, accept: 'application/pdf' } });
  expect(res.status).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'lang-'));
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return { text: execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }), file };
}

describe('the PDF in the company’s language', () => {
  it('English by default', async () => {
    const { text } = await pdfText('en');
    expect(text).toMatch(/INVOICE/);
    expect(text).toContain('5 March 2026');
    expect(text).toContain('3,086.40'); // 2.5 × 1,234.56
    expect(text).toContain('Balance due');
  });

  it('German: words, dates and amounts', async () => {
    expect((await admin.patch('/api/company', { locale: 'de' })).status).toBe(200);
    // The invoice issued in English stays so; one issued now is German.
    expect((await pdfText('en')).text).toMatch(/INVOICE/);
    invoiceId = await issue();
    const { text, file } = await pdfText('de');
    for (const s of ['RECHNUNG', 'Rechnungsnummer', 'Rechnungsdatum', '5. März 2026', '4. April 2026', 'Beschreibung', 'Einzelpreis', 'Zwischensumme', 'Offener Betrag', 'USt-IdNr.: DE123456789', 'ZAHLUNGSINFORMATIONEN', 'Überweisung an', 'Seite 1 von 1']) expect(text, s).toContain(s);
    expect(text).toContain('3.086,40');
    expect(text).toContain('1.234,56');
    expect(text).toMatch(/19\s%/);
    expect(text).not.toContain('Balance due');
    execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', file, join(tmpdir(), 'lang-de')]);
    mkdirSync('test-results', { recursive: true });
    writeFileSync('test-results/pdf-de.png', readFileSync(join(tmpdir(), 'lang-de.png')));
  });

  it('French: words, dates and amounts', async () => {
    expect((await admin.patch('/api/company', { locale: 'fr' })).status).toBe(200);
    invoiceId = await issue();
    const { text, file } = await pdfText('fr');
    for (const s of ['FACTURE', 'N° de facture', 'Date de facture', '5 mars 2026', '4 avril 2026', 'Désignation', 'Prix unitaire', 'Sous-total', 'Reste à payer', 'N° TVA : DE123456789', 'Virement à', 'page 1 sur 1']) expect(text, s).toContain(s);
    expect(text).toMatch(/3\s086,40/);
    expect(text).toMatch(/19\s%/);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', file, join(tmpdir(), 'lang-fr')]);
    writeFileSync('test-results/pdf-fr.png', readFileSync(join(tmpdir(), 'lang-fr.png')));
  });
});

describe('the client page', () => {
  it('writes the document in the company’s language', async () => {
    expect((await admin.patch('/api/company', { locale: 'de' })).status).toBe(200);
    invoiceId = await issue();
    const link = await admin.post('/api/document-links', { document: `/api/invoices/${invoiceId}` });
    expect(link.status, link.text).toBe(201);
    const html = await (await fetch(`${t.url}${new URL(link.body.url).pathname}`)).text();
    expect(html).toContain('<html lang="de">');
    expect(html).toMatch(/Rechnung INV-\d{6}/);
    for (const s of ['Rechnungsnummer', '5. März 2026', 'Einzelpreis', 'Zwischensumme', 'Offener Betrag', '3.086,40', 'PDF herunterladen']) expect(html, s).toContain(s);
    // Issued in German, it stays German when the company's language changes (CONTRACT §18).
    expect((await admin.patch('/api/company', { locale: 'en' })).status).toBe(200);
    const later = await (await fetch(`${t.url}${new URL(link.body.url).pathname}`)).text();
    expect(later).toContain('<html lang="de">');
    expect(later).toContain('3.086,40');
  });
});

describe('the default e-mail templates', () => {
  it('follow the company’s language', async () => {
    for (const [locale, subject, body] of [
      ['de', /^Rechnung INV-\d{6} von Sprachen GmbH$/, /anbei erhalten Sie die Rechnung INV-\d{6} über EUR 3\.672,82/],
      ['fr', /^Facture INV-\d{6} de Sprachen GmbH$/, /veuillez trouver ci-joint la facture INV-\d{6} d’un montant de EUR 3\s672,82/],
      ['en', /^Invoice INV-\d{6} from Sprachen GmbH$/, /please find attached invoice INV-\d{6} for EUR 3,672\.82/],
    ] as const) {
      expect((await admin.patch('/api/company', { locale })).status).toBe(200);
      const r = await admin.post('/api/emails', { document: `/api/invoices/${invoiceId}`, to: ['ap@client.test'] });
      expect(r.status, r.text).toBe(201);
      expect(r.body.subject).toMatch(subject);
      expect(r.body.body).toMatch(body);
    }
  });
});

describe('the message catalogue', () => {
  it('has plural rules per language', () => {
    expect(messages('de').t('lines', { count: 1 })).toBe('1 Position');
    expect(messages('de').t('lines', { count: 3 })).toBe('3 Positionen');
    expect(messages('fr').t('lines', { count: 0 })).toBe('0 ligne');
    expect(messages('en').t('lines', { count: 2 })).toBe('2 lines');
  });
});
