ALTER TABLE "taxes" ADD COLUMN "category" text;
--> statement-breakpoint
ALTER TABLE "taxes" ADD COLUMN "exemption_reason_code" text;
--> statement-breakpoint
ALTER TABLE "taxes" ADD COLUMN "exemption_reason" text;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "tax_category" text;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "tax_exemption_reason" text;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "tax_exemption_reason_code" text;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "tax_category" text;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "tax_exemption_reason" text;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD COLUMN "tax_exemption_reason_code" text;
--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD COLUMN "tax_category" text;
--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD COLUMN "tax_exemption_reason" text;
--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD COLUMN "tax_exemption_reason_code" text;
--> statement-breakpoint
CREATE INDEX "taxes_company_category_idx" ON "taxes" USING btree ("company_id","category","id");
--> statement-breakpoint
-- Hand-written (issue 44, CONTRACT §18): existing taxes and computed lines get the category their
-- rate implies (S above 0 %, else Z), which the service also assumes for a null category.
UPDATE "taxes" SET "category" = CASE WHEN "rate" > 0 THEN 'S' ELSE 'Z' END WHERE "category" IS NULL;
--> statement-breakpoint
UPDATE "invoice_lines" SET "tax_category" = CASE WHEN "tax_rate" > 0 THEN 'S' ELSE 'Z' END WHERE "tax_category" IS NULL AND "tax_id" IS NOT NULL AND "tax_rate" IS NOT NULL;
--> statement-breakpoint
UPDATE "quote_lines" SET "tax_category" = CASE WHEN "tax_rate" > 0 THEN 'S' ELSE 'Z' END WHERE "tax_category" IS NULL AND "tax_id" IS NOT NULL AND "tax_rate" IS NOT NULL;
--> statement-breakpoint
UPDATE "credit_note_lines" SET "tax_category" = CASE WHEN "tax_rate" > 0 THEN 'S' ELSE 'Z' END WHERE "tax_category" IS NULL AND "tax_id" IS NOT NULL AND "tax_rate" IS NOT NULL;
