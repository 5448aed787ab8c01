// Who acts when no person does: the daily job (recurring invoices, overdue marking, reminders),
// the mail worker rendering a document, a client link's page. A company's admin rights, with no
// user (SYSTEM_USER), so that the engine's rules and tenancy apply as for any request.
import { eq } from 'drizzle-orm';
import type { Db, Principal, VatRegistration } from '../../engine/types.ts';
import { companies } from '../schema.ts';

/** The company's columns a principal carries besides its id and currency (engine/types.ts), selected with it. */
export const vatColumns = { registered: companies.vatRegistered, note: companies.vatExemptionNote };
/** Their value in the principal: registered unless it says it is not. */
export const vatOf = (c: { registered: boolean | null; note: string | null } | undefined): VatRegistration => ({ registered: c?.registered !== false, note: c?.note ?? null });

/** No user: scheduled jobs act for a company with an admin's rights. */
export const SYSTEM_USER = '00000000-0000-0000-0000-000000000000';

export function systemPrincipals(db: Db): (companyId: string) => Promise<Principal> {
  return async (companyId) => {
    const [c] = await db.select({ currency: companies.currency, ...vatColumns }).from(companies).where(eq(companies.id, companyId));
    return { userId: SYSTEM_USER, role: 'admin', company: { id: companyId, currency: c?.currency ?? 'USD', vat: vatOf(c) } };
  };
}
