// The company profile's storage: its fields live on the companies row. The descriptor
// (resources/company.ts) is a singleton served by the engine through REST and GraphQL; this
// provider and processor read and write the row, and readCompany/updateCompany give the same
// rules to the documents and the settings page.
import { eq } from 'drizzle-orm';
import type { Db, Principal, FieldValues } from '../engine/types.ts';
import type { Processor, Provider } from '../engine/custom.ts';
import { customEngine } from '../engine/custom.ts';
import { ApiError, ViolationCode } from '../engine/errors.ts';
import { buildModel } from '../engine/model.ts';
import { driverError } from '../engine/operations.ts';
import { company } from '../resources/company.ts';
import { companies } from './schema.ts';

export { ibanProblem, bicProblem, vatProblem } from '../resources/rules/company.ts';

/** The profile's storage: the calling company's row (a singleton's id is the company's). */
export function companyStorage(): { provider: Provider; processor: Processor } {
  return {
    provider: {
      async list() {
        throw new ApiError(405, 'The company profile is one record.');
      },
      async read({ db, principal }, id) {
        if (id !== principal.company.id) return null;
        return readCompany(db, id);
      },
    },
    processor: {
      async create() {
        throw new ApiError(405, 'The company profile is one record.');
      },
      async update({ db, principal }, existing, changes) {
        if (!Object.keys(changes).length) return existing;
        try {
          const [row] = await db.update(companies).set({ ...changes, updatedAt: new Date() }).where(eq(companies.id, principal.company.id)).returning();
          if (!row) throw ApiError.notFound();
          return profileOf(row);
        } catch (e) {
          const d = driverError(e);
          if (d?.code === '23505') throw ApiError.validation([{ propertyPath: 'name', message: 'This value is already used.', code: ViolationCode.unique }]);
          throw e;
        }
      },
      async remove() {
        throw new ApiError(405, 'The company profile is one record.');
      },
    },
  };
}

export const companyModel = buildModel([company(companyStorage())]);
export const COMPANY = companyModel.get('Company');
/** The profile's field names, in the descriptor's order. */
export const PROFILE_FIELDS = COMPANY.fields.map((f) => f.name);

export type CompanyRow = typeof companies.$inferSelect;
export type CompanyProfile = FieldValues & { id: string; name: string; currency: string; createdAt: Date; updatedAt: Date };

export function profileOf(row: CompanyRow): CompanyProfile {
  const out: FieldValues = { id: row.id };
  for (const n of PROFILE_FIELDS) out[n] = (row as unknown as FieldValues)[n] ?? null;
  return { ...out, createdAt: row.createdAt, updatedAt: row.updatedAt } as CompanyProfile;
}

export async function readCompany(db: Db, companyId: string): Promise<CompanyProfile> {
  const [row] = await db.select().from(companies).where(eq(companies.id, companyId));
  if (!row) throw ApiError.notFound();
  return profileOf(row);
}

/** Applies a profile change through the engine: admins only (403), every field validated (422). */
export async function updateCompany(db: Db, principal: Pick<Principal, 'role' | 'company'>, input: FieldValues): Promise<CompanyProfile> {
  return (await customEngine(db, companyModel).update(principal as Principal, COMPANY, principal.company.id, input, 'update')) as CompanyProfile;
}

/** The company's VAT registration (CONTRACT §18), for the totals of a new document (resources/rules/documents.ts). */
export async function vatRegistration(db: Db, companyId: string): Promise<{ registered: boolean; note: string | null }> {
  const [row] = await db.select({ registered: companies.vatRegistered, note: companies.vatExemptionNote }).from(companies).where(eq(companies.id, companyId));
  return { registered: row?.registered !== false, note: row?.note ?? null };
}
