CREATE OR REPLACE FUNCTION "clients_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "clients" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "clients_version" ON "clients";
CREATE TRIGGER "clients_version" BEFORE UPDATE ON "clients" FOR EACH ROW EXECUTE FUNCTION "clients_version"();
CREATE OR REPLACE FUNCTION "contacts_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "contacts" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "contacts_version" ON "contacts";
CREATE TRIGGER "contacts_version" BEFORE UPDATE ON "contacts" FOR EACH ROW EXECUTE FUNCTION "contacts_version"();
CREATE OR REPLACE FUNCTION "addresses_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "addresses" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "addresses_version" ON "addresses";
CREATE TRIGGER "addresses_version" BEFORE UPDATE ON "addresses" FOR EACH ROW EXECUTE FUNCTION "addresses_version"();
CREATE OR REPLACE FUNCTION "taxes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "taxes" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "taxes_version" ON "taxes";
CREATE TRIGGER "taxes_version" BEFORE UPDATE ON "taxes" FOR EACH ROW EXECUTE FUNCTION "taxes_version"();
CREATE OR REPLACE FUNCTION "invoices_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "invoices" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "invoices_version" ON "invoices";
CREATE TRIGGER "invoices_version" BEFORE UPDATE ON "invoices" FOR EACH ROW EXECUTE FUNCTION "invoices_version"();
CREATE OR REPLACE FUNCTION "invoice_lines_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "invoice_lines" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "invoice_lines_version" ON "invoice_lines";
CREATE TRIGGER "invoice_lines_version" BEFORE UPDATE ON "invoice_lines" FOR EACH ROW EXECUTE FUNCTION "invoice_lines_version"();
CREATE OR REPLACE FUNCTION "quotes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "quotes" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "quotes_version" ON "quotes";
CREATE TRIGGER "quotes_version" BEFORE UPDATE ON "quotes" FOR EACH ROW EXECUTE FUNCTION "quotes_version"();
CREATE OR REPLACE FUNCTION "quote_lines_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "quote_lines" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "quote_lines_version" ON "quote_lines";
CREATE TRIGGER "quote_lines_version" BEFORE UPDATE ON "quote_lines" FOR EACH ROW EXECUTE FUNCTION "quote_lines_version"();
CREATE OR REPLACE FUNCTION "recurring_invoices_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "recurring_invoices" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "recurring_invoices_version" ON "recurring_invoices";
CREATE TRIGGER "recurring_invoices_version" BEFORE UPDATE ON "recurring_invoices" FOR EACH ROW EXECUTE FUNCTION "recurring_invoices_version"();
CREATE OR REPLACE FUNCTION "payments_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "payments" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "payments_version" ON "payments";
CREATE TRIGGER "payments_version" BEFORE UPDATE ON "payments" FOR EACH ROW EXECUTE FUNCTION "payments_version"();
CREATE OR REPLACE FUNCTION "credit_notes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "credit_notes" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "credit_notes_version" ON "credit_notes";
CREATE TRIGGER "credit_notes_version" BEFORE UPDATE ON "credit_notes" FOR EACH ROW EXECUTE FUNCTION "credit_notes_version"();
CREATE OR REPLACE FUNCTION "credit_note_lines_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "credit_note_lines" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "credit_note_lines_version" ON "credit_note_lines";
CREATE TRIGGER "credit_note_lines_version" BEFORE UPDATE ON "credit_note_lines" FOR EACH ROW EXECUTE FUNCTION "credit_note_lines_version"();
CREATE OR REPLACE FUNCTION "webhooks_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "webhooks" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "webhooks_version" ON "webhooks";
CREATE TRIGGER "webhooks_version" BEFORE UPDATE ON "webhooks" FOR EACH ROW EXECUTE FUNCTION "webhooks_version"();
CREATE OR REPLACE FUNCTION "document_links_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "document_links" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "document_links_version" ON "document_links";
CREATE TRIGGER "document_links_version" BEFORE UPDATE ON "document_links" FOR EACH ROW EXECUTE FUNCTION "document_links_version"();
CREATE OR REPLACE FUNCTION "emails_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM "emails" WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS "emails_version" ON "emails";
CREATE TRIGGER "emails_version" BEFORE UPDATE ON "emails" FOR EACH ROW EXECUTE FUNCTION "emails_version"();
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
DROP TRIGGER IF EXISTS "invoice_lines_bumps_invoices_on_insert" ON "invoice_lines";
CREATE TRIGGER "invoice_lines_bumps_invoices_on_insert" AFTER INSERT ON "invoice_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "invoice_lines_bumps_invoices"();
DROP TRIGGER IF EXISTS "invoice_lines_bumps_invoices_on_update" ON "invoice_lines";
CREATE TRIGGER "invoice_lines_bumps_invoices_on_update" AFTER UPDATE ON "invoice_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "invoice_lines_bumps_invoices"();
DROP TRIGGER IF EXISTS "invoice_lines_bumps_invoices_on_delete" ON "invoice_lines";
CREATE TRIGGER "invoice_lines_bumps_invoices_on_delete" AFTER DELETE ON "invoice_lines" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "invoice_lines_bumps_invoices"();
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
DROP TRIGGER IF EXISTS "quote_lines_bumps_quotes_on_insert" ON "quote_lines";
CREATE TRIGGER "quote_lines_bumps_quotes_on_insert" AFTER INSERT ON "quote_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "quote_lines_bumps_quotes"();
DROP TRIGGER IF EXISTS "quote_lines_bumps_quotes_on_update" ON "quote_lines";
CREATE TRIGGER "quote_lines_bumps_quotes_on_update" AFTER UPDATE ON "quote_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "quote_lines_bumps_quotes"();
DROP TRIGGER IF EXISTS "quote_lines_bumps_quotes_on_delete" ON "quote_lines";
CREATE TRIGGER "quote_lines_bumps_quotes_on_delete" AFTER DELETE ON "quote_lines" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "quote_lines_bumps_quotes"();
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
DROP TRIGGER IF EXISTS "credit_note_lines_bumps_credit_notes_on_insert" ON "credit_note_lines";
CREATE TRIGGER "credit_note_lines_bumps_credit_notes_on_insert" AFTER INSERT ON "credit_note_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "credit_note_lines_bumps_credit_notes"();
DROP TRIGGER IF EXISTS "credit_note_lines_bumps_credit_notes_on_update" ON "credit_note_lines";
CREATE TRIGGER "credit_note_lines_bumps_credit_notes_on_update" AFTER UPDATE ON "credit_note_lines" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "credit_note_lines_bumps_credit_notes"();
DROP TRIGGER IF EXISTS "credit_note_lines_bumps_credit_notes_on_delete" ON "credit_note_lines";
CREATE TRIGGER "credit_note_lines_bumps_credit_notes_on_delete" AFTER DELETE ON "credit_note_lines" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "credit_note_lines_bumps_credit_notes"();
