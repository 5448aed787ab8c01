CREATE TABLE "api_token_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "api_token_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_id" uuid NOT NULL,
	"date" timestamp (3) with time zone NOT NULL,
	"method" text NOT NULL,
	"endpoint" text NOT NULL,
	"status" integer NOT NULL,
	"ip_address" text,
	"user_agent" text
);

--> statement-breakpoint
CREATE TABLE "api_token_monthly" (
	"token_id" uuid NOT NULL,
	"month" text NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "api_token_monthly_token_id_month_pk" PRIMARY KEY("token_id","month")
);

--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"token_hash" text NOT NULL,
	"usage_count" bigint DEFAULT 0 NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "companies" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "memberships" (
	"user_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_user_id_company_id_pk" PRIMARY KEY("user_id","company_id")
);

--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"company_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);

--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);

--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "engine_sequences" (
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"value" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "engine_sequences_company_id_name_pk" PRIMARY KEY("company_id","name")
);

--> statement-breakpoint
CREATE TABLE "clients" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"currency" text,
	"website" text,
	"vat_number" text,
	"status" text NOT NULL,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text,
	"email" text NOT NULL,
	"phone" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "addresses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"street1" text,
	"street2" text,
	"city" text,
	"state" text,
	"zip" text,
	"country" text,
	"country_name" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "taxes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"rate" numeric(18, 4) NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"number" text,
	"client_id" uuid NOT NULL,
	"status" text NOT NULL,
	"invoice_date" date NOT NULL,
	"due_date" date,
	"paid_at" timestamp (3) with time zone,
	"currency" text,
	"discount_type" text NOT NULL,
	"discount_value" numeric(18, 4) NOT NULL,
	"subtotal" bigint DEFAULT 0 NOT NULL,
	"tax_total" bigint DEFAULT 0 NOT NULL,
	"discount_total" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"amount_paid" bigint DEFAULT 0 NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"terms" text,
	"notes" text,
	"quote_id" uuid,
	"recurring_invoice_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"invoice_id" uuid NOT NULL,
	"description" text NOT NULL,
	"qty" numeric(18, 4) NOT NULL,
	"price" bigint NOT NULL,
	"tax_id" uuid,
	"position" bigint,
	"total" bigint DEFAULT 0 NOT NULL,
	"tax_rate" numeric(18, 4),
	"tax_type" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "quotes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"number" text,
	"client_id" uuid NOT NULL,
	"status" text NOT NULL,
	"invoice_date" date NOT NULL,
	"valid_until" date,
	"currency" text,
	"discount_type" text NOT NULL,
	"discount_value" numeric(18, 4) NOT NULL,
	"subtotal" bigint DEFAULT 0 NOT NULL,
	"tax_total" bigint DEFAULT 0 NOT NULL,
	"discount_total" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"terms" text,
	"notes" text,
	"invoice_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "quote_lines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"quote_id" uuid NOT NULL,
	"description" text NOT NULL,
	"qty" numeric(18, 4) NOT NULL,
	"price" bigint NOT NULL,
	"tax_id" uuid,
	"position" bigint,
	"total" bigint DEFAULT 0 NOT NULL,
	"tax_rate" numeric(18, 4),
	"tax_type" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "recurring_invoices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"status" text NOT NULL,
	"frequency" text NOT NULL,
	"interval" bigint NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date,
	"next_run_date" date,
	"last_run_date" date,
	"due_in_days" bigint NOT NULL,
	"currency" text,
	"discount_type" text NOT NULL,
	"discount_value" numeric(18, 4) NOT NULL,
	"subtotal" bigint DEFAULT 0 NOT NULL,
	"tax_total" bigint DEFAULT 0 NOT NULL,
	"discount_total" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"terms" text,
	"notes" text,
	"lines" jsonb DEFAULT '[]'::jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"invoice_id" uuid NOT NULL,
	"client_id" uuid,
	"amount" bigint NOT NULL,
	"currency" text,
	"method" text NOT NULL,
	"reference" text,
	"notes" text,
	"paid_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);

--> statement-breakpoint
ALTER TABLE "api_token_history" ADD CONSTRAINT "api_token_history_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "api_token_monthly" ADD CONSTRAINT "api_token_monthly_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "engine_sequences" ADD CONSTRAINT "engine_sequences_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "clients" ADD CONSTRAINT "clients_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "addresses" ADD CONSTRAINT "addresses_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "addresses" ADD CONSTRAINT "addresses_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "taxes" ADD CONSTRAINT "taxes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_quote_id_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."quotes"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_recurring_invoice_id_recurring_invoices_id_fk" FOREIGN KEY ("recurring_invoice_id") REFERENCES "public"."recurring_invoices"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_tax_id_taxes_id_fk" FOREIGN KEY ("tax_id") REFERENCES "public"."taxes"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD CONSTRAINT "quote_lines_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD CONSTRAINT "quote_lines_quote_id_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."quotes"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "quote_lines" ADD CONSTRAINT "quote_lines_tax_id_taxes_id_fk" FOREIGN KEY ("tax_id") REFERENCES "public"."taxes"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "recurring_invoices" ADD CONSTRAINT "recurring_invoices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "recurring_invoices" ADD CONSTRAINT "recurring_invoices_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "api_token_history_token_date_idx" ON "api_token_history" USING btree ("token_id","date");
--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_hash_unique" ON "api_tokens" USING btree ("token_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_name_unique" ON "api_tokens" USING btree ("user_id","company_id","name");
--> statement-breakpoint
CREATE UNIQUE INDEX "companies_name_unique" ON "companies" USING btree (lower("name"));
--> statement-breakpoint
CREATE INDEX "memberships_company_idx" ON "memberships" USING btree ("company_id");
--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");
--> statement-breakpoint
CREATE INDEX "sessions_expires_idx" ON "sessions" USING btree ("expires_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email"));
--> statement-breakpoint
CREATE UNIQUE INDEX "clients_name_unique" ON "clients" USING btree ("company_id",lower("name"));
--> statement-breakpoint
CREATE INDEX "clients_company_currency_idx" ON "clients" USING btree ("company_id","currency");
--> statement-breakpoint
CREATE INDEX "clients_company_status_idx" ON "clients" USING btree ("company_id","status");
--> statement-breakpoint
CREATE INDEX "clients_company_created_idx" ON "clients" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "contacts_client_id_idx" ON "contacts" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "contacts_company_client_id_idx" ON "contacts" USING btree ("company_id","client_id");
--> statement-breakpoint
CREATE INDEX "contacts_company_first_name_idx" ON "contacts" USING btree ("company_id","first_name");
--> statement-breakpoint
CREATE INDEX "contacts_company_last_name_idx" ON "contacts" USING btree ("company_id","last_name");
--> statement-breakpoint
CREATE INDEX "contacts_company_email_idx" ON "contacts" USING btree ("company_id","email");
--> statement-breakpoint
CREATE INDEX "contacts_company_created_idx" ON "contacts" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "addresses_client_id_idx" ON "addresses" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "addresses_company_client_id_idx" ON "addresses" USING btree ("company_id","client_id");
--> statement-breakpoint
CREATE INDEX "addresses_company_country_idx" ON "addresses" USING btree ("company_id","country");
--> statement-breakpoint
CREATE INDEX "addresses_company_created_idx" ON "addresses" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE UNIQUE INDEX "taxes_name_unique" ON "taxes" USING btree ("company_id","name");
--> statement-breakpoint
CREATE INDEX "taxes_company_type_idx" ON "taxes" USING btree ("company_id","type");
--> statement-breakpoint
CREATE INDEX "taxes_company_created_idx" ON "taxes" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_unique" ON "invoices" USING btree ("company_id","number");
--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_recurring_invoice_id_invoice_date_unique" ON "invoices" USING btree ("company_id","recurring_invoice_id","invoice_date");
--> statement-breakpoint
CREATE INDEX "invoices_client_id_idx" ON "invoices" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "invoices_company_client_id_idx" ON "invoices" USING btree ("company_id","client_id");
--> statement-breakpoint
CREATE INDEX "invoices_company_status_idx" ON "invoices" USING btree ("company_id","status");
--> statement-breakpoint
CREATE INDEX "invoices_company_invoice_date_idx" ON "invoices" USING btree ("company_id","invoice_date");
--> statement-breakpoint
CREATE INDEX "invoices_company_due_date_idx" ON "invoices" USING btree ("company_id","due_date");
--> statement-breakpoint
CREATE INDEX "invoices_company_total_idx" ON "invoices" USING btree ("company_id","total");
--> statement-breakpoint
CREATE INDEX "invoices_quote_id_idx" ON "invoices" USING btree ("quote_id");
--> statement-breakpoint
CREATE INDEX "invoices_recurring_invoice_id_idx" ON "invoices" USING btree ("recurring_invoice_id");
--> statement-breakpoint
CREATE INDEX "invoices_company_created_idx" ON "invoices" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_invoice_id_idx" ON "invoice_lines" USING btree ("invoice_id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_company_invoice_id_idx" ON "invoice_lines" USING btree ("company_id","invoice_id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_tax_id_idx" ON "invoice_lines" USING btree ("tax_id");
--> statement-breakpoint
CREATE INDEX "invoice_lines_company_position_idx" ON "invoice_lines" USING btree ("company_id","position");
--> statement-breakpoint
CREATE INDEX "invoice_lines_company_created_idx" ON "invoice_lines" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE UNIQUE INDEX "quotes_number_unique" ON "quotes" USING btree ("company_id","number");
--> statement-breakpoint
CREATE INDEX "quotes_client_id_idx" ON "quotes" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "quotes_company_client_id_idx" ON "quotes" USING btree ("company_id","client_id");
--> statement-breakpoint
CREATE INDEX "quotes_company_status_idx" ON "quotes" USING btree ("company_id","status");
--> statement-breakpoint
CREATE INDEX "quotes_company_invoice_date_idx" ON "quotes" USING btree ("company_id","invoice_date");
--> statement-breakpoint
CREATE INDEX "quotes_company_valid_until_idx" ON "quotes" USING btree ("company_id","valid_until");
--> statement-breakpoint
CREATE INDEX "quotes_company_total_idx" ON "quotes" USING btree ("company_id","total");
--> statement-breakpoint
CREATE INDEX "quotes_invoice_id_idx" ON "quotes" USING btree ("invoice_id");
--> statement-breakpoint
CREATE INDEX "quotes_company_created_idx" ON "quotes" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "quote_lines_quote_id_idx" ON "quote_lines" USING btree ("quote_id");
--> statement-breakpoint
CREATE INDEX "quote_lines_company_quote_id_idx" ON "quote_lines" USING btree ("company_id","quote_id");
--> statement-breakpoint
CREATE INDEX "quote_lines_tax_id_idx" ON "quote_lines" USING btree ("tax_id");
--> statement-breakpoint
CREATE INDEX "quote_lines_company_position_idx" ON "quote_lines" USING btree ("company_id","position");
--> statement-breakpoint
CREATE INDEX "quote_lines_company_created_idx" ON "quote_lines" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_client_id_idx" ON "recurring_invoices" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_client_id_idx" ON "recurring_invoices" USING btree ("company_id","client_id");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_status_idx" ON "recurring_invoices" USING btree ("company_id","status");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_frequency_idx" ON "recurring_invoices" USING btree ("company_id","frequency");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_start_date_idx" ON "recurring_invoices" USING btree ("company_id","start_date");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_end_date_idx" ON "recurring_invoices" USING btree ("company_id","end_date");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_next_run_date_idx" ON "recurring_invoices" USING btree ("company_id","next_run_date");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_total_idx" ON "recurring_invoices" USING btree ("company_id","total");
--> statement-breakpoint
CREATE INDEX "recurring_invoices_company_created_idx" ON "recurring_invoices" USING btree ("company_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "payments_invoice_id_idx" ON "payments" USING btree ("invoice_id");
--> statement-breakpoint
CREATE INDEX "payments_company_invoice_id_idx" ON "payments" USING btree ("company_id","invoice_id");
--> statement-breakpoint
CREATE INDEX "payments_client_id_idx" ON "payments" USING btree ("client_id");
--> statement-breakpoint
CREATE INDEX "payments_company_client_id_idx" ON "payments" USING btree ("company_id","client_id");
--> statement-breakpoint
CREATE INDEX "payments_company_method_idx" ON "payments" USING btree ("company_id","method");
--> statement-breakpoint
CREATE INDEX "payments_company_paid_at_idx" ON "payments" USING btree ("company_id","paid_at");
--> statement-breakpoint
CREATE INDEX "payments_company_created_idx" ON "payments" USING btree ("company_id","created_at","id");
