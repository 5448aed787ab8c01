-- Hand-written (issue 48), not derived by drizzle-kit: a cached principal carries its company's
-- VAT registration (engine/types.ts Principal; read with the token, server/access/tokens.ts), so a
-- change of it makes cached principals wrong, as a change of the currency does: the token cache's
-- epoch moves and every listening instance is notified at commit (0001_token_cache_invalidation).
CREATE OR REPLACE FUNCTION "token_cache_company_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM before_rows b LEFT JOIN after_rows a ON a.id = b.id
    WHERE a.currency IS DISTINCT FROM b.currency
       OR a.vat_registered IS DISTINCT FROM b.vat_registered
       OR a.vat_exemption_note IS DISTINCT FROM b.vat_exemption_note
  ) THEN
    PERFORM "token_cache_bump"();
  END IF;
  RETURN NULL;
END $$;
