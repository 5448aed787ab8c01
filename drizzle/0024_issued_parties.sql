ALTER TABLE "invoices" ADD COLUMN "parties" text;
--> statement-breakpoint
ALTER TABLE "quotes" ADD COLUMN "parties" text;
--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "parties" text;
