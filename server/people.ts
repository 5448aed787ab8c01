// The people of a company (CONTRACT §20): its members and their roles, invitations by e-mail,
// password resets and changes. Functions of a database, shared by the API's members and
// invitations (resources/member.ts, resources/invitation.ts: their storage below) and the pages
// that accept an invitation or reset a password (server/web/people-routes.ts).
//
// A link's token is shown once (in the e-mail, or to the admin while e-mail is held) and only its
// sha256 is stored; using it is one conditional update, so a link works once whatever runs at the
// same time. The last admin of a company can be neither demoted nor removed: changes of roles
// lock the company's memberships first.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { and, asc, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { ResourceStorage } from '../engine/custom.ts';
import { ApiError, ViolationCode } from '../engine/errors.ts';
import type { Db, FieldValues, Principal, Role } from '../engine/types.ts';
import { uuidv7 } from '../engine/uuid.ts';
import { isUuid } from '../engine/validate.ts';
import { hashPassword, verifyPassword } from './access/passwords.ts';
import { accountEmails, apiTokens, companies, invitations, memberships, passwordResets, users } from './schema.ts';
import { emailQueue } from './email/schema.ts';
import { checkEmailCap } from './email/cap.ts';
import { accountMessage } from './email/account-messages.ts';
import { hashToken, newTokenValue } from './access/tokens.ts';
import { MAX_PASSWORD, MIN_PASSWORD } from './web/setup.ts';

export const INVITATION_DAYS = 7;
export const RESET_MINUTES = 60;

/** What sending account e-mails needs of the server. */
export interface PeopleMail {
  /** PUBLIC_URL: links are `<publicUrl>/invite/<token>` and `<publicUrl>/reset/<token>`. */
  publicUrl: string;
  /** False without SMTP_URL: the e-mail is kept `held`, and the link is shown to the admin instead. */
  sending: boolean;
  /** MAIL_FROM, for the Message-ID's domain. */
  from: string | undefined;
  /** Tells the mail worker to look (after commit). */
  wake?: () => void;
}

const rows = <T>(r: unknown): T[] => (Array.isArray(r) ? (r as T[]) : ((r as { rows: T[] }).rows ?? []));

// ---- members -------------------------------------------------------------------------------

export interface MemberRow {
  id: string;
  email: string;
  name: string;
  role: string;
  createdAt: Date;
}

const memberColumns = { id: users.id, email: users.email, name: users.name, role: memberships.role, createdAt: memberships.createdAt };

export async function listMembers(db: Db, companyId: string, page: { limit: number; offset: number }): Promise<{ items: MemberRow[]; total: number }> {
  const items = await db.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(eq(memberships.companyId, companyId)).orderBy(asc(memberships.createdAt), asc(users.id)).limit(page.limit).offset(page.offset);
  const [{ n }] = (await db.select({ n: sql<number>`count(*)::int` }).from(memberships).where(eq(memberships.companyId, companyId))) as [{ n: number }];
  return { items, total: Number(n) };
}

export async function readMember(db: Db, companyId: string, userId: string): Promise<MemberRow | null> {
  if (!isUuid(userId)) return null;
  const [m] = await db.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(and(eq(memberships.companyId, companyId), eq(memberships.userId, userId.toLowerCase())));
  return m ?? null;
}

/** Locks the company's memberships; 422 on `path` when `userId` is its only admin. */
async function refuseLastAdmin(tx: Db, companyId: string, userId: string, what: string): Promise<void> {
  const admins = rows<{ user_id: string }>(await tx.execute(sql`select user_id from ${memberships} where company_id = ${companyId} and role = 'admin' order by user_id for update`));
  if (admins.length === 1 && admins[0]!.user_id === userId) {
    throw ApiError.validation([{ propertyPath: 'role', message: `This is the company's last admin: it cannot be ${what}. Make another member an admin first.`, code: ViolationCode.rule }]);
  }
}

export async function setRole(db: Db, companyId: string, userId: string, role: Role): Promise<MemberRow> {
  await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    if (role !== 'admin') await refuseLastAdmin(t, companyId, userId, 'demoted');
    const done = await t.update(memberships).set({ role }).where(and(eq(memberships.companyId, companyId), eq(memberships.userId, userId))).returning({ id: memberships.userId });
    if (!done.length) throw ApiError.notFound();
  });
  return (await readMember(db, companyId, userId))!;
}

/** Removes the person from the company and revokes their tokens for it; returns the revoked tokens' ids. */
export async function removeMember(db: Db, companyId: string, userId: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    await refuseLastAdmin(t, companyId, userId, 'removed');
    const done = await t.delete(memberships).where(and(eq(memberships.companyId, companyId), eq(memberships.userId, userId))).returning({ id: memberships.userId });
    if (!done.length) throw ApiError.notFound();
    const revoked = await t.delete(apiTokens).where(and(eq(apiTokens.companyId, companyId), eq(apiTokens.userId, userId))).returning({ id: apiTokens.id });
    return revoked.map((r) => r.id);
  });
}

/**
 * The members' storage (resources/member.ts); `revoked` tells every instance of a revoked token,
 * `changed` of principals whose role changed.
 */
export function memberStorage(o: { revoked(tokenId: string): Promise<void>; changed(which: (p: Principal) => boolean): Promise<void> }): ResourceStorage {
  const rec = (m: MemberRow): FieldValues => ({ ...m, updatedAt: m.createdAt });
  return {
    provider: {
      async list({ db, principal }, q) {
        const page = await listMembers(db, principal.company.id, { limit: q.limit, offset: q.offset });
        return { items: page.items.map(rec), total: page.total };
      },
      async read({ db, principal }, id) {
        const m = await readMember(db, principal.company.id, id);
        return m ? rec(m) : null;
      },
    },
    processor: {
      async create() {
        throw new ApiError(405, 'People join a company through an invitation (/api/invitations).');
      },
      async update({ db, principal }, existing, changes) {
        if (typeof changes.role !== 'string') return existing;
        const companyId = principal.company.id;
        const userId = String(existing.id);
        const changed = await setRole(db, companyId, userId, changes.role as Role);
        // The cached principals of this person here have their former role until told.
        if (changed.role !== existing.role) await o.changed((p) => p.userId === userId && p.company.id === companyId);
        return rec(changed);
      },
      async remove({ db, principal }, existing) {
        for (const id of await removeMember(db, principal.company.id, String(existing.id))) await o.revoked(id);
      },
    },
  };
}

// ---- account e-mails -------------------------------------------------------------------------

function messageDomain(from: string | undefined): string {
  const m = from ? /@([A-Za-z0-9.-]+)>?\s*$/.exec(from) : null;
  return m?.[1] ?? (hostname().replace(/[^A-Za-z0-9.-]/g, '') || 'localhost');
}

/** Writes an account e-mail and queues it for the mail worker (held without SMTP), in `tx`. */
async function queueAccountEmail(tx: Db, mail: PeopleMail, e: { companyId: string | null; purpose: string; to: string; subject: string; body: string }): Promise<void> {
  const id = uuidv7();
  // createdAt on the clock the hourly cap measures its window on (server/email/cap.ts).
  await tx.insert(accountEmails).values({ id, ...e, createdAt: new Date(), messageId: `<${randomUUID()}@${messageDomain(mail.from)}>`, status: mail.sending ? 'queued' : 'held' });
  if (mail.sending) {
    // The queue's company: the inviting company, or none (a reset): the nil id.
    await tx.insert(emailQueue).values({ id, companyId: e.companyId ?? '00000000-0000-0000-0000-000000000000', attempts: 0, nextAttemptAt: sql`now()` as never });
    if (mail.wake) setTimeout(mail.wake, 50).unref();
  }
}

// ---- invitations -----------------------------------------------------------------------------

export type InvitationRow = typeof invitations.$inferSelect;

const invitationRec = (r: InvitationRow): FieldValues => ({
  id: r.id,
  email: r.email,
  role: r.role,
  expiresAt: r.expiresAt,
  acceptedAt: r.acceptedAt,
  createdAt: r.createdAt,
  updatedAt: r.acceptedAt ?? r.createdAt,
  status: r.acceptedAt ? 'accepted' : r.expiresAt.getTime() <= Date.now() ? 'expired' : 'pending',
});

export async function createInvitation(db: Db, mail: PeopleMail, p: Principal, input: { email: string; role: Role }): Promise<{ row: InvitationRow; link: string }> {
  const email = input.email.trim().toLowerCase();
  const token = newTokenValue();
  const link = `${mail.publicUrl}/invite/${token}`;
  const row = await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const [already] = await t.select({ id: users.id }).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(and(eq(memberships.companyId, p.company.id), sql`lower(${users.email}) = ${email}`));
    if (already) throw ApiError.validation([{ propertyPath: 'email', message: 'This person is a member of the company already.', code: ViolationCode.unique }]);
    // An invitation is an e-mail the API creates for the company: it counts, and is capped, with its documents' e-mails.
    await checkEmailCap(tx, p.company.id);
    const [company] = await t.select({ name: companies.name, locale: companies.locale }).from(companies).where(eq(companies.id, p.company.id));
    const [inviter] = await t.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, p.userId));
    const [made] = await t
      .insert(invitations)
      .values({ id: uuidv7(), companyId: p.company.id, email, role: input.role, tokenHash: hashToken(token), invitedBy: p.userId, expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000) })
      .returning();
    // In the inviting company's language (its profile's locale).
    const locale = company?.locale;
    const who = inviter ? `${inviter.name || inviter.email}` : accountMessage(locale, 'someone');
    const values = { who, company: company?.name ?? '', role: input.role, days: INVITATION_DAYS, link };
    await queueAccountEmail(t, mail, {
      companyId: p.company.id,
      purpose: 'invitation',
      to: email,
      subject: accountMessage(locale, 'invitationSubject', values),
      body: accountMessage(locale, 'invitationBody', values),
    });
    return made!;
  });
  return { row, link };
}

/** The invitations' storage (resources/invitation.ts). */
export function invitationStorage(mail: PeopleMail): ResourceStorage {
  return {
    provider: {
      async list({ db, principal }, q) {
        const items = await db.select().from(invitations).where(eq(invitations.companyId, principal.company.id)).orderBy(desc(invitations.createdAt), desc(invitations.id)).limit(q.limit).offset(q.offset);
        const [{ n }] = (await db.select({ n: sql<number>`count(*)::int` }).from(invitations).where(eq(invitations.companyId, principal.company.id))) as [{ n: number }];
        return { items: items.map(invitationRec), total: Number(n) };
      },
      async read({ db, principal }, id) {
        if (!isUuid(id)) return null;
        const [r] = await db.select().from(invitations).where(eq(invitations.id, id.toLowerCase()));
        if (!r) return null;
        if (r.companyId !== principal.company.id) throw ApiError.forbidden();
        return invitationRec(r);
      },
    },
    processor: {
      async create({ db, principal }, data) {
        const { row, link } = await createInvitation(db, mail, principal, { email: String(data.email), role: data.role as Role });
        // While e-mail is held, the admin gets the link to hand over (shown here, once).
        return { ...invitationRec(row), ...(mail.sending ? {} : { link }) };
      },
      async update() {
        throw new ApiError(405, 'An invitation is not changed: revoke it and invite again.');
      },
      async remove({ db, principal }, existing) {
        await db.delete(invitations).where(and(eq(invitations.id, String(existing.id)), eq(invitations.companyId, principal.company.id)));
      },
    },
  };
}

export interface PendingInvitation {
  id: string;
  companyId: string;
  companyName: string;
  email: string;
  role: string;
  /** A user with the invited address exists: they sign in to accept. */
  existingUser: boolean;
}

/** The invitation a link names, while it can be used: not used, not revoked, not expired. */
export async function findInvitation(db: Db, token: string): Promise<PendingInvitation | null> {
  if (!/^[A-Za-z0-9_-]{10,200}$/.test(token)) return null;
  const [r] = await db
    .select({ id: invitations.id, companyId: invitations.companyId, companyName: companies.name, email: invitations.email, role: invitations.role })
    .from(invitations)
    .innerJoin(companies, eq(companies.id, invitations.companyId))
    .where(and(eq(invitations.tokenHash, hashToken(token)), isNull(invitations.acceptedAt), gt(invitations.expiresAt, new Date())));
  if (!r) return null;
  const [u] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${r.email}`);
  return { ...r, existingUser: Boolean(u) };
}

/**
 * Why an invitation, a reset link or a password change is refused: a message of the pages'
 * catalogue (server/web/messages.ts), which writes it in the reader's language; `passwordLength`
 * takes `min` and `max` (MIN_PASSWORD, MAX_PASSWORD).
 */
export type AccountError = 'invitationGone' | 'resetGone' | 'wrongPassword' | 'currentWrong' | 'passwordLength';

export type AcceptResult = { ok: true; userId: string; companyId: string } | { ok: false; status: number; error: AccountError; field?: 'name' | 'password' };

/**
 * Uses an invitation: a new user sets a name and password; an existing one gives their password.
 * The invitation is taken by one conditional update (used, revoked or expired meanwhile: refused)
 * in the transaction that adds the membership.
 */
export async function acceptInvitation(db: Db, token: string, input: { name: string; password: string }): Promise<AcceptResult> {
  const inv = await findInvitation(db, token);
  if (!inv) return { ok: false, status: 410, error: 'invitationGone' };
  const [user] = await db.select().from(users).where(sql`lower(${users.email}) = ${inv.email}`);
  if (user) {
    if (!(await verifyPassword(input.password, user.passwordHash))) return { ok: false, status: 422, error: 'wrongPassword', field: 'password' };
  } else if (input.password.length < MIN_PASSWORD || input.password.length > MAX_PASSWORD) {
    return { ok: false, status: 422, error: 'passwordLength', field: 'password' };
  }
  const passwordHash = user ? null : await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const taken = await t
      .update(invitations)
      .set({ acceptedAt: new Date() })
      .where(and(eq(invitations.id, inv.id), isNull(invitations.acceptedAt), gt(invitations.expiresAt, new Date())))
      .returning({ id: invitations.id });
    if (!taken.length) return { ok: false as const, status: 410, error: 'invitationGone' };
    let userId = user?.id;
    if (!userId) {
      userId = uuidv7();
      await t.insert(users).values({ id: userId, email: inv.email, name: input.name.trim().slice(0, 200) || inv.email.split('@')[0]!, passwordHash: passwordHash! });
    }
    await t.insert(memberships).values({ userId, companyId: inv.companyId, role: inv.role }).onConflictDoNothing();
    return { ok: true as const, userId, companyId: inv.companyId };
  });
}

// ---- passwords -------------------------------------------------------------------------------

/** Sends a reset link to `email` when a user has it, in `locale` (the request's language); the caller answers the same either way. */
export async function requestReset(db: Db, mail: PeopleMail, email: string, locale = 'en'): Promise<{ link: string } | null> {
  const address = email.trim().toLowerCase();
  const [u] = await db.select({ id: users.id, email: users.email }).from(users).where(sql`lower(${users.email}) = ${address}`);
  if (!u) return null;
  const token = newTokenValue();
  const link = `${mail.publicUrl}/reset/${token}`;
  await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    await t.insert(passwordResets).values({ tokenHash: hashToken(token), userId: u.id, expiresAt: new Date(Date.now() + RESET_MINUTES * 60_000) });
    await queueAccountEmail(t, mail, {
      companyId: null,
      purpose: 'reset',
      to: u.email,
      subject: accountMessage(locale, 'resetSubject'),
      body: accountMessage(locale, 'resetBody', { email: u.email, minutes: RESET_MINUTES, link }),
    });
  });
  return { link };
}

/** Whether a reset link can be used now. */
export async function resetUsable(db: Db, token: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{10,200}$/.test(token)) return false;
  const [r] = await db.select({ h: passwordResets.tokenHash }).from(passwordResets).where(and(eq(passwordResets.tokenHash, hashToken(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, new Date())));
  return Boolean(r);
}

/** Sets the password through a reset link, once: the link is taken by one conditional update. */
export async function useReset(db: Db, token: string, password: string): Promise<AcceptResult> {
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) return { ok: false, status: 422, error: 'passwordLength', field: 'password' };
  if (!/^[A-Za-z0-9_-]{10,200}$/.test(token)) return { ok: false, status: 410, error: 'resetGone' };
  const hash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const [r] = await t
      .update(passwordResets)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResets.tokenHash, hashToken(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, new Date())))
      .returning({ userId: passwordResets.userId });
    if (!r) return { ok: false as const, status: 410, error: 'resetGone' };
    await t.update(users).set({ passwordHash: hash }).where(eq(users.id, r.userId));
    // The user's other reset links go with this one.
    await t.update(passwordResets).set({ usedAt: new Date() }).where(and(eq(passwordResets.userId, r.userId), isNull(passwordResets.usedAt)));
    return { ok: true as const, userId: r.userId, companyId: '' };
  });
}

/** Changes a signed-in user's own password: the current one first. */
export async function changePassword(db: Db, userId: string, current: string, next: string): Promise<AcceptResult> {
  const [u] = await db.select().from(users).where(eq(users.id, userId));
  if (!u || !(await verifyPassword(current, u.passwordHash))) return { ok: false, status: 422, error: 'currentWrong', field: 'password' };
  if (next.length < MIN_PASSWORD || next.length > MAX_PASSWORD) return { ok: false, status: 422, error: 'passwordLength', field: 'name' };
  await db.update(users).set({ passwordHash: await hashPassword(next) }).where(eq(users.id, userId));
  return { ok: true, userId, companyId: '' };
}
