CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE TABLE "engine_counts" (
	"company_id" uuid NOT NULL,
	"resource" text NOT NULL,
	"key" text NOT NULL,
	"slot" smallint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "engine_counts_company_id_resource_key_slot_pk" PRIMARY KEY("company_id","resource","key","slot")
);

--> statement-breakpoint
DROP INDEX "clients_company_currency_idx";
--> statement-breakpoint
DROP INDEX "clients_company_status_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_client_id_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_first_name_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_last_name_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_email_idx";
--> statement-breakpoint
DROP INDEX "addresses_company_client_id_idx";
--> statement-breakpoint
DROP INDEX "addresses_company_country_idx";
--> statement-breakpoint
DROP INDEX "taxes_company_type_idx";
--> statement-breakpoint
DROP INDEX "invoices_company_client_id_idx";
--> statement-breakpoint
DROP INDEX "invoices_company_status_idx";
--> statement-breakpoint
DROP INDEX "invoices_company_invoice_date_idx";
--> statement-breakpoint
DROP INDEX "invoices_company_due_date_idx";
--> statement-breakpoint
DROP INDEX "invoices_company_total_idx";
--> statement-breakpoint
DROP INDEX "invoice_lines_company_invoice_id_idx";
--> statement-breakpoint
DROP INDEX "invoice_lines_company_position_idx";
--> statement-breakpoint
DROP INDEX "quotes_company_client_id_idx";
--> statement-breakpoint
DROP INDEX "quotes_company_status_idx";
--> statement-breakpoint
DROP INDEX "quotes_company_invoice_date_idx";
--> statement-breakpoint
DROP INDEX "quotes_company_valid_until_idx";
--> statement-breakpoint
DROP INDEX "quotes_company_total_idx";
--> statement-breakpoint
DROP INDEX "quote_lines_company_quote_id_idx";
--> statement-breakpoint
DROP INDEX "quote_lines_company_position_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_client_id_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_status_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_frequency_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_start_date_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_end_date_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_next_run_date_idx";
--> statement-breakpoint
DROP INDEX "recurring_invoices_company_total_idx";
--> statement-breakpoint
DROP INDEX "payments_company_invoice_id_idx";
--> statement-breakpoint
DROP INDEX "payments_company_client_id_idx";
--> statement-breakpoint
DROP INDEX "payments_company_method_idx";
--> statement-breakpoint
DROP INDEX "payments_company_paid_at_idx";
--> statement-breakpoint
ALTER TABLE "engine_counts" ADD CONSTRAINT "engine_counts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "clients_name_trgm_idx" ON "clients" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "clients_company_name_idx" ON "clients" USING btree ("company_id","name","id");
--> statement-breakpoint
CREATE INDEX "clients_company_id_idx" ON "clients" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "contacts_first_name_trgm_idx" ON "contacts" USING gin ("first_name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contacts_last_name_trgm_idx" ON "contacts" USING gin ("last_name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contacts_email_trgm_idx" ON "contacts" USING gin ("email" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contacts_company_id_idx" ON "contacts" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "addresses_company_id_idx" ON "addresses" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "taxes_name_trgm_idx" ON "taxes" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "taxes_company_id_idx" ON "taxes" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "invoices_number_trgm_idx" ON "invoices" USING gin ("number" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "invoices_company_id_idx" ON "invoices" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_company_id_idx" ON "invoice_lines" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "quotes_number_trgm_idx" ON "quotes" USING gin ("number" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "quotes_company_id_idx" ON "quotes" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "quote_lines_company_id_idx" ON "quote_lines" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_id_idx" ON "recurring_invoices" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "payments_company_id_idx" ON "payments" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "webhooks_company_id_idx" ON "webhooks" USING btree ("company_id","id");
--> statement-breakpoint
CREATE INDEX "clients_company_currency_idx" ON "clients" USING btree ("company_id","currency","id");
--> statement-breakpoint
CREATE INDEX "clients_company_status_idx" ON "clients" USING btree ("company_id","status","id");
--> statement-breakpoint
CREATE INDEX "contacts_company_client_id_idx" ON "contacts" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "contacts_company_first_name_idx" ON "contacts" USING btree ("company_id","first_name","id");
--> statement-breakpoint
CREATE INDEX "contacts_company_last_name_idx" ON "contacts" USING btree ("company_id","last_name","id");
--> statement-breakpoint
CREATE INDEX "contacts_company_email_idx" ON "contacts" USING btree ("company_id","email","id");
--> statement-breakpoint
CREATE INDEX "addresses_company_client_id_idx" ON "addresses" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "addresses_company_country_idx" ON "addresses" USING btree ("company_id","country","id");
--> statement-breakpoint
CREATE INDEX "taxes_company_type_idx" ON "taxes" USING btree ("company_id","type","id");
--> statement-breakpoint
CREATE INDEX "invoices_company_client_id_idx" ON "invoices" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "invoices_company_status_idx" ON "invoices" USING btree ("company_id","status","id");
--> statement-breakpoint
CREATE INDEX "invoices_company_invoice_date_idx" ON "invoices" USING btree ("company_id","invoice_date","id");
--> statement-breakpoint
CREATE INDEX "invoices_company_due_date_idx" ON "invoices" USING btree ("company_id","due_date","id");
--> statement-breakpoint
CREATE INDEX "invoices_company_total_idx" ON "invoices" USING btree ("company_id","total","id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_company_invoice_id_idx" ON "invoice_lines" USING btree ("company_id","invoice_id","id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_company_position_idx" ON "invoice_lines" USING btree ("company_id","position","id");
--> statement-breakpoint
CREATE INDEX "quotes_company_client_id_idx" ON "quotes" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "quotes_company_status_idx" ON "quotes" USING btree ("company_id","status","id");
--> statement-breakpoint
CREATE INDEX "quotes_company_invoice_date_idx" ON "quotes" USING btree ("company_id","invoice_date","id");
--> statement-breakpoint
CREATE INDEX "quotes_company_valid_until_idx" ON "quotes" USING btree ("company_id","valid_until","id");
--> statement-breakpoint
CREATE INDEX "quotes_company_total_idx" ON "quotes" USING btree ("company_id","total","id");
--> statement-breakpoint
CREATE INDEX "quote_lines_company_quote_id_idx" ON "quote_lines" USING btree ("company_id","quote_id","id");
--> statement-breakpoint
CREATE INDEX "quote_lines_company_position_idx" ON "quote_lines" USING btree ("company_id","position","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_client_id_idx" ON "recurring_invoices" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_status_idx" ON "recurring_invoices" USING btree ("company_id","status","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_frequency_idx" ON "recurring_invoices" USING btree ("company_id","frequency","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_start_date_idx" ON "recurring_invoices" USING btree ("company_id","start_date","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_end_date_idx" ON "recurring_invoices" USING btree ("company_id","end_date","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_next_run_date_idx" ON "recurring_invoices" USING btree ("company_id","next_run_date","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_total_idx" ON "recurring_invoices" USING btree ("company_id","total","id");
--> statement-breakpoint
CREATE INDEX "payments_company_invoice_id_idx" ON "payments" USING btree ("company_id","invoice_id","id");
--> statement-breakpoint
CREATE INDEX "payments_company_client_id_idx" ON "payments" USING btree ("company_id","client_id","id");
--> statement-breakpoint
CREATE INDEX "payments_company_method_idx" ON "payments" USING btree ("company_id","method","id");
--> statement-breakpoint
CREATE INDEX "payments_company_paid_at_idx" ON "payments" USING btree ("company_id","paid_at","id");
--> statement-breakpoint
create or replace function engine_counts_clients() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Client', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Client', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Client', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_clients_insert on "clients";
--> statement-breakpoint
create trigger engine_counts_clients_insert after insert on "clients" referencing new table as new_rows for each statement execute function engine_counts_clients();
--> statement-breakpoint
drop trigger if exists engine_counts_clients_delete on "clients";
--> statement-breakpoint
create trigger engine_counts_clients_delete after delete on "clients" referencing old table as old_rows for each statement execute function engine_counts_clients();
--> statement-breakpoint
drop trigger if exists engine_counts_clients_update on "clients";
--> statement-breakpoint
lock table "clients" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Client';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Client', key, 0, count(*) from "clients", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_contacts() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Contact', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Contact', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Contact', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_contacts_insert on "contacts";
--> statement-breakpoint
create trigger engine_counts_contacts_insert after insert on "contacts" referencing new table as new_rows for each statement execute function engine_counts_contacts();
--> statement-breakpoint
drop trigger if exists engine_counts_contacts_delete on "contacts";
--> statement-breakpoint
create trigger engine_counts_contacts_delete after delete on "contacts" referencing old table as old_rows for each statement execute function engine_counts_contacts();
--> statement-breakpoint
drop trigger if exists engine_counts_contacts_update on "contacts";
--> statement-breakpoint
lock table "contacts" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Contact';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Contact', key, 0, count(*) from "contacts", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_addresses() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Address', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Address', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Address', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_addresses_insert on "addresses";
--> statement-breakpoint
create trigger engine_counts_addresses_insert after insert on "addresses" referencing new table as new_rows for each statement execute function engine_counts_addresses();
--> statement-breakpoint
drop trigger if exists engine_counts_addresses_delete on "addresses";
--> statement-breakpoint
create trigger engine_counts_addresses_delete after delete on "addresses" referencing old table as old_rows for each statement execute function engine_counts_addresses();
--> statement-breakpoint
drop trigger if exists engine_counts_addresses_update on "addresses";
--> statement-breakpoint
lock table "addresses" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Address';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Address', key, 0, count(*) from "addresses", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_taxes() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Tax', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Tax', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Tax', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_taxes_insert on "taxes";
--> statement-breakpoint
create trigger engine_counts_taxes_insert after insert on "taxes" referencing new table as new_rows for each statement execute function engine_counts_taxes();
--> statement-breakpoint
drop trigger if exists engine_counts_taxes_delete on "taxes";
--> statement-breakpoint
create trigger engine_counts_taxes_delete after delete on "taxes" referencing old table as old_rows for each statement execute function engine_counts_taxes();
--> statement-breakpoint
drop trigger if exists engine_counts_taxes_update on "taxes";
--> statement-breakpoint
lock table "taxes" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Tax';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Tax', key, 0, count(*) from "taxes", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_invoices() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Invoice', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Invoice', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Invoice', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_invoices_insert on "invoices";
--> statement-breakpoint
create trigger engine_counts_invoices_insert after insert on "invoices" referencing new table as new_rows for each statement execute function engine_counts_invoices();
--> statement-breakpoint
drop trigger if exists engine_counts_invoices_delete on "invoices";
--> statement-breakpoint
create trigger engine_counts_invoices_delete after delete on "invoices" referencing old table as old_rows for each statement execute function engine_counts_invoices();
--> statement-breakpoint
drop trigger if exists engine_counts_invoices_update on "invoices";
--> statement-breakpoint
create trigger engine_counts_invoices_update after update on "invoices" referencing new table as new_rows old table as old_rows for each statement execute function engine_counts_invoices();
--> statement-breakpoint
lock table "invoices" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Invoice';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Invoice', key, 0, count(*) from "invoices", lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_invoice_lines() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'InvoiceLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'InvoiceLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'InvoiceLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_invoice_lines_insert on "invoice_lines";
--> statement-breakpoint
create trigger engine_counts_invoice_lines_insert after insert on "invoice_lines" referencing new table as new_rows for each statement execute function engine_counts_invoice_lines();
--> statement-breakpoint
drop trigger if exists engine_counts_invoice_lines_delete on "invoice_lines";
--> statement-breakpoint
create trigger engine_counts_invoice_lines_delete after delete on "invoice_lines" referencing old table as old_rows for each statement execute function engine_counts_invoice_lines();
--> statement-breakpoint
drop trigger if exists engine_counts_invoice_lines_update on "invoice_lines";
--> statement-breakpoint
lock table "invoice_lines" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'InvoiceLine';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'InvoiceLine', key, 0, count(*) from "invoice_lines", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_quotes() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Quote', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Quote', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Quote', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_quotes_insert on "quotes";
--> statement-breakpoint
create trigger engine_counts_quotes_insert after insert on "quotes" referencing new table as new_rows for each statement execute function engine_counts_quotes();
--> statement-breakpoint
drop trigger if exists engine_counts_quotes_delete on "quotes";
--> statement-breakpoint
create trigger engine_counts_quotes_delete after delete on "quotes" referencing old table as old_rows for each statement execute function engine_counts_quotes();
--> statement-breakpoint
drop trigger if exists engine_counts_quotes_update on "quotes";
--> statement-breakpoint
create trigger engine_counts_quotes_update after update on "quotes" referencing new table as new_rows old table as old_rows for each statement execute function engine_counts_quotes();
--> statement-breakpoint
lock table "quotes" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Quote';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Quote', key, 0, count(*) from "quotes", lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_quote_lines() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'QuoteLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'QuoteLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'QuoteLine', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_quote_lines_insert on "quote_lines";
--> statement-breakpoint
create trigger engine_counts_quote_lines_insert after insert on "quote_lines" referencing new table as new_rows for each statement execute function engine_counts_quote_lines();
--> statement-breakpoint
drop trigger if exists engine_counts_quote_lines_delete on "quote_lines";
--> statement-breakpoint
create trigger engine_counts_quote_lines_delete after delete on "quote_lines" referencing old table as old_rows for each statement execute function engine_counts_quote_lines();
--> statement-breakpoint
drop trigger if exists engine_counts_quote_lines_update on "quote_lines";
--> statement-breakpoint
lock table "quote_lines" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'QuoteLine';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'QuoteLine', key, 0, count(*) from "quote_lines", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_recurring_invoices() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'RecurringInvoice', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'RecurringInvoice', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'RecurringInvoice', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_recurring_invoices_insert on "recurring_invoices";
--> statement-breakpoint
create trigger engine_counts_recurring_invoices_insert after insert on "recurring_invoices" referencing new table as new_rows for each statement execute function engine_counts_recurring_invoices();
--> statement-breakpoint
drop trigger if exists engine_counts_recurring_invoices_delete on "recurring_invoices";
--> statement-breakpoint
create trigger engine_counts_recurring_invoices_delete after delete on "recurring_invoices" referencing old table as old_rows for each statement execute function engine_counts_recurring_invoices();
--> statement-breakpoint
drop trigger if exists engine_counts_recurring_invoices_update on "recurring_invoices";
--> statement-breakpoint
create trigger engine_counts_recurring_invoices_update after update on "recurring_invoices" referencing new table as new_rows old table as old_rows for each statement execute function engine_counts_recurring_invoices();
--> statement-breakpoint
lock table "recurring_invoices" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'RecurringInvoice';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'RecurringInvoice', key, 0, count(*) from "recurring_invoices", lateral (values ('*'), ('status:' || "status")) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_payments() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Payment', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Payment', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Payment', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_payments_insert on "payments";
--> statement-breakpoint
create trigger engine_counts_payments_insert after insert on "payments" referencing new table as new_rows for each statement execute function engine_counts_payments();
--> statement-breakpoint
drop trigger if exists engine_counts_payments_delete on "payments";
--> statement-breakpoint
create trigger engine_counts_payments_delete after delete on "payments" referencing old table as old_rows for each statement execute function engine_counts_payments();
--> statement-breakpoint
drop trigger if exists engine_counts_payments_update on "payments";
--> statement-breakpoint
lock table "payments" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Payment';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Payment', key, 0, count(*) from "payments", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
--> statement-breakpoint
create or replace function engine_counts_webhooks() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Webhook', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Webhook', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Webhook', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_webhooks_insert on "webhooks";
--> statement-breakpoint
create trigger engine_counts_webhooks_insert after insert on "webhooks" referencing new table as new_rows for each statement execute function engine_counts_webhooks();
--> statement-breakpoint
drop trigger if exists engine_counts_webhooks_delete on "webhooks";
--> statement-breakpoint
create trigger engine_counts_webhooks_delete after delete on "webhooks" referencing old table as old_rows for each statement execute function engine_counts_webhooks();
--> statement-breakpoint
drop trigger if exists engine_counts_webhooks_update on "webhooks";
--> statement-breakpoint
lock table "webhooks" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Webhook';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Webhook', key, 0, count(*) from "webhooks", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
