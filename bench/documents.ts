// Documents per second (CONTRACT §13; targets: PDF ≥ 100/s with peak RSS ≤ 250 MB, UBL ≥ 1,000/s),
// for a 10-line invoice:
//   1. rendering alone (the invoice's data already loaded), in this process;
//   2. over HTTP: GET /api/invoices/<id> with Accept: application/pdf or the UBL type, against a
//      server in this process on an embedded database (or DATABASE_URL), 4 requests at a time.
// Peak RSS is this process's (the server's) maximum resident set size; the embedded database
// (PGlite) lives in this process too, so with DATABASE_URL set the figure is the service's alone.
//   npx tsx bench/documents.ts [--duration 5] [--concurrency 4]
import { parseArgs } from 'node:util';
import type { DocumentData } from '../server/documents/data.ts';
import { renderPdf } from '../server/documents/pdf.ts';
import { renderUbl } from '../server/documents/ubl.ts';
import { renderCii } from '../server/documents/cii.ts';
import { client, startTestServer, tokenFor } from '../test/helpers.ts';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '4' } } });
const seconds = Number(args.duration);
const concurrency = Number(args.concurrency);
const peakMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);

async function rate(label: string, one: () => Promise<unknown>, parallel = 1): Promise<number> {
  for (let i = 0; i < 5; i++) await one(); // warm-up
  let count = 0;
  const cpu0 = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (performance.now() < end) {
      await one();
      count++;
    }
  }));
  const perSecond = count / seconds;
  // CPU time per document too: on a shared machine, wall-clock rates move with the neighbours' load.
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / count;
  console.log(`${label.padEnd(40)} ${perSecond.toFixed(1).padStart(8)} /s   ${cpuMs.toFixed(2).padStart(7)} ms CPU each (${(1000 / cpuMs).toFixed(0)} /s per core)   peak RSS ${peakMb()} MB`);
  return perSecond;
}

const lines = Array.from({ length: 10 }, (_, i) => ({
  description: `Line ${i + 1}: consulting, Ελληνικά, Кириллица`, qty: i % 2 ? '1.5' : 2, price: 12345 + i, total: 24690, net: 24690,
  taxRate: i % 3 ? '20' : '0', taxType: 'exclusive' as const, taxName: i % 3 ? 'VAT' : 'Zero', taxCategory: i % 3 ? 'S' as const : 'Z' as const,
}));
const data: DocumentData = {
  kind: 'invoice', id: '0190a0a0-0000-7000-8000-000000000001', number: 'INV-000001', status: 'pending', issueDate: '2026-11-24', dueDate: '2026-12-08', deliveryDate: null, currency: 'EUR',
  lines, legacyAmounts: false, invoiceNumber: null, reason: null, logo: null, eInvoiceFormat: 'peppol', buyerReference: null,
  groups: [{ names: ['Zero'], rate: 0, category: 'Z', exemptionReason: null, exemptionReasonCode: null, inclusive: false, base: 98760, discount: 0, taxable: 98760, tax: 0 }, { names: ['VAT'], rate: 20, category: 'S', exemptionReason: null, exemptionReasonCode: null, inclusive: false, base: 148140, discount: 0, taxable: 148140, tax: 29628 }],
  subtotal: 246900, taxTotal: 29628, discountType: 'none', discountValue: 0, discountTotal: 0, total: 276528, amountPaid: 0, amountCredited: 0, balance: 276528, terms: 'Net 14', notes: null,
  seller: {
    id: 'x', name: 'Acme', legalName: 'Acme GmbH', email: 'billing@acme.test', phone: null, website: null, vatNumber: 'DE123456789', registrationNumber: null,
    street1: 'Hauptstraße 1', street2: null, city: 'Berlin', state: null, zip: '10115', country: 'DE', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX',
    invoiceFooter: 'Acme GmbH · Berlin', currency: 'EUR', peppolId: '9930:DE123456789', contactName: 'Anna Acme', vatRegistered: true, vatExemptionNote: null, createdAt: new Date(0), updatedAt: new Date(0),
  },
  buyer: { name: 'Client Ltd', vatNumber: null, peppolId: '0106:12345678', address: { country: 'NL', city: 'Amsterdam' }, contact: { firstName: 'Ann', email: 'ann@client.test' } },
};

console.log(`10-line invoice, ${seconds} s per measure`);
await rate('PDF, rendering only', () => renderPdf(data));
await rate('UBL, rendering only', async () => renderUbl(data));
await rate('CII, rendering only', async () => renderCii(data));
await rate('Factur-X PDF/A-3 with its CII, rendering', async () => renderPdf(data, { cii: renderCii(data) }));

// The bench makes more requests than the rate limit allows one token.
const t = await startTestServer({ RATE_LIMIT_MAX: '100000000' });
try {
  const c = client(t, await tokenFor(t, { email: 'bench@docs.test', company: 'Bench', currency: 'EUR' }));
  await c.patch('/api/company', { legalName: 'Bench GmbH', email: 'billing@bench.test', vatNumber: 'DE123456789', country: 'DE', city: 'Berlin', iban: 'DE89370400440532013000', peppolId: '9930:DE123456789' });
  const vat = (await c.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
  const cl = (await c.post('/api/clients', { name: 'Client Ltd', peppolId: '0106:12345678' })).body['@id'];
  await c.post('/api/addresses', { client: cl, city: 'Amsterdam', country: 'NL' });
  await c.post('/api/contacts', { client: cl, firstName: 'Ann', email: 'ann@client.test' });
  const inv = (await c.post('/api/invoices', { client: cl, lines: lines.map((l) => ({ description: l.description, qty: Number(l.qty), price: l.price, tax: vat })) })).body['@id'];
  const get = (accept: string) => async () => {
    const res = await fetch(t.url + inv, { headers: { 'x-api-token': c.token, accept } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${accept}: ${res.status}`);
  };
  await rate(`PDF over HTTP (${concurrency} at a time)`, get('application/pdf'), concurrency);
  await rate(`UBL over HTTP (${concurrency} at a time)`, get('application/vnd.oasis.ubl+xml'), concurrency);
} finally {
  await t.close();
}
