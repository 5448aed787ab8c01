CREATE EXTENSION IF NOT EXISTS btree_gin;
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
CREATE INDEX "clients_company_name_trgm_idx" ON "clients" USING gin ("company_id","name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contacts_company_first_name_trgm_idx" ON "contacts" USING gin ("company_id","first_name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contacts_company_last_name_trgm_idx" ON "contacts" USING gin ("company_id","last_name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "contacts_company_email_trgm_idx" ON "contacts" USING gin ("company_id","email" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "taxes_company_name_trgm_idx" ON "taxes" USING gin ("company_id","name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "invoices_company_number_trgm_idx" ON "invoices" USING gin ("company_id","number" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "quotes_company_number_trgm_idx" ON "quotes" USING gin ("company_id","number" gin_trgm_ops);
