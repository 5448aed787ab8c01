// The pages of CONTRACT §20 about people, beside sign-in and set-up (plain forms, no script):
// /invite/<token> (join a company with the invited role), /reset (ask for a link: the same answer
// for every address; at most 5 requests per address and per IP an hour), /reset/<token> (set a
// new password) and /profile/password (change one's own). The rules are server/people.ts's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, FieldValues } from '../../engine/types.ts';
import { acceptInvitation, changePassword, findInvitation, requestReset, resetUsable, useReset, type PeopleMail } from '../people.ts';
import { languageOf } from '../../http/languages.ts';
import { invitePage, messagePage, newPasswordPage, resetRequestPage } from './pages.ts';
import { preSession, setSessionCookie, SESSION_COOKIE, type Session, type SessionStore } from './sessions.ts';
import { MAX_PASSWORD } from './setup.ts';
import type { LoginThrottle } from './throttle.ts';

/** Forms posted before sign-in on these pages: their CSRF token is bound to the pre-session cookie. */
export const isPeopleForm = (path: string): boolean => /^\/(invite\/[A-Za-z0-9_-]{1,200}|reset(\/[A-Za-z0-9_-]{1,200})?)$/.test(path);

export const RESET_NOTICE = 'If an account has this address, an e-mail with a link to reset its password is on its way. The link works once, for an hour.';

export function registerPeoplePages(
  scope: FastifyInstance,
  o: {
    db: Db;
    store: SessionStore;
    mail: PeopleMail;
    resetThrottle: LoginThrottle;
    sessionOf(req: FastifyRequest): Promise<Session | null>;
    html(reply: FastifyReply, status: number, body: string): FastifyReply;
  },
): void {
  const { db, store, html } = o;
  const str = (v: unknown, max = 1000) => (typeof v === 'string' ? v.slice(0, max) : '');
  const gone = (reply: FastifyReply, what: string) => html(reply, 410, messagePage('Link not valid', `This ${what} link is not valid any more: it was used, revoked or has expired.`, { href: '/login', label: 'Sign in' }));

  scope.get<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    const inv = await findInvitation(db, req.params.token);
    if (!inv) return gone(reply, 'invitation');
    return html(reply, 200, invitePage({ csrf: store.csrfToken(preSession(req, reply)), token: req.params.token, company: inv.companyName, email: inv.email, role: inv.role, existingUser: inv.existingUser }));
  });

  scope.post<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    const body = (req.body ?? {}) as FieldValues;
    const name = str(body.name, 200);
    const res = await acceptInvitation(db, req.params.token, { name, password: str(body.password, MAX_PASSWORD + 1) });
    if (!res.ok) {
      const inv = res.status === 410 ? null : await findInvitation(db, req.params.token);
      if (!inv) return gone(reply, 'invitation');
      return html(reply, res.status, invitePage({ csrf: store.csrfToken(preSession(req, reply)), token: req.params.token, company: inv.companyName, email: inv.email, role: inv.role, existingUser: inv.existingUser, name, error: res.error }));
    }
    req.log.info({ company: res.companyId }, 'Invitation accepted');
    await store.destroy(req.cookies[SESSION_COOKIE]);
    const { value } = await store.create(res.userId, res.companyId);
    setSessionCookie(req, reply, value);
    return reply.redirect('/app', 303);
  });

  scope.get('/reset', async (req, reply) => html(reply, 200, resetRequestPage({ csrf: store.csrfToken(preSession(req, reply)) })));

  scope.post('/reset', async (req, reply) => {
    const email = str((req.body as FieldValues | undefined)?.email, 254).trim().toLowerCase();
    const csrf = store.csrfToken(preSession(req, reply));
    if (!email) return html(reply, 400, resetRequestPage({ csrf, error: 'Enter your email address.' }));
    // Counted and judged in one step: the cap holds under concurrent requests.
    const wait = await o.resetThrottle.take(email, req.ip);
    if (wait > 0) {
      reply.header('retry-after', String(Math.ceil(wait / 1000)));
      return html(reply, 429, resetRequestPage({ csrf, email, error: `Too many requests for a reset link. Try again in ${Math.ceil(wait / 60_000)} minutes.` }));
    }
    // The link is only ever in the e-mail (shown on this page, it would hand any account to
    // whoever asks); while e-mail is held, an admin invites again or sets a password with the CLI.
    await requestReset(db, o.mail, email, languageOf(req.headers['accept-language']).language);
    return html(reply, 200, resetRequestPage({ csrf, notice: RESET_NOTICE }));
  });

  scope.get<{ Params: { token: string } }>('/reset/:token', async (req, reply) => {
    if (!(await resetUsable(db, req.params.token))) return gone(reply, 'reset');
    return html(reply, 200, newPasswordPage({ csrf: store.csrfToken(preSession(req, reply)), action: `/reset/${req.params.token}` }));
  });

  scope.post<{ Params: { token: string } }>('/reset/:token', async (req, reply) => {
    const password = str((req.body as FieldValues | undefined)?.password, MAX_PASSWORD + 1);
    const res = await useReset(db, req.params.token, password);
    if (!res.ok) {
      if (res.status === 410) return gone(reply, 'reset');
      return html(reply, res.status, newPasswordPage({ csrf: store.csrfToken(preSession(req, reply)), action: `/reset/${req.params.token}`, error: res.error }));
    }
    req.log.info('Password reset through a link');
    return reply.redirect('/login?reset=done', 303);
  });

  scope.get('/profile/password', async (req, reply) => {
    const s = await o.sessionOf(req);
    if (!s) return reply.redirect('/login?next=/profile/password');
    return html(reply, 200, newPasswordPage({ csrf: store.csrfToken(s.value), action: '/profile/password', current: true }));
  });

  scope.post('/profile/password', async (req, reply) => {
    const s = await o.sessionOf(req);
    if (!s) return reply.redirect('/login', 303);
    const body = (req.body ?? {}) as FieldValues;
    const res = await changePassword(db, s.user.id, str(body.current, MAX_PASSWORD + 1), str(body.password, MAX_PASSWORD + 1));
    // The application's form (Settings › People) asks for JSON: a problem, or 204.
    if (/json/.test(req.headers.accept ?? '')) {
      if (!res.ok) return reply.code(422).type('application/problem+json').send({ status: 422, title: 'Unprocessable Entity', detail: res.error, violations: [{ propertyPath: res.field === 'password' ? 'current' : 'password', message: res.error }] });
      return reply.code(204).send();
    }
    if (!res.ok) return html(reply, 422, newPasswordPage({ csrf: store.csrfToken(s.value), action: '/profile/password', current: true, error: res.error }));
    return html(reply, 200, newPasswordPage({ csrf: store.csrfToken(s.value), action: '/profile/password', current: true, notice: 'Your password is changed.' }));
  });
}
