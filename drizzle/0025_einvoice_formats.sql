-- Hand-written (issue 45), replacing the generated `ADD COLUMN "e_invoice_format" text NOT NULL`,
-- which fails on a table with rows: existing clients get the descriptor's default, `peppol`, and
-- the column keeps no SQL default afterwards (the engine writes the default, as for every enum).
ALTER TABLE "clients" ADD COLUMN "e_invoice_format" text DEFAULT 'peppol' NOT NULL;
--> statement-breakpoint
ALTER TABLE "clients" ALTER COLUMN "e_invoice_format" DROP DEFAULT;
-- End of the hand-written block.
--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "buyer_reference" text;
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "buyer_reference" text;
--> statement-breakpoint
CREATE INDEX "clients_company_e_invoice_format_idx" ON "clients" USING btree ("company_id","e_invoice_format","id");
