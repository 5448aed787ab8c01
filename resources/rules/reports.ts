// The reports of CONTRACT §21, each one SQL statement over the calling company's records, per
// currency (amounts are never added across currencies), read through the `(company, date)` and
// `(company, status)` indexes the descriptors' orders and filters already give (docs/reports.md):
// - revenue: per period, invoiced (Σ total of pending, overdue and paid invoices by invoiceDate),
//   credited (Σ total of issued credit notes by issueDate), paid (Σ amount of payments by paidAt, UTC);
// - tax: per category and rate, Σ taxable and Σ tax of those invoices' tax groups less those of the
//   issued credit notes, each by its own date in the period;
// - aging: per client, today's balances of pending and overdue invoices by days past due at `date`.
import { Type, type Static } from '@sinclair/typebox';
import { sql, type SQL } from 'drizzle-orm';
import { operation, type OperationContext } from '../../engine/descriptor.ts';
import { ApiError, violation } from '../../engine/errors.ts';
import { rowsOf } from '../../engine/types.ts';

/** Invoices that count as revenue: issued and not cancelled. */
export const INVOICED_STATUSES = ['pending', 'overdue', 'paid'] as const;
/** Invoices that are owed. */
export const OPEN_STATUSES = ['pending', 'overdue'] as const;
/** The longest period a report covers. */
export const MAX_YEARS = 5;

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const day = (description: string) => Type.Optional(Type.String({ pattern: DATE, description, examples: ['2026-01-01'] }));
const period = {
  from: day('First day of the period (YYYY-MM-DD); default 1 January of the current year (UTC)'),
  to: day('Last day of the period, included (YYYY-MM-DD); default 31 December of the current year (UTC). At most 5 years after `from`.'),
};
// 'x-money': CSV writes the member in major units of the item's currency (formats/csv.ts).
const money = (description: string) => Type.Integer({ description: `${description}, in the currency's smallest unit`, 'x-money': true });

/**
 * A tax group's category (CONTRACT §18): the one stored with the group, else the default of its
 * rate (S above 0, else Z). ONE expression, so that the stored category, once tax groups carry
 * one (issue 44), is what the report groups by without any other change.
 */
const categoryOf = (group: SQL): SQL => sql`coalesce(${group}->>'category', case when (${group}->>'rate')::numeric > 0 then 'S' else 'Z' end)`;

type Tables = Pick<OperationContext, 'model'>;
const ident = (ctx: Tables, name: string) => sql.identifier(ctx.model.get(name).table);

/** A date of the query (checked by its pattern): a real calendar day, or a 422 on `name`. */
function realDay(name: string, value: string): string {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) throw ApiError.validation([violation(name, `"${value}" is not a date (YYYY-MM-DD).`)]);
  return value;
}

const today = () => new Date().toISOString().slice(0, 10);

/** `from` and `to` with their defaults (the current UTC year), `to` not before `from`, at most MAX_YEARS apart. */
export function periodOf(q: { from?: string; to?: string }, now = today()): { from: string; to: string } {
  const year = now.slice(0, 4);
  const from = q.from !== undefined ? realDay('from', q.from) : `${year}-01-01`;
  const to = q.to !== undefined ? realDay('to', q.to) : `${year}-12-31`;
  if (to < from) throw ApiError.validation([violation('to', `The period ends (${to}) before it starts (${from}).`)]);
  const limit = new Date(`${from}T00:00:00Z`);
  limit.setUTCFullYear(limit.getUTCFullYear() + MAX_YEARS);
  if (to >= limit.toISOString().slice(0, 10)) throw ApiError.validation([violation('to', `A report covers at most ${MAX_YEARS} years: "to" must be before ${limit.toISOString().slice(0, 10)}.`)]);
  return { from, to };
}

const rows = async <T>(ctx: OperationContext, q: SQL): Promise<T[]> => rowsOf<T>(await ctx.db.execute(q));
const int = (v: unknown) => Number(v ?? 0);

const RevenueQuery = Type.Object({
  ...period,
  groupBy: Type.Optional(Type.Union([Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')], { description: 'The periods: month (2026-01), quarter (2026-Q1) or year (2026); default month' })),
});
const FORMATS = { month: 'YYYY-MM', quarter: 'YYYY-"Q"Q', year: 'YYYY' } as const;

export const revenue = operation({
  method: 'GET',
  path: 'revenue',
  summary: 'Revenue per period and currency: invoiced, credited and paid',
  description:
    'Per period and currency: `invoiced`, Σ total of the pending, overdue and paid invoices dated (invoiceDate) in it; `credited`, Σ total of the issued credit notes dated (issueDate) in it; ' +
    '`paid`, Σ amount of the payments received (paidAt, UTC) in it. Periods without any of these are left out. Ordered by period, then currency. A period over 5 years: 422.',
  roles: ['admin', 'member'],
  query: RevenueQuery,
  output: {
    type: 'RevenueReport',
    many: true,
    schema: Type.Object({
      period: Type.String({ description: 'YYYY-MM, YYYY-Qn or YYYY' }),
      currency: Type.String(),
      invoiced: money('Σ total of pending, overdue and paid invoices'),
      credited: money('Σ total of issued credit notes'),
      paid: money('Σ amount of payments'),
    }),
  },
  async run(ctx) {
    const q = ctx.args as Static<typeof RevenueQuery>;
    const { from, to } = periodOf(q);
    const found = await rows<Record<string, unknown>>(ctx, revenueSql(ctx, ctx.principal.company.id, from, to, q.groupBy ?? 'month'));
    const items = found.map((r) => ({ period: String(r.period), currency: String(r.currency ?? ''), invoiced: int(r.invoiced), credited: int(r.credited), paid: int(r.paid) }));
    return { items, total: items.length };
  },
});

/** The revenue report's statement: each branch reads its table through its (company, date) index, summed per period. */
export function revenueSql(ctx: Tables, company: string, from: string, to: string, groupBy: keyof typeof FORMATS): SQL {
  const format = FORMATS[groupBy];
  return sql`
      select period, currency, sum(invoiced)::bigint as invoiced, sum(credited)::bigint as credited, sum(paid)::bigint as paid from (
        select to_char(invoice_date, ${format}) as period, currency, sum(total) as invoiced, 0 as credited, 0 as paid
          from ${ident(ctx, 'Invoice')} where company_id = ${company} and invoice_date between ${from}::date and ${to}::date
          and status in ('pending', 'overdue', 'paid') group by 1, 2
        union all
        select to_char(issue_date, ${format}), currency, 0, sum(total), 0
          from ${ident(ctx, 'CreditNote')} where company_id = ${company} and issue_date between ${from}::date and ${to}::date
          and status = 'issued' group by 1, 2
        union all
        select to_char(paid_at at time zone 'UTC', ${format}), currency, 0, 0, sum(amount)
          from ${ident(ctx, 'Payment')} where company_id = ${company} and paid_at >= (${from}::date)::timestamp at time zone 'UTC'
          and paid_at < (${to}::date + 1)::timestamp at time zone 'UTC' group by 1, 2
      ) x group by period, currency order by period, currency`;
}

const TaxQuery = Type.Object(period);

export const taxes = operation({
  method: 'GET',
  path: 'tax',
  summary: "The tax return's figures: taxable amount and tax per currency, category and rate",
  description:
    'Per currency, tax category (CONTRACT §18) and rate: Σ taxable and Σ tax of the tax groups of the pending, overdue and paid invoices dated (invoiceDate) in the period, ' +
    'less those of the issued credit notes dated (issueDate) in it. Ordered by currency, category, rate. A period over 5 years: 422.',
  roles: ['admin', 'member'],
  query: TaxQuery,
  output: {
    type: 'TaxReport',
    many: true,
    schema: Type.Object({
      currency: Type.String(),
      category: Type.String({ description: 'The tax category: S, Z, E, AE, K, G or O' }),
      rate: Type.Number({ description: 'The tax rate, a percentage' }),
      taxable: money('Σ taxable of the groups, credit notes subtracted'),
      tax: money('Σ tax of the groups, credit notes subtracted'),
    }),
  },
  async run(ctx) {
    const { from, to } = periodOf(ctx.args as Static<typeof TaxQuery>);
    const found = await rows<Record<string, unknown>>(ctx, taxSql(ctx, ctx.principal.company.id, from, to));
    const items = found.map((r) => ({ currency: String(r.currency ?? ''), category: String(r.category), rate: Number(r.rate), taxable: int(r.taxable), tax: int(r.tax) }));
    return { items, total: items.length };
  },
});

/** The tax report's statement: the tax groups of invoices and credit notes dated in the period, credit notes negated. */
export function taxSql(ctx: Tables, company: string, from: string, to: string): SQL {
  const g = sql.identifier('g');
  return sql`
      select currency, category, rate, sum(sign * taxable)::bigint as taxable, sum(sign * tax)::bigint as tax from (
        select d.currency, ${categoryOf(sql`${g}.v`)} as category, (${g}.v->>'rate')::numeric as rate, (${g}.v->>'taxable')::bigint as taxable, (${g}.v->>'tax')::bigint as tax, 1 as sign
          from ${ident(ctx, 'Invoice')} d, jsonb_array_elements(d.tax_groups) as ${g}(v)
          where d.company_id = ${company} and d.invoice_date between ${from}::date and ${to}::date and d.status in ('pending', 'overdue', 'paid')
        union all
        select d.currency, ${categoryOf(sql`${g}.v`)}, (${g}.v->>'rate')::numeric, (${g}.v->>'taxable')::bigint, (${g}.v->>'tax')::bigint, -1
          from ${ident(ctx, 'CreditNote')} d, jsonb_array_elements(d.tax_groups) as ${g}(v)
          where d.company_id = ${company} and d.issue_date between ${from}::date and ${to}::date and d.status = 'issued'
      ) x group by currency, category, rate order by currency, category, rate`;
}

const AgingQuery = Type.Object({ date: day('The day the ages are counted at (YYYY-MM-DD); default today (UTC). The balances are always today\'s.') });

export const aging = operation({
  method: 'GET',
  path: 'aging',
  summary: 'What each client owes, by days past due',
  description:
    'Per client and currency, the balances of the pending and overdue invoices by days past due at `date` (date − dueDate; an invoice without a due date is due on its invoiceDate): ' +
    '`notDue` (0 or less), `days1to30`, `days31to60`, `days61to90`, `over90`, and their sum `total`. Clients who owe nothing are left out. Ordered by client name.',
  roles: ['admin', 'member'],
  query: AgingQuery,
  output: {
    type: 'AgingReport',
    many: true,
    schema: Type.Object({
      client: Type.String({ format: 'iri-reference', description: 'The client (IRI); its name in CSV', 'x-refers': 'Client' }),
      currency: Type.String(),
      notDue: money('Balances not yet due'),
      days1to30: money('Balances 1 to 30 days past due'),
      days31to60: money('Balances 31 to 60 days past due'),
      days61to90: money('Balances 61 to 90 days past due'),
      over90: money('Balances more than 90 days past due'),
      total: money('Σ of the balances'),
    }),
  },
  async run(ctx) {
    const q = ctx.args as Static<typeof AgingQuery>;
    const at = q.date !== undefined ? realDay('date', q.date) : today();
    const clients = ctx.model.get('Client');
    const found = await rows<Record<string, unknown>>(ctx, agingSql(ctx, ctx.principal.company.id, at));
    const items = found.map((r) => ({
      client: `${clients.iri}/${String(r.client_id)}`, currency: String(r.currency ?? ''),
      notDue: int(r.not_due), days1to30: int(r.d30), days31to60: int(r.d60), days61to90: int(r.d90), over90: int(r.over90), total: int(r.total),
    }));
    return { items, total: items.length };
  },
});

/**
 * The aging report's statement: the open invoices through the (company, status) index, summed per
 * client and currency; each client's name then looked up by its key, for the order.
 */
export function agingSql(ctx: Tables, company: string, at: string): SQL {
  const age = sql`(${at}::date - coalesce(due_date, invoice_date))`;
  const clients = ident(ctx, 'Client');
  return sql`
      select a.*, (select c.name from ${clients} c where c.id = a.client_id) as name from (
        select client_id, currency,
          coalesce(sum(balance) filter (where ${age} <= 0), 0)::bigint as not_due,
          coalesce(sum(balance) filter (where ${age} between 1 and 30), 0)::bigint as d30,
          coalesce(sum(balance) filter (where ${age} between 31 and 60), 0)::bigint as d60,
          coalesce(sum(balance) filter (where ${age} between 61 and 90), 0)::bigint as d90,
          coalesce(sum(balance) filter (where ${age} > 90), 0)::bigint as over90,
          sum(balance)::bigint as total
        from ${ident(ctx, 'Invoice')} where company_id = ${company} and status in ('pending', 'overdue')
        group by client_id, currency having sum(balance) <> 0
      ) a order by name, client_id, currency`;
}
