// The company's logo (CONTRACT §20): one row of company_logos per company, checked before it is
// written (resources/rules/logo.ts); read by the API, the PDFs and the client pages.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../engine/types.ts';
import type { LogoStorage } from '../resources/company.ts';
import { companyLogos } from './schema.ts';

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
