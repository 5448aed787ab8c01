CREATE TABLE "token_cache_epoch" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"epoch" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "token_cache_epoch" ("id", "epoch") VALUES (1, 0);
--> statement-breakpoint
-- From here on written by hand (drizzle-kit does not generate functions or triggers). Each
-- instance caches token → principal (user, company, role, currency). A statement that can make a
-- cached principal wrong increments the epoch and notifies every listening instance, in the same
-- transaction: PostgreSQL delivers the notification when, and only if, that transaction commits.
-- Statement-level triggers with transition tables: one increment per statement, none when no row
-- that matters changed.
CREATE FUNCTION "token_cache_bump"() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  e bigint;
BEGIN
  UPDATE "token_cache_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1 RETURNING "epoch" INTO e;
  PERFORM pg_notify('token_cache_invalidation', e::text);
END $$;
--> statement-breakpoint
-- A token revoked, a membership removed, a user or a company deleted (their memberships and
-- tokens cascade, which fires these too).
CREATE FUNCTION "token_cache_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM gone) THEN PERFORM "token_cache_bump"(); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "api_tokens_token_cache" AFTER DELETE ON "api_tokens" REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION "token_cache_deleted"();
--> statement-breakpoint
CREATE TRIGGER "memberships_token_cache_delete" AFTER DELETE ON "memberships" REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION "token_cache_deleted"();
--> statement-breakpoint
CREATE TRIGGER "companies_token_cache_delete" AFTER DELETE ON "companies" REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION "token_cache_deleted"();
--> statement-breakpoint
-- A role changed (user:create on an existing membership), a membership moved to another user or
-- company, a company's currency changed.
CREATE FUNCTION "token_cache_membership_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM before_rows b LEFT JOIN after_rows a ON a.user_id = b.user_id AND a.company_id = b.company_id WHERE a.role IS DISTINCT FROM b.role) THEN
    PERFORM "token_cache_bump"();
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "memberships_token_cache_update" AFTER UPDATE ON "memberships" REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION "token_cache_membership_updated"();
--> statement-breakpoint
CREATE FUNCTION "token_cache_company_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM before_rows b LEFT JOIN after_rows a ON a.id = b.id WHERE a.currency IS DISTINCT FROM b.currency) THEN
    PERFORM "token_cache_bump"();
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "companies_token_cache_update" AFTER UPDATE ON "companies" REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION "token_cache_company_updated"();
