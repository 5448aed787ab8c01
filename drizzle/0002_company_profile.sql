ALTER TABLE "companies" ADD COLUMN "legal_name" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "email" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "phone" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "website" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "vat_number" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "registration_number" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "street1" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "street2" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "city" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "state" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "zip" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "country" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "iban" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "bic" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "invoice_footer" text;
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;
