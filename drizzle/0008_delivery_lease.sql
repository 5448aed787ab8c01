ALTER TABLE "webhook_deliveries" ADD COLUMN "leased_until" timestamp (3) with time zone;
--> statement-breakpoint
-- Hand-written: room on each page for a delivery's new versions (a claim, a record), so that they
-- stay on its page: the claim, which changes no indexed column, is then a HOT update (no index
-- entry), and the log records only what changed of the row, not its payload again.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);
