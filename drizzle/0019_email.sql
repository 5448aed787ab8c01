CREATE TABLE "email_queue" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp (3) with time zone
);

--> statement-breakpoint
CREATE TABLE "emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"document" text NOT NULL,
	"to" jsonb DEFAULT '[]'::jsonb,
	"cc" jsonb DEFAULT '[]'::jsonb,
	"bcc" jsonb DEFAULT '[]'::jsonb,
	"subject" text,
	"body" text,
	"attach" jsonb DEFAULT '[]'::jsonb,
	"kind" text,
	"reminder" text,
	"status" text,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"last_error" text,
	"message_id" text,
	"sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"version" integer DEFAULT 1 NOT NULL
);

--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "email_templates" jsonb;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "reminders" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "email_queue_due_idx" ON "email_queue" USING btree ("next_attempt_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "emails_document_reminder_unique" ON "emails" USING btree ("company_id","document","reminder");
--> statement-breakpoint
CREATE INDEX "emails_company_document_idx" ON "emails" USING btree ("company_id","document","id");
--> statement-breakpoint
CREATE INDEX "emails_company_kind_idx" ON "emails" USING btree ("company_id","kind","id");
--> statement-breakpoint
CREATE INDEX "emails_company_status_idx" ON "emails" USING btree ("company_id","status","id");
--> statement-breakpoint
CREATE INDEX "emails_company_created_idx" ON "emails" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "emails_company_id_idx" ON "emails" USING btree ("company_id","id");
--> statement-breakpoint
create or replace function engine_counts_emails() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Email', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  elsif tg_op = 'DELETE' then
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Email', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 and exists (select 1 from "companies" as scope where scope."id" = delta.company_id) order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  else
    insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Email', key, pg_backend_pid() % 8, sum(d) from (select company_id, key, 1 as d from new_rows, lateral (values ('*')) as k(key) where key is not null union all select company_id, key, -1 as d from old_rows, lateral (values ('*')) as k(key) where key is not null) as delta
      group by company_id, key having sum(d) <> 0 order by company_id, key
      on conflict (company_id, resource, key, slot) do update set n = engine_counts.n + excluded.n;
  end if;
  return null;
end $$;
--> statement-breakpoint
drop trigger if exists engine_counts_emails_insert on "emails";
--> statement-breakpoint
create trigger engine_counts_emails_insert after insert on "emails" referencing new table as new_rows for each statement execute function engine_counts_emails();
--> statement-breakpoint
drop trigger if exists engine_counts_emails_delete on "emails";
--> statement-breakpoint
create trigger engine_counts_emails_delete after delete on "emails" referencing old table as old_rows for each statement execute function engine_counts_emails();
--> statement-breakpoint
drop trigger if exists engine_counts_emails_update on "emails";
--> statement-breakpoint
lock table "emails" in share row exclusive mode;
--> statement-breakpoint
delete from engine_counts where resource = 'Email';
--> statement-breakpoint
insert into engine_counts (company_id, resource, key, slot, n)
      select company_id, 'Email', key, 0, count(*) from "emails", lateral (values ('*')) as k(key) where key is not null group by company_id, key;
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
CREATE OR REPLACE FUNCTION "document_links_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "document_links" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "document_links_version" ON "document_links";
--> statement-breakpoint
CREATE TRIGGER "document_links_version" BEFORE UPDATE ON "document_links" FOR EACH ROW EXECUTE FUNCTION "document_links_version"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "emails_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "emails" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "emails_version" ON "emails";
--> statement-breakpoint
CREATE TRIGGER "emails_version" BEFORE UPDATE ON "emails" FOR EACH ROW EXECUTE FUNCTION "emails_version"();
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
