// Rendering cost of each format for one page of 30 invoices with 3 lines each (synthetic records,
// no database, no HTTP): `npx tsx bench/render-formats.ts`.
import { model } from '../server/model.ts';
import { defaultFormats } from '../formats/negotiate.ts';
const r = model.get('Invoice');
const id = (n: number) => `0190a0a0-0000-7000-8000-${String(n).padStart(12, '0')}`;
const now = new Date();
const items = Array.from({ length: 30 }, (_, i) => ({
  id: id(i), companyId: 'c', number: `INV-${i}`, client: id(999), status: 'draft', invoiceDate: '2026-01-01', dueDate: null, paidAt: null, currency: 'EUR',
  discountType: 'none', discountValue: 0, subtotal: 1000, taxTotal: 200, discountTotal: 0, total: 1200, amountPaid: 0, balance: 1200, terms: 'Net 30', notes: null,
  quote: null, recurringInvoice: null, createdAt: now, updatedAt: now,
  lines: Array.from({ length: 3 }, (_, j) => ({ id: id(1000 + i * 3 + j), companyId: 'c', invoice: id(i), description: 'Work & more', qty: 1.5, price: 1000, tax: id(500), position: j, total: 1500, createdAt: now, updatedAt: now })),
}));
const view = { resource: r, items, total: 300, page: 2, itemsPerPage: 30, path: '/api/invoices', query: new URLSearchParams('page=2') };
for (const f of defaultFormats().all) {
  const N = 500;
  let bytes = 0;
  for (let i = 0; i < 50; i++) f.collection(model, view); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const out = f.collection(model, view);
    bytes = (f.stringify ? f.stringify(out.body) : JSON.stringify(out.body)).length;
  }
  const ms = (performance.now() - t0) / N;
  console.log(`${f.mediaType.padEnd(26)} ${ms.toFixed(3)} ms per 30-invoice page (90 lines), ${bytes} bytes`);
}
