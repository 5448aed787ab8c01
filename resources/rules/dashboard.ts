// `GET /api/invoices/dashboard` (CONTRACT §17): what the web application's dashboard shows, as a
// declared collection operation of Invoice, so that it is a part of /api like any other (REST,
// GraphQL `dashboardInvoice`, OpenAPI, roles) and any client may use it.
// - per currency: outstanding (Σ balance of pending and overdue invoices) and overdue (Σ balance
//   of overdue ones): read through the (company, status) index, so it costs the open invoices;
// - invoices per status: from the engine's counters (engine/counts.ts), whatever their number;
// - payments per month and currency over the last 12 months (the current one included), UTC.
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import { COUNTS_TABLE } from '../../engine/counts.ts';
import { operation } from '../../engine/descriptor.ts';
import { rowsOf } from '../../engine/types.ts';

const Amounts = Type.Object({ currency: Type.String(), outstanding: Type.Integer(), overdue: Type.Integer(), overdueCount: Type.Integer() });
const Status = Type.Object({ status: Type.String(), count: Type.Integer() });
const Month = Type.Object({ month: Type.String({ description: 'YYYY-MM' }), currency: Type.String(), amount: Type.Integer(), count: Type.Integer() });


/** The 12 months ending with `now`'s, oldest first, as YYYY-MM (UTC). */
export function lastMonths(now: Date, n = 12): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    out.push(d.toISOString().slice(0, 7));
  }
  return out;
}

export const dashboard = operation({
  method: 'GET',
  path: 'dashboard',
  summary: "The company's receivables: outstanding and overdue per currency, invoices per status, payments per month over 12 months",
  output: {
    type: 'InvoiceDashboard',
    schema: Type.Object({
      currencies: Type.Array(Amounts, { description: 'Per currency: Σ balance of pending and overdue invoices (outstanding) and of overdue ones' }),
      statuses: Type.Array(Status, { description: 'The number of invoices in each status' }),
      months: Type.Array(Type.String(), { description: 'The 12 months shown, oldest first (YYYY-MM, UTC)' }),
      payments: Type.Array(Month, { description: 'Σ amount of payments per month and currency, over `months`' }),
    }),
  },
  async run(ctx) {
    const company = ctx.principal.company.id;
    const invoices = ctx.model.get('Invoice');
    const payments = ctx.model.get('Payment');
    const months = lastMonths(new Date());
    const from = `${months[0]}-01T00:00:00Z`;
    const [open, counts, paid] = await Promise.all([
      ctx.db.execute(sql`select currency, coalesce(sum(balance), 0)::bigint as outstanding,
          coalesce(sum(balance) filter (where status = 'overdue'), 0)::bigint as overdue,
          count(*) filter (where status = 'overdue')::int as overdue_count
        from ${sql.identifier(invoices.table)} where company_id = ${company} and status in ('pending', 'overdue')
        group by currency order by currency`),
      ctx.db.execute(sql`select key, coalesce(sum(n), 0)::int as n from ${sql.identifier(COUNTS_TABLE)}
        where company_id = ${company} and resource = ${invoices.name} and key like 'status:%' group by key`),
      ctx.db.execute(sql`select to_char(paid_at at time zone 'UTC', 'YYYY-MM') as month, currency, sum(amount)::bigint as amount, count(*)::int as n
        from ${sql.identifier(payments.table)} where company_id = ${company} and paid_at >= ${from}::timestamptz
        group by 1, 2 order by 1, 2`),
    ]);
    const byStatus = new Map(rowsOf<{ key: string; n: number }>(counts).map((r) => [r.key.slice('status:'.length), Number(r.n)]));
    const statusField = invoices.byName.get('status')!.def;
    const values = statusField.kind === 'enum' ? statusField.values : [];
    return {
      currencies: rowsOf<{ currency: string; outstanding: string; overdue: string; overdue_count: number }>(open).map((r) => ({ currency: r.currency, outstanding: Number(r.outstanding), overdue: Number(r.overdue), overdueCount: Number(r.overdue_count) })),
      statuses: values.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
      months,
      payments: rowsOf<{ month: string; currency: string; amount: string; n: number }>(paid).map((r) => ({ month: r.month, currency: r.currency, amount: Number(r.amount), count: Number(r.n) })),
    };
  },
});
