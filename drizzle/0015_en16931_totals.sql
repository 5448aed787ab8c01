ALTER TABLE "invoices" ADD COLUMN "tax_groups" jsonb DEFAULT '[]'::jsonb;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "net" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "quotes" ADD COLUMN "tax_groups" jsonb DEFAULT '[]'::jsonb;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "net" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "recurring_invoices" ADD COLUMN "tax_groups" jsonb DEFAULT '[]'::jsonb;
--> statement-breakpoint
-- CONTRACT §6 (EN 16931) in SQL, kept in the schema: this migration recomputes drafts with it, and
-- the invariant checks (scripts/invariants.ts, bench) and the agreement tests call it. Integers
-- only: en16931_div_round(n, d) is round(n / d) half away from zero, for d > 0.
create or replace function en16931_div_round(n numeric, d numeric) returns numeric language sql immutable strict as $$
  select case when n < 0 then -div(-2 * n + d, 2 * d) else div(2 * n + d, 2 * d) end
$$;
--> statement-breakpoint
-- A line's net: its total, less the tax an inclusive price contains.
create or replace function en16931_line_net(total numeric, rate numeric, inclusive boolean) returns numeric language sql immutable as $$
  select case when inclusive and rate is not null then en16931_div_round(total * 1000000, (100 + rate) * 10000) else total end
$$;
--> statement-breakpoint
-- The tax groups of a document: `lines` is a jsonb array of {total, net, rate, inclusive} (rate
-- null or absent: no tax), the discount as stored. One group per rate, ascending; percentage
-- discounts per group, a fixed one (capped at Σ base) split by largest remainder (ties: larger
-- base, then higher rate); tax per group on base − discount, except an all-inclusive group
-- without discount, whose tax is what its prices contain.
create or replace function en16931_tax_groups(lines jsonb, discount_type text, discount_value numeric) returns jsonb language sql immutable as $$
  with l as (
    select coalesce((e ->> 'rate')::numeric, 0) as rate, (e ->> 'total')::numeric as total, (e ->> 'net')::numeric as net,
      coalesce((e ->> 'inclusive')::boolean, false) and e ->> 'rate' is not null as inclusive
    from jsonb_array_elements(coalesce(lines, '[]'::jsonb)) as e
  ), g as (
    select rate, sum(net) as base, sum(total) as gross, bool_and(inclusive) as inclusive_only from l group by rate
  ), a as (
    select coalesce(sum(base), 0) as sum_base,
      case when discount_type = 'fixed' then least(trunc(coalesce(discount_value, 0)), greatest(coalesce(sum(base), 0), 0)) else 0 end as amount
    from g
  ), f as (
    select g.*, a.sum_base, a.amount,
      case when discount_type = 'percentage' then en16931_div_round(g.base * discount_value * 10000, 1000000)
           when discount_type = 'fixed' and a.sum_base > 0 then
             case when a.amount * g.base >= 0 then div(a.amount * g.base, a.sum_base) else -div(-a.amount * g.base + a.sum_base - 1, a.sum_base) end
           else 0 end as share
    from g, a
  ), r as (
    select f.*, case when discount_type = 'fixed' and sum_base > 0 then amount * base - share * sum_base else 0 end as rem,
      case when discount_type = 'fixed' and sum_base > 0 then amount - sum(share) over () else 0 end as missing
    from f
  ), d as (
    select r.*, share + case when row_number() over (order by rem desc, base desc, rate desc) <= missing then 1 else 0 end as discount from r
  )
  select coalesce(jsonb_agg(jsonb_build_object(
    'rate', trim_scale(rate), 'base', base, 'discount', discount, 'taxable', base - discount,
    'tax', case when discount = 0 and inclusive_only then gross - base else en16931_div_round((base - discount) * rate * 10000, 1000000) end
  ) order by rate), '[]'::jsonb) from d
$$;
--> statement-breakpoint
update invoice_lines set net = en16931_line_net(total, tax_rate, tax_id is not null and tax_type = 'inclusive');
--> statement-breakpoint
update quote_lines set net = en16931_line_net(total, tax_rate, tax_id is not null and tax_type = 'inclusive');
--> statement-breakpoint
-- Documents that left draft keep the amounts they were issued with; their groups are those
-- amounts per rate (each line's tax as the earlier rule computed it), without discount. A
-- discount taken after tax then shows as groups that do not add up to discountTotal.
update invoices i set tax_groups = coalesce((
  select jsonb_agg(jsonb_build_object('rate', trim_scale(rate), 'base', base, 'discount', 0, 'taxable', base, 'tax', tax) order by rate)
  from (
    select coalesce(case when tax_id is null then 0 else tax_rate end, 0) as rate, sum(net) as base,
      sum(case when tax_id is null or tax_rate is null then 0 when tax_type = 'inclusive' then total - net else en16931_div_round(total * tax_rate * 10000, 1000000) end) as tax
    from invoice_lines where invoice_id = i.id
    group by 1
  ) as g), '[]'::jsonb)
where status <> 'draft';
--> statement-breakpoint
update quotes q set tax_groups = coalesce((
  select jsonb_agg(jsonb_build_object('rate', trim_scale(rate), 'base', base, 'discount', 0, 'taxable', base, 'tax', tax) order by rate)
  from (
    select coalesce(case when tax_id is null then 0 else tax_rate end, 0) as rate, sum(net) as base,
      sum(case when tax_id is null or tax_rate is null then 0 when tax_type = 'inclusive' then total - net else en16931_div_round(total * tax_rate * 10000, 1000000) end) as tax
    from quote_lines where quote_id = q.id
    group by 1
  ) as g), '[]'::jsonb)
where status <> 'draft';
--> statement-breakpoint
-- Drafts are recomputed with the rule.
update invoices i set tax_groups = en16931_tax_groups((
  select jsonb_agg(jsonb_build_object('total', total, 'net', net, 'rate', case when tax_id is null then null else tax_rate end, 'inclusive', tax_type = 'inclusive'))
  from invoice_lines where invoice_id = i.id), discount_type, discount_value)
where status = 'draft';
--> statement-breakpoint
update quotes q set tax_groups = en16931_tax_groups((
  select jsonb_agg(jsonb_build_object('total', total, 'net', net, 'rate', case when tax_id is null then null else tax_rate end, 'inclusive', tax_type = 'inclusive'))
  from quote_lines where quote_id = q.id), discount_type, discount_value)
where status = 'draft';
--> statement-breakpoint
-- Recurring invoices (templates: every one is recomputed) from their embedded lines and current taxes.
update recurring_invoices r set tax_groups = en16931_tax_groups((
  select jsonb_agg(jsonb_build_object('total', x.total, 'net', en16931_line_net(x.total, t.rate, t.type = 'inclusive'), 'rate', t.rate, 'inclusive', t.type = 'inclusive'))
  from (
    select e ->> 'tax' as tax, en16931_div_round((e ->> 'price')::numeric * coalesce((e ->> 'qty')::numeric, 1) * 10000, 10000) as total
    from jsonb_array_elements(coalesce(r.lines, '[]'::jsonb)) as e
  ) as x left join taxes t on t.id::text = x.tax and t.company_id = r.company_id), discount_type, discount_value);
--> statement-breakpoint
update invoices set subtotal = s.subtotal, discount_total = s.discount_total, tax_total = s.tax_total,
  total = s.subtotal - s.discount_total + s.tax_total, balance = s.subtotal - s.discount_total + s.tax_total - amount_paid
from (
  select i.id, coalesce(sum((g ->> 'base')::bigint), 0) as subtotal, coalesce(sum((g ->> 'discount')::bigint), 0) as discount_total,
    coalesce(sum((g ->> 'tax')::bigint), 0) as tax_total
  from invoices i left join lateral jsonb_array_elements(i.tax_groups) as g on true where i.status = 'draft' group by i.id
) as s
where invoices.id = s.id;
--> statement-breakpoint
update quotes set subtotal = s.subtotal, discount_total = s.discount_total, tax_total = s.tax_total,
  total = s.subtotal - s.discount_total + s.tax_total
from (
  select q.id, coalesce(sum((g ->> 'base')::bigint), 0) as subtotal, coalesce(sum((g ->> 'discount')::bigint), 0) as discount_total,
    coalesce(sum((g ->> 'tax')::bigint), 0) as tax_total
  from quotes q left join lateral jsonb_array_elements(q.tax_groups) as g on true where q.status = 'draft' group by q.id
) as s
where quotes.id = s.id;
--> statement-breakpoint
update recurring_invoices set subtotal = s.subtotal, discount_total = s.discount_total, tax_total = s.tax_total,
  total = s.subtotal - s.discount_total + s.tax_total
from (
  select r.id, coalesce(sum((g ->> 'base')::bigint), 0) as subtotal, coalesce(sum((g ->> 'discount')::bigint), 0) as discount_total,
    coalesce(sum((g ->> 'tax')::bigint), 0) as tax_total
  from recurring_invoices r left join lateral jsonb_array_elements(r.tax_groups) as g on true group by r.id
) as s
where recurring_invoices.id = s.id;
