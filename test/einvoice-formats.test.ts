// XRechnung, Factur-X and ZUGFeRD (CONTRACT §19): the client's eInvoiceFormat and the `profile`
// parameter choose the document; the Factur-X PDF is read back with poppler's tools (pdfinfo,
// pdffonts, pdfdetach, pdftoppm) and its factur-x.xml is byte for byte the CII the service makes
// from the record; every CII and every XRechnung UBL passes the official artefacts (CEN EN 16931
// CII with the CII D16B schema, KoSIT's XRechnung rules) through test/support/einvoice-validate.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { expectValidCii, expectValidUbl } from './support/einvoice-validate.ts';
import { Mailbox, until } from './support/smtp.ts';
import { createEngine } from '../engine/operations.ts';
import { model, tables } from '../server/model.ts';
import { systemPrincipals } from '../server/access/principals.ts';
import { loadDocument, type DocumentKind } from '../server/documents/data.ts';
import { renderCii } from '../server/documents/cii.ts';
import { documentRenderers } from '../server/documents/index.ts';
import { companies } from '../server/schema.ts';
import { eq } from 'drizzle-orm';

let t: TestServer;
let admin: Client;
let companyId: string;
const dir = mkdtempSync(join(tmpdir(), 'einvoice-formats-'));
/** Where the pages of the Factur-X PDFs are drawn (PNG), to be looked at. */
const pagesDir = process.env.EINVOICE_PAGES_DIR ?? join(dir, 'pages');
mkdirSync(pagesDir, { recursive: true });
const PDF = 'application/pdf';
const UBL = 'application/vnd.oasis.ubl+xml';
const LEITWEG = '04011000-12345-67';

async function get(path: string, accept: string) {
  const res = await fetch(t.url + path, { headers: { 'x-api-token': admin.token, accept } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes, text: bytes.toString('utf8') };
}

let n = 0;
function file(bytes: Buffer, ext: string): string {
  const f = join(dir, `f${n++}.${ext}`);
  writeFileSync(f, bytes);
  return f;
}
const run = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' });

/** The CII the service makes for a record, rendered in this process from the same database. */
async function ciiOf(iri: string): Promise<string> {
  const [, path, id] = /^\/api\/([a-z-]+)\/([0-9a-f-]+)$/.exec(iri)!;
  const kind: DocumentKind = path === 'credit-notes' ? 'creditNote' : 'invoice';
  const db = t.db.database.db;
  const engine = createEngine(db, model, tables);
  const p = await systemPrincipals(db)(companyId);
  return renderCii(await loadDocument(engine, db, p, model.get(kind === 'creditNote' ? 'CreditNote' : 'Invoice'), kind, id!));
}

/** The Factur-X PDF and the XRechnung UBL of a record, rendered in this process (whatever the clock says). */
async function renderedHere(iri: string): Promise<{ pdf: Buffer; ubl: Buffer }> {
  const [, path, id] = /^\/api\/([a-z-]+)\/([0-9a-f-]+)$/.exec(iri)!;
  const kind = path === 'credit-notes' ? 'creditNote' : 'invoice';
  const db = t.db.database.db;
  const renderers = documentRenderers(createEngine(db, model, tables), db);
  const p = await systemPrincipals(db)(companyId);
  const r = model.get(kind === 'creditNote' ? 'CreditNote' : 'Invoice');
  const bytes = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b));
  return { pdf: bytes((await renderers.pdf(p, r, kind, id!, 'facturx')).body), ubl: bytes((await renderers.ubl(p, r, kind, id!, 'xrechnung')).body) };
}

/** What poppler says of a Factur-X PDF, with its factur-x.xml. */
function readFacturX(pdf: Buffer, name: string) {
  const f = file(pdf, 'pdf');
  const info = run('pdfinfo', '-isodates', f);
  const meta = run('pdfinfo', '-meta', f);
  const fonts = run('pdffonts', f).trim().split('\n').slice(2);
  const list = run('pdfdetach', '-list', f);
  const out = join(dir, `detach${n++}`);
  mkdirSync(out);
  run('pdfdetach', '-saveall', '-o', out, f);
  const files = readdirSync(out);
  run('pdftoppm', '-png', '-r', '70', f, join(pagesDir, name));
  return { info, meta, fonts, list, files, xml: files.includes('factur-x.xml') ? readFileSync(join(out, 'factur-x.xml')) : null };
}

/**
 * What makes `pdf` a Factur-X 1.07 EN 16931 file (CONTRACT §19), read back with poppler and from its
 * catalogue: PDF/A-3b (pdfaid part 3, conformance B) with the Factur-X extension schema and values,
 * the sRGB output intent, every font embedded, one attachment `factur-x.xml` associated from the
 * catalogue's AF as Data, no encryption, no JavaScript, and every date the record's `date`
 * (YYYY-MM-DD), none the clock's.
 */
function expectFacturX(pdf: Buffer, name: string, date: string) {
  const fx = readFacturX(pdf, name);
  expect(fx.info).toMatch(/^PDF version:\s+1\.7$/m);
  expect(fx.info).toMatch(/^Encrypted:\s+no$/m);
  expect(fx.info).toMatch(/^JavaScript:\s+no$/m);
  expect(fx.info).toMatch(new RegExp(`^CreationDate:\\s+${date}T00:00:00Z$`, 'm'));
  expect(fx.info).toMatch(new RegExp(`^ModDate:\\s+${date}T00:00:00Z$`, 'm'));
  expect(fx.meta).toContain('<pdfaid:part>3</pdfaid:part>');
  expect(fx.meta).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
  for (const p of ['<fx:DocumentType>INVOICE</fx:DocumentType>', '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>', '<fx:Version>1.0</fx:Version>', '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>', '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>', '<pdfaSchema:prefix>fx</pdfaSchema:prefix>']) {
    expect(fx.meta).toContain(p);
  }
  // The XMP's dates are the record's too.
  expect([...fx.meta.matchAll(/<xmp:\w+Date>([^<]+)</g)].map((m) => m[1])).toEqual([`${date}T00:00:00Z`, `${date}T00:00:00Z`, `${date}T00:00:00Z`]);
  expect(fx.fonts.length).toBeGreaterThan(0);
  for (const row of fx.fonts) expect(row).toMatch(/\s(CID TrueType|TrueType|Type 1C?|CID Type 0C?)\s+\S+\s+yes\s+yes\s+yes\s/);
  expect(fx.list).toMatch(/^1 embedded files\n1: factur-x\.xml$/m);
  expect(fx.files).toEqual(['factur-x.xml']);
  // The catalogue associates the file (AF), as Data, with its MIME type, and states the sRGB intent.
  const raw = pdf.toString('latin1');
  expect(raw).toMatch(/\/Type \/Catalog[\s\S]*?\/AF \[\d+ 0 R\][\s\S]*?\/OutputIntents \[\d+ 0 R\]/);
  expect(raw).toContain('/AFRelationship /Data');
  expect(raw).toContain('/Subtype /text#2Fxml');
  expect(raw).toMatch(/\/S \/GTS_PDFA1[\s\S]*?\/OutputConditionIdentifier \(sRGB IEC61966-2\.1\)/);
  expect(raw).not.toMatch(/\/JavaScript|\/JS |\/Encrypt/);
  const d = date.replaceAll('-', '');
  // The Info dictionary's and the attachment's creation and modification dates.
  expect([...raw.matchAll(/\(D:([^)]*)\)/g)].map((m) => m[1])).toEqual(Array(4).fill(`${d}000000Z`));
  return fx;
}

const clients = {} as Record<'facturx' | 'xrechnung' | 'peppol', string>;
const taxes: Record<string, string> = {};

async function clientWith(name: string, o: { country: string; vat: string; peppolId?: string; format?: string; buyerReference?: string; currency?: string }): Promise<string> {
  const res = await admin.post('/api/clients', {
    name, currency: o.currency ?? 'EUR', vatNumber: o.vat, ...(o.peppolId ? { peppolId: o.peppolId } : {}), ...(o.format ? { eInvoiceFormat: o.format } : {}), ...(o.buyerReference ? { buyerReference: o.buyerReference } : {}),
  });
  expect(res.status, res.text).toBe(201);
  const iri = res.body['@id'];
  await admin.post('/api/addresses', { client: iri, street1: 'Rue du Client 4', city: 'Lyon', zip: '69001', country: o.country });
  await admin.post('/api/contacts', { client: iri, firstName: 'Claire', lastName: 'Martin', email: `claire@${name.toLowerCase().replace(/\W+/g, '')}.test` });
  return iri;
}

async function invoiceFor(clientIri: string, extra: Record<string, unknown> = {}) {
  const res = await admin.post('/api/invoices', {
    client: clientIri, dueDate: '2026-04-30', invoiceDate: '2026-04-01', discountType: 'percentage', discountValue: 10, notes: 'Merci pour votre confiance.',
    lines: [
      { description: 'Conseil & conception « ÉTÉ »', qty: 3, price: 12000, tax: taxes.std },
      { description: 'Livres', qty: 2, price: 1550, tax: taxes.reduced },
    ],
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  const issued = await admin.patch(res.body['@id'], { status: 'pending' });
  expect(issued.status, issued.text).toBe(200);
  return issued.body;
}

let smtp: Mailbox;

beforeAll(async () => {
  smtp = new Mailbox();
  await smtp.start();
  t = await startTestServer({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Billing <billing@atelier.test>', MAIL_POLL_INTERVAL: '100ms', MAIL_TIMEOUT: '3s' });
  admin = client(t, await tokenFor(t, { email: 'admin@fx.test', company: 'FX Co', currency: 'EUR' }));
  const profile = await admin.patch('/api/company', {
    legalName: 'Atelier Müller GmbH', email: 'billing@atelier.test', phone: '+49 30 123456', contactName: 'Jana Müller', peppolId: '9930:DE123456789', vatNumber: 'DE123456789', registrationNumber: 'HRB 12345',
    street1: 'Hauptstraße 5', city: 'Berlin', zip: '10115', country: 'DE', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', invoiceFooter: 'Atelier Müller GmbH · Berlin',
  });
  expect(profile.status, profile.text).toBe(200);
  companyId = (await t.db.database.db.select({ id: companies.id }).from(companies).where(eq(companies.name, 'FX Co')))[0]!.id;
  taxes.std = (await admin.post('/api/taxes', { name: 'MwSt 19%', rate: 19 })).body['@id'];
  taxes.reduced = (await admin.post('/api/taxes', { name: 'MwSt 7%', rate: 7 })).body['@id'];
  // A French business without an electronic address (Factur-X needs none), a German public buyer
  // reached by its Leitweg-ID (scheme 0204), a German business on Peppol.
  clients.facturx = await clientWith('Boulangerie Dupont', { country: 'FR', vat: 'FR12345678901', format: 'facturx' });
  clients.xrechnung = await clientWith('Stadt Beispielhausen', { country: 'DE', vat: 'DE987654321', peppolId: `0204:${LEITWEG}`, format: 'xrechnung', buyerReference: LEITWEG });
  clients.peppol = await clientWith('Peppol Buyer GmbH', { country: 'DE', vat: 'DE111111111', peppolId: '9930:DE111111111' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
  if (!process.env.EINVOICE_PAGES_DIR) rmSync(dir, { recursive: true, force: true });
});

describe("the client's eInvoiceFormat and buyerReference", () => {
  it('default to peppol and none, are read back, and refuse a format that does not exist (422 naming the field)', async () => {
    const c = await admin.post('/api/clients', { name: 'Plain client' });
    expect(c.body).toMatchObject({ eInvoiceFormat: 'peppol' });
    expect(c.body.buyerReference ?? null).toBeNull();
    expect((await admin.get(clients.xrechnung)).body).toMatchObject({ eInvoiceFormat: 'xrechnung', buyerReference: LEITWEG });
    const bad = await admin.patch(c.body['@id'], { eInvoiceFormat: 'edifact' });
    expect(bad.status).toBe(422);
    expect(bad.body.violations[0].propertyPath).toBe('eInvoiceFormat');
  });
});

describe('Factur-X / ZUGFeRD (profile EN 16931)', () => {
  it("is the PDF of a facturx client's invoice: PDF/A-3b, factur-x.xml byte for byte the service's CII, which passes EN 16931", async () => {
    const inv = await invoiceFor(clients.facturx);
    const res = await get(inv['@id'], PDF);
    expect(res.status, res.text).toBe(200);
    expect(res.type).toBe(PDF);
    const fx = expectFacturX(res.bytes, 'facturx-invoice', '2026-04-01');
    const cii = await ciiOf(inv['@id']);
    expect(fx.xml!.equals(Buffer.from(cii, 'utf8'))).toBe(true);
    await expectValidCii(cii);
    // The invoice's figures in the CII: 360.00 at 19 %, 31.00 at 7 %, 10 % off each.
    expect(cii).toContain('<ram:TypeCode>380</ram:TypeCode>');
    expect(cii).toContain('<ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:cen.eu:en16931:2017</ram:ID>');
    expect(cii).toContain(`<ram:GrandTotalAmount>${(inv.total / 100).toFixed(2)}</ram:GrandTotalAmount>`);
    expect(cii.match(/<ram:SpecifiedTradeAllowanceCharge>/g)?.length).toBe(2);
    // The same record, the same bytes.
    expect((await get(inv['@id'], PDF)).bytes.equals(res.bytes)).toBe(true);
  });

  it('is the PDF of its credit notes too (TypeCode 381, the invoice referenced)', async () => {
    const inv = await invoiceFor(clients.facturx);
    const note = await admin.post(`${inv['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    expect((await admin.patch(note.body['@id'], { status: 'issued' })).status).toBe(200);
    const res = await get(note.body['@id'], PDF);
    expect(res.status, res.text).toBe(200);
    const fx = expectFacturX(res.bytes, 'facturx-credit-note', note.body.issueDate);
    const cii = await ciiOf(note.body['@id']);
    expect(fx.xml!.equals(Buffer.from(cii, 'utf8'))).toBe(true);
    expect(cii).toContain('<ram:TypeCode>381</ram:TypeCode>');
    expect(cii).toContain(`<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>${inv.number}</ram:IssuerAssignedID>`);
    await expectValidCii(cii);
    expect((await get(note.body['@id'], PDF)).bytes.equals(res.bytes)).toBe(true);
  });

  it('the same record gives the same bytes whatever the clock says: the Factur-X PDF and the XRechnung, invoice and credit note', async () => {
    const inv = await invoiceFor(clients.xrechnung);
    const note = await admin.post(`${inv['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    expect((await admin.patch(note.body['@id'], { status: 'issued' })).status).toBe(200);
    for (const iri of [inv['@id'] as string, note.body['@id'] as string]) {
      const served = { pdf: (await get(`${iri}?profile=facturx`, PDF)).bytes, ubl: (await get(`${iri}?profile=xrechnung`, UBL)).bytes };
      expect(served.pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const now = await renderedHere(iri);
      // Years later, at another time of day: Date is the only thing faked, and only for this render.
      vi.useFakeTimers({ toFake: ['Date'], now: new Date('2031-07-15T13:45:12.345Z') });
      let later: typeof now;
      try {
        later = await renderedHere(iri);
      } finally {
        vi.useRealTimers();
      }
      expect(later.pdf.equals(served.pdf)).toBe(true);
      expect(later.ubl.equals(served.ubl)).toBe(true);
      expect(now.pdf.equals(served.pdf)).toBe(true);
    }
  });

  it('profile chooses regardless of the client: facturx for a peppol client, pdf for a facturx client', async () => {
    const peppolInv = await invoiceFor(clients.peppol);
    const asked = await get(`${peppolInv['@id']}?profile=facturx`, PDF);
    expect(asked.status, asked.text).toBe(200);
    const fx = readFacturX(asked.bytes, 'facturx-asked');
    expect(fx.files).toEqual(['factur-x.xml']);
    await expectValidCii(fx.xml!.toString('utf8'));
    // Without Accept, the profile's document answers.
    const bare = await fetch(`${t.url}${peppolInv['@id']}?profile=facturx`, { headers: { 'x-api-token': admin.token } });
    expect(bare.headers.get('content-type')).toBe(PDF);
    expect(Buffer.from(await bare.arrayBuffer()).equals(asked.bytes)).toBe(true);

    const fxInv = await invoiceFor(clients.facturx);
    const plain = await get(`${fxInv['@id']}?profile=pdf`, PDF);
    expect(plain.status).toBe(200);
    const f = file(plain.bytes, 'pdf');
    expect(run('pdfdetach', '-list', f)).toMatch(/^0 embedded files/m);
    expect(run('pdfinfo', f)).toMatch(/^PDF version:\s+1\.3$/m);
  });

  it('refuses what EN 16931 cannot carry before any byte: a three-decimal currency is a 422 on currency', async () => {
    const bhd = await clientWith('Gulf Trading WLL', { country: 'BH', vat: 'BH123456789', format: 'facturx', currency: 'BHD' });
    const inv = await invoiceFor(bhd);
    const res = await admin.get(inv['@id'], { accept: PDF });
    expect(res.status).toBe(422);
    expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['currency']);
    // The PDF alone is still there.
    expect((await get(`${inv['@id']}?profile=pdf`, PDF)).status).toBe(200);
    // Its credit note: the same.
    const note = await admin.post(`${inv['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    expect((await admin.patch(note.body['@id'], { status: 'issued' })).status).toBe(200);
    const noteRes = await admin.get(note.body['@id'], { accept: PDF });
    expect(noteRes.status).toBe(422);
    expect(noteRes.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['currency']);
    expect(noteRes.body.violations[0].message).toMatch(/BHD|decimal/i);
  });
});

describe('tax categories in the CII (CONTRACT §18)', () => {
  it('reverse charge, intra-community supply, export and exemption pass EN 16931 with their reasons', async () => {
    const cats = {
      AE: { name: 'Reverse charge', rate: 0, category: 'AE', exemptionReasonCode: 'VATEX-EU-AE' },
      K: { name: 'Intra-community supply', rate: 0, category: 'K', exemptionReasonCode: 'VATEX-EU-IC' },
      G: { name: 'Export', rate: 0, category: 'G', exemptionReasonCode: 'VATEX-EU-G' },
      E: { name: 'Exempt', rate: 0, category: 'E', exemptionReason: 'Exempt under § 4 Nr. 21 UStG' },
    };
    for (const [cat, tax] of Object.entries(cats)) {
      const created = await admin.post('/api/taxes', tax);
      expect(created.status, created.text).toBe(201);
      const inv = await invoiceFor(clients.facturx, { lines: [{ description: `Service (${cat})`, qty: 2, price: 40000, tax: created.body['@id'] }], discountType: 'none', discountValue: 0 });
      const res = await get(inv['@id'], PDF);
      expect(res.status, res.text).toBe(200);
      const cii = readFacturX(res.bytes, `facturx-${cat}`).xml!.toString('utf8');
      expect(cii).toBe(await ciiOf(inv['@id']));
      expect(cii).toContain(`<ram:CategoryCode>${cat}</ram:CategoryCode>`);
      if ('exemptionReasonCode' in tax) expect(cii).toContain(`<ram:ExemptionReasonCode>${tax.exemptionReasonCode}</ram:ExemptionReasonCode>`);
      else expect(cii).toContain(`<ram:ExemptionReason>${tax.exemptionReason}</ram:ExemptionReason>`);
      // An intra-community supply states the delivery date and the deliver-to country.
      if (cat === 'K') expect(cii).toMatch(/<ram:ShipToTradeParty><ram:PostalTradeAddress>.*<ram:CountryID>FR<\/ram:CountryID>.*<ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime><udt:DateTimeString format="102">20260401</);
      await expectValidCii(cii);
    }
  });
});

describe('a seller not registered for VAT (category O)', () => {
  it("makes every line O with the profile's note, without VAT identifiers, and the CII passes EN 16931", async () => {
    const small = client(t, await tokenFor(t, { email: 'admin@petite.test', company: 'Petite Entreprise', currency: 'EUR' }));
    const profile = await small.patch('/api/company', {
      legalName: 'Atelier Petit EI', email: 'contact@petit.test', registrationNumber: '12345678900017', street1: '3 Rue Haute', city: 'Nantes', zip: '44000', country: 'FR',
      vatRegistered: false, vatExemptionNote: 'TVA non applicable, art. 293 B du CGI', iban: 'FR7630006000011234567890189',
    });
    expect(profile.status, profile.text).toBe(200);
    const c = (await small.post('/api/clients', { name: 'Café du Port', eInvoiceFormat: 'facturx' })).body['@id'];
    await small.post('/api/addresses', { client: c, street1: '1 Quai', city: 'Nantes', zip: '44000', country: 'FR' });
    // A tax set up before (or by habit) does not apply: the line is O.
    const tva = (await small.post('/api/taxes', { name: 'TVA', rate: 20 })).body['@id'];
    const inv = await small.post('/api/invoices', { client: c, invoiceDate: '2026-03-02', dueDate: '2026-03-31', lines: [{ description: 'Réparation de chaises', qty: 4, price: 4500, tax: tva }] });
    expect(inv.status, inv.text).toBe(201);
    expect((await small.patch(inv.body['@id'], { status: 'pending' })).status).toBe(200);
    const res = await fetch(t.url + inv.body['@id'], { headers: { 'x-api-token': small.token, accept: PDF } });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status, bytes.toString('utf8')).toBe(200);
    const cii = readFacturX(bytes, 'facturx-O').xml!.toString('utf8');
    expect(cii).toContain('<ram:CategoryCode>O</ram:CategoryCode>');
    expect(cii).toContain('<ram:ExemptionReason>TVA non applicable, art. 293 B du CGI</ram:ExemptionReason>');
    expect(cii).not.toContain('schemeID="VA"');
    expect(cii).not.toContain('<ram:RateApplicablePercent>');
    await expectValidCii(cii);
  });
});

describe('XRechnung 3.0 UBL', () => {
  it("is the UBL of an xrechnung client's invoice, with the client's Leitweg-ID, and passes KoSIT's rules", async () => {
    const inv = await invoiceFor(clients.xrechnung);
    const res = await get(inv['@id'], UBL);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>');
    expect(res.text).toContain('<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>');
    expect(res.text).toContain(`<cbc:BuyerReference>${LEITWEG}</cbc:BuyerReference>`);
    await expectValidUbl(res.text, { xrechnung: true });
    expect((await get(inv['@id'], UBL)).bytes.equals(res.bytes)).toBe(true);
    // The PDF stays the PDF of §13 for such a client.
    const pdf = await get(inv['@id'], PDF);
    expect(run('pdfdetach', '-list', file(pdf.bytes, 'pdf'))).toMatch(/^0 embedded files/m);
  });

  it("is the UBL of its credit notes too (CreditNote 381, payment instructions, the invoice's buyer reference)", async () => {
    const inv = await invoiceFor(clients.xrechnung, { buyerReference: '991-77777-01' });
    const note = await admin.post(`${inv['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    expect((await admin.patch(note.body['@id'], { status: 'issued' })).status).toBe(200);
    const res = await get(note.body['@id'], UBL);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(res.text).toContain('xrechnung_3.0</cbc:CustomizationID>');
    expect(res.text).toContain('<cbc:BuyerReference>991-77777-01</cbc:BuyerReference>');
    await expectValidUbl(res.text, { xrechnung: true });
  });

  it("takes the invoice's own buyerReference over the client's", async () => {
    const inv = await invoiceFor(clients.xrechnung, { buyerReference: '991-01234-56' });
    const res = await get(inv['@id'], UBL);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('<cbc:BuyerReference>991-01234-56</cbc:BuyerReference>');
    await expectValidUbl(res.text, { xrechnung: true });
    // The PDF states it too.
    const pdf = file((await get(inv['@id'], PDF)).bytes, 'pdf');
    run('pdftoppm', '-png', '-r', '70', pdf, join(pagesDir, 'xrechnung-reference'));
    expect(run('pdftotext', '-layout', pdf, '-').replace(/\s+/g, ' ')).toContain('Your reference 991-01234-56');
  });

  it('without a buyer reference is a 422 naming buyerReference; profile=xrechnung asks for it for any client', async () => {
    const peppolInv = await invoiceFor(clients.peppol);
    const peppol = await get(peppolInv['@id'], UBL);
    expect(peppol.status, peppol.text).toBe(200);
    expect(peppol.text).toContain('#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>');
    const refused = await admin.get(`${peppolInv['@id']}?profile=xrechnung`, { accept: UBL });
    expect(refused.status).toBe(422);
    expect(refused.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['buyerReference']);
    const asked = await get(`${(await invoiceFor(clients.peppol, { buyerReference: 'PO-4711' }))['@id']}?profile=xrechnung`, UBL);
    expect(asked.status, asked.text).toBe(200);
    expect(asked.text).toContain('xrechnung_3.0</cbc:CustomizationID>');
    await expectValidUbl(asked.text, { xrechnung: true });
    // A credit note's buyer reference is its invoice's, else its client's: without either, the same 422.
    const note = await admin.post(`${peppolInv['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    expect((await admin.patch(note.body['@id'], { status: 'issued' })).status).toBe(200);
    const noteRefused = await admin.get(`${note.body['@id']}?profile=xrechnung`, { accept: UBL });
    expect(noteRefused.status).toBe(422);
    expect(noteRefused.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['buyerReference']);
    expect((await get(note.body['@id'], UBL)).status).toBe(200);
  });

  it('refuses a three-decimal currency with a 422 on currency', async () => {
    const kwd = await clientWith('Kuwait Trading', { country: 'KW', vat: 'KW123', format: 'xrechnung', buyerReference: 'REF-1', currency: 'KWD' });
    const res = await admin.get((await invoiceFor(kwd))['@id'], { accept: UBL });
    expect(res.status).toBe(422);
    expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toContain('currency');
  });
});

describe('the profile parameter', () => {
  it('is declared: an unknown value is a 400, a value no document of the Accept type takes is a 406, and OpenAPI lists it', async () => {
    const inv = await invoiceFor(clients.peppol);
    const bad = await admin.get(`${inv['@id']}?profile=edifact`, { accept: PDF });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/profile/);
    expect((await admin.get(`${inv['@id']}?profile=facturx`, { accept: UBL })).status).toBe(406);
    expect((await admin.get(`${inv['@id']}?profile=peppol`, { accept: PDF })).status).toBe(406);
    // A quote has its PDF only.
    const quote = await admin.post('/api/quotes', { client: clients.facturx, lines: [{ description: 'Offer', qty: 1, price: 1000 }] });
    expect((await admin.get(`${quote.body['@id']}?profile=facturx`, { accept: PDF })).status).toBe(400);
    expect((await get(`${quote.body['@id']}?profile=pdf`, PDF)).status).toBe(200);

    const spec = (await admin.get('/api/docs.json', { accept: 'application/json' })).body;
    const read = spec.paths['/api/invoices/{id}'].get;
    const param = read.parameters.find((p: { name: string }) => p.name === 'profile');
    expect(param).toMatchObject({ in: 'query', required: false });
    expect(JSON.stringify(param.schema)).toMatch(/peppol[\s\S]*xrechnung[\s\S]*facturx|pdf/);
    for (const v of ['peppol', 'xrechnung', 'facturx', 'pdf']) expect(JSON.stringify(param)).toContain(v);
  });
});

describe("e-mails attach what the client's format asks", () => {
  /** E-mails the document at `iri` (a draft is issued by it) and waits for the message. */
  async function mailed(iri: string) {
    const before = smtp.arrived.length;
    const e = await admin.post('/api/emails', { document: iri });
    expect(e.status, e.text).toBe(201);
    await until(async () => (await admin.get(`/api/emails/${e.body.id}`, { accept: 'application/json' })).body.status === 'sent', 20_000, 'the e-mail sent');
    const m = smtp.arrived.slice(before)[0]!.parsed;
    const invoice = (await admin.get(iri, { accept: 'application/json' })).body;
    return { email: e.body, m, invoice, iri };
  }
  async function sent(clientIri: string) {
    const draft = await admin.post('/api/invoices', { client: clientIri, invoiceDate: '2026-05-04', dueDate: '2026-06-03', lines: [{ description: 'Wartung', qty: 1, price: 50000, tax: taxes.std }] });
    expect(draft.status, draft.text).toBe(201);
    return mailed(draft.body['@id']);
  }
  /** A draft credit note of an issued invoice of the client. */
  async function creditNoteOf(clientIri: string, extra: Record<string, unknown> = {}): Promise<string> {
    const note = await admin.post(`${(await invoiceFor(clientIri, extra))['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    expect(note.body.status).toBe('draft');
    return note.body['@id'];
  }

  it('facturx: the hybrid PDF, byte for byte what GET returns, with factur-x.xml inside', async () => {
    const { email, m, invoice, iri } = await sent(clients.facturx);
    expect(email.attach).toEqual(['pdf']);
    expect(m.attachments.map((a) => [a.filename, a.contentType])).toEqual([[`${invoice.number}.pdf`, PDF]]);
    const pdf = await get(iri, PDF);
    expect(m.attachments[0]!.content.equals(pdf.bytes)).toBe(true);
    const fx = readFacturX(pdf.bytes, 'facturx-email');
    expect(fx.files).toEqual(['factur-x.xml']);
    await expectValidCii(fx.xml!.toString('utf8'));
  }, 60_000);

  it('xrechnung: the XRechnung XML with the PDF', async () => {
    const { email, m, invoice, iri } = await sent(clients.xrechnung);
    expect(email.attach).toEqual(['pdf', 'ubl']);
    expect(m.attachments.map((a) => a.filename)).toEqual([`${invoice.number}.pdf`, `${invoice.number}.xml`]);
    const xml = await get(iri, UBL);
    expect(m.attachments[1]!.content.equals(xml.bytes)).toBe(true);
    expect(xml.text).toContain('xrechnung_3.0</cbc:CustomizationID>');
    expect(m.attachments[0]!.content.equals((await get(iri, PDF)).bytes)).toBe(true);
  }, 60_000);

  it('credit notes too: facturx the hybrid PDF; xrechnung the XML with the PDF', async () => {
    const fx = await mailed(await creditNoteOf(clients.facturx));
    expect(fx.invoice.status).toBe('issued');
    expect(fx.email.attach).toEqual(['pdf']);
    expect(fx.m.attachments.map((a) => [a.filename, a.contentType])).toEqual([[`${fx.invoice.number}.pdf`, PDF]]);
    const pdf = await get(fx.iri, PDF);
    expect(fx.m.attachments[0]!.content.equals(pdf.bytes)).toBe(true);
    const cii = readFacturX(pdf.bytes, 'facturx-credit-note-email').xml!.toString('utf8');
    expect(cii).toContain('<ram:TypeCode>381</ram:TypeCode>');
    await expectValidCii(cii);

    const xr = await mailed(await creditNoteOf(clients.xrechnung));
    expect(xr.email.attach).toEqual(['pdf', 'ubl']);
    expect(xr.m.attachments.map((a) => a.filename)).toEqual([`${xr.invoice.number}.pdf`, `${xr.invoice.number}.xml`]);
    const xml = await get(xr.iri, UBL);
    expect(xr.m.attachments[1]!.content.equals(xml.bytes)).toBe(true);
    expect(xml.text).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(xml.text).toContain('xrechnung_3.0</cbc:CustomizationID>');
    await expectValidUbl(xml.text, { xrechnung: true });
  }, 60_000);

  it('an issued invoice goes as it was issued: the format, reference and address it was issued with, whatever the client says since', async () => {
    const c = await clientWith(`Stadt im Wandel ${n++}`, { country: 'DE', vat: 'DE987654321', peppolId: `0204:${LEITWEG}`, format: 'xrechnung', buyerReference: '991-44444-04' });
    const issued = await invoiceFor(c);
    // The client changes its mind after the invoice was issued: no reference, no address, another format.
    expect((await admin.patch(c, { eInvoiceFormat: 'peppol', buyerReference: null })).status).toBe(200);
    for (const a of (await admin.get(`/api/addresses?client=${encodeURIComponent(c)}`, { accept: 'application/json' })).body) expect((await admin.delete(`/api/addresses/${a.id}`)).status).toBe(204);
    const { email, m, invoice, iri } = await mailed(issued['@id']);
    expect(email.attach).toEqual(['pdf', 'ubl']);
    const xml = await get(iri, UBL);
    expect(xml.text).toContain('xrechnung_3.0</cbc:CustomizationID>');
    expect(xml.text).toContain('<cbc:BuyerReference>991-44444-04</cbc:BuyerReference>');
    expect(m.attachments.map((a) => a.filename)).toEqual([`${invoice.number}.pdf`, `${invoice.number}.xml`]);
    expect(m.attachments[1]!.content.equals(xml.bytes)).toBe(true);
    await expectValidUbl(xml.text, { xrechnung: true });
  }, 60_000);

  it("xrechnung: a credit note takes the buyer reference of the invoice it credits, when the client has none", async () => {
    const c = await clientWith(`Gemeinde mit Rechnungsreferenz ${n++}`, { country: 'DE', vat: 'DE987654321', peppolId: `0204:${LEITWEG}`, format: 'xrechnung' });
    const { email, m, invoice, iri } = await mailed(await creditNoteOf(c, { buyerReference: '991-33333-03' }));
    expect(email.attach).toEqual(['pdf', 'ubl']);
    const xml = await get(iri, UBL);
    expect(xml.text).toContain('<cbc:BuyerReference>991-33333-03</cbc:BuyerReference>');
    expect(m.attachments.map((a) => a.filename)).toEqual([`${invoice.number}.pdf`, `${invoice.number}.xml`]);
    expect(m.attachments[1]!.content.equals(xml.bytes)).toBe(true);
    await expectValidUbl(xml.text, { xrechnung: true });
  }, 60_000);
});

describe('e-mails refuse, before any byte, the e-invoice a document cannot make (CONTRACT §18, §19)', () => {
  /** E-mailing a new draft invoice of the client (or the draft `document`) is refused with `what`. */
  async function refused(clientIri: string, what: RegExp, document?: string) {
    const draft = document ? { body: { '@id': document } } : await admin.post('/api/invoices', { client: clientIri, invoiceDate: '2026-05-04', dueDate: '2026-06-03', lines: [{ description: 'Wartung', qty: 1, price: 50000, tax: taxes.std }] });
    if (!document) expect((draft as { status: number }).status).toBe(201);
    const before = (await admin.get('/api/emails', { accept: 'application/json' })).body.length;
    const e = await admin.post('/api/emails', { document: draft.body['@id'], to: ['claire@example.test'] });
    expect(e.status, e.text).toBe(422);
    expect(e.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['attach']);
    expect(e.body.violations[0].message).toMatch(what);
    // Nothing changed: no e-mail, and the invoice is still a draft.
    expect((await admin.get('/api/emails', { accept: 'application/json' })).body.length).toBe(before);
    expect((await admin.get(draft.body['@id'], { accept: 'application/json' })).body.status).toBe('draft');
  }

  it('a Factur-X client without an address with a country: its PDF would be a Factur-X without the buyer\'s country', async () => {
    const c = await admin.post('/api/clients', { name: `Sans adresse ${n++}`, currency: 'EUR', eInvoiceFormat: 'facturx' });
    expect(c.status, c.text).toBe(201);
    await refused(c.body['@id'], /Factur-X PDF: the client has no address with a country/);
  });

  it('an invoice issued to a client without an electronic address, which has one since: its e-invoice is made with the parties it was issued with', async () => {
    const c = await clientWith(`Later addressed ${n++}`, { country: 'BE', vat: 'BE0123456749' });
    const issued = await invoiceFor(c);
    expect((await admin.patch(c, { peppolId: '0208:0123456749' })).status).toBe(200);
    const before = (await admin.get('/api/emails', { accept: 'application/json' })).body.length;
    const e = await admin.post('/api/emails', { document: issued['@id'], to: ['claire@example.test'], attach: ['pdf', 'ubl'] });
    expect(e.status, e.text).toBe(422);
    expect(e.body.violations[0]).toMatchObject({ propertyPath: 'attach' });
    expect(e.body.violations[0].message).toMatch(/e-invoice \(UBL\): the client has no electronic address/);
    expect((await admin.get('/api/emails', { accept: 'application/json' })).body.length).toBe(before);
    // And what the API serves agrees: the issued invoice makes no UBL either.
    expect((await fetch(t.url + issued['@id'], { headers: { 'x-api-token': admin.token, accept: UBL } })).status).toBe(422);
  });

  it('an XRechnung client without a buyer reference', async () => {
    const c = await clientWith(`Gemeinde ohne Referenz ${n++}`, { country: 'DE', vat: 'DE987654321', peppolId: `0204:${LEITWEG}`, format: 'xrechnung' });
    await refused(c, /XRechnung: neither the document nor the client has a buyer reference/);
    // Nor its credit note, whose invoice has none either.
    const inv = await invoiceFor(c);
    const note = await admin.post(`${inv['@id']}/credit`, {});
    expect(note.status, note.text).toBe(201);
    await refused(c, /XRechnung: neither the document nor the client has a buyer reference/, note.body['@id']);
  });
});

describe("the client page offers the client's format", () => {
  async function linkTo(iri: string) {
    const res = await admin.post('/api/document-links', { document: iri });
    expect(res.status, res.text).toBe(201);
    const url = new URL(res.body.url as string);
    const page = await (await fetch(t.url + url.pathname)).text();
    const downloads = [...page.matchAll(/<a class="cl-btn" href="([^"]+)" download="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1]!.replace(url.pathname, ''), m[2], m[3]]);
    const file = async (suffix: string) => Buffer.from(await (await fetch(t.url + url.pathname + suffix)).arrayBuffer());
    return { downloads, file };
  }

  it('facturx: one download, the Factur-X PDF; xrechnung: the PDF and the XRechnung XML', async () => {
    const fxInv = await invoiceFor(clients.facturx);
    const fx = await linkTo(fxInv['@id']);
    expect(fx.downloads).toEqual([['/pdf', `${fxInv.number}.pdf`, 'Download PDF (Factur-X e-invoice)']]);
    const pdf = await fx.file('/pdf');
    expect(pdf.equals((await get(fxInv['@id'], PDF)).bytes)).toBe(true);
    expect(readFacturX(pdf, 'facturx-link').files).toEqual(['factur-x.xml']);

    const xrInv = await invoiceFor(clients.xrechnung);
    const xr = await linkTo(xrInv['@id']);
    expect(xr.downloads).toEqual([['/pdf', `${xrInv.number}.pdf`, 'Download PDF'], ['/ubl', `${xrInv.number}.xml`, 'E-invoice (XRechnung)']]);
    expect((await xr.file('/ubl')).equals((await get(xrInv['@id'], UBL)).bytes)).toBe(true);
  });
});

describe('random documents', () => {
  it('make a CII (inside the Factur-X PDF) that passes EN 16931 and an XRechnung that passes KoSIT, or a 422 naming a field', async () => {
    taxes.zero ??= (await admin.post('/api/taxes', { name: 'Nullsatz', rate: 0 })).body['@id'];
    taxes.incl ??= (await admin.post('/api/taxes', { name: 'MwSt inkl.', rate: 19, type: 'inclusive' })).body['@id'];
    taxes.ae ??= (await admin.post('/api/taxes', { name: 'Steuerschuldnerschaft des Leistungsempfängers', rate: 0, category: 'AE', exemptionReasonCode: 'VATEX-EU-AE' })).body['@id'];
    taxes.exempt ??= (await admin.post('/api/taxes', { name: 'Steuerfrei', rate: 0, category: 'E', exemptionReason: 'Steuerfrei nach § 4 Nr. 14 UStG' })).body['@id'];
    const yen = await clientWith('Tokyo Trading KK', { country: 'JP', vat: 'JP1234567890123', peppolId: '0088:4035811991014', currency: 'JPY' });
    const line = fc.record({
      description: fc.constantFrom('Beratung', 'Ελληνικά & <b>', 'Кириллица', 'Line "quoted"'),
      qty: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 9999 }).map((n) => n / 1000)),
      price: fc.integer({ min: 0, max: 250_000 }),
      tax: fc.constantFrom('std', 'reduced', 'zero', 'incl', 'ae', 'exempt', null),
    });
    const doc = fc.record({
      kind: fc.constantFrom('invoices', 'credit-notes'),
      client: fc.constantFrom('peppol', 'yen'),
      lines: fc.array(line, { minLength: 1, maxLength: 4 }),
      discount: fc.oneof(
        fc.constant({ discountType: 'none' }),
        fc.integer({ min: 1, max: 50 }).map((v) => ({ discountType: 'percentage', discountValue: v })),
        fc.integer({ min: 1, max: 5_000 }).map((v) => ({ discountType: 'fixed', discountValue: v })),
      ),
    });
    let made = 0;
    await fc.assert(fc.asyncProperty(doc, async (o) => {
      const body = {
        client: o.client === 'yen' ? yen : clients.peppol, buyerReference: o.kind === 'invoices' ? 'PO-1' : undefined, ...o.discount,
        lines: o.lines.map((l) => ({ ...l, tax: l.tax ? taxes[l.tax] : null })),
      };
      const created = await admin.post(`/api/${o.kind}`, body);
      if (created.status === 422) return;
      expect(created.status, created.text).toBe(201);
      const issued = await admin.patch(created.body['@id'], { status: o.kind === 'invoices' ? 'pending' : 'issued' });
      if (issued.status === 422) return;
      expect(issued.status, issued.text).toBe(200);
      const pdf = await get(`${created.body['@id']}?profile=facturx`, PDF);
      if (pdf.status === 422) {
        expect(JSON.parse(pdf.text).violations.length).toBeGreaterThan(0);
        return;
      }
      expect(pdf.status, pdf.text).toBe(200);
      const cii = readFacturX(pdf.bytes, `random-${made}`).xml!.toString('utf8');
      expect(cii).toBe(await ciiOf(created.body['@id']));
      await expectValidCii(cii);
      if (o.kind === 'invoices') {
        const xr = await get(`${created.body['@id']}?profile=xrechnung`, UBL);
        if (xr.status === 422) expect(JSON.parse(xr.text).violations.length).toBeGreaterThan(0);
        else {
          expect(xr.status, xr.text).toBe(200);
          await expectValidUbl(xr.text, { xrechnung: true });
        }
      }
      made++;
    }), { numRuns: Number(process.env.EINVOICE_RUNS ?? 8), seed: process.env.EINVOICE_SEED ? Number(process.env.EINVOICE_SEED) : undefined });
    expect(made).toBeGreaterThan(0);
  }, 300_000);
});
