// Reports and exports at scale (CONTRACT §21, issue 46): a company of 1,000,000 invoices (bench/seed-sql.ts)
// next to another of 100,000, on PostgreSQL; the server runs as its own process (bench/servers.ts).
// - reports: each report over HTTP, several times, median and worst; and EXPLAIN ANALYZE of each
//   statement: the rows it read of each table, against the large company's own rows;
// - `--csv`: `GET /api/invoices` with `Accept: text/csv` (every one of the 1,000,000 invoices),
//   the server's resident memory sampled every 100 ms while it streams.
// Writes bench/results/reports.md (and reports-csv.md with --csv).
//
//   npx tsx bench/reports.ts [--size 1000000] [--keep | --reuse <database>] [--csv] [--runs 7]
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { sql as dsql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { openDatabase } from '../server/db.ts';
import { tokenCreate, userCreate } from '../server/cli/commands.ts';
import { model } from '../server/model.ts';
import { agingSql, revenueSql, taxSql } from '../resources/rules/reports.ts';
import { createBenchDatabase, type BenchDatabase } from './seed.ts';
import { seedInSql } from './seed-sql.ts';
import { startOurs, ROOT } from './servers.ts';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SIZE = Number(opt('size') ?? 1_000_000);
const RUNS = Number(opt('runs') ?? 7);
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = { name: 'Reports Large', email: 'large@reports.bench' };
const OTHER = { name: 'Reports Other', email: 'other@reports.bench' };
const log = (s: string) => process.stdout.write(`${s}\n`);
const ms = (x: number) => `${x.toFixed(0)} ms`;

async function main() {
  let db: BenchDatabase;
  const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
  const reuse = opt('reuse');
  if (reuse) {
    const u = new URL(ADMIN);
    u.pathname = `/${reuse}`;
    db = { name: reuse, url: u.toString(), drop: async () => void (await admin.unsafe(`drop database if exists ${reuse} with (force)`)) };
    log(`== reusing ${reuse}`);
  } else {
    db = await createBenchDatabase(ADMIN);
    log(`== database ${db.name}`);
  }
  // Each step is skipped when its data is there (a run cut short goes on with --reuse).
  const s0 = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    const has = async (name: string) => ((await s0`select count(*)::int as n from companies where name = ${name}`.catch(() => [{ n: 0 }])) as unknown as [{ n: number }])[0].n > 0;
    if (!(await has(LARGE.name))) {
      const t0 = Date.now();
      const large = await seedInSql(db.url, LARGE.name, LARGE.email, { clients: Math.max(1000, SIZE / 100), invoices: SIZE, maxLines: 10 }, log);
      log(`   seeded ${large.counts.invoices} invoices in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    if (!(await has(OTHER.name)) || !((await s0`select count(*)::int as n from invoices i join companies c on c.id = i.company_id and c.name = ${OTHER.name}`) as unknown as [{ n: number }])[0].n) {
      // The other company: a tenth of the large one's invoices and payments, copied with new ids
      // (seedInSql derives its keys from the company id's first character, which both share).
      const database = await openDatabase({ databaseUrl: db.url, maxConnections: 1 });
      try {
        if (!(await has(OTHER.name))) await userCreate({ db: database.db }, { email: OTHER.email, password: 'bench-password', company: OTHER.name, role: 'admin', currency: 'USD' });
      } finally {
        await database.close();
      }
      await s0.unsafe(`
        create temp table other_map as select c.id as old, gen_random_uuid() as new from clients c join companies k on k.id = c.company_id and k.name = '${LARGE.name}' order by c.id limit 1000;
        insert into clients (id, company_id, name, currency, status, e_invoice_format) select m.new, (select id from companies where name = '${OTHER.name}'), 'Other ' || c.name, c.currency, c.status, c.e_invoice_format from other_map m join clients c on c.id = m.old;
        create temp table other_inv as select i.id as old, gen_random_uuid() as new, m.new as client from invoices i join other_map m on m.old = i.client_id limit ${Math.max(1000, SIZE / 10)};
        insert into invoices (id, company_id, number, client_id, status, invoice_date, due_date, paid_at, currency, discount_type, discount_value, subtotal, tax_total, discount_total, total, amount_paid, balance)
          select o.new, (select id from companies where name = '${OTHER.name}'), i.number, o.client, i.status, i.invoice_date, i.due_date, i.paid_at, i.currency, i.discount_type, i.discount_value, i.subtotal, i.tax_total, i.discount_total, i.total, i.amount_paid, i.balance
          from other_inv o join invoices i on i.id = o.old;
        insert into payments (id, company_id, invoice_id, client_id, amount, currency, method, paid_at)
          select gen_random_uuid(), (select id from companies where name = '${OTHER.name}'), o.new, o.client, p.amount, p.currency, p.method, p.paid_at from other_inv o join payments p on p.invoice_id = o.old;`);
      log('   other company copied');
    }
    const [cn] = (await s0`select count(*)::int as n from credit_notes`) as unknown as [{ n: number }];
    if (!cn.n) {
      // The seed leaves tax groups empty: one group per invoice from its totals (rates as its taxes'),
      // and issued credit notes (1 per 100 invoices) with theirs, so that the tax report has work.
      const t1 = Date.now();
      await s0.unsafe(`update invoices set tax_groups = jsonb_build_array(jsonb_build_object('rate', (array[0, 5.5, 10, 20])[1 + (hashtext(id::text) & 3)],
        'base', subtotal, 'discount', discount_total, 'taxable', subtotal - discount_total, 'tax', tax_total))`);
      await s0.unsafe(`insert into credit_notes (id, company_id, number, client_id, status, issue_date, currency, discount_type, discount_value, subtotal, tax_total, discount_total, total, tax_groups)
        select gen_random_uuid(), company_id, 'CN-' || lpad(row_number() over (partition by company_id order by id)::text, 7, '0'), client_id, 'issued', invoice_date + 20, currency, 'none', 0,
          subtotal / 10, tax_total / 10, 0, subtotal / 10 + tax_total / 10,
          jsonb_build_array(jsonb_build_object('rate', (tax_groups->0->>'rate')::numeric, 'base', subtotal / 10, 'discount', 0, 'taxable', subtotal / 10, 'tax', tax_total / 10))
        from invoices where status in ('pending', 'paid') and hashtext(id::text) % 100 = 0`);
      await s0.unsafe('vacuum analyze');
      log(`   tax groups and credit notes in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
    }
  } finally {
    await s0.end({ timeout: 5 });
  }
  const database = await openDatabase({ databaseUrl: db.url, maxConnections: 1 });
  let token: string;
  let company: string;
  const s = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    token = (await tokenCreate({ db: database.db }, { email: LARGE.email, company: LARGE.name, name: `reports ${Date.now()}` })).trim();
    const [row] = (await s`select id::text from companies where name = ${LARGE.name}`) as unknown as [{ id: string }];
    company = row.id;
  } finally {
    await database.close();
  }
  const [counts] = (await s`select (select count(*) from invoices where company_id = ${company})::int as own, (select count(*) from invoices)::int as total,
    (select count(*) from credit_notes where company_id = ${company})::int as notes, (select count(*) from payments where company_id = ${company})::int as payments`) as unknown as [{ own: number; total: number; notes: number; payments: number }];
  log(`   large company: ${counts.own} invoices (${counts.total} in the table), ${counts.notes} credit notes, ${counts.payments} payments`);

  const server = await startOurs({ databaseUrl: db.url });
  const out: string[] = [];
  try {
    if (args.includes('--csv')) out.push(...(await csv(server, token, counts.own)));
    else out.push(...(await reports(server, token, company, s, counts)));
  } finally {
    await server.stop();
    await s.end({ timeout: 5 });
    await admin.end({ timeout: 5 });
  }
  const file = args.includes('--csv') ? 'reports-csv.md' : 'reports.md';
  writeFileSync(`${ROOT}bench/results/${file}`, out.join('\n') + '\n');
  log(out.join('\n'));
  if (!args.includes('--keep') && !reuse) await db.drop();
  else log(`kept: npx tsx bench/reports.ts --reuse ${db.name}`);
}

async function reports(server: { url: string }, token: string, company: string, s: postgres.Sql, counts: { own: number; total: number }): Promise<string[]> {
  const year = '2025';
  const cases: { path: string; statement: ReturnType<typeof dsql> }[] = [
    { path: `/api/reports/revenue?from=${year}-01-01&to=${year}-12-31&groupBy=month`, statement: revenueSql({ model }, company, `${year}-01-01`, `${year}-12-31`, 'month') },
    { path: '/api/reports/revenue?from=2021-01-01&to=2025-12-31&groupBy=quarter', statement: revenueSql({ model }, company, '2021-01-01', '2025-12-31', 'quarter') },
    { path: `/api/reports/tax?from=${year}-04-01&to=${year}-06-30`, statement: taxSql({ model }, company, `${year}-04-01`, `${year}-06-30`) },
    { path: '/api/reports/tax?from=2021-01-01&to=2025-12-31', statement: taxSql({ model }, company, '2021-01-01', '2025-12-31') },
    { path: '/api/reports/aging?date=2026-01-31', statement: agingSql({ model }, company, '2026-01-31') },
  ];
  const dialect = new PgDialect();
  const lines = [
    '# Reports at scale (issue 46)',
    '',
    `A company of ${counts.own.toLocaleString('en-US')} invoices (bench/seed-sql.ts: dates over 2024–2025, 45 % pending or overdue) in a table of ${counts.total.toLocaleString('en-US')}, with a`,
    'credit note for 1 % of them and one tax group per invoice; PostgreSQL 127.0.0.1, the server its own process, on the shared 2-core machine.',
    '`npx tsx bench/reports.ts` (seeds, measures, drops; `--keep`/`--reuse <db>` to measure again).',
    '',
    `Each report requested ${RUNS} times in a row over HTTP (JSON); rows read from EXPLAIN (ANALYZE) of its statement as planned, and of the same`,
    'statement with sequential scans disabled (`set local enable_seqscan = off`): the plan through the indexes that begin with the company.',
    '',
    '| request | rows | median | worst | invoices read (plan) | scans not bounded by the company | payments / credit notes read | through the company\'s indexes: invoices read, other scans, execution |',
    '|---|---:|---:|---:|---:|---|---:|---|',
  ];
  for (const c of cases) {
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await fetch(server.url + c.path, { headers: { 'x-api-token': token, accept: 'application/json' } });
      const body = (await res.json()) as unknown[];
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${c.path}: ${res.status} ${JSON.stringify(body)}`);
      rows = body.length;
    }
    times.sort((a, b) => a - b);
    const q = dialect.sqlToQuery(dsql`explain (analyze, format json) ${c.statement}`);
    const [row] = (await s.unsafe(q.sql, q.params as never[])) as unknown as [Record<string, unknown>];
    const plan = (Object.values(row)[0] as { Plan: unknown }[])[0]!.Plan;
    const read = (rel: string) => scanned(plan, rel);
    const inv = read('invoices');
    // Rows of other companies: what the scans read beyond this company's rows (their filters
    // and index conditions all start with company_id = …, checked here as well).
    const foreign = foreignScans(plan, company);
    const forced = await s.begin(async (tx) => {
      await tx.unsafe('set local enable_seqscan = off');
      const [r2] = (await tx.unsafe(q.sql, q.params as never[])) as unknown as [Record<string, unknown>];
      return (Object.values(r2)[0] as { Plan: unknown; 'Execution Time': number }[])[0]!;
    });
    lines.push(`| \`GET ${c.path}\` | ${rows} | ${ms(times[Math.floor(times.length / 2)]!)} | ${ms(times.at(-1)!)} | ${inv.toLocaleString('en-US')} | ${foreign} | ${read('payments').toLocaleString('en-US')} / ${read('credit_notes').toLocaleString('en-US')} | ${scanned(forced.Plan, 'invoices').toLocaleString('en-US')}, ${foreignScans(forced.Plan, company)}, ${ms(forced['Execution Time'])} |`);
    log(lines.at(-1)!);
  }
  lines.push(
    '',
    `Here one company holds ${((counts.own / counts.total) * 100).toFixed(0)} % of the invoices table, so PostgreSQL rightly prefers a sequential scan for a report over much of it, and`,
    'that scan reads the other company\'s rows too (and filters them out); where a company is a small part of the table the planner takes the',
    '(company, date) and (company, status) indexes (test/reports.test.ts asserts it on PostgreSQL: no sequential scan, no other company\'s row),',
    'and the last column shows that plan here: it reads this company\'s rows only, at a comparable cost.',
    '',
    'Bound stated (issue 46): over a company of 1,000,000 invoices, a report of one year or less answers within 4 s and one of 5 years',
    'within 8 s on this shared 2-core machine (the worst of the runs above; an earlier run on a busier machine saw 10.9 s once for the 5-year tax report); a report reads the rows of its period (aging: the open invoices),',
    'so its cost follows the period asked for, not the company\'s history.',
  );
  return lines;
}

/** Rows the scans of `relation` read (returned or filtered out), over every loop. */
function scanned(plan: unknown, relation: string): number {
  let n = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node['Relation Name'] === relation) n += Number(node['Actual Loops'] ?? 1) * (Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0) + Number(node['Rows Removed by Index Recheck'] ?? 0));
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(plan as Record<string, unknown>);
  return n;
}

/** 'none' when every scan of a company table is bounded by `company_id = <company>` (index condition or recheck), else the scans that are not. */
function foreignScans(plan: unknown, company: string): string {
  const bad: string[] = [];
  const walk = (node: Record<string, unknown>, parentCond?: string) => {
    const cond = [node['Index Cond'], node['Recheck Cond'], parentCond].filter(Boolean).join(' ');
    const rel = node['Relation Name'] as string | undefined;
    if (rel && ['invoices', 'payments', 'credit_notes'].includes(rel) && !cond.includes(company) && !(node['Node Type'] === 'Bitmap Heap Scan' && String(node['Recheck Cond']).includes(company))) bad.push(`${node['Node Type']} on ${rel}`);
    if (rel === 'clients' && !String(node['Index Cond'] ?? '').includes('id =')) bad.push(`${node['Node Type']} on clients`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child, node['Node Type'] === 'Bitmap Heap Scan' ? String(node['Recheck Cond']) : undefined);
  };
  walk(plan as Record<string, unknown>);
  return bad.length ? bad.join(', ') : 'none';
}

async function csv(server: { url: string; rss(): number }, token: string, own: number): Promise<string[]> {
  const samples: { t: number; rss: number }[] = [];
  const t0 = performance.now();
  const before = server.rss();
  const timer = setInterval(() => samples.push({ t: performance.now() - t0, rss: server.rss() }), 100);
  let bytes = 0;
  let rows = 0;
  try {
    const res = await fetch(`${server.url}/api/invoices`, { headers: { 'x-api-token': token, accept: 'text/csv' } });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (const b of value) if (b === 10) rows++;
    }
  } finally {
    clearInterval(timer);
  }
  const total = performance.now() - t0;
  const mb = (x: number) => `${(x / 1048576).toFixed(0)} MiB`;
  const rss = samples.map((x) => x.rss);
  const tenth = (k: number) => samples[Math.min(samples.length - 1, Math.floor((samples.length * k) / 10))]!;
  return [
    '# CSV export at scale (issue 46)',
    '',
    `\`GET /api/invoices\` with \`Accept: text/csv\`: every invoice of a company of ${own.toLocaleString('en-US')} (bench/seed-sql.ts), streamed in keyset windows;`,
    'the server is its own process (bench/servers.ts), its resident set size (VmRSS) sampled every 100 ms while the client reads.',
    '`npx tsx bench/reports.ts --csv` (with `--reuse <db>` after a `--keep` run).',
    '',
    `- rows received: ${(rows - 1).toLocaleString('en-US')} (and the header), ${mb(bytes)}, in ${(total / 1000).toFixed(1)} s`,
    `- RSS before the request: ${mb(before)}; during it: min ${mb(Math.min(...rss))}, max ${mb(Math.max(...rss))} (${samples.length} samples)`,
    '',
    '| time into the export | RSS |',
    '|---:|---:|',
    ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((k) => tenth(k)).map((x) => `| ${(x.t / 1000).toFixed(1)} s | ${mb(x.rss)} |`),
  ];
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
