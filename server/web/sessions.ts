// Sign-in sessions of the web pages, and their CSRF tokens.
//
// The session cookie carries 256 random bits; the sessions table stores only their SHA-256, with
// the user, the active company and an expiry: idle for IDLE_MS ends it, and so does reaching
// ABSOLUTE_MS after sign-in. Every state-changing request of the pages carries a CSRF token
// (X-CSRF-Token header from the page's fetch calls, or the `_csrf` field of a form): an HMAC,
// under the app secret, of the session cookie's value, or for a visitor not signed in yet (the
// sign-in and set-up forms) of a random pre-session cookie's. Cookies are HttpOnly, SameSite=Lax
// and Secure when the request came over https.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, lt, sql, type SQLWrapper } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Principal, Role, VatRegistration } from '../../engine/types.ts';
import type { SessionAuth } from '../access/auth.ts';
import { vatColumns, vatOf } from '../access/principals.ts';
import { companies, memberships, sessions, users } from '../schema.ts';

export const SESSION_COOKIE = 'inv_session';
/** Binds the CSRF token of the forms shown before sign-in. */
export const PRE_SESSION_COOKIE = 'inv_pre';

export const IDLE_MS = 12 * 3600_000;
export const ABSOLUTE_MS = 7 * 86_400_000;
/** A session's expiry is pushed forward at most this often (one write per session and period). */
const RENEW_EVERY_MS = 5 * 60_000;

export interface Membership {
  id: string;
  name: string;
  currency: string;
  role: Role;
  /** The company's VAT registration, for the principal (engine/types.ts). */
  vat: VatRegistration;
}

export interface Session {
  /** The stored id (hash of the cookie value). */
  id: string;
  /** The cookie value: the CSRF token is derived from it. */
  value: string;
  user: { id: string; email: string; name: string };
  /** The active company: the one chosen, else the first; null when the user belongs to none. */
  company: Membership | null;
  companies: Membership[];
  expiresAt: Date;
}

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const randomValue = () => randomBytes(32).toString('base64url');
/** Cookie values we issue: 43 base64url characters. Anything else is not looked up. */
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

/** A user's companies with their role, as the session reads them. */
const membershipColumns = { id: companies.id, name: companies.name, currency: companies.currency, role: memberships.role, ...vatColumns };

/** The same, by name then id, as one JSON array: a scalar subquery of the session's lookup. */
function membershipsOf(userId: SQLWrapper) {
  const fields = Object.entries(membershipColumns).map(([k, c]) => sql`${sql.raw(`'${k}'`)}, ${c}`);
  return sql<unknown>`coalesce((select json_agg(json_build_object(${sql.join(fields, sql`, `)}) order by lower(${companies.name}), ${companies.id})
    from ${memberships} inner join ${companies} on ${companies.id} = ${memberships.companyId} where ${memberships.userId} = ${userId}), '[]'::json)`;
}

type MembershipRow = Omit<Membership, 'vat' | 'role'> & { role: string; registered: boolean | null; note: string | null };

/** The JSON array of membershipsOf (parsed by the driver or not) as memberships. */
function membershipRows(value: unknown): Membership[] {
  const rows = (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as MembershipRow[];
  return rows.map(({ registered, note, ...r }) => ({ ...r, role: r.role as Role, vat: vatOf({ registered, note }) }));
}

export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly secret: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Starts a session for the user (in `companyId`, else their first company); returns the cookie value. */
  async create(userId: string, companyId: string | null): Promise<{ value: string; expiresAt: Date }> {
    const now = this.clock();
    const value = randomValue();
    const expiresAt = new Date(now + IDLE_MS);
    // Expired sessions are removed as new ones begin: the table holds live sessions only.
    await this.db.delete(sessions).where(lt(sessions.expiresAt, new Date(now)));
    await this.db.insert(sessions).values({ id: sha256(value), userId, companyId, createdAt: new Date(now), expiresAt });
    return { value, expiresAt };
  }

  /** The live session a cookie value names, or null; renews its idle expiry now and then. */
  async resolve(value: string | undefined): Promise<Session | null> {
    if (!value || !WELL_FORMED.test(value)) return null;
    const now = this.clock();
    const id = sha256(value);
    // The session, its user and the user's companies in one statement (a request signed in by
    // cookie pays one round trip for who is calling, as one with a token does).
    const [row] = await this.db
      .select({ s: sessions, email: users.email, name: users.name, companies: membershipsOf(sessions.userId) })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.id, id), gt(sessions.expiresAt, new Date(now))));
    if (!row) return null;
    const list = membershipRows(row.companies);
    let expiresAt = row.s.expiresAt;
    if (expiresAt.getTime() - now < IDLE_MS - RENEW_EVERY_MS) {
      expiresAt = new Date(Math.min(now + IDLE_MS, row.s.createdAt.getTime() + ABSOLUTE_MS));
      await this.db.update(sessions).set({ expiresAt }).where(eq(sessions.id, id));
    }
    return {
      id,
      value,
      user: { id: row.s.userId, email: row.email, name: row.name },
      company: list.find((c) => c.id === row.s.companyId) ?? list[0] ?? null,
      companies: list,
      expiresAt,
    };
  }

  async memberships(userId: string): Promise<Membership[]> {
    const [row] = await this.db.select({ companies: membershipsOf(users.id) }).from(users).where(eq(users.id, userId));
    return membershipRows(row?.companies);
  }

  /** Makes one of the user's companies the active one; false when they are not a member. */
  async switchCompany(s: Session, companyId: string): Promise<boolean> {
    if (!s.companies.some((c) => c.id === companyId)) return false;
    await this.db.update(sessions).set({ companyId }).where(eq(sessions.id, s.id));
    return true;
  }

  async destroy(value: string | undefined): Promise<void> {
    if (!value || !WELL_FORMED.test(value)) return;
    await this.db.delete(sessions).where(eq(sessions.id, sha256(value)));
  }

  /** The CSRF token for a session or pre-session cookie value. */
  csrfToken(binding: string): string {
    return createHmac('sha256', this.secret).update(`csrf\0${binding}`).digest('base64url');
  }

  /** Timing-safe comparison of a submitted token with the one `binding` gives. */
  checkCsrf(binding: string | undefined, submitted: unknown): boolean {
    if (!binding || typeof submitted !== 'string' || submitted.length > 100) return false;
    const expected = Buffer.from(this.csrfToken(binding));
    const actual = Buffer.from(submitted);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

const cookieOptions = (req: FastifyRequest, maxAgeSeconds: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: req.protocol === 'https',
  maxAge: maxAgeSeconds,
});

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, value: string): void {
  reply.setCookie(SESSION_COOKIE, value, cookieOptions(req, ABSOLUTE_MS / 1000));
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: req.protocol === 'https' });
}

/** The visitor's pre-session cookie value, issuing one when absent. */
export function preSession(req: FastifyRequest, reply: FastifyReply): string {
  const existing = req.cookies[PRE_SESSION_COOKIE];
  if (existing && WELL_FORMED.test(existing)) return existing;
  const value = randomValue();
  reply.setCookie(PRE_SESSION_COOKIE, value, cookieOptions(req, 86_400));
  return value;
}

export const wellFormed = (v: string | undefined): v is string => Boolean(v && WELL_FORMED.test(v));

/**
 * The sessions as /api reads them (CONTRACT §17): the user in the active company, with that
 * membership's role; a user who belongs to no company has no principal there.
 */
export function sessionAuth(store: SessionStore): SessionAuth {
  return {
    cookie: SESSION_COOKIE,
    async resolve(value) {
      const s = await store.resolve(value);
      if (!s?.company) return null;
      const principal: Principal = { userId: s.user.id, role: s.company.role, company: { id: s.company.id, currency: s.company.currency, vat: s.company.vat } };
      return { principal, binding: s.value };
    },
    checkCsrf: (binding, submitted) => store.checkCsrf(binding, submitted),
  };
}
