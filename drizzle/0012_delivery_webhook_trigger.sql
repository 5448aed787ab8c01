ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk";

--> statement-breakpoint
-- Hand-written: an endpoint's deliveries go with it (the foreign key's cascade did this), whatever
-- statement deletes the webhook (the API's, or any other).
CREATE OR REPLACE FUNCTION "webhook_deliveries_of_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "webhook_deliveries" WHERE "webhook_id" IN (SELECT "id" FROM "deleted_webhooks");
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "webhook_deliveries_of_deleted" ON "webhooks";
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_of_deleted" AFTER DELETE ON "webhooks" REFERENCING OLD TABLE AS "deleted_webhooks" FOR EACH STATEMENT EXECUTE FUNCTION "webhook_deliveries_of_deleted"();
