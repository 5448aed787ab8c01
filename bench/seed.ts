// The benchmark's data set, on a fresh PostgreSQL database: our migrations, one company, user
// and token made by the CLI's own functions, then clients, taxes, invoices with 1–N lines and
// payments in bulk (INSERT … SELECT FROM unnest(arrays), a few statements per table). Stored
// totals follow CONTRACT §6, computed here in integer arithmetic and checked afterwards against
// an independent recomputation in SQL.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase } from '../server/db.ts';
import { tokenCreate, userCreate } from '../server/cli/commands.ts';
import { uuidv7 } from '../engine/uuid.ts';
import { decimalText, documentTotals, scaled, type Discount, type Line, type TaxRate } from './totals.ts';

export interface SeedSize {
  clients: number;
  invoices: number;
  /** Each invoice gets 1..maxLines lines. */
  maxLines: number;
}

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export interface Seeded {
  companyId: string;
  token: string;
  clientIds: string[];
  taxes: { id: string; rate: string; type: TaxRate['type'] }[];
  invoiceIds: string[];
  /** Invoices that have both lines and payments (for the GraphQL single-invoice scenario). */
  paidInvoiceIds: string[];
  counts: { clients: number; taxes: number; invoices: number; lines: number; payments: number };
  ms: number;
}

/** Creates `bench_<timestamp>_<random>` on the server named by `adminUrl`. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const name = `bench_${stamp}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    async drop() {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
}

/** A small deterministic generator (mulberry32), so every run seeds the same shapes. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, int, pick };
}

type Column = readonly [name: string, type: string, values: unknown[]];

/** INSERT … SELECT FROM unnest($1::t1[], $2::t2[], …), in chunks. */
async function bulkInsert(sql: postgres.Sql, table: string, columns: readonly Column[], chunk = 20_000): Promise<void> {
  const n = columns[0]![2].length;
  const names = columns.map((c) => `"${c[0]}"`).join(', ');
  // jsonb travels as text (a JSON document per element), cast element-wise.
  const params = columns.map((c, i) => (c[1] === 'jsonb' ? `$${i + 1}::text[]::jsonb[]` : `$${i + 1}::${c[1]}[]`)).join(', ');
  const text = `insert into "${table}" (${names}) select * from unnest(${params})`;
  for (let at = 0; at < n; at += chunk) {
    await sql.unsafe(text, columns.map((c) => c[2].slice(at, at + chunk)) as never[]);
  }
}

const WORDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay', 'Soylent', 'Tyrell', 'Wonka', 'Cyberdyne', 'Aperture', 'Gringotts', 'Oscorp'];
const KINDS = ['Ltd', 'GmbH', 'SARL', 'Inc', 'LLC', 'BV', 'AB', 'Oy'];
const ITEMS = ['Consulting', 'Design work', 'Hosting (monthly)', 'Support plan', 'Licence', 'Training day', 'Travel expenses', 'Hardware', 'Maintenance', 'Development sprint', 'Audit', 'Translation'];
const QTYS = ['1', '1', '1', '2', '3', '5', '10', '0.5', '1.5', '2.25', '0.3333', '12'];
const TAXES: { name: string; rate: string; type: TaxRate['type'] }[] = [
  { name: 'VAT 20%', rate: '20', type: 'exclusive' },
  { name: 'VAT 5.5%', rate: '5.5', type: 'exclusive' },
  { name: 'GST 10% incl.', rate: '10', type: 'inclusive' },
  { name: 'Sales tax 8.875%', rate: '8.875', type: 'exclusive' },
];

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function seed(url: string, size: SeedSize): Promise<Seeded> {
  const started = Date.now();
  // Our own migrations, and the CLI's functions for the company, user and token.
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  let token: string;
  try {
    await database.migrate();
    const ctx = { db: database.db };
    await userCreate(ctx, { email: 'bench@example.com', password: 'bench-password', company: 'Bench Co', role: 'admin', currency: 'USD' });
    token = (await tokenCreate(ctx, { email: 'bench@example.com', company: 'Bench Co', name: 'bench' })).trim();
  } finally {
    await database.close();
  }

  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ id: companyId }] = (await sql`select id from companies where name = 'Bench Co'`) as unknown as [{ id: string }];
    const rnd = prng(20_240_101);

    // Taxes.
    const taxIds = TAXES.map(() => uuidv7());
    await bulkInsert(sql, 'taxes', [
      ['id', 'uuid', taxIds],
      ['company_id', 'uuid', taxIds.map(() => companyId)],
      ['name', 'text', TAXES.map((t) => t.name)],
      ['rate', 'numeric', TAXES.map((t) => decimalText(scaled(t.rate)))],
      ['type', 'text', TAXES.map((t) => t.type)],
    ]);
    const taxRates: TaxRate[] = TAXES.map((t) => ({ rate: scaled(t.rate), type: t.type }));

    // Clients.
    const clientIds: string[] = [];
    const clientCurrency: string[] = [];
    const cName: string[] = [], cWebsite: (string | null)[] = [], cVat: (string | null)[] = [], cStatus: string[] = [];
    for (let i = 0; i < size.clients; i++) {
      clientIds.push(uuidv7());
      const cur = rnd.next();
      clientCurrency.push(cur < 0.7 ? 'USD' : cur < 0.9 ? 'EUR' : 'GBP');
      const name = `${rnd.pick(WORDS)} ${rnd.pick(WORDS)} ${rnd.pick(KINDS)} #${i + 1}`;
      cName.push(name);
      cWebsite.push(rnd.next() < 0.6 ? `https://client-${i + 1}.example.com` : null);
      cVat.push(rnd.next() < 0.5 ? `EU${String(100000000 + i)}` : null);
      cStatus.push(rnd.next() < 0.9 ? 'active' : 'archived');
    }
    await bulkInsert(sql, 'clients', [
      ['id', 'uuid', clientIds],
      ['company_id', 'uuid', clientIds.map(() => companyId)],
      ['name', 'text', cName],
      ['currency', 'text', clientCurrency],
      ['website', 'text', cWebsite],
      ['vat_number', 'text', cVat],
      ['status', 'text', cStatus],
      ['e_invoice_format', 'text', clientIds.map(() => 'peppol')],
    ]);

    // Invoices, their lines and payments, totals computed per CONTRACT §6.
    const inv = {
      id: [] as string[], number: [] as string[], client: [] as string[], status: [] as string[], invoiceDate: [] as string[],
      dueDate: [] as string[], paidAt: [] as (string | null)[], currency: [] as string[], discountType: [] as string[], discountValue: [] as string[],
      subtotal: [] as string[], taxTotal: [] as string[], discountTotal: [] as string[], total: [] as string[], taxGroups: [] as string[], amountPaid: [] as string[],
      balance: [] as string[], terms: [] as (string | null)[],
    };
    const line = { id: [] as string[], invoice: [] as string[], description: [] as string[], qty: [] as string[], price: [] as string[], tax: [] as (string | null)[], position: [] as number[], total: [] as string[], net: [] as string[], taxRate: [] as (string | null)[], taxType: [] as (string | null)[] };
    const pay = { id: [] as string[], invoice: [] as string[], client: [] as string[], amount: [] as string[], currency: [] as string[], method: [] as string[], reference: [] as (string | null)[], paidAt: [] as string[] };
    const paidInvoiceIds: string[] = [];
    const firstDay = Date.UTC(2024, 0, 1);
    const today = Date.UTC(2026, 0, 1);
    for (let i = 0; i < size.invoices; i++) {
      const id = uuidv7();
      const ci = rnd.int(0, clientIds.length - 1);
      const dateMs = firstDay + rnd.int(0, 700) * DAY;
      const n = rnd.int(1, size.maxLines);
      const lines: Line[] = [];
      for (let p = 0; p < n; p++) {
        const qty = rnd.pick(QTYS);
        const price = rnd.int(1, 5000) * 100 + rnd.pick([0, 0, 50, 99]);
        const taxIndex = rnd.next() < 0.7 ? rnd.int(0, taxRates.length - 1) : -1;
        lines.push({ price: BigInt(price), qty: scaled(qty), tax: taxIndex < 0 ? null : taxRates[taxIndex]! });
        line.id.push(uuidv7());
        line.invoice.push(id);
        line.description.push(`${rnd.pick(ITEMS)} ${p + 1}`);
        line.qty.push(decimalText(scaled(qty)));
        line.price.push(String(price));
        line.tax.push(taxIndex < 0 ? null : taxIds[taxIndex]!);
        line.taxRate.push(taxIndex < 0 ? null : decimalText(taxRates[taxIndex]!.rate));
        line.taxType.push(taxIndex < 0 ? null : taxRates[taxIndex]!.type);
        line.position.push(p);
      }
      const dk = rnd.next();
      const discount: Discount = dk < 0.75 ? { type: 'none', value: 0n } : dk < 0.9 ? { type: 'percentage', value: scaled(rnd.pick(['5', '10', '12.5', '15'])) } : { type: 'fixed', value: BigInt(rnd.int(1, 50) * 100) * 10_000n };
      const t = documentTotals(lines, discount);
      for (const a of t.lines) {
        line.total.push(String(a.total));
        line.net.push(String(a.net));
      }

      const s = rnd.next();
      const status = s < 0.1 ? 'draft' : s < 0.45 ? 'pending' : s < 0.55 ? 'overdue' : s < 0.95 ? 'paid' : 'cancelled';
      let paid = 0n;
      let paidAt: string | null = null;
      const payOnce = (amount: bigint, atMs: number) => {
        pay.id.push(uuidv7());
        pay.invoice.push(id);
        pay.client.push(clientIds[ci]!);
        pay.amount.push(String(amount));
        pay.currency.push(clientCurrency[ci]!);
        pay.method.push(rnd.pick(['bank_transfer', 'bank_transfer', 'card', 'cash', 'check', 'other']));
        pay.reference.push(rnd.next() < 0.5 ? `REF-${i}-${pay.id.length}` : null);
        pay.paidAt.push(new Date(atMs).toISOString());
        paid += amount;
      };
      if (status === 'paid' && t.total > 0n) {
        const at = dateMs + rnd.int(1, 40) * DAY;
        if (t.total > 1n && rnd.next() < 0.3) {
          const first = t.total / 2n;
          payOnce(first, at - DAY);
          payOnce(t.total - first, at);
        } else payOnce(t.total, at);
        paidAt = new Date(at).toISOString();
        paidInvoiceIds.push(id);
      } else if ((status === 'pending' || status === 'overdue') && t.total > 1n && rnd.next() < 0.3) {
        payOnce((t.total * BigInt(rnd.int(10, 90))) / 100n || 1n, dateMs + rnd.int(1, 20) * DAY);
      }
      const effectiveStatus = status === 'paid' && t.total === 0n ? 'pending' : status;

      inv.id.push(id);
      inv.number.push(`INV-${String(i + 1).padStart(6, '0')}`);
      inv.client.push(clientIds[ci]!);
      inv.status.push(effectiveStatus);
      inv.invoiceDate.push(isoDay(dateMs));
      inv.dueDate.push(isoDay(effectiveStatus === 'overdue' ? Math.min(dateMs + 30 * DAY, today - DAY) : dateMs + 30 * DAY));
      inv.paidAt.push(paidAt);
      inv.currency.push(clientCurrency[ci]!);
      inv.discountType.push(discount.type);
      inv.discountValue.push(decimalText(discount.value));
      inv.subtotal.push(String(t.subtotal));
      inv.taxTotal.push(String(t.taxTotal));
      inv.discountTotal.push(String(t.discountTotal));
      inv.total.push(String(t.total));
      inv.taxGroups.push(JSON.stringify(t.groups));
      inv.amountPaid.push(String(paid));
      inv.balance.push(String(t.total - paid));
      inv.terms.push(rnd.next() < 0.3 ? 'Payment within 30 days.' : null);
    }
    const company = (xs: unknown[]) => xs.map(() => companyId);
    await bulkInsert(sql, 'invoices', [
      ['id', 'uuid', inv.id], ['company_id', 'uuid', company(inv.id)], ['number', 'text', inv.number], ['client_id', 'uuid', inv.client],
      ['status', 'text', inv.status], ['invoice_date', 'date', inv.invoiceDate], ['due_date', 'date', inv.dueDate], ['paid_at', 'timestamptz', inv.paidAt],
      ['currency', 'text', inv.currency], ['discount_type', 'text', inv.discountType], ['discount_value', 'numeric', inv.discountValue],
      ['subtotal', 'bigint', inv.subtotal], ['tax_total', 'bigint', inv.taxTotal], ['discount_total', 'bigint', inv.discountTotal], ['total', 'bigint', inv.total], ['tax_groups', 'jsonb', inv.taxGroups],
      ['amount_paid', 'bigint', inv.amountPaid], ['balance', 'bigint', inv.balance], ['terms', 'text', inv.terms],
    ]);
    await bulkInsert(sql, 'invoice_lines', [
      ['id', 'uuid', line.id], ['company_id', 'uuid', company(line.id)], ['invoice_id', 'uuid', line.invoice], ['description', 'text', line.description],
      ['qty', 'numeric', line.qty], ['price', 'bigint', line.price], ['tax_id', 'uuid', line.tax], ['position', 'bigint', line.position], ['total', 'bigint', line.total],
      ['net', 'bigint', line.net], ['tax_rate', 'numeric', line.taxRate], ['tax_type', 'text', line.taxType],
    ]);
    await bulkInsert(sql, 'payments', [
      ['id', 'uuid', pay.id], ['company_id', 'uuid', company(pay.id)], ['invoice_id', 'uuid', pay.invoice], ['client_id', 'uuid', pay.client],
      ['amount', 'bigint', pay.amount], ['currency', 'text', pay.currency], ['method', 'text', pay.method], ['reference', 'text', pay.reference], ['paid_at', 'timestamptz', pay.paidAt],
    ]);
    // The next invoice number a POST gets continues the sequence.
    await sql`insert into engine_sequences (company_id, name, value) values (${companyId}, 'Invoice.number', ${size.invoices})
              on conflict (company_id, name) do update set value = excluded.value`;
    await checkTotals(sql);
    await sql`vacuum analyze`;
    return {
      companyId,
      token,
      clientIds,
      taxes: TAXES.map((t, i) => ({ id: taxIds[i]!, rate: t.rate, type: t.type })),
      invoiceIds: inv.id,
      paidInvoiceIds,
      counts: { clients: clientIds.length, taxes: taxIds.length, invoices: inv.id.length, lines: line.id.length, payments: pay.id.length },
      ms: Date.now() - started,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Recomputes every invoice in SQL (numeric round() is half away from zero, as §6 wants) and
 * fails when a stored total disagrees: the seed's arithmetic is checked by a second one.
 */
export async function checkTotals(sql: postgres.Sql): Promise<void> {
  // The groups by the rule's SQL form (en16931_tax_groups, kept by migration 0015), from lines
  // recomputed here: a second arithmetic against the seed's (amounts per rate; categories apart).
  const [bad] = await sql`
    with line as (
      select il.invoice_id, il.total as stored, il.net as stored_net, round(il.price * il.qty) as total, t.rate, t.type
      from invoice_lines il left join taxes t on t.id = il.tax_id
    ), sums as (
      select invoice_id, count(*) filter (where stored <> total or stored_net <> en16931_line_net(total, rate, type = 'inclusive')) as bad_lines,
        jsonb_agg(jsonb_build_object('total', total, 'net', en16931_line_net(total, rate, type = 'inclusive'), 'rate', rate, 'inclusive', type = 'inclusive')) as lines
      from line group by invoice_id
    ), calc as (
      select i.*, s.bad_lines, g.groups,
        (select coalesce(sum((x ->> 'base')::bigint), 0) from jsonb_array_elements(g.groups) x) as c_subtotal,
        (select coalesce(sum((x ->> 'tax')::bigint), 0) from jsonb_array_elements(g.groups) x) as c_tax,
        (select coalesce(sum((x ->> 'discount')::bigint), 0) from jsonb_array_elements(g.groups) x) as c_discount,
        coalesce((select sum(p.amount) from payments p where p.invoice_id = i.id), 0) as c_paid
      from invoices i join sums s on s.invoice_id = i.id, lateral (select en16931_tax_groups(s.lines, i.discount_type, i.discount_value) as groups) g
    )
    select (select count(*) from invoices)::int as invoices,
           count(*)::int as with_lines,
           coalesce(sum(bad_lines), 0)::int as bad_lines,
           count(*) filter (where subtotal <> c_subtotal or tax_total <> c_tax or discount_total <> c_discount or (select coalesce(jsonb_agg(x - 'category' - 'exemptionReason' - 'exemptionReasonCode' order by k), '[]'::jsonb) from jsonb_array_elements(tax_groups) with ordinality as e(x, k)) <> groups
                              or total <> c_subtotal + c_tax - c_discount or amount_paid <> c_paid or balance <> total - amount_paid)::int as wrong
    from calc`;
  const r = bad as { invoices: number; with_lines: number; bad_lines: number; wrong: number };
  if (r.with_lines !== r.invoices || r.bad_lines !== 0 || r.wrong !== 0) {
    throw new Error(`Seed check failed: ${r.invoices - r.with_lines} invoices without lines, ${r.bad_lines} wrong line totals, ${r.wrong} invoices with wrong stored totals.`);
  }
}
