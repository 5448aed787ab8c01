CREATE INDEX "invoices_company_number_idx" ON "invoices" USING btree ("company_id","number","id");
--> statement-breakpoint
CREATE INDEX "quotes_company_number_idx" ON "quotes" USING btree ("company_id","number","id");
