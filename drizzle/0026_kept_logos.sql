CREATE TABLE "kept_logos" (
	"company_id" uuid NOT NULL,
	"sha256" text NOT NULL,
	"content_type" text NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "kept_logos_company_id_sha256_pk" PRIMARY KEY("company_id","sha256")
);

--> statement-breakpoint
ALTER TABLE "kept_logos" ADD CONSTRAINT "kept_logos_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
