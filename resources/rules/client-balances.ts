// `GET /api/clients/{id}/balances` (CONTRACT §20): what a client owes, per currency — Σ balance of
// its pending and overdue invoices, in SQL through the invoices' client index — as a declared item
// operation (REST, GraphQL, OpenAPI, roles), shown on the client's page as a panel of its record
// (`present.panel`): amounts in the currency's smallest unit (`x-money`), each with its currency
// (`x-currency`).
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import { operation } from '../../engine/descriptor.ts';
import { rowsOf } from '../../engine/types.ts';

export const clientBalances = operation({
  method: 'GET',
  path: 'balances',
  summary: "The client's open balance per currency: Σ balance of its pending and overdue invoices",
  output: {
    type: 'ClientBalance',
    many: true,
    schema: Type.Object({
      currency: Type.String({ description: 'ISO 4217 code', 'x-currency': true }),
      balance: Type.Integer({ description: 'Σ balance of the pending and overdue invoices in this currency, in its smallest unit', 'x-money': true }),
      invoices: Type.Integer({ description: 'How many invoices are open (pending or overdue) in this currency' }),
    }),
  },
  present: { panel: 'Open balance' },
  async run(ctx) {
    const invoices = ctx.model.get('Invoice');
    const rows = rowsOf<{ currency: string; balance: unknown; n: unknown }>(
      await ctx.db.execute(sql`select currency, coalesce(sum(balance), 0)::bigint as balance, count(*)::int as n from ${sql.identifier(invoices.table)}
        where company_id = ${ctx.principal.company.id} and client_id = ${String(ctx.record!.id)} and status in ('pending', 'overdue')
        group by currency order by currency`),
    );
    const items = rows.map((r) => ({ currency: String(r.currency), balance: Number(r.balance), invoices: Number(r.n) }));
    return { items, total: items.length };
  },
});
