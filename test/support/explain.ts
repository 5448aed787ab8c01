// What a keyset page costs on PostgreSQL (CONTRACT §10), for the EXPLAIN tests of the REST and
// GraphQL cursors: invoices with ties and nulls in every order field, the cursor of the record at
// an offset in an order, and the rows an executed statement read from a table.
import { sql } from 'drizzle-orm';
import { encodeCursor } from '../../engine/keyset.ts';
import type { Order } from '../../engine/query.ts';
import { rowsOf, type Database } from '../../server/db.ts';
import { model } from '../../server/model.ts';

const r = model.get('Invoice');

/**
 * Invoices `from` … `from + n − 1` of a company's client, inserted in SQL: a quarter without a
 * number, a third without a due date, and ties in the invoice date, the total and createdAt.
 */
export async function insertInvoices(database: Database, company: string, client: string, from: number, n: number): Promise<void> {
  await database.db.execute(sql`insert into invoices (id, company_id, number, client_id, status, invoice_date, due_date, discount_type, discount_value, total, created_at)
    select gen_random_uuid(), ${company}, case when g % 4 = 0 then null else 'N-' || lpad(g::text, 6, '0') end, ${client}, 'draft', date '2026-01-01' + (g % 3),
      case when g % 3 = 0 then null else date '2026-02-01' + (g % 2) end, 'none', 0, (g % 5) * 100, timestamptz '2026-01-01T00:00:00Z' + (g % 3) * interval '1.5 second'
    from generate_series(${from}::int, ${from + n - 1}::int) as g`);
}

/**
 * Where the deep-cursor EXPLAIN tests (GraphQL and REST) put their cursor in 4,000 invoices of
 * `insertInvoices`: every order field, nullable ones in their values and past their nulls.
 */
export const DEEP_CURSOR_CASES: readonly { order: Order[]; at: number }[] = [
  { order: [], at: 2000 },
  { order: [{ field: 'total', dir: 'desc' }], at: 2000 },
  { order: [{ field: 'invoiceDate', dir: 'asc' }], at: 2000 },
  { order: [{ field: 'dueDate', dir: 'asc' }], at: 2000 },
  { order: [{ field: 'dueDate', dir: 'asc' }], at: 3500 },
  { order: [{ field: 'dueDate', dir: 'desc' }], at: 500 },
  { order: [{ field: 'dueDate', dir: 'desc' }], at: 2500 },
  { order: [{ field: 'number', dir: 'asc' }], at: 2000 },
  { order: [{ field: 'number', dir: 'asc' }], at: 3500 },
  { order: [{ field: 'number', dir: 'desc' }], at: 500 },
];

/** The cursor of the company's invoice at offset `at` in `order` (PostgreSQL's order: ASC nulls last). */
export async function invoiceCursorAt(database: Database, company: string, order: readonly Order[], at: number): Promise<string> {
  const columns = order.map((o) => r.byName.get(o.field)!.column);
  const orderSql = sql.raw([...order.map((o, i) => `${columns[i]} ${o.dir}`), `id ${order.at(-1)?.dir ?? 'asc'}`].join(', '));
  const select = sql.raw(['id', ...columns.map((c, i) => `${c}${c.endsWith('date') ? '::text' : ''} as "${order[i]!.field}"`)].join(', '));
  const [rec] = rowsOf<Record<string, unknown>>(await database.db.execute(sql`select ${select} from invoices where company_id = ${company} order by ${orderSql} offset ${at} limit 1`));
  if (!rec) throw new Error(`no invoice at ${at}`);
  return encodeCursor(r, order, { ...rec, ...(rec.total === undefined ? {} : { total: Number(rec.total) }) } as never);
}

/** Rows the scans of `relation` read (returned or filtered out), over every loop, in an EXPLAIN ANALYZE plan. */
export function rowsRead(plan: unknown, relation: string): number {
  let n = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node['Relation Name'] === relation) {
      const loops = Number(node['Actual Loops'] ?? 1);
      n += loops * (Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0) + Number(node['Rows Removed by Index Recheck'] ?? 0));
    }
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(plan as Record<string, unknown>);
  return n;
}

/** Runs a recorded statement under EXPLAIN ANALYZE: the rows its scans of `relation` read, and the plan (for messages). */
export async function explainRead(database: Database, st: { text: string; params: unknown[] }, relation: string): Promise<{ read: number; plan: unknown }> {
  const [row] = rowsOf<Record<string, unknown>>(await database.raw(`explain (analyze, format json) ${st.text}`, st.params));
  const json = Object.values(row!)[0] as { Plan: unknown }[] | string;
  const plan = (typeof json === 'string' ? (JSON.parse(json) as { Plan: unknown }[]) : json)[0]!.Plan;
  return { read: rowsRead(plan, relation), plan };
}
