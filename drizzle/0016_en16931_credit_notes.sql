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
--> statement-breakpoint
-- Credit notes (CONTRACT §14).
CREATE TABLE "credit_notes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"number" text,
	"client_id" uuid NOT NULL,
	"invoice_id" uuid,
	"status" text NOT NULL,
	"issue_date" date NOT NULL,
	"reason" text,
	"currency" text,
	"discount_type" text NOT NULL,
	"discount_value" numeric(18, 4) NOT NULL,
	"subtotal" bigint DEFAULT 0 NOT NULL,
	"tax_total" bigint DEFAULT 0 NOT NULL,
	"discount_total" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"tax_groups" jsonb DEFAULT '[]'::jsonb,
	"terms" text,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"version" integer DEFAULT 1 NOT NULL
);

--> statement-breakpoint
CREATE TABLE "credit_note_lines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"credit_note_id" uuid NOT NULL,
	"description" text NOT NULL,
	"qty" numeric(18, 4) NOT NULL,
	"price" bigint NOT NULL,
	"tax_id" uuid,
	"position" bigint,
	"total" bigint DEFAULT 0 NOT NULL,
	"net" bigint DEFAULT 0 NOT NULL,
	"tax_rate" numeric(18, 4),
	"tax_type" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"version" integer DEFAULT 1 NOT NULL
);

--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "amount_credited" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_credit_note_id_credit_notes_id_fk" FOREIGN KEY ("credit_note_id") REFERENCES "public"."credit_notes"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_tax_id_taxes_id_fk" FOREIGN KEY ("tax_id") REFERENCES "public"."taxes"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_number_unique" ON "credit_notes" USING btree ("company_id","number");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_number_trgm_idx" ON "credit_notes" USING gin ("engine_trigrams"("company_id", "number"));
--> statement-breakpoint
CREATE INDEX "credit_notes_company_number_idx" ON "credit_notes" USING btree ("company_id","number","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_client_id_idx" ON "credit_notes" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_client_id_idx" ON "credit_notes" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_invoice_id_idx" ON "credit_notes" USING btree ("invoice_id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_invoice_id_idx" ON "credit_notes" USING btree ("company_id","invoice_id","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_status_idx" ON "credit_notes" USING btree ("company_id","status","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_issue_date_idx" ON "credit_notes" USING btree ("company_id","issue_date","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_total_idx" ON "credit_notes" USING btree ("company_id","total","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_created_idx" ON "credit_notes" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "credit_notes_company_id_idx" ON "credit_notes" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "credit_note_lines_credit_note_id_idx" ON "credit_note_lines" USING btree ("credit_note_id");
--> statement-breakpoint
CREATE INDEX "credit_note_lines_company_credit_note_id_idx" ON "credit_note_lines" USING btree ("company_id","credit_note_id","id");
--> statement-breakpoint
CREATE INDEX "credit_note_lines_tax_id_idx" ON "credit_note_lines" USING btree ("tax_id");
--> statement-breakpoint
CREATE INDEX "credit_note_lines_company_position_idx" ON "credit_note_lines" USING btree ("company_id","position","id");
--> statement-breakpoint
CREATE INDEX "credit_note_lines_company_created_idx" ON "credit_note_lines" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "credit_note_lines_company_id_idx" ON "credit_note_lines" USING btree ("company_id","id");
--> statement-breakpoint
create or replace function engine_counts_credit_notes() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNote', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNote', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNote', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_credit_notes_insert on "credit_notes";
--> statement-breakpoint
create trigger engine_counts_credit_notes_insert after insert on "credit_notes" referencing new table as new_rows for each statement execute function engine_counts_credit_notes();
--> statement-breakpoint
drop trigger if exists engine_counts_credit_notes_delete on "credit_notes";
--> statement-breakpoint
create trigger engine_counts_credit_notes_delete after delete on "credit_notes" referencing old table as old_rows for each statement execute function engine_counts_credit_notes();
--> statement-breakpoint
drop trigger if exists engine_counts_credit_notes_update on "credit_notes";
--> statement-breakpoint
create trigger engine_counts_credit_notes_update after update on "credit_notes" referencing new table as new_rows old table as old_rows for each statement execute function engine_counts_credit_notes();
--> statement-breakpoint
lock table "credit_notes" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'CreditNote';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNote', key, 0, count(*) from "credit_notes", lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_credit_note_lines() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNoteLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNoteLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNoteLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_credit_note_lines_insert on "credit_note_lines";
--> statement-breakpoint
create trigger engine_counts_credit_note_lines_insert after insert on "credit_note_lines" referencing new table as new_rows for each statement execute function engine_counts_credit_note_lines();
--> statement-breakpoint
drop trigger if exists engine_counts_credit_note_lines_delete on "credit_note_lines";
--> statement-breakpoint
create trigger engine_counts_credit_note_lines_delete after delete on "credit_note_lines" referencing old table as old_rows for each statement execute function engine_counts_credit_note_lines();
--> statement-breakpoint
drop trigger if exists engine_counts_credit_note_lines_update on "credit_note_lines";
--> statement-breakpoint
lock table "credit_note_lines" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'CreditNoteLine';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'CreditNoteLine', key, 0, count(*) from "credit_note_lines", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "clients_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "clients" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "clients_version" ON "clients";
--> statement-breakpoint
CREATE TRIGGER "clients_version" BEFORE UPDATE ON "clients" FOR EACH ROW EXECUTE FUNCTION "clients_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "contacts_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "contacts" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "contacts_version" ON "contacts";
--> statement-breakpoint
CREATE TRIGGER "contacts_version" BEFORE UPDATE ON "contacts" FOR EACH ROW EXECUTE FUNCTION "contacts_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "addresses_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "addresses" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "addresses_version" ON "addresses";
--> statement-breakpoint
CREATE TRIGGER "addresses_version" BEFORE UPDATE ON "addresses" FOR EACH ROW EXECUTE FUNCTION "addresses_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "taxes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "taxes" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "taxes_version" ON "taxes";
--> statement-breakpoint
CREATE TRIGGER "taxes_version" BEFORE UPDATE ON "taxes" FOR EACH ROW EXECUTE FUNCTION "taxes_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "invoices_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "invoices" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "invoices_version" ON "invoices";
--> statement-breakpoint
CREATE TRIGGER "invoices_version" BEFORE UPDATE ON "invoices" FOR EACH ROW EXECUTE FUNCTION "invoices_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "invoice_lines_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "invoice_lines" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "invoice_lines_version" ON "invoice_lines";
--> statement-breakpoint
CREATE TRIGGER "invoice_lines_version" BEFORE UPDATE ON "invoice_lines" FOR EACH ROW EXECUTE FUNCTION "invoice_lines_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "quotes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "quotes" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "quotes_version" ON "quotes";
--> statement-breakpoint
CREATE TRIGGER "quotes_version" BEFORE UPDATE ON "quotes" FOR EACH ROW EXECUTE FUNCTION "quotes_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "quote_lines_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "quote_lines" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "quote_lines_version" ON "quote_lines";
--> statement-breakpoint
CREATE TRIGGER "quote_lines_version" BEFORE UPDATE ON "quote_lines" FOR EACH ROW EXECUTE FUNCTION "quote_lines_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "recurring_invoices_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "recurring_invoices" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "recurring_invoices_version" ON "recurring_invoices";
--> statement-breakpoint
CREATE TRIGGER "recurring_invoices_version" BEFORE UPDATE ON "recurring_invoices" FOR EACH ROW EXECUTE FUNCTION "recurring_invoices_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "payments_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "payments" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "payments_version" ON "payments";
--> statement-breakpoint
CREATE TRIGGER "payments_version" BEFORE UPDATE ON "payments" FOR EACH ROW EXECUTE FUNCTION "payments_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "credit_notes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "credit_notes" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "credit_notes_version" ON "credit_notes";
--> statement-breakpoint
CREATE TRIGGER "credit_notes_version" BEFORE UPDATE ON "credit_notes" FOR EACH ROW EXECUTE FUNCTION "credit_notes_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "credit_note_lines_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "credit_note_lines" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "credit_note_lines_version" ON "credit_note_lines";
--> statement-breakpoint
CREATE TRIGGER "credit_note_lines_version" BEFORE UPDATE ON "credit_note_lines" FOR EACH ROW EXECUTE FUNCTION "credit_note_lines_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "webhooks_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "webhooks" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "webhooks_version" ON "webhooks";
--> statement-breakpoint
CREATE TRIGGER "webhooks_version" BEFORE UPDATE ON "webhooks" FOR EACH ROW EXECUTE FUNCTION "webhooks_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "invoice_lines_bumps_invoices"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE owner_id uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR owner_id IN SELECT DISTINCT "invoice_id" FROM old_rows WHERE "invoice_id" IS NOT NULL LOOP
      UPDATE "invoices" SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;
  ELSE
    FOR owner_id IN SELECT DISTINCT "invoice_id" FROM new_rows WHERE "invoice_id" IS NOT NULL LOOP
      UPDATE "invoices" SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "invoice_lines_bumps_invoices_on_insert" ON "invoice_lines";
--> statement-breakpoint
CREATE TRIGGER "invoice_lines_bumps_invoices_on_insert" AFTER INSERT ON "invoice_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "invoice_lines_bumps_invoices"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "invoice_lines_bumps_invoices_on_update" ON "invoice_lines";
--> statement-breakpoint
CREATE TRIGGER "invoice_lines_bumps_invoices_on_update" AFTER UPDATE ON "invoice_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "invoice_lines_bumps_invoices"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "invoice_lines_bumps_invoices_on_delete" ON "invoice_lines";
--> statement-breakpoint
CREATE TRIGGER "invoice_lines_bumps_invoices_on_delete" AFTER DELETE ON "invoice_lines" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "invoice_lines_bumps_invoices"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "quote_lines_bumps_quotes"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE owner_id uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR owner_id IN SELECT DISTINCT "quote_id" FROM old_rows WHERE "quote_id" IS NOT NULL LOOP
      UPDATE "quotes" SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;
  ELSE
    FOR owner_id IN SELECT DISTINCT "quote_id" FROM new_rows WHERE "quote_id" IS NOT NULL LOOP
      UPDATE "quotes" SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "quote_lines_bumps_quotes_on_insert" ON "quote_lines";
--> statement-breakpoint
CREATE TRIGGER "quote_lines_bumps_quotes_on_insert" AFTER INSERT ON "quote_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "quote_lines_bumps_quotes"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "quote_lines_bumps_quotes_on_update" ON "quote_lines";
--> statement-breakpoint
CREATE TRIGGER "quote_lines_bumps_quotes_on_update" AFTER UPDATE ON "quote_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "quote_lines_bumps_quotes"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "quote_lines_bumps_quotes_on_delete" ON "quote_lines";
--> statement-breakpoint
CREATE TRIGGER "quote_lines_bumps_quotes_on_delete" AFTER DELETE ON "quote_lines" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "quote_lines_bumps_quotes"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "credit_note_lines_bumps_credit_notes"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE owner_id uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR owner_id IN SELECT DISTINCT "credit_note_id" FROM old_rows WHERE "credit_note_id" IS NOT NULL LOOP
      UPDATE "credit_notes" SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;
  ELSE
    FOR owner_id IN SELECT DISTINCT "credit_note_id" FROM new_rows WHERE "credit_note_id" IS NOT NULL LOOP
      UPDATE "credit_notes" SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "credit_note_lines_bumps_credit_notes_on_insert" ON "credit_note_lines";
--> statement-breakpoint
CREATE TRIGGER "credit_note_lines_bumps_credit_notes_on_insert" AFTER INSERT ON "credit_note_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "credit_note_lines_bumps_credit_notes"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "credit_note_lines_bumps_credit_notes_on_update" ON "credit_note_lines";
--> statement-breakpoint
CREATE TRIGGER "credit_note_lines_bumps_credit_notes_on_update" AFTER UPDATE ON "credit_note_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "credit_note_lines_bumps_credit_notes"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "credit_note_lines_bumps_credit_notes_on_delete" ON "credit_note_lines";
--> statement-breakpoint
CREATE TRIGGER "credit_note_lines_bumps_credit_notes_on_delete" AFTER DELETE ON "credit_note_lines" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "credit_note_lines_bumps_credit_notes"();
