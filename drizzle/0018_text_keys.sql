CREATE OR REPLACE FUNCTION engine_text_keys(company uuid, value text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
declare
  v text := lower(value);
  c text := company::text;
  keys text[] := '{}';
begin
  for i in 1..coalesce(length(v), 0) loop
    keys := array_append(keys, c || substr(v, i, 1));
    keys := array_append(keys, c || substr(v, i, 2));
    keys := array_append(keys, c || substr(v, i, 3));
  end loop;
  return keys;
end
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engine_text_query(company uuid, part text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select coalesce(array_agg(distinct company::text || substr(v, i, least(3, length(v)))), '{}') from (select lower(part) as v) as l, generate_series(1, length(v) - least(3, length(v)) + 1) as i where length(v) > 0
$$;
--> statement-breakpoint
DROP INDEX "clients_company_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_first_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_last_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "contacts_company_email_trgm_idx";
--> statement-breakpoint
DROP INDEX "taxes_company_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "invoices_company_number_trgm_idx";
--> statement-breakpoint
DROP INDEX "quotes_company_number_trgm_idx";
--> statement-breakpoint
DROP INDEX "credit_notes_company_number_trgm_idx";
--> statement-breakpoint
CREATE INDEX "clients_company_name_keys_idx" ON "clients" USING gin ("engine_text_keys"("company_id", "name"));
--> statement-breakpoint
CREATE INDEX "contacts_company_first_name_keys_idx" ON "contacts" USING gin ("engine_text_keys"("company_id", "first_name"));
--> statement-breakpoint
CREATE INDEX "contacts_company_last_name_keys_idx" ON "contacts" USING gin ("engine_text_keys"("company_id", "last_name"));
--> statement-breakpoint
CREATE INDEX "contacts_company_email_keys_idx" ON "contacts" USING gin ("engine_text_keys"("company_id", "email"));
--> statement-breakpoint
CREATE INDEX "taxes_company_name_keys_idx" ON "taxes" USING gin ("engine_text_keys"("company_id", "name"));
--> statement-breakpoint
CREATE INDEX "invoices_company_number_keys_idx" ON "invoices" USING gin ("engine_text_keys"("company_id", "number"));
--> statement-breakpoint
CREATE INDEX "quotes_company_number_keys_idx" ON "quotes" USING gin ("engine_text_keys"("company_id", "number"));
--> statement-breakpoint
CREATE INDEX "credit_notes_company_number_keys_idx" ON "credit_notes" USING gin ("engine_text_keys"("company_id", "number"));
--> statement-breakpoint
DROP FUNCTION IF EXISTS engine_trigrams(uuid, text);
