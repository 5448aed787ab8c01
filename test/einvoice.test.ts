// E-invoices the networks accept (CONTRACT §18): electronic addresses, tax categories with their
// exemption reasons, national rules (a German seller to a German buyer, a Belgian seller to a
// Belgian buyer over 0208), the not-VAT-registered company. Every UBL this file gets goes through
// the official artefacts (test/helpers.ts call → test/support/einvoice-validate.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleRun } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { artefactsAvailable, validateUbl } from './support/einvoice-validate.ts';

type X = Record<string, any>;
const UBL = 'application/vnd.oasis.ubl+xml';
const dir = process.env.KEEP_PDFS ?? mkdtempSync(join(tmpdir(), 'einvoice-test-'));
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
  if (!process.env.KEEP_PDFS) rmSync(dir, { recursive: true, force: true });
});

/** A company with a profile in `country`, and a client there or elsewhere. */
async function seller(name: string, profile: X): Promise<Client> {
  const c = client(t, await tokenFor(t, { email: `admin@${name.toLowerCase().replace(/\W/g, '')}.test`, company: name, currency: 'EUR' }));
  const res = await c.patch('/api/company', profile);
  expect(res.status, res.text).toBe(200);
  return c;
}
async function buyer(c: Client, body: X, address: X): Promise<string> {
  const res = await c.post('/api/clients', { currency: 'EUR', ...body });
  expect(res.status, res.text).toBe(201);
  await c.post('/api/addresses', { client: res.body['@id'], street1: 'Street 1', ...address });
  return res.body['@id'];
}
const ubl = async (c: Client, iri: string) => c.get(iri, { accept: UBL });
const pdfText = (bytes: Buffer, name: string) => {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
};

const GERMAN = {
  legalName: 'Muster GmbH', email: 'rechnung@muster.test', phone: '+49 30 1234567', contactName: 'Erika Muster', vatNumber: 'DE123456789',
  peppolId: '9930:DE123456789', street1: 'Unter den Linden 1', city: 'Berlin', zip: '10117', country: 'DE', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX',
};

describe('electronic addresses', () => {
  it('accepts EAS schemes with their checks and refuses the rest with a 422 on peppolId', async () => {
    const c = await seller('Address Co', {});
    for (const good of ['0208:0123456749', '9930:DE123456789', '0088:4035811991014', '0192:974760673', '9925:be0123456749', '0208:0123.456.749']) {
      const res = await c.patch('/api/company', { peppolId: good });
      expect(res.status, `${good}: ${res.text}`).toBe(200);
    }
    expect((await c.get('/api/company')).body.peppolId).toBe('0208:0123456749');
    expect((await c.patch('/api/company', { peppolId: '9925:be0123456749' })).body.peppolId).toBe('9925:BE0123456749');
    for (const [bad, why] of [
      ['EM:billing@x.test', /EAS/], ['1234:abc', /not a scheme/], ['0088:4035811991015', /GLN/], ['0208:0123456748', /Belgian enterprise/],
      ['9930:FR123456789', /VAT number of DE/], ['9930:DE12345678', /VAT number of DE/], ['0192:974760672', /Norwegian/], ['0208', /scheme/],
    ] as const) {
      const res = await c.patch('/api/company', { peppolId: bad });
      expect(res.status, bad).toBe(422);
      expect(res.body.violations[0]).toMatchObject({ propertyPath: 'peppolId', message: expect.stringMatching(why) });
      const cl = await c.post('/api/clients', { name: `Bad ${bad}`, peppolId: bad });
      expect(cl.status, bad).toBe(422);
      expect(cl.body.violations[0].propertyPath).toBe('peppolId');
    }
  });
});

describe('tax categories', () => {
  let c: Client;
  beforeAll(async () => {
    c = await seller('Categories Co', { ...GERMAN, legalName: 'Categories GmbH' });
  });

  it('default from the rate, and refuse rates and reasons that do not fit the category', async () => {
    expect((await c.post('/api/taxes', { name: 'Std', rate: 19 })).body.category).toBe('S');
    expect((await c.post('/api/taxes', { name: 'Nil', rate: 0 })).body.category).toBe('Z');
    const cases: [X, string, RegExp][] = [
      [{ name: 'a', rate: 0, category: 'S' }, 'rate', /above 0/],
      [{ name: 'b', rate: 19, category: 'AE', exemptionReasonCode: 'VATEX-EU-AE' }, 'rate', /rate 0/],
      [{ name: 'c', rate: 0, category: 'AE' }, 'exemptionReasonCode', /VATEX code/],
      [{ name: 'd', rate: 0, category: 'E', exemptionReasonCode: 'ARTICLE-132' }, 'exemptionReasonCode', /looks like/],
      [{ name: 'e', rate: 0, category: 'Z', exemptionReason: 'because' }, 'exemptionReason', /no exemption/],
      [{ name: 'f', rate: 0, category: 'X' }, 'category', /./],
    ];
    for (const [body, path, message] of cases) {
      const res = await c.post('/api/taxes', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.violations.map((v: X) => v.propertyPath)).toContain(path);
      expect(res.body.violations.find((v: X) => v.propertyPath === path).message).toMatch(message);
    }
    const ok = await c.post('/api/taxes', { name: 'Exempt', rate: 0, category: 'E', exemptionReasonCode: 'vatex-eu-132' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ category: 'E', exemptionReasonCode: 'VATEX-EU-132' });
  });

  for (const [category, code, reason, country, vat] of [
    ['AE', 'VATEX-EU-AE', 'Reverse charge: VAT to be accounted for by the recipient', 'FR', 'FR12345678901'],
    ['K', 'VATEX-EU-IC', 'Intra-community supply: exempt under Article 138 of Directive 2006/112/EC', 'NL', 'NL999999999B01'],
    ['G', 'VATEX-EU-G', 'Export outside the EU: exempt under Article 146 of Directive 2006/112/EC', 'US', 'US123456'],
    ['E', null, 'Exempt: medical care (§ 4 Nr. 14 UStG)', 'DE', 'DE987654321'],
  ] as const) {
    it(`${category}: groups per category and rate, the reason in the API, the PDF and the UBL, which passes the official artefacts`, async () => {
      const tax = (await c.post('/api/taxes', { name: `Tax ${category}`, rate: 0, category, ...(code ? { exemptionReasonCode: code } : { exemptionReason: reason }) })).body['@id'];
      const zero = (await c.post('/api/taxes', { name: `Zero ${category}`, rate: 0 })).body['@id'];
      const std = (await c.post('/api/taxes', { name: `VAT ${category}`, rate: 19 })).body['@id'];
      const cl = await buyer(c, { name: `Buyer ${category}`, vatNumber: vat, peppolId: '0088:4035811991014' }, { city: 'Town', zip: '12345', country });
      const lines = [{ description: 'Goods', qty: 2, price: 10000, tax }, { description: 'Books', price: 1000, tax: zero }];
      if (category === 'E') lines.push({ description: 'Service', qty: 1, price: 5000, tax: std });
      const inv = await c.post('/api/invoices', { client: cl, dueDate: '2099-12-31', discountType: 'percentage', discountValue: 10, lines });
      expect(inv.status, inv.text).toBe(201);
      const groups = inv.body.taxGroups as X[];
      expect(groups.map((g) => [g.rate, g.category, g.exemptionReason])).toEqual([
        ...(category < 'Z' ? [[0, category, reason]] : []),
        [0, 'Z', null],
        ...(category === 'E' ? [[19, 'S', null]] : []),
      ].sort((a, b) => (a[0] as number) - (b[0] as number) || String(a[1]).localeCompare(String(b[1]))));
      expect(inv.body.lines[0]).toMatchObject({ taxCategory: category, taxRate: 0 });
      expect((await c.patch(inv.body['@id'], { status: 'pending' })).status).toBe(200);

      const doc = await ubl(c, inv.body['@id']);
      expect(doc.status, doc.text).toBe(200);
      expect(doc.text).toContain(`<cac:TaxCategory><cbc:ID>${category}</cbc:ID><cbc:Percent>0</cbc:Percent>${code ? `<cbc:TaxExemptionReasonCode>${code}</cbc:TaxExemptionReasonCode>` : ''}<cbc:TaxExemptionReason>${reason}</cbc:TaxExemptionReason>`);
      if (category === 'K') expect(doc.text).toMatch(/<cac:Delivery><cbc:ActualDeliveryDate>\d{4}-\d\d-\d\d<\/cbc:ActualDeliveryDate><cac:DeliveryLocation><cac:Address>.*<cbc:IdentificationCode>NL</);
      const pdf = await fetch(t.url + inv.body['@id'], { headers: { 'x-api-token': c.token, accept: 'application/pdf' } });
      const text = pdfText(Buffer.from(await pdf.arrayBuffer()), `category-${category}`);
      expect(text).toContain(reason.slice(0, 40)); // long reasons wrap
    });
  }

  it('AE and K need the buyer VAT number when issued: a 422 on client', async () => {
    const ae = (await c.post('/api/taxes', { name: 'RC', rate: 0, category: 'AE', exemptionReasonCode: 'VATEX-EU-AE' })).body['@id'];
    const cl = await buyer(c, { name: 'No VAT SARL', peppolId: '0088:4035811991014' }, { city: 'Paris', zip: '75001', country: 'FR' });
    const inv = (await c.post('/api/invoices', { client: cl, lines: [{ description: 'x', price: 100, tax: ae }] })).body;
    const res = await c.patch(inv['@id'], { status: 'pending' });
    expect(res.status).toBe(422);
    expect(res.body.violations[0]).toMatchObject({ propertyPath: 'client', message: expect.stringMatching(/VAT number/) });
    expect((await c.get(inv['@id'])).body.status).toBe('draft');
  });
});

describe('national rules', () => {
  it('a German seller to a German buyer: seller contact, payment means on the invoice and its credit note (DE-R-*)', async () => {
    const c = await seller('Deutsch Co', GERMAN);
    const vat = (await c.post('/api/taxes', { name: 'USt 19%', rate: 19 })).body['@id'];
    const cl = await buyer(c, { name: 'Kunde AG', vatNumber: 'DE987654321', peppolId: '9930:DE987654321' }, { city: 'München', zip: '80331', country: 'DE' });
    const inv = (await c.post('/api/invoices', { client: cl, lines: [{ description: 'Beratung', qty: 3, price: 12000, tax: vat }] })).body;
    await c.patch(inv['@id'], { status: 'pending' });
    const doc = await ubl(c, inv['@id']);
    expect(doc.status, doc.text).toBe(200);
    expect(doc.text).toContain('<cac:Contact><cbc:Name>Erika Muster</cbc:Name><cbc:Telephone>+49 30 1234567</cbc:Telephone><cbc:ElectronicMail>rechnung@muster.test</cbc:ElectronicMail></cac:Contact>');
    expect(doc.text).toContain('<cbc:EndpointID schemeID="9930">DE123456789</cbc:EndpointID>');
    expect(doc.text).not.toContain('schemeID="EM"');
    const credit = await c.post(`${inv['@id']}/credit`, {});
    expect(credit.status, credit.text).toBe(201);
    expect((await c.patch(credit.body['@id'], { status: 'issued' })).status).toBe(200);
    const note = await ubl(c, credit.body['@id']);
    expect(note.status, note.text).toBe(200);
    expect(note.text).toContain('<cac:PaymentMeans><cbc:PaymentMeansCode>1</cbc:PaymentMeansCode></cac:PaymentMeans>');
    // Without the contact's name, the German rules cannot be met: a 422 naming it (for a draft:
    // the issued invoice keeps the details it was issued with).
    await c.patch('/api/company', { contactName: null });
    expect((await ubl(c, inv['@id'])).status).toBe(200);
    const draft = (await c.post('/api/invoices', { client: cl, lines: [{ description: 'Mehr', price: 100, tax: vat }] })).body;
    const refused = await ubl(c, draft['@id']);
    expect(refused.status).toBe(422);
    expect(refused.body.violations.map((v: X) => v.propertyPath)).toContain('company.contactName');
  });

  it('a Belgian seller to a Belgian buyer over 0208 identifiers', async () => {
    const c = await seller('Belge Co', {
      legalName: 'Belge BV', email: 'factuur@belge.test', vatNumber: 'BE0123456749', peppolId: '0208:0123456749', street1: 'Wetstraat 1', city: 'Brussel', zip: '1000', country: 'BE', iban: 'BE68539007547034',
    });
    const vat = (await c.post('/api/taxes', { name: 'BTW 21%', rate: 21 })).body['@id'];
    const six = (await c.post('/api/taxes', { name: 'BTW 6%', rate: 6 })).body['@id'];
    const cl = await buyer(c, { name: 'Klant NV', vatNumber: 'BE0417497106', peppolId: '0208:0417497106' }, { city: 'Antwerpen', zip: '2000', country: 'BE' });
    const inv = (await c.post('/api/invoices', { client: cl, discountType: 'fixed', discountValue: 500, lines: [{ description: 'Advies', qty: 2, price: 15000, tax: vat }, { description: 'Boek', price: 2500, tax: six }] })).body;
    await c.patch(inv['@id'], { status: 'pending' });
    const doc = await ubl(c, inv['@id']);
    expect(doc.status, doc.text).toBe(200);
    expect(doc.text).toContain('<cbc:EndpointID schemeID="0208">0123456749</cbc:EndpointID>');
    expect(doc.text).toContain('<cbc:EndpointID schemeID="0208">0417497106</cbc:EndpointID>');
  });

  it('a company not registered for VAT: every line O with its note, no VAT identifiers, no tax', async () => {
    const c = await seller('Petite Co', {
      legalName: 'Petite SARL', email: 'contact@petite.test', registrationNumber: '123 456 789', peppolId: '0009:12345678900011', street1: 'Rue 1', city: 'Lyon', zip: '69001', country: 'FR',
      vatRegistered: false, vatExemptionNote: 'TVA non applicable, art. 293 B du CGI',
    });
    const vat = (await c.post('/api/taxes', { name: 'TVA 20%', rate: 20 })).body['@id'];
    const cl = await buyer(c, { name: 'Client SAS', vatNumber: 'FR12345678901', peppolId: '0009:98765432100019' }, { city: 'Paris', zip: '75001', country: 'FR' });
    const inv = await c.post('/api/invoices', { client: cl, lines: [{ description: 'Cours', qty: 2, price: 5000, tax: vat }, { description: 'Support', price: 1000 }] });
    expect(inv.status, inv.text).toBe(201);
    expect(inv.body).toMatchObject({ subtotal: 11000, taxTotal: 0, total: 11000 });
    expect(inv.body.taxGroups).toEqual([{ rate: 0, category: 'O', exemptionReason: 'TVA non applicable, art. 293 B du CGI', exemptionReasonCode: null, base: 11000, discount: 0, taxable: 11000, tax: 0 }]);
    await c.patch(inv.body['@id'], { status: 'pending' });
    const doc = await ubl(c, inv.body['@id']);
    expect(doc.status, doc.text).toBe(200);
    expect(doc.text).not.toContain('<cac:PartyTaxScheme>');
    expect(doc.text).toContain('<cac:ClassifiedTaxCategory><cbc:ID>O</cbc:ID><cac:TaxScheme>');
    const pdf = await fetch(t.url + inv.body['@id'], { headers: { 'x-api-token': c.token, accept: 'application/pdf' } });
    expect(pdfText(Buffer.from(await pdf.arrayBuffer()), 'not-registered')).toContain('TVA non applicable, art. 293 B du CGI');
  });
});

describe('issued documents never move (CONTRACT §18)', () => {
  it('issue an invoice, change the profile and the client: the same PDF and UBL bytes; back to draft lets them go', async () => {
    const c = await seller('Frozen Co', { ...GERMAN, legalName: 'Frozen GmbH', iban: null, bic: null });
    const vat = (await c.post('/api/taxes', { name: 'USt', rate: 19 })).body['@id'];
    const cl = await buyer(c, { name: 'Kunde Eins AG', vatNumber: 'DE987654321', peppolId: '9930:DE987654321' }, { city: 'Köln', zip: '50667', country: 'DE' });
    const inv = (await c.post('/api/invoices', { client: cl, lines: [{ description: 'Leistung', price: 10000, tax: vat }] })).body;
    expect((await c.patch(inv['@id'], { status: 'pending' })).status).toBe(200);
    const bytes = async (accept: string) => Buffer.from(await (await fetch(t.url + inv['@id'], { headers: { 'x-api-token': c.token, accept } })).arrayBuffer());
    const [pdf, xml] = [await bytes('application/pdf'), (await ubl(c, inv['@id'])).text];
    expect(xml).toContain('Kunde Eins AG');

    expect((await c.patch('/api/company', { legalName: 'Renamed GmbH', street1: 'Neue Straße 9', iban: 'DE89370400440532013000', contactName: 'Max Neu', peppolId: '0088:4035811991014' })).status).toBe(200);
    expect((await c.patch(cl, { name: 'Kunde Zwei AG', vatNumber: 'DE111111111', peppolId: '9930:DE111111111' })).status).toBe(200);
    const address = (await c.get(`/api/addresses?client=${encodeURIComponent(cl)}`, { accept: 'application/json' })).body[0];
    await c.patch(`/api/addresses/${address.id}`, { city: 'Bonn' });
    expect((await bytes('application/pdf')).equals(pdf)).toBe(true);
    expect((await ubl(c, inv['@id'])).text).toBe(xml);

    // A draft again: today's details.
    expect((await c.patch(inv['@id'], { status: 'draft' })).status).toBe(200);
    const now = (await ubl(c, inv['@id'])).text;
    expect(now).toContain('Renamed GmbH');
    expect(now).toContain('Kunde Zwei AG');
    expect(now).toContain('<cbc:CityName>Bonn</cbc:CityName>');
  });
  it('a document created in an issued state keeps its parties from the start: an invoice POSTed pending, a quote POSTed sent, a recurring invoice\'s run', async () => {
    const c = await seller('Born Issued Co', { ...GERMAN, legalName: 'Born GmbH' });
    const vat = (await c.post('/api/taxes', { name: 'USt', rate: 19 })).body['@id'];
    const cl = await buyer(c, { name: 'Erster Kunde AG', vatNumber: 'DE987654321', peppolId: '9930:DE987654321' }, { city: 'Köln', zip: '50667', country: 'DE' });
    const lines = [{ description: 'Leistung', price: 10000, tax: vat }];
    const inv = await c.post('/api/invoices', { client: cl, status: 'pending', lines });
    expect(inv.status, inv.text).toBe(201);
    const quote = await c.post('/api/quotes', { client: cl, status: 'sent', lines });
    expect(quote.status, quote.text).toBe(201);
    const rec = await c.post('/api/recurring-invoices', { client: cl, frequency: 'monthly', dueInDays: 14, startDate: '2026-03-01', lines });
    expect(rec.status, rec.text).toBe(201);
    expect((await c.patch(rec.body['@id'], { status: 'active' })).status).toBe(200);
    await scheduleRun({ db: t.db.database.db }, { date: '2026-03-01' });
    const runs = (await c.get(`/api/invoices?client=${encodeURIComponent(cl)}&invoiceDate=2026-03-01`, { accept: 'application/json' })).body as X[];
    const made = runs.find((i) => i.recurringInvoice === rec.body['@id']);
    expect(made?.status).toBe('pending');
    const docs = [inv.body['@id'], quote.body['@id'], `/api/invoices/${made!.id}`];
    const pdf = async (iri: string) => Buffer.from(await (await fetch(t.url + iri, { headers: { 'x-api-token': c.token, accept: 'application/pdf' } })).arrayBuffer());
    const before = await Promise.all(docs.map(pdf));
    const xml = [(await ubl(c, docs[0]!)).text, (await ubl(c, docs[2]!)).text];
    expect(xml[0]).toContain('Born GmbH');

    expect((await c.patch('/api/company', { legalName: 'Reborn GmbH', street1: 'Neue Straße 9', contactName: 'Max Neu' })).status).toBe(200);
    expect((await c.patch(cl, { name: 'Zweiter Kunde AG' })).status).toBe(200);
    const after = await Promise.all(docs.map(pdf));
    after.forEach((bytes, i) => expect(bytes.equals(before[i]!), docs[i]).toBe(true));
    expect((await ubl(c, docs[0]!)).text).toBe(xml[0]);
    expect((await ubl(c, docs[2]!)).text).toBe(xml[1]);
  });
});

describe.skipIf(!artefactsAvailable())('what the official artefacts say of our documents', () => {
  it('a Peppol document without the buyer VAT number for reverse charge would fire BR-AE-02 (why the 422 exists)', async () => {
    const c = await seller('Proof Co', { ...GERMAN, legalName: 'Proof GmbH' });
    const ae = (await c.post('/api/taxes', { name: 'RC', rate: 0, category: 'AE', exemptionReasonCode: 'VATEX-EU-AE' })).body['@id'];
    const cl = await buyer(c, { name: 'Acheteur SA', vatNumber: 'FR12345678901', peppolId: '0088:4035811991014' }, { city: 'Paris', zip: '75001', country: 'FR' });
    const inv = (await c.post('/api/invoices', { client: cl, lines: [{ description: 'x', price: 100, tax: ae }] })).body;
    await c.patch(inv['@id'], { status: 'pending' });
    const doc = await ubl(c, inv['@id']);
    expect(doc.status).toBe(200);
    const tampered = doc.text.replace(/(<cac:AccountingCustomerParty>[\s\S]*?)<cac:PartyTaxScheme>[\s\S]*?<\/cac:PartyTaxScheme>/, '$1');
    const r = await validateUbl(tampered);
    expect(r.fatal.map((a) => a.id)).toContain('BR-AE-02');
  });
});
