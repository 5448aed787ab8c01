ALTER TABLE "webhook_deliveries" ALTER COLUMN "body" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "record_id" uuid;
