CREATE OR REPLACE FUNCTION engine_trigrams(company uuid, value text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select coalesce(array_agg(distinct company::text || substr(v, i, 3)), '{}') from (select lower(value) as v) as l, generate_series(1, length(v) - 2) as i
$$;
--> statement-breakpoint
DROP INDEX "clients_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "contacts_first_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "contacts_last_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "contacts_email_trgm_idx";
--> statement-breakpoint
DROP INDEX "taxes_name_trgm_idx";
--> statement-breakpoint
DROP INDEX "invoices_number_trgm_idx";
--> statement-breakpoint
DROP INDEX "quotes_number_trgm_idx";
--> statement-breakpoint
CREATE INDEX "clients_company_name_trgm_idx" ON "clients" USING gin ("engine_trigrams"("company_id", "name"));
--> statement-breakpoint
CREATE INDEX "contacts_company_first_name_trgm_idx" ON "contacts" USING gin ("engine_trigrams"("company_id", "first_name"));
--> statement-breakpoint
CREATE INDEX "contacts_company_last_name_trgm_idx" ON "contacts" USING gin ("engine_trigrams"("company_id", "last_name"));
--> statement-breakpoint
CREATE INDEX "contacts_company_email_trgm_idx" ON "contacts" USING gin ("engine_trigrams"("company_id", "email"));
--> statement-breakpoint
CREATE INDEX "taxes_company_name_trgm_idx" ON "taxes" USING gin ("engine_trigrams"("company_id", "name"));
--> statement-breakpoint
CREATE INDEX "invoices_company_number_trgm_idx" ON "invoices" USING gin ("engine_trigrams"("company_id", "number"));
--> statement-breakpoint
CREATE INDEX "quotes_company_number_trgm_idx" ON "quotes" USING gin ("engine_trigrams"("company_id", "number"));
