ALTER TABLE "companies" ADD COLUMN "peppol_id" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "contact_name" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "vat_registered" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "vat_exemption_note" text;
--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "peppol_id" text;
