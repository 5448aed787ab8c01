// The CLI's commands as functions of a database, so the same code runs from the command line
// or, while a server holds the embedded database, inside that server (see admin-socket.ts).
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Principal, Role } from '../../engine/types.ts';
import type { Engine } from '../../engine/operations.ts';
import { isDate } from '../../engine/validate.ts';
import { COUNTS_TABLE, rebuildCountsSql } from '../../engine/counts.ts';
import { rowsOf } from '../db.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { today } from '../../resources/rules/calendar.ts';
import { model, tables } from '../model.ts';
import { hashPassword } from '../access/passwords.ts';
import { apiTokens, companies, memberships, users } from '../schema.ts';
import { hashToken, newTokenValue } from '../access/tokens.ts';
import { findOrCreateCompany } from '../company.ts';
import { dailyRun, type DailySummary } from '../scheduler.ts';

export class CommandError extends Error {}

export type Args = Record<string, string | undefined>;

/** What a command prints: its result on stdout, and what a person should read on stderr. */
export type CommandOutput = string | { stdout: string; stderr: string };
export const stdoutOf = (o: CommandOutput): string => (typeof o === 'string' ? o : o.stdout);
export const stderrOf = (o: CommandOutput): string => (typeof o === 'string' ? '' : o.stderr);

export interface CommandContext {
  db: Db;
  /** The running server's engine, when the command runs inside it. */
  engine?: Engine;
}

const ROLES: Role[] = ['admin', 'member', 'viewer'];

function need(args: Args, name: string): string {
  const v = args[name];
  if (v === undefined || v.trim() === '') throw new CommandError(`--${name} is required.`);
  return v.trim();
}

export async function userCreate(ctx: CommandContext, args: Args): Promise<string> {
  const email = need(args, 'email').toLowerCase();
  const password = need(args, 'password');
  const companyName = need(args, 'company');
  const role = (args.role ?? 'admin') as Role;
  if (!ROLES.includes(role)) throw new CommandError(`--role must be one of ${ROLES.join(', ')}.`);
  const currency = (args.currency ?? 'USD').toUpperCase();
  if (!Intl.supportedValuesOf('currency').includes(currency)) throw new CommandError(`--currency "${currency}" is not an ISO 4217 code.`);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new CommandError(`--email "${email}" is not a valid address.`);
  if (password.length < 8) throw new CommandError('--password must have at least 8 characters.');
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const company = await findOrCreateCompany(db, companyName, currency);
    const [existing] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`);
    const userId = existing?.id ?? uuidv7();
    if (!existing) await db.insert(users).values({ id: userId, email, passwordHash, name: email.split('@')[0] });
    await db
      .insert(memberships)
      .values({ userId, companyId: company.id, role })
      .onConflictDoUpdate({ target: [memberships.userId, memberships.companyId], set: { role } });
    return `${existing ? 'Added existing user' : 'Created user'} ${email} as ${role} of ${companyName}${company.created ? ' (new company)' : ''}.\n`;
  });
}

/** The user with this (lower-case) email in the company of this name (any case), or undefined. */
export async function findMembership(db: Db, email: string, companyName: string) {
  const [m] = await db
    .select({ userId: users.id, companyId: companies.id, currency: companies.currency })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(companies, eq(companies.id, memberships.companyId))
    .where(and(sql`lower(${users.email}) = ${email}`, sql`lower(${companies.name}) = lower(${companyName})`));
  return m;
}

export async function tokenCreate(ctx: CommandContext, args: Args): Promise<string> {
  const email = need(args, 'email').toLowerCase();
  const companyName = need(args, 'company');
  const name = need(args, 'name');
  if (name.length > 100) throw new CommandError('--name must have at most 100 characters.');
  const m = await findMembership(ctx.db, email, companyName);
  if (!m) throw new CommandError(`No user ${email} in a company named "${companyName}". Create one with user:create.`);
  const [dup] = await ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(and(eq(apiTokens.userId, m.userId), eq(apiTokens.companyId, m.companyId), eq(apiTokens.name, name)));
  if (dup) throw new CommandError(`A token named "${name}" already exists for ${email} in ${companyName}.`);
  const value = newTokenValue();
  await ctx.db.insert(apiTokens).values({ id: uuidv7(), userId: m.userId, companyId: m.companyId, name, description: args.description ?? null, tokenHash: hashToken(value) });
  return `${value}\n`;
}

/** schedule:run: the daily job (server/scheduler.ts) for one day (default: today, UTC), in every company. */
export async function scheduleRun(ctx: CommandContext, args: Args): Promise<DailySummary> {
  const date = args.date?.trim() || today();
  if (!isDate(date)) throw new CommandError(`--date "${date}" is not a date (YYYY-MM-DD).`);
  return dailyRun(ctx.db, ctx.engine, date);
}

/**
 * Recounts the collection sizes the triggers keep (engine/counts.ts) from the rows, one resource
 * per transaction (its writers wait for it; readers do not). Prints each resource's total.
 */
export async function countsRebuild(ctx: CommandContext): Promise<string> {
  const lines: string[] = [];
  for (const r of model.resources) {
    if (r.provider) continue; // no table (the reports)
    await ctx.db.transaction(async (tx) => {
      for (const text of rebuildCountsSql(r)) await tx.execute(sql.raw(text));
    });
    const [row] = rowsOf<{ n: number }>(await ctx.db.execute(sql`select coalesce(sum(n), 0)::int as n from ${sql.identifier(COUNTS_TABLE)} where resource = ${r.name} and key = '*'`));
    lines.push(`${r.name}: ${row?.n ?? 0}`);
  }
  return `Recounted ${lines.join(', ')}.\n`;
}
