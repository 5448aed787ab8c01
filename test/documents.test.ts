// Invoice and quote documents (CONTRACT §13): the PDF read back with pdftotext (poppler-utils),
// and the UBL 2.1 e-invoice checked against EN 16931's totals rules with arithmetic of its own.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { assertEn16931, en16931Violations } from './support/en16931.ts';
import { checkEinvoice, testGln } from './support/einvoice-validate.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let other: Client;
const dir = mkdtempSync(join(tmpdir(), 'documents-test-'));
const PDF = 'application/pdf';
const UBL = 'application/vnd.oasis.ubl+xml';

async function getBytes(c: Client, path: string, accept: string) {
  const res = await fetch(t.url + path, { headers: { 'x-api-token': c.token, accept } });
  const bytes = Buffer.from(await res.arrayBuffer());
  // Every e-invoice this file gets must pass the official artefacts and our checker (test/support/einvoice-validate.ts).
  if (res.status === 200) await checkEinvoice(res.headers.get('content-type'), bytes.toString('utf8'));
  return { status: res.status, headers: res.headers, bytes };
}

let n = 0;
/** The text of a PDF as pdftotext extracts it (rows kept as lines), white space collapsed. */
function pdfText(bytes: Buffer): string {
  const file = join(dir, `d${n++}.pdf`);
  writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

const taxes: Record<string, string> = {};

let glns = 0;
async function clientWith(name: string, currency: string, country: string) {
  const iri = (await admin.post('/api/clients', { name, currency, vatNumber: `${country === 'GR' ? 'EL' : country}999999999`, peppolId: `0088:${testGln(++glns)}` })).body['@id'];
  await admin.post('/api/addresses', { client: iri, street1: 'Main street 1', city: 'Capital', zip: '12345', country });
  await admin.post('/api/contacts', { client: iri, firstName: 'Ann', email: `ann@${country.toLowerCase()}.test` });
  return iri;
}

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'admin@docs.test', company: 'Docs Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@docs.test', company: 'Docs Co', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'o@other.test', company: 'Other Co' }));
  const profile = await admin.patch('/api/company', {
    legalName: 'Docs Company Ltd', email: 'billing@docs.test', vatNumber: 'DE123456789', street1: 'Seller street 2', city: 'Berlin', zip: '10115',
    country: 'DE', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', invoiceFooter: 'Registered in Berlin, HRB 1',
    peppolId: '9930:DE123456789', contactName: 'Dora Docs', phone: '+49 30 1234567',
  });
  expect(profile.status).toBe(200);
  taxes.vat = (await admin.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
  taxes.zero = (await admin.post('/api/taxes', { name: 'Zero', rate: 0 })).body['@id'];
  taxes.incl = (await admin.post('/api/taxes', { name: 'Included', rate: 10, type: 'inclusive' })).body['@id'];
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('PDF', () => {
  const cases = [
    {
      currency: 'USD', name: 'Ωμέγα Συμβουλευτική Α.Ε.', country: 'GR',
      lines: [{ description: 'Σχεδιασμός ιστοσελίδας', qty: 2, price: 15000, tax: 'vat' }, { description: 'Hosting, one year', qty: 1, price: 9999, tax: 'zero' }],
      // 2 × 150.00 = 300.00 + 20 % = 60.00; 99.99 at 0 %; total 459.99.
      expect: { taxRows: ['VAT 20% 60.00', 'Zero 0% 0.00'], total: 'USD 459.99', subtotal: '399.99' },
    },
    {
      currency: 'JPY', name: 'ООО «Ромашка»', country: 'RU',
      lines: [{ description: 'Перевод документации', qty: 3, price: 12000, tax: 'vat' }, { description: 'Срочность', qty: 1, price: 5500, tax: 'incl' }],
      // 36,000 + 7,200 tax; 5,500 incl. 10 %: tax 500, net 5,000; total 48,700.
      expect: { taxRows: ['VAT 20% 7,200', 'Included 10% (included) 500'], total: 'JPY 48,700', subtotal: '41,000' },
    },
    {
      currency: 'BHD', name: 'Gulf Trading W.L.L.', country: 'BH',
      lines: [{ description: 'Consulting hours', qty: 1.5, price: 123457, tax: 'vat' }],
      // 1.5 × 123.457 = 185.1855 → 185.186 (half away from zero, 185186 fils); 20 % = 37.037 (37037.2).
      expect: { taxRows: ['VAT 20% 37.037'], total: 'BHD 222.223', subtotal: '185.186' },
    },
  ];

  for (const c of cases) {
    it(`shows number, client, every line, each tax row and the total in ${c.currency}`, async () => {
      const iri = await clientWith(c.name, c.currency, c.country);
      const inv = await admin.post('/api/invoices', { client: iri, dueDate: '2099-01-31', terms: 'Net 30', notes: 'Спасибо · Ευχαριστώ', lines: c.lines.map((l) => ({ ...l, tax: taxes[l.tax] })) });
      expect(inv.status).toBe(201);
      const res = await getBytes(admin, inv.body['@id'], PDF);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(PDF);
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="${inv.body.number}.pdf"`);
      expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const text = pdfText(res.bytes);
      expect(text).toContain(inv.body.number);
      expect(text).toContain(c.name);
      for (const l of c.lines) expect(text).toContain(l.description);
      for (const row of c.expect.taxRows) expect(text).toContain(row);
      expect(text).toContain(`Subtotal ${c.expect.subtotal}`);
      expect(text).toContain(`Total ${c.expect.total}`);
      expect(text).toContain(`Balance due ${c.expect.total}`);
      expect(text).toContain('Спасибо · Ευχαριστώ');
      expect(text).toContain('Docs Company Ltd');
      expect(text).toContain('DE89 3704 0044 0532 0130 00');
      expect(text).toContain('Registered in Berlin, HRB 1');
      // The same record, the same bytes.
      expect((await getBytes(admin, inv.body['@id'], PDF)).bytes.equals(res.bytes)).toBe(true);
      expect(res.bytes.toString('latin1')).not.toMatch(/CreationDate|ModDate/);
    });
  }

  it('shows subtotal, discount, taxable amount and tax per rate as the tax groups say, naming each rate once', async () => {
    const named = (await admin.post('/api/taxes', { name: 'VAT 20%', rate: 20 })).body['@id'];
    const seven = (await admin.post('/api/taxes', { name: 'Low VAT', rate: 7 })).body['@id'];
    const iri = await clientWith('Discount Client', 'EUR', 'FR');
    const inv = await admin.post('/api/invoices', {
      client: iri, discountType: 'percentage', discountValue: 10,
      lines: [{ description: 'Design', qty: 3, price: 3333, tax: named }, { description: 'Books', qty: 1, price: 4550, tax: seven }],
    });
    expect(inv.status).toBe(201);
    const text = pdfText((await getBytes(admin, inv.body['@id'], PDF)).bytes);
    // CONTRACT §6: discounts 10.00 and 4.55, taxable 89.99 and 40.95, tax 18.00 and 2.87.
    for (const row of ['Subtotal 145.49', 'Discount (10%) -14.55', 'Taxable at 7% 40.95', 'Low VAT 7% 2.87', 'Taxable at 20% 89.99', 'VAT 20% 18.00', 'Total EUR 151.81']) {
      expect(text).toContain(row);
    }
    expect(text).not.toContain('20% 20%');
  });

  it('breaks long invoices over pages, every line shown once', async () => {
    const iri = await clientWith('Many Lines Ltd', 'EUR', 'FR');
    const lines = Array.from({ length: 60 }, (_, i) => ({ description: `Item number ${i + 1}`, qty: 1, price: 100 + i }));
    const inv = await admin.post('/api/invoices', { client: iri, lines });
    const text = pdfText((await getBytes(admin, inv.body['@id'], PDF)).bytes);
    for (const l of lines) expect(text.split(`${l.description} `).length - 1).toBe(1);
    expect(text).toMatch(/page 2 of \d/);
  });

  it('renders quotes with their validity and no payment rows', async () => {
    const iri = await clientWith('Quote Client', 'EUR', 'FR');
    const q = await admin.post('/api/quotes', { client: iri, validUntil: '2099-03-01', lines: [{ description: 'Proposal work', qty: 1, price: 50000, tax: taxes.vat }] });
    const res = await getBytes(viewer, q.body['@id'], 'application/pdf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${q.body.number}.pdf"`);
    const text = pdfText(res.bytes);
    expect(text).toContain('QUOTE');
    expect(text).toContain('Valid until 1 March 2099');
    expect(text).toContain('Total EUR 600.00');
    expect(text).not.toContain('Balance due');
    // A quote is no e-invoice.
    expect((await getBytes(admin, q.body['@id'], UBL)).status).toBe(406);
  });

  it('keeps tenancy and roles of a read, and JSON-LD the default', async () => {
    const iri = await clientWith('Tenancy Client', 'EUR', 'FR');
    const inv = await admin.post('/api/invoices', { client: iri, lines: [{ description: 'x', price: 100 }] });
    const id = inv.body['@id'];
    expect((await getBytes(viewer, id, PDF)).status).toBe(200);
    const foreign = await getBytes(other, id, PDF);
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await getBytes(other, id, UBL)).status).toBe(403);
    expect((await getBytes(admin, '/api/invoices/0190a1b2-0000-7000-8000-000000000000', PDF)).status).toBe(404);
    expect((await call(t, 'GET', id, { accept: PDF })).status).toBe(401);
    expect((await admin.get(id)).headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect((await admin.get(id, { accept: '*/*' })).headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect((await admin.get('/api/clients', { accept: PDF })).status).toBe(406);
    expect((await admin.patch(id, { notes: 'n' }, { accept: PDF })).status).toBe(406);
  });

  it('carry no ETag (they also show the company profile and other records): If-None-Match matches only "*"', async () => {
    const iri = await clientWith('Tag Client', 'EUR', 'FR');
    const inv = await admin.post('/api/invoices', { client: iri, lines: [{ description: 'x', price: 100 }] });
    const id = inv.body['@id'];
    const etag = (await admin.get(id)).headers.get('etag')!;
    expect(etag).toMatch(/^"1-/);
    for (const type of [PDF, UBL]) {
      const res = await fetch(t.url + id, { headers: { 'x-api-token': admin.token, accept: type, 'if-none-match': etag } });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBeNull();
      await res.arrayBuffer();
      const any = await fetch(t.url + id, { headers: { 'x-api-token': admin.token, accept: type, 'if-none-match': '*' } });
      expect(any.status).toBe(304);
      expect(any.headers.get('etag')).toBeNull();
    }
    const missing = await fetch(`${t.url}/api/invoices/0190a1b2-0000-7000-8000-000000000000`, { headers: { 'x-api-token': admin.token, accept: PDF, 'if-none-match': '*' } });
    expect(missing.status).toBe(404);
  });

  it('lists the media types in OpenAPI', async () => {
    const doc = (await call(t, 'GET', '/api/docs.json')).body;
    const inv = doc.paths['/api/invoices/{id}'].get.responses;
    expect(inv['200'].content[PDF].schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(inv['200'].content[UBL]).toBeDefined();
    expect(inv['422']).toBeDefined();
    const quote = doc.paths['/api/quotes/{id}'].get.responses['200'].content;
    expect(quote[PDF]).toBeDefined();
    expect(quote[UBL]).toBeUndefined();
  });
});

// ---- UBL ------------------------------------------------------------------------------------

const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, parseTagValue: false, isArray: (name) => ['InvoiceLine', 'CreditNoteLine', 'TaxSubtotal', 'TaxTotal', 'AllowanceCharge'].includes(name) });
type X = Record<string, any>;
const textOf = (v: unknown): string => (v && typeof v === 'object' ? String((v as X)['#text']) : String(v));

/** A decimal amount as an integer of 10^-places, checking it has exactly `places` decimals. */
function units(v: unknown, places: number): bigint {
  const s = textOf(v);
  const re = places ? new RegExp(`^-?\\d+\\.\\d{${places}}$`) : /^-?\d+$/;
  expect(s, `"${s}" should have ${places} decimals`).toMatch(re);
  return BigInt(s.replace('.', ''));
}

describe('UBL e-invoice', () => {
  async function ubl(currency: string, lines: { description: string; qty: number; price: number; tax?: string }[], extra: Record<string, unknown> = {}) {
    const iri = await clientWith(`UBL client ${currency} ${n++}`, currency, 'NL');
    const inv = await admin.post('/api/invoices', { client: iri, dueDate: '2099-12-31', lines: lines.map((l) => ({ ...l, tax: l.tax ? taxes[l.tax] : null })), ...extra });
    expect(inv.status).toBe(201);
    return { inv: inv.body, res: await getBytes(admin, inv.body['@id'], UBL) };
  }

  /** BR-CO-10…16 and the presence of the business terms, with arithmetic of this test's own. */
  function checkInvoice(xml: string, places: number, inv: X) {
    const doc = parser.parse(xml).Invoice as X;
    expect(textOf(doc.CustomizationID)).toBe('urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0');
    // BT-1 number, BT-2 issue date, BT-5 currency, BT-27 seller name, BT-31 seller VAT, BT-44 buyer name.
    expect(textOf(doc.ID)).toBe(inv.number);
    expect(textOf(doc.IssueDate)).toBe(inv.invoiceDate);
    expect(textOf(doc.DocumentCurrencyCode)).toBe(inv.currency);
    const seller = doc.AccountingSupplierParty.Party;
    expect(textOf(seller.PartyLegalEntity.RegistrationName)).toBe('Docs Company Ltd');
    expect(textOf(seller.PartyTaxScheme.CompanyID)).toBe('DE123456789');
    expect(textOf(seller.PostalAddress.Country.IdentificationCode)).toBe('DE');
    const buyer = doc.AccountingCustomerParty.Party;
    expect(textOf(buyer.PartyLegalEntity.RegistrationName)).toMatch(/^UBL client/);
    expect(textOf(buyer.PostalAddress.Country.IdentificationCode)).toBe('NL');

    const lines = doc.InvoiceLine as X[];
    const m = doc.LegalMonetaryTotal;
    const bt = (name: string) => {
      expect(m[name], name).toBeDefined();
      return units(m[name], places);
    };
    const [bt106, bt107, bt108, bt109, bt110, bt112, bt113, bt114, bt115] =
      ['LineExtensionAmount', 'AllowanceTotalAmount', 'ChargeTotalAmount', 'TaxExclusiveAmount', null, 'TaxInclusiveAmount', 'PrepaidAmount', 'PayableRoundingAmount', 'PayableAmount']
        .map((name) => (name ? bt(name) : units(doc.TaxTotal[0].TaxAmount, places))) as bigint[];
    const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
    expect(bt106, 'BR-CO-10').toBe(sum(lines.map((l) => units(l.LineExtensionAmount, places))));
    expect(bt107, 'BR-CO-11 (no allowances)').toBe(0n);
    expect(bt108, 'BR-CO-12 (no charges)').toBe(0n);
    expect(bt109, 'BR-CO-13').toBe(bt106! - bt107! + bt108!);
    const subtotals = doc.TaxTotal[0].TaxSubtotal as X[];
    expect(bt110, 'BR-CO-14').toBe(sum(subtotals.map((s) => units(s.TaxAmount, places))));
    expect(bt112, 'BR-CO-15').toBe(bt109! + bt110!);
    expect(bt115, 'BR-CO-16').toBe(bt112! - bt113! + bt114!);
    // And they are the invoice's own amounts.
    expect(bt106).toBe(BigInt(inv.subtotal));
    expect(bt110).toBe(BigInt(inv.taxTotal));
    expect(bt112).toBe(BigInt(inv.total));
    expect(bt115).toBe(BigInt(inv.balance));
    // Every subtotal's taxable amount is the sum of its category's lines; every line's net amount
    // is its quantity times its price over the price's base quantity.
    for (const s of subtotals) {
      const cat = textOf(s.TaxCategory.ID);
      const pct = textOf(s.TaxCategory.Percent);
      expect(['S', 'Z']).toContain(cat);
      expect(cat === 'Z').toBe(Number(pct) === 0);
      const mine = lines.filter((l) => textOf(l.Item.ClassifiedTaxCategory.ID) === cat && textOf(l.Item.ClassifiedTaxCategory.Percent) === pct);
      expect(units(s.TaxableAmount, places)).toBe(sum(mine.map((l) => units(l.LineExtensionAmount, places))));
    }
    for (const l of lines) {
      const qty = Number(textOf(l.InvoicedQuantity));
      const base = l.Price.BaseQuantity ? Number(textOf(l.Price.BaseQuantity)) : 1;
      const price = units(l.Price.PriceAmount, places);
      expect(Number(price) * qty / base).toBeCloseTo(Number(units(l.LineExtensionAmount, places)), 6);
    }
    return doc;
  }

  it('is an EN 16931 invoice whose totals add up (EUR, standard and zero rate, an inclusive tax)', async () => {
    const { inv, res } = await ubl('EUR', [
      { description: 'Design', qty: 2, price: 15000, tax: 'vat' },
      { description: 'Books', qty: 3, price: 1999, tax: 'zero' },
      { description: 'Service with tax included', qty: 1.5, price: 3333, tax: 'incl' },
      { description: 'Untaxed fee', qty: 1, price: 500 },
    ]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(`${UBL}; charset=utf-8`);
    const doc = checkInvoice(res.bytes.toString('utf8'), 2, inv);
    const cats = (doc.TaxTotal[0].TaxSubtotal as X[]).map((s) => `${textOf(s.TaxCategory.ID)}/${textOf(s.TaxCategory.Percent)}`).sort();
    expect(cats).toEqual(['S/10', 'S/20', 'Z/0']);
    expect(textOf(doc.PaymentMeans.PayeeFinancialAccount.ID)).toBe('DE89370400440532013000');
    expect((doc.InvoiceLine as X[]).length).toBe(4);
  });

  it('writes JPY without decimals, payments as prepaid; a currency with three decimals (BHD) is a 422 on currency (CONTRACT §18)', async () => {
    const jpy = await ubl('JPY', [{ description: 'Translation', qty: 3, price: 12000, tax: 'vat' }]);
    checkInvoice(jpy.res.bytes.toString('utf8'), 0, jpy.inv);
    expect(jpy.res.bytes.toString('utf8')).toContain('<cbc:PayableAmount currencyID="JPY">43200</cbc:PayableAmount>');

    const bhd = await ubl('BHD', [{ description: 'Consulting', qty: 1.5, price: 123457, tax: 'vat' }]);
    await admin.patch(bhd.inv['@id'], { status: 'pending' });
    expect((await admin.post('/api/payments', { invoice: bhd.inv['@id'], amount: 100000 })).status).toBe(201);
    expect(bhd.res.status).toBe(422);
    const problem = JSON.parse(bhd.res.bytes.toString('utf8'));
    expect(problem.violations).toEqual([expect.objectContaining({ propertyPath: 'currency', message: expect.stringMatching(/two decimals.*BHD has 3/) })]);

    const eur = await ubl('EUR', [{ description: 'Consulting', qty: 1.5, price: 123457, tax: 'vat' }]);
    await admin.patch(eur.inv['@id'], { status: 'pending' });
    expect((await admin.post('/api/payments', { invoice: eur.inv['@id'], amount: 100000 })).status).toBe(201);
    const paid = (await admin.get(eur.inv['@id'])).body;
    const xml = (await getBytes(admin, eur.inv['@id'], UBL)).bytes.toString('utf8');
    checkInvoice(xml, 2, paid);
    expect(xml).toContain('<cbc:PrepaidAmount currencyID="EUR">1000.00</cbc:PrepaidAmount>');
    expect(xml).toContain('<cbc:PayableAmount currencyID="EUR">1222.23</cbc:PayableAmount>');
  });

  it('carries a discount as one allowance per tax group, and a VAT breakdown of the groups (CONTRACT §13)', async () => {
    taxes.seven ??= (await admin.post('/api/taxes', { name: 'Reduced', rate: 7 })).body['@id'];
    const lines = [{ description: 'Design', qty: 3, price: 3333, tax: 'vat' }, { description: 'Books', qty: 1, price: 4550, tax: 'seven' }];
    for (const [extra, allowances] of [
      [{ discountType: 'percentage', discountValue: 10 }, [['S', '7', '4.55', '45.50', '10'], ['S', '20', '10.00', '99.99', '10']]],
      [{ discountType: 'fixed', discountValue: 2000 }, [['S', '7', '6.25', undefined, undefined], ['S', '20', '13.75', undefined, undefined]]],
    ] as const) {
      const { inv, res } = await ubl('EUR', [...lines], extra);
      expect(res.status, res.bytes.toString('utf8')).toBe(200);
      const xml = res.bytes.toString('utf8');
      expect(en16931Violations(xml)).toEqual([]);
      const doc = parser.parse(xml).Invoice as X;
      const found = ((doc.AllowanceCharge ?? []) as X[]).map((a) => {
        expect(textOf(a.ChargeIndicator)).toBe('false');
        expect(textOf(a.AllowanceChargeReasonCode)).toBe('95');
        return [textOf(a.TaxCategory.ID), textOf(a.TaxCategory.Percent), textOf(a.Amount), a.BaseAmount && textOf(a.BaseAmount), a.MultiplierFactorNumeric && textOf(a.MultiplierFactorNumeric)];
      });
      expect(found).toEqual(allowances);
      const breakdown = (doc.TaxTotal[0].TaxSubtotal as X[]).map((x) => [textOf(x.TaxCategory.Percent), units(x.TaxableAmount, 2), units(x.TaxAmount, 2)]);
      expect(breakdown).toEqual(inv.taxGroups.map((g: X) => [String(g.rate), BigInt(g.taxable), BigInt(g.tax)]));
      const m = doc.LegalMonetaryTotal;
      expect(units(m.AllowanceTotalAmount, 2)).toBe(BigInt(inv.discountTotal));
      expect(units(m.PayableAmount, 2)).toBe(BigInt(inv.total));
    }
  });

  it('the rule checker finds what breaks EN 16931, naming each rule', async () => {
    const { res } = await ubl('EUR', [{ description: 'Design', qty: 3, price: 3333, tax: 'vat' }, { description: 'Fee', qty: 1, price: 500 }], { discountType: 'percentage', discountValue: 10 });
    const xml = res.bytes.toString('utf8');
    expect(en16931Violations(xml)).toEqual([]);
    const ids = (broken: string) => en16931Violations(broken).map((v) => /^\[([A-Z0-9-]+)\]/.exec(v)![1]);
    // A tax 1.00 off its taxable amount × rate (BR-CO-17, BR-S-09), which then no longer adds up (BR-CO-14).
    expect(ids(xml.replace('<cbc:TaxAmount currencyID="EUR">18.00</cbc:TaxAmount><cac:TaxCategory>', '<cbc:TaxAmount currencyID="EUR">19.00</cbc:TaxAmount><cac:TaxCategory>'))).toEqual(expect.arrayContaining(['BR-CO-14', 'BR-CO-17', 'BR-S-09']));
    // An allowance without reason, one without amount or category.
    expect(ids(xml.replace(/<cbc:AllowanceChargeReasonCode>95<\/cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>Discount<\/cbc:AllowanceChargeReason>/, ''))).toContain('BR-33');
    expect(ids(xml.replace(/<cbc:Amount currencyID="EUR">10.00<\/cbc:Amount>/, ''))).toEqual(expect.arrayContaining(['BR-31', 'BR-CO-11', 'BR-S-08']));
    expect(ids(xml.replace(/(<cac:AllowanceCharge>.*?)<cac:TaxCategory>.*?<\/cac:TaxCategory>/, '$1'))).toEqual(expect.arrayContaining(['BR-32']));
    // Totals that do not add up, and an amount with too many decimals.
    expect(ids(xml.replace(/<cbc:LineExtensionAmount currencyID="EUR">(\d+)\.(\d+)<\/cbc:LineExtensionAmount><cbc:TaxExclusiveAmount/, '<cbc:LineExtensionAmount currencyID="EUR">1.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount'))).toEqual(['BR-CO-10']);
    expect(ids(xml.replace(/<cbc:TaxExclusiveAmount currencyID="EUR">[\d.]+</, '<cbc:TaxExclusiveAmount currencyID="EUR">1.00<'))).toEqual(expect.arrayContaining(['BR-CO-13', 'BR-CO-15']));
    expect(ids(xml.replace(/<cbc:TaxInclusiveAmount currencyID="EUR">[\d.]+</, '<cbc:TaxInclusiveAmount currencyID="EUR">1.00<'))).toEqual(expect.arrayContaining(['BR-CO-15', 'BR-CO-16']));
    expect(ids(xml.replace(/<cbc:AllowanceTotalAmount currencyID="EUR">[\d.]+</, '<cbc:AllowanceTotalAmount currencyID="EUR">1.00<'))).toContain('BR-CO-11');
    expect(ids(xml.replace(/<cbc:ChargeTotalAmount currencyID="EUR">0.00</, '<cbc:ChargeTotalAmount currencyID="EUR">1.00<'))).toContain('BR-CO-12');
    expect(ids(xml.replace(/<cbc:PrepaidAmount currencyID="EUR">0.00</, '<cbc:PrepaidAmount currencyID="EUR">0.005<'))).toEqual(expect.arrayContaining(['BR-DEC', 'BR-CO-16']));
    expect(() => assertEn16931(xml.replace('18.00</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20<', '18.00</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>10<'))).toThrow(/\[BR-S-09\][^]*\[BR-S-08\]/);
  });

  it('names what the standard requires and is missing', async () => {
    const iri = (await admin.post('/api/clients', { name: 'No address client' })).body['@id'];
    const inv = await admin.post('/api/invoices', { client: iri, lines: [{ description: 'x', price: 100 }] });
    const res = await getBytes(admin, inv.body['@id'], UBL);
    expect(res.status).toBe(422);
    const paths = JSON.parse(res.bytes.toString('utf8')).violations.map((v: X) => v.propertyPath);
    expect(paths).toEqual(['client.addresses', 'client.peppolId']);
    // No other scheme is invented for a missing electronic address (CONTRACT §18).
    await admin.patch('/api/company', { peppolId: null });
    try {
      const noSeller = await getBytes(admin, inv.body['@id'], UBL);
      expect(JSON.parse(noSeller.bytes.toString('utf8')).violations.map((v: X) => v.propertyPath)).toContain('company.peppolId');
    } finally {
      await admin.patch('/api/company', { peppolId: '9930:DE123456789' });
    }

    await admin.patch('/api/company', { vatNumber: null });
    try {
      const again = await getBytes(admin, inv.body['@id'], UBL);
      expect(JSON.parse(again.bytes.toString('utf8')).violations.map((v: X) => v.propertyPath)).toContain('company.vatNumber');
    } finally {
      await admin.patch('/api/company', { vatNumber: 'DE123456789' });
    }
  });
});
