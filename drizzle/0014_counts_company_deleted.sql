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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
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
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Webhook', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
