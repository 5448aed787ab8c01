CREATE INDEX "webhook_deliveries_status_idx" ON "webhook_deliveries" USING btree ("webhook_id","status","created_at","id") WHERE status <> 'succeeded';
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_type_idx" ON "webhook_deliveries" USING btree ("webhook_id","type","created_at","id");
