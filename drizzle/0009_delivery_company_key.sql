ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_company_id_companies_id_fk";

