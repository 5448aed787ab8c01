ALTER TABLE "api_token_history" DROP CONSTRAINT "api_token_history_token_id_api_tokens_id_fk";

--> statement-breakpoint
-- Hand-written (issue 48), not derived by drizzle-kit: the cascade of the foreign key dropped above,
-- as one statement per deletion of tokens (a company's or a user's deletion cascades to their
-- tokens, and fires it too), instead of a foreign-key check per history row written.
CREATE OR REPLACE FUNCTION api_tokens_delete_history() RETURNS trigger LANGUAGE plpgsql AS $$
begin
  delete from api_token_history h using old_rows o where h.token_id = o.id;
  return null;
end $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS api_tokens_delete_history ON "api_tokens";
--> statement-breakpoint
CREATE TRIGGER api_tokens_delete_history AFTER DELETE ON "api_tokens" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION api_tokens_delete_history();
