// The company's logo (CONTRACT §20): one row of company_logos per company, checked before it is
// written (resources/rules/logo.ts); read by the API, the PDFs and the client pages.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../engine/types.ts';
import type { LogoStorage } from '../resources/company.ts';
import { companyLogos, keptLogos } from './schema.ts';

export const logoStorage: LogoStorage = {
  async read(db, companyId) {
    const [row] = await db.select({ data: companyLogos.data, contentType: companyLogos.contentType }).from(companyLogos).where(eq(companyLogos.companyId, companyId));
    return row ? { body: Buffer.from(row.data), contentType: row.contentType } : null;
  },
  async write(db, companyId, logo) {
    const values = { companyId, contentType: logo.contentType, data: logo.bytes, width: logo.width, height: logo.height, updatedAt: new Date() };
    await db.insert(companyLogos).values(values).onConflictDoUpdate({ target: companyLogos.companyId, set: { contentType: sql`excluded.content_type`, data: sql`excluded.data`, width: sql`excluded.width`, height: sql`excluded.height`, updatedAt: sql`excluded.updated_at` } });
  },
  async remove(db, companyId) {
    return (await db.delete(companyLogos).where(eq(companyLogos.companyId, companyId)).returning({ id: companyLogos.companyId })).length > 0;
  },
};

/** The logo's bytes for a document (PDF, client page), or null. */
export const logoOf = async (db: Db, companyId: string): Promise<{ body: Buffer; contentType: string } | null> => logoStorage.read(db, companyId);

/**
 * Keeps the company's current logo for a document being issued (in its transaction): copied to
 * kept_logos unless that very logo is there already; its sha256, or null without a logo.
 */
export async function keepLogo(tx: Db, companyId: string): Promise<string | null> {
  const res = (await tx.execute(sql`
    with cur as (select company_id, encode(sha256(data), 'hex') as sha from company_logos where company_id = ${companyId}),
    kept as (
      insert into kept_logos (company_id, sha256, content_type, data)
      select l.company_id, cur.sha, l.content_type, l.data from company_logos l join cur on cur.company_id = l.company_id
      where not exists (select 1 from kept_logos k where k.company_id = cur.company_id and k.sha256 = cur.sha)
      on conflict do nothing
    )
    select sha from cur`)) as unknown;
  // postgres.js gives the rows, PGlite an object holding them.
  const rows = (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as { sha: string }[];
  return rows[0]?.sha ?? null;
}

/** The logo an issued document was made with (keepLogo), or null. */
export async function keptLogoOf(db: Db, companyId: string, sha: string): Promise<{ body: Buffer; contentType: string } | null> {
  const [row] = await db.select({ data: keptLogos.data, contentType: keptLogos.contentType }).from(keptLogos).where(and(eq(keptLogos.companyId, companyId), eq(keptLogos.sha256, sha)));
  return row ? { body: Buffer.from(row.data), contentType: row.contentType } : null;
}
