// Invariants of stored invoices, recomputed in SQL from their lines, payments and credit notes with
// the CONTRACT §6 rules (the rule's SQL form, independent of resources/rules/totals.ts). Used by `npm run soak` and by
// the fault tests: whatever happened to the service, the stored documents must satisfy them.
import type { Sql } from 'postgres';

export type Check = [name: string, ok: boolean, detail: string];

export async function invoiceInvariants(db: Sql): Promise<{ checks: Check[]; invoices: { id: string; lines: number }[] }> {
  const checks: Check[] = [];
  const check = (name: string, ok: boolean, detail = '') => checks.push([name, ok, detail]);
  // The rule in SQL (en16931_tax_groups, kept in the schema by migration 0016), fed with each
  // line's total recomputed here and the rate and type the line was computed with.
  const docs = await db`
    with l as (
      select invoice_id, total, round(price * qty) as t, tax_id, tax_rate, tax_type
      from invoice_lines
    ), agg as (
      select invoice_id, count(*)::int as n, count(*) filter (where t <> total)::int as bad_lines,
        jsonb_agg(jsonb_build_object('total', t, 'net', en16931_line_net(t, case when tax_id is null then null else tax_rate end, tax_id is not null and tax_type = 'inclusive'),
          'rate', case when tax_id is null then null else tax_rate end, 'inclusive', tax_id is not null and tax_type = 'inclusive')) as lines
      from l group by invoice_id
    ), p as (select invoice_id, sum(amount) as paid from payments group by invoice_id),
    c as (select invoice_id, sum(total) as credited from credit_notes where status = 'issued' and invoice_id is not null group by invoice_id)
    select i.id, i.company_id, i.number, i.status, i.subtotal, i.tax_total, i.discount_total, i.total, i.amount_paid, i.amount_credited, i.balance,
      i.discount_type, i.discount_value, coalesce(agg.n, 0) as lines, coalesce(agg.bad_lines, 0) as bad_lines,
      coalesce(p.paid, 0) as paid, coalesce(c.credited, 0) as credited, g.groups,
      -- The SQL rule knows amounts per rate; categories and reasons (CONTRACT §18) are compared apart.
      (select coalesce(jsonb_agg(x - 'category' - 'exemptionReason' - 'exemptionReasonCode' order by k), '[]'::jsonb) from jsonb_array_elements(i.tax_groups) with ordinality as e(x, k)) = g.groups as same_groups,
      (select coalesce(sum((x ->> 'base')::bigint), 0) from jsonb_array_elements(g.groups) x) as e_subtotal,
      (select coalesce(sum((x ->> 'tax')::bigint), 0) from jsonb_array_elements(g.groups) x) as e_tax,
      (select coalesce(sum((x ->> 'discount')::bigint), 0) from jsonb_array_elements(g.groups) x) as e_discount
    from invoices i left join agg on agg.invoice_id = i.id left join p on p.invoice_id = i.id left join c on c.invoice_id = i.id,
      lateral (select en16931_tax_groups(agg.lines, i.discount_type, i.discount_value) as groups) g`;
  const n = (v: unknown) => Number(v);
  const bad = (pred: (d: (typeof docs)[number]) => boolean) => docs.filter(pred);
  const show = (rows: readonly Record<string, unknown>[]) => rows.slice(0, 3).map((r) => JSON.stringify(r)).join('\n    ');

  check('every line total is round(price × qty)', bad((d) => n(d.bad_lines) > 0).length === 0, show(bad((d) => n(d.bad_lines) > 0)));
  const wrongTotals = bad((d) => !d.same_groups || n(d.subtotal) !== n(d.e_subtotal) || n(d.tax_total) !== n(d.e_tax) || n(d.discount_total) !== n(d.e_discount) || n(d.total) !== n(d.e_subtotal) + n(d.e_tax) - n(d.e_discount));
  check('every invoice total and tax group follows from its lines and discount (CONTRACT §6, EN 16931)', wrongTotals.length === 0, show(wrongTotals));
  // Never overpaid: the balance goes below zero only when the total itself does (lines with
  // negative prices are allowed, and such an invoice takes no payment).
  const wrongPaid = bad((d) => n(d.amount_paid) !== n(d.paid) || n(d.amount_credited) !== n(d.credited) || n(d.balance) !== n(d.total) - n(d.paid) - n(d.credited) || n(d.balance) < Math.min(0, n(d.total)));
  check('amountPaid = Σ payments, amountCredited = Σ issued credit notes, balance = total − both, never overpaid', wrongPaid.length === 0, show(wrongPaid));
  const wrongStatus = bad((d) => (d.status === 'paid') !== (['pending', 'overdue', 'paid'].includes(String(d.status)) && n(d.balance) <= 0 && n(d.paid) > 0) || (d.status === 'draft' && n(d.paid) > 0));
  check('status agrees with the payments (paid exactly when settled; no draft with payments)', wrongStatus.length === 0, show(wrongStatus));
  const dupNumbers = await db`select company_id, number, count(*)::int as n from invoices group by company_id, number having count(*) > 1`;
  check('invoice numbers are unique per company', dupNumbers.length === 0, show(dupNumbers));
  const draftRates = await db`select l.id from invoice_lines l join invoices i on i.id = l.invoice_id join taxes t on t.id = l.tax_id where i.status = 'draft' and (l.tax_rate <> t.rate or l.tax_type <> t.type)`;
  check("draft lines are computed with their tax's current rate", draftRates.length === 0, show(draftRates));
  return { checks, invoices: docs.map((d) => ({ id: String(d.id), lines: Number(d.lines) })) };
}
