// The company profile (CONTRACT §13): the seller data an invoice legally needs, kept on the
// companies row. Read by any member of the company, changed by its admins, through REST
// (company-api.ts), GraphQL (company-graphql.ts) and the settings page (web/routes.ts), which all
// use these functions, so the rules are the same everywhere.
import { eq } from 'drizzle-orm';
import type { Db, Principal, Rec } from '../engine/context.ts';
import { defineResource, text } from '../engine/descriptor.ts';
import { ApiError, Violations, ViolationCode } from '../engine/errors.ts';
import { buildModel } from '../engine/model.ts';
import { driverError } from '../engine/operations.ts';
import { compileValidator } from '../engine/validate.ts';
import { companies } from './schema.ts';

export const companyModel = buildModel([
  defineResource({
    name: 'Company',
    plural: 'companies',
    path: 'company',
    description: 'The company profile: the seller named on invoices, quotes and e-invoices. Read by any role; changed by admins.',
    fields: {
      name: text({ required: true, min: 1, max: 125, description: 'Trading name' }),
      legalName: text({ max: 200, description: 'Registered legal name (EN 16931 BT-27); the name when empty' }),
      email: text({ format: 'email', max: 254 }),
      phone: text({ max: 50 }),
      website: text({ format: 'url', max: 255 }),
      vatNumber: text({ max: 20, description: 'VAT identifier with its country prefix, e.g. DE123456789 (BT-31)' }),
      registrationNumber: text({ max: 64, description: 'Company registration number (BT-30)' }),
      street1: text({ max: 255 }),
      street2: text({ max: 255 }),
      city: text({ max: 100 }),
      state: text({ max: 100 }),
      zip: text({ max: 20 }),
      country: text({ format: 'country', description: 'ISO 3166-1 alpha-2 code' }),
      iban: text({ max: 42, description: 'IBAN for payments by transfer (checked with its mod-97 check digits)' }),
      bic: text({ max: 11, description: 'BIC (SWIFT code) of the bank: 8 or 11 characters' }),
      invoiceFooter: text({ max: 2000, description: 'Printed at the foot of every invoice and quote' }),
      currency: text({ readOnly: true, description: "The company's default currency (ISO 4217)" }),
    },
    operations: { rest: ['read', 'update'], graphql: 'none' },
  }),
]);

export const COMPANY = companyModel.get('Company');
/** The profile's field names, in the descriptor's order. */
export const PROFILE_FIELDS = COMPANY.fields.map((f) => f.name);

const validator = compileValidator(companyModel, COMPANY);

export type CompanyRow = typeof companies.$inferSelect;
export type CompanyProfile = Rec & { id: string; name: string; currency: string; createdAt: Date; updatedAt: Date };

export function profileOf(row: CompanyRow): CompanyProfile {
  const out: Rec = { id: row.id };
  for (const n of PROFILE_FIELDS) out[n] = (row as unknown as Rec)[n] ?? null;
  return { ...out, createdAt: row.createdAt, updatedAt: row.updatedAt } as CompanyProfile;
}

export async function readCompany(db: Db, companyId: string): Promise<CompanyProfile> {
  const [row] = await db.select().from(companies).where(eq(companies.id, companyId));
  if (!row) throw ApiError.notFound();
  return profileOf(row);
}

/** Space and punctuation people type inside an IBAN or a VAT number are not part of it. */
const compact = (s: string) => s.replace(/[\s.\-/]/g, '').toUpperCase();

/** ISO 13616: two letters, two check digits, up to 30 letters or digits; mod 97 of the rearranged number is 1. */
export function ibanProblem(iban: string): string | null {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return 'This value is not a valid IBAN: two letters, two check digits and the account number.';
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1 ? null : 'This value is not a valid IBAN: its check digits do not match.';
}

/** ISO 9362: bank (4 letters), country (2 letters), location (2), optional branch (3). */
export const bicProblem = (bic: string): string | null =>
  /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic) ? null : 'This value is not a valid BIC: 8 or 11 letters and digits, e.g. DEUTDEFF.';

/** A VAT identifier starts with its country's two letters (Greece: EL) and has 2 to 13 letters or digits after them. */
export const vatProblem = (vat: string): string | null =>
  /^[A-Z]{2}[A-Z0-9+*]{2,13}$/.test(vat) ? null : 'This value is not a valid VAT number: the country prefix and 2 to 13 letters or digits, e.g. DE123456789.';

/** Normalises a profile change: the descriptor's rules, then the IBAN, BIC and VAT number shapes. */
export function checkProfile(input: Rec): Rec {
  const v = new Violations();
  let data: Rec = {};
  try {
    data = validator.normalise(input, 'update', null).data;
  } catch (e) {
    if (!(e instanceof ApiError) || !e.violations) throw e;
    v.list.push(...e.violations);
  }
  const checks: [string, (s: string) => string | null][] = [['iban', ibanProblem], ['bic', bicProblem], ['vatNumber', vatProblem]];
  // Checked on the input itself: the descriptor's checks above stop at their first violation.
  for (const [name, problem] of checks) {
    const value = input[name];
    if (typeof value !== 'string' || value.trim() === '' || v.has(name)) continue;
    const p = problem(compact(value));
    if (p) v.add(name, p, ViolationCode.format);
    else data[name] = compact(value);
  }
  v.throwIfAny();
  return data;
}

/** Applies a profile change (admins only); 403 for other roles, 422 for invalid values. */
export async function updateCompany(db: Db, principal: Pick<Principal, 'role' | 'company'>, input: Rec): Promise<CompanyProfile> {
  if (principal.role !== 'admin') throw ApiError.forbidden('Only an admin of the company can change its profile.');
  const data = checkProfile(input);
  if (!Object.keys(data).length) return readCompany(db, principal.company.id);
  try {
    const [row] = await db.update(companies).set({ ...data, updatedAt: new Date() }).where(eq(companies.id, principal.company.id)).returning();
    if (!row) throw ApiError.notFound();
    return profileOf(row);
  } catch (e) {
    const d = driverError(e);
    if (d?.code === '23505') throw ApiError.validation([{ propertyPath: 'name', message: 'This value is already used.', code: ViolationCode.unique }]);
    throw e;
  }
}
