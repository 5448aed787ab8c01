// First run: the first user, their company (with its currency) and an admin membership, created
// only while no user exists. Concurrent set-ups (or a set-up racing `user:create`) are serialised
// by a table lock that conflicts with any insert into users, so at most one first user is made.
import { count, sql } from 'drizzle-orm';
import type { Db } from '../../engine/types.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { findOrCreateCompany } from '../company.ts';
import { hashPassword } from '../access/passwords.ts';
import { memberships, users } from '../schema.ts';
import type { Said } from './messages.ts';

export interface SetupInput {
  name: string;
  email: string;
  password: string;
  company: string;
  currency: string;
}

/** What is wrong with a field, as a message of the pages' catalogue (written in the page's language). */
export type SetupErrors = Partial<Record<keyof SetupInput, Said>>;

export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 1024;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
let currencyCodes: Set<string> | undefined;
export const currencies = () => (currencyCodes ??= new Set(Intl.supportedValuesOf('currency')));

export async function hasUsers(db: Db): Promise<boolean> {
  const [{ n }] = (await db.select({ n: count() }).from(users)) as [{ n: number }];
  return Number(n) > 0;
}

/** Normalises the form; errors per field (empty when valid). */
export function checkSetup(raw: Record<string, unknown>): { input: SetupInput; errors: SetupErrors } {
  const str = (k: string) => (typeof raw[k] === 'string' ? (raw[k] as string) : '');
  const input: SetupInput = {
    name: str('name').trim().slice(0, 200),
    email: str('email').trim().toLowerCase(),
    password: str('password'),
    company: str('company').trim(),
    currency: str('currency').trim().toUpperCase(),
  };
  const errors: SetupErrors = {};
  if (!input.email) errors.email = { message: 'emailMissing' };
  else if (!EMAIL.test(input.email) || input.email.length > 254) errors.email = { message: 'emailInvalid' };
  if (input.password.length < MIN_PASSWORD) errors.password = { message: 'tooShort', values: { min: MIN_PASSWORD } };
  else if (input.password.length > MAX_PASSWORD) errors.password = { message: 'tooLong', values: { max: MAX_PASSWORD } };
  if (!input.company) errors.company = { message: 'companyMissing' };
  else if (input.company.length > 200) errors.company = { message: 'tooLong', values: { max: 200 } };
  if (!currencies().has(input.currency)) errors.currency = { message: 'currencyMissing' };
  return { input, errors };
}

/** Creates the first user; null when a user exists already (someone else finished set-up first). */
export async function runSetup(db: Db, input: SetupInput): Promise<{ userId: string; companyId: string } | null> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    // SHARE ROW EXCLUSIVE conflicts with itself and with the ROW EXCLUSIVE lock of an insert.
    await t.execute(sql`lock table ${users} in share row exclusive mode`);
    if (await hasUsers(t)) return null;
    const company = await findOrCreateCompany(t, input.company, input.currency);
    const userId = uuidv7();
    await t.insert(users).values({ id: userId, email: input.email, name: input.name || input.email.split('@')[0]!, passwordHash });
    await t.insert(memberships).values({ userId, companyId: company.id, role: 'admin' });
    return { userId, companyId: company.id };
  });
}
