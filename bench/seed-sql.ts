// A company of any size, generated inside PostgreSQL (generate_series, INSERT … SELECT): nothing
// but a few statements travel from Node, so a million invoices with ≈ 5.5 M lines take minutes.
// The shapes follow bench/seed.ts (clients, the four taxes, 1–maxLines lines per invoice, the same
// discount, status and payment mix), drawn from a hash of the row's number so every run seeds the
// same data. Totals follow CONTRACT §6 in integer arithmetic (amounts scaled by 10^4, rounding half
// away from zero as (2n + d) / 2d, as bench/totals.ts does); `checkTotals` recomputes them
// independently with numeric round() afterwards.
import postgres from 'postgres';
import { openDatabase } from '../server/db.ts';
import { tokenCreate, userCreate } from '../server/cli/commands.ts';
import type { SeedSize } from './seed.ts';

export interface SqlSeeded {
  companyId: string;
  token: string;
  counts: { clients: number; invoices: number; lines: number; payments: number };
  ms: number;
}

const WORDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay', 'Soylent', 'Tyrell', 'Wonka', 'Cyberdyne', 'Aperture', 'Gringotts', 'Oscorp'];
const KINDS = ['Ltd', 'GmbH', 'SARL', 'Inc', 'LLC', 'BV', 'AB', 'Oy'];
const ITEMS = ['Consulting', 'Design work', 'Hosting (monthly)', 'Support plan', 'Licence', 'Training day', 'Travel expenses', 'Hardware', 'Maintenance', 'Development sprint', 'Audit', 'Translation'];
// Quantities scaled by 10^4 (bench/seed.ts's QTYS).
const QTYS = [10000, 10000, 10000, 20000, 30000, 50000, 100000, 5000, 15000, 22500, 3333, 120000];
const TAXES = [
  { name: 'VAT 20%', rate: 200000, type: 'exclusive' },
  { name: 'VAT 5.5%', rate: 55000, type: 'exclusive' },
  { name: 'GST 10% incl.', rate: 100000, type: 'inclusive' },
  { name: 'Sales tax 8.875%', rate: 88750, type: 'exclusive' },
] as const;

const arr = (xs: readonly (string | number)[]) => `array[${xs.map((x) => (typeof x === 'number' ? String(x) : `'${x.replace(/'/g, "''")}'`)).join(',')}]`;

/**
 * Seeds company `company` (user `email`, a token) with `size` on a migrated database, invoices
 * numbered from INV-000001, created one every 10 ms from 2025-01-01 (ids are UUIDv7 of that time).
 */
export async function seedInSql(url: string, company: string, email: string, size: SeedSize, log: (s: string) => void): Promise<SqlSeeded> {
  const started = Date.now();
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  let token: string;
  try {
    await database.migrate();
    const ctx = { db: database.db };
    await userCreate(ctx, { email, password: 'bench-password', company, role: 'admin', currency: 'USD' });
    token = (await tokenCreate(ctx, { email, company, name: `bench ${Date.now()}` })).trim();
  } finally {
    await database.close();
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ id: companyId }] = (await sql`select id from companies where name = ${company}`) as unknown as [{ id: string }];
    const c = `'${companyId}'::uuid`;
    // Session helpers: a number in [0, 1) from a key, and a UUIDv7 for a time and a key.
    await sql.unsafe(`
      create function pg_temp.rnd(k bigint) returns float8 language sql immutable as
        $$ select (hashint8(k)::bigint + 2147483648) / 4294967296.0 $$;
      create function pg_temp.uuid7(ms bigint, k bigint) returns uuid language sql immutable as
        $$ select (lpad(to_hex(ms), 12, '0') || '7' || substr(md5(k::text), 1, 3) || to_hex(8 + (k & 3)::int) || substr(md5(k::text), 4, 15))::uuid $$;`);
    const base = Date.UTC(2025, 0, 1);
    const salt = 7_919_000_000_000n; // keeps this company's keys apart from another seeded the same way
    const K = (i: string, k: number) => `(${i}::bigint * 64 + ${k} + ${salt + BigInt(companyId.charCodeAt(0)) * 1_000_000_000_000n})`;

    await sql.unsafe(`insert into taxes (id, company_id, name, rate, type)
      select pg_temp.uuid7(${base - 1000} + t.n, ${K('t.n', 60)}), ${c}, t.name, t.rate / 10000.0, t.type
      from unnest(${arr(TAXES.map((t) => t.name))}, ${arr(TAXES.map((t) => t.rate))}, ${arr(TAXES.map((t) => t.type))}) with ordinality as t(name, rate, type, n)`);
    await sql.unsafe(`insert into clients (id, company_id, name, currency, website, vat_number, status, created_at, updated_at, e_invoice_format)
      select pg_temp.uuid7(${base - 100_000} + i, ${K('i', 61)}), ${c},
        (${arr(WORDS)})[1 + floor(pg_temp.rnd(${K('i', 1)}) * ${WORDS.length})::int] || ' ' || (${arr(WORDS)})[1 + floor(pg_temp.rnd(${K('i', 2)}) * ${WORDS.length})::int]
          || ' ' || (${arr(KINDS)})[1 + floor(pg_temp.rnd(${K('i', 3)}) * ${KINDS.length})::int] || ' #' || i,
        case when pg_temp.rnd(${K('i', 4)}) < 0.7 then 'USD' when pg_temp.rnd(${K('i', 4)}) < 0.9 then 'EUR' else 'GBP' end,
        case when pg_temp.rnd(${K('i', 5)}) < 0.6 then 'https://client-' || i || '.example.com' end,
        case when pg_temp.rnd(${K('i', 6)}) < 0.5 then 'EU' || (100000000 + i) end,
        case when pg_temp.rnd(${K('i', 7)}) < 0.9 then 'active' else 'archived' end,
        to_timestamp((${base - 100_000} + i) / 1000.0), to_timestamp((${base - 100_000} + i) / 1000.0), 'peppol'
      from generate_series(1, ${size.clients}) i`);

    // One row per invoice with its random draws, and one per line with its amounts (§6 in
    // integers: total = round(price × qty); exclusive tax round(total × rate); inclusive
    // net = round(total / (1 + rate)), tax = total − net).
    await sql.unsafe(`
      create temp table seed_clients as select row_number() over (order by id) as n, id, currency from clients where company_id = ${c};
      create temp table seed_taxes as select row_number() over (order by id) as n, id, (rate * 10000)::bigint as rate, type from taxes where company_id = ${c};
      create unique index on seed_clients (n);
      analyze seed_clients;
      analyze seed_taxes;
      create temp view seed_inv as
        select i, pg_temp.uuid7(${base} + i * 10, ${K('i', 62)}) as id, ${base} + i * 10 as ms,
          1 + floor(pg_temp.rnd(${K('i', 10)}) * ${size.clients})::int as client_n,
          date '2024-01-01' + floor(pg_temp.rnd(${K('i', 11)}) * 701)::int as invoice_date,
          1 + floor(pg_temp.rnd(${K('i', 12)}) * ${size.maxLines})::int as n_lines,
          pg_temp.rnd(${K('i', 13)}) as dk,
          (array[50000, 100000, 125000, 150000])[1 + floor(pg_temp.rnd(${K('i', 14)}) * 4)::int] as pct,
          (1 + floor(pg_temp.rnd(${K('i', 15)}) * 50)::int) * 100 as fixed,
          pg_temp.rnd(${K('i', 16)}) as s,
          pg_temp.rnd(${K('i', 17)}) as split, pg_temp.rnd(${K('i', 18)}) as partial,
          10 + floor(pg_temp.rnd(${K('i', 19)}) * 81)::int as partial_pct,
          1 + floor(pg_temp.rnd(${K('i', 20)}) * 40)::int as paid_after,
          pg_temp.rnd(${K('i', 21)}) as terms
        from generate_series(1, ${size.invoices}) i;
      create temp view seed_line as
        select l.*, case when t.type = 'inclusive' then l.total - (2 * l.total * 1000000 + 1000000 + t.rate) / (2 * (1000000 + t.rate))
                         when t.type = 'exclusive' then (2 * l.total * t.rate + 1000000) / 2000000 else 0 end as tax,
               t.id as tax_id, t.type as tax_type
        from (select v.i, v.id as invoice_id, v.ms, p, k, price, qty, (2 * price * qty + 10000) / 20000 as total, tax_n
              from seed_inv v, generate_series(0, v.n_lines - 1) p,
                lateral (select v.i * 16 + p as k) kk,
                lateral (select ((1 + floor(pg_temp.rnd(${K('k', 30)}) * 5000)::bigint) * 100 + (array[0, 0, 50, 99])[1 + floor(pg_temp.rnd(${K('k', 31)}) * 4)::int]) as price,
                                (${arr(QTYS)})[1 + floor(pg_temp.rnd(${K('k', 32)}) * ${QTYS.length})::int]::bigint as qty,
                                case when pg_temp.rnd(${K('k', 33)}) < 0.7 then 1 + floor(pg_temp.rnd(${K('k', 34)}) * 4)::int end as tax_n) d) l
        left join seed_taxes t on t.n = l.tax_n;`);

    // Bulk loads build indexes faster at the end: the secondary ones are dropped and recreated
    // with their exact definitions.
    const idx = (await sql`select indexname, indexdef from pg_indexes i join pg_class c on c.relname = i.indexname join pg_index x on x.indexrelid = c.oid
                           where i.tablename in ('invoices', 'invoice_lines', 'payments') and not x.indisunique and not x.indisprimary`) as unknown as { indexname: string; indexdef: string }[];
    for (const i of idx) await sql.unsafe(`drop index "${i.indexname}"`);
    // The rows are consistent by construction (every reference comes from a join on the rows it
    // names), so the foreign keys' per-row checks (the system triggers, not ours) are suspended
    // during the load and verified in one pass at the end.
    const loaded = ['invoices', 'invoice_lines', 'payments'];
    const fks = (await sql`select tgname, tgrelid::regclass::text as rel from pg_trigger where tgisinternal and tgenabled <> 'D'
                           and tgrelid::regclass::text = any(${loaded}) and tgconstraint in (select oid from pg_constraint where contype = 'f')`) as unknown as { tgname: string; rel: string }[];
    for (const t of fks) await sql.unsafe(`alter table "${t.rel}" disable trigger "${t.tgname}"`);

    const chunk = 100_000;
    for (let from = 1; from <= size.invoices; from += chunk) {
      const to = Math.min(size.invoices, from + chunk - 1);
      const t0 = Date.now();
      await sql.begin(async (tx) => {
        const statements = `
          create temp table seed_chunk_lines on commit drop as select * from seed_line where i between ${from} and ${to};
          create temp table seed_doc on commit drop as
            select v.*, c.id as client_id, c.currency, s.subtotal, s.tax_total,
              case when v.dk < 0.75 then 'none' when v.dk < 0.9 then 'percentage' else 'fixed' end as discount_type,
              case when v.dk < 0.75 then 0 when v.dk < 0.9 then v.pct else v.fixed * 10000 end as discount_value,
              case when v.dk < 0.75 then 0 when v.dk < 0.9 then (2 * (s.subtotal + s.tax_total) * v.pct + 1000000) / 2000000
                   else least(v.fixed, s.subtotal + s.tax_total) end as discount_total,
              case when v.s < 0.1 then 'draft' when v.s < 0.45 then 'pending' when v.s < 0.55 then 'overdue' when v.s < 0.95 then 'paid' else 'cancelled' end as drawn
            from seed_inv v join seed_clients c on c.n = v.client_n
            join (select i, sum(case when tax_type = 'inclusive' then total - tax else total end)::bigint as subtotal, sum(tax)::bigint as tax_total
                  from seed_chunk_lines group by i) s on s.i = v.i
            where v.i between ${from} and ${to};
          analyze seed_doc;
          create temp table seed_pay on commit drop as
            with d as (select *, subtotal + tax_total - discount_total as total from seed_doc)
            select d.i, d.id as invoice_id, d.client_id, d.currency, d.invoice_date, a.amount, a.at, a.n
            from d, lateral (
              select * from (values
                (case when d.split < 0.3 and d.total > 1 then d.total / 2 else d.total end, d.invoice_date + d.paid_after - case when d.split < 0.3 and d.total > 1 then 1 else 0 end, 1),
                (case when d.split < 0.3 and d.total > 1 then d.total - d.total / 2 end, d.invoice_date + d.paid_after, 2)) x(amount, at, n)
              where d.drawn = 'paid' and d.total > 0 and x.amount is not null
              union all
              select greatest(d.total * d.partial_pct / 100, 1), d.invoice_date + 1 + (d.paid_after % 20), 1
              where d.drawn in ('pending', 'overdue') and d.total > 1 and d.partial < 0.3) a;
          analyze seed_pay;
          insert into invoices (id, company_id, number, client_id, status, invoice_date, due_date, paid_at, currency, discount_type, discount_value,
                                subtotal, tax_total, discount_total, total, amount_paid, balance, terms, created_at, updated_at)
          select d.id, ${c}, 'INV-' || lpad(d.i::text, greatest(6, length(d.i::text)), '0'), d.client_id,
            case when d.drawn = 'paid' and d.subtotal + d.tax_total - d.discount_total = 0 then 'pending' else d.drawn end,
            d.invoice_date,
            case when d.drawn = 'overdue' then least(d.invoice_date + 30, date '2025-12-31') else d.invoice_date + 30 end,
            case when d.drawn = 'paid' then p.last_at::timestamptz end,
            d.currency, d.discount_type, d.discount_value / 10000.0,
            d.subtotal, d.tax_total, d.discount_total, d.subtotal + d.tax_total - d.discount_total,
            coalesce(p.paid, 0), d.subtotal + d.tax_total - d.discount_total - coalesce(p.paid, 0),
            case when d.terms < 0.3 then 'Payment within 30 days.' end,
            to_timestamp(d.ms / 1000.0), to_timestamp(d.ms / 1000.0)
          from seed_doc d left join (select i, sum(amount) as paid, max(at) as last_at from seed_pay group by i) p on p.i = d.i;
          insert into invoice_lines (id, company_id, invoice_id, description, qty, price, tax_id, position, total, created_at, updated_at)
          select pg_temp.uuid7(l.ms, ${K('l.k', 63)}), ${c}, l.invoice_id,
            (${arr(ITEMS)})[1 + floor(pg_temp.rnd(${K('l.k', 35)}) * ${ITEMS.length})::int] || ' ' || (l.p + 1),
            l.qty / 10000.0, l.price, l.tax_id, l.p, l.total, to_timestamp(l.ms / 1000.0), to_timestamp(l.ms / 1000.0)
          from seed_chunk_lines l;
          insert into payments (id, company_id, invoice_id, client_id, amount, currency, method, reference, paid_at, created_at, updated_at)
          select pg_temp.uuid7(${base} + p.i * 10, ${K('p.i * 4 + p.n', 40)}), ${c}, p.invoice_id, p.client_id, p.amount, p.currency,
            (array['bank_transfer', 'bank_transfer', 'card', 'cash', 'check', 'other'])[1 + floor(pg_temp.rnd(${K('p.i * 4 + p.n', 41)}) * 6)::int],
            case when pg_temp.rnd(${K('p.i * 4 + p.n', 42)}) < 0.5 then 'REF-' || p.i || '-' || p.n end,
            p.at::timestamptz, to_timestamp((${base} + p.i * 10) / 1000.0), to_timestamp((${base} + p.i * 10) / 1000.0)
          from seed_pay p`.split(/;\n/);
        for (const text of statements) {
          const ts = Date.now();
          await tx.unsafe(text);
          if (process.env.SCALE_TRACE) log(`     ${((Date.now() - ts) / 1000).toFixed(1)} s: ${text.trim().slice(0, 60)}`);
        }
      });
      log(`   ${company}: invoices ${from.toLocaleString('en-US')}–${to.toLocaleString('en-US')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    for (const t of fks) await sql.unsafe(`alter table "${t.rel}" enable trigger "${t.tgname}"`);
    const t1 = Date.now();
    for (const i of idx) await sql.unsafe(i.indexdef);
    const [orphans] = (await sql`select
        (select count(*) from invoices i where i.company_id = ${companyId} and not exists (select 1 from clients c where c.id = i.client_id))::int
      + (select count(*) from invoice_lines l where l.company_id = ${companyId} and (not exists (select 1 from invoices i where i.id = l.invoice_id)
           or (l.tax_id is not null and not exists (select 1 from taxes t where t.id = l.tax_id))))::int
      + (select count(*) from payments p where p.company_id = ${companyId} and not exists (select 1 from invoices i where i.id = p.invoice_id))::int as n`) as unknown as [{ n: number }];
    if (orphans.n) throw new Error(`Seed check failed: ${orphans.n} rows reference a missing record.`);
    log(`   ${company}: ${idx.length} indexes rebuilt in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    await sql`insert into engine_sequences (company_id, name, value) values (${companyId}, 'Invoice.number', ${size.invoices})
              on conflict (company_id, name) do update set value = excluded.value`;
    const [n] = (await sql`select (select count(*) from clients where company_id = ${companyId})::int as clients,
      (select count(*) from invoices where company_id = ${companyId})::int as invoices,
      (select count(*) from invoice_lines where company_id = ${companyId})::int as lines,
      (select count(*) from payments where company_id = ${companyId})::int as payments`) as unknown as [SqlSeeded['counts']];
    return { companyId, token, counts: n, ms: Date.now() - started };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
