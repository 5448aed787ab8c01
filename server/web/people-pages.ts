// The pages of CONTRACT §20 about people, beside sign-in and set-up (plain forms, no script):
// /invite/<token> (join a company with the invited role), /reset (ask for a link: the same answer
// for every address; at most 5 requests per address and per IP an hour), /reset/<token> (set a
// new password) and /profile/password (change one's own). The rules are server/people.ts's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, FieldValues } from '../../engine/types.ts';
import { acceptInvitation, changePassword, findInvitation, requestReset, resetUsable, useReset, type AccountError, type PeopleMail } from '../people.ts';
import { invitePage, messagePage, newPasswordPage, resetRequestPage } from './pages.ts';
import { pageLanguage, pageText, type PageText } from './messages.ts';
import { preSession, setSessionCookie, SESSION_COOKIE, type Session, type SessionStore } from './sessions.ts';
import { MAX_PASSWORD, MIN_PASSWORD } from './setup.ts';
import type { LoginThrottle } from './throttle.ts';

/** Forms posted before sign-in on these pages: their CSRF token is bound to the pre-session cookie. */
export const isPeopleForm = (path: string): boolean => /^\/(invite\/[A-Za-z0-9_-]{1,200}|reset(\/[A-Za-z0-9_-]{1,200})?)$/.test(path);


export function registerPeoplePages(
  scope: FastifyInstance,
  o: {
    db: Db;
    store: SessionStore;
    mail: PeopleMail;
    resetThrottle: LoginThrottle;
    sessionOf(req: FastifyRequest): Promise<Session | null>;
    /** Answers a page, rendered in the request's language. */
    html(req: FastifyRequest, reply: FastifyReply, status: number, page: (text: PageText) => string): FastifyReply;
  },
): void {
  const { db, store, html } = o;
  const str = (v: unknown, max = 1000) => (typeof v === 'string' ? v.slice(0, max) : '');
  const gone = (req: FastifyRequest, reply: FastifyReply, why: 'invitationGone' | 'resetGone') => html(req, reply, 410, (text) => messagePage(text, 'linkGoneTitle', why, { href: '/login', label: 'signInTitle' }));
  /** A refusal of server/people.ts, in the reader's language. */
  const said = (text: PageText, error: AccountError) => text.t(error, { min: MIN_PASSWORD, max: MAX_PASSWORD });

  scope.get<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    const inv = await findInvitation(db, req.params.token);
    if (!inv) return gone(req, reply, 'invitationGone');
    const csrf = store.csrfToken(preSession(req, reply));
    return html(req, reply, 200, (text) => invitePage({ text, csrf, token: req.params.token, company: inv.companyName, email: inv.email, role: inv.role, existingUser: inv.existingUser }));
  });

  scope.post<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    const body = (req.body ?? {}) as FieldValues;
    const name = str(body.name, 200);
    const res = await acceptInvitation(db, req.params.token, { name, password: str(body.password, MAX_PASSWORD + 1) });
    if (!res.ok) {
      const inv = res.status === 410 ? null : await findInvitation(db, req.params.token);
      if (!inv) return gone(req, reply, 'invitationGone');
      const csrf = store.csrfToken(preSession(req, reply));
      return html(req, reply, res.status, (text) => invitePage({ text, csrf, token: req.params.token, company: inv.companyName, email: inv.email, role: inv.role, existingUser: inv.existingUser, name, error: said(text, res.error) }));
    }
    req.log.info({ company: res.companyId }, 'Invitation accepted');
    await store.destroy(req.cookies[SESSION_COOKIE]);
    const { value } = await store.create(res.userId, res.companyId);
    setSessionCookie(req, reply, value);
    return reply.redirect('/app', 303);
  });

  scope.get('/reset', async (req, reply) => {
    const csrf = store.csrfToken(preSession(req, reply));
    return html(req, reply, 200, (text) => resetRequestPage({ text, csrf }));
  });

  scope.post('/reset', async (req, reply) => {
    const email = str((req.body as FieldValues | undefined)?.email, 254).trim().toLowerCase();
    const csrf = store.csrfToken(preSession(req, reply));
    if (!email) return html(req, reply, 400, (text) => resetRequestPage({ text, csrf, error: text.t('emailMissing') }));
    // Counted and judged in one step: the cap holds under concurrent requests.
    const wait = await o.resetThrottle.take(email, req.ip);
    if (wait > 0) {
      reply.header('retry-after', String(Math.ceil(wait / 1000)));
      return html(req, reply, 429, (text) => resetRequestPage({ text, csrf, email, error: text.t('resetThrottled', { minutes: Math.ceil(wait / 60_000) }) }));
    }
    // The link is only ever in the e-mail (shown on this page, it would hand any account to
    // whoever asks); while e-mail is held, an admin invites again or sets a password with the CLI.
    await requestReset(db, o.mail, email, pageLanguage(req.headers['accept-language']));
    return html(req, reply, 200, (text) => resetRequestPage({ text, csrf, notice: text.t('resetSent') }));
  });

  scope.get<{ Params: { token: string } }>('/reset/:token', async (req, reply) => {
    if (!(await resetUsable(db, req.params.token))) return gone(req, reply, 'resetGone');
    const csrf = store.csrfToken(preSession(req, reply));
    return html(req, reply, 200, (text) => newPasswordPage({ text, csrf, action: `/reset/${req.params.token}` }));
  });

  scope.post<{ Params: { token: string } }>('/reset/:token', async (req, reply) => {
    const password = str((req.body as FieldValues | undefined)?.password, MAX_PASSWORD + 1);
    const res = await useReset(db, req.params.token, password);
    if (!res.ok) {
      if (res.status === 410) return gone(req, reply, 'resetGone');
      const csrf = store.csrfToken(preSession(req, reply));
      return html(req, reply, res.status, (text) => newPasswordPage({ text, csrf, action: `/reset/${req.params.token}`, error: said(text, res.error) }));
    }
    req.log.info('Password reset through a link');
    return reply.redirect('/login?reset=done', 303);
  });

  scope.get('/profile/password', async (req, reply) => {
    const s = await o.sessionOf(req);
    if (!s) return reply.redirect('/login?next=/profile/password');
    return html(req, reply, 200, (text) => newPasswordPage({ text, csrf: store.csrfToken(s.value), action: '/profile/password', current: true }));
  });

  scope.post('/profile/password', async (req, reply) => {
    const s = await o.sessionOf(req);
    if (!s) return reply.redirect('/login', 303);
    const body = (req.body ?? {}) as FieldValues;
    const res = await changePassword(db, s.user.id, str(body.current, MAX_PASSWORD + 1), str(body.password, MAX_PASSWORD + 1));
    // The application's form (Settings › People) asks for JSON: a problem (its message in the
    // application's language, which is the request's too), or 204.
    if (/json/.test(req.headers.accept ?? '')) {
      if (!res.ok) {
        const language = pageLanguage(req.headers['accept-language']);
        const message = said(pageText(language), res.error);
        reply.header('vary', 'Accept-Language').header('content-language', language);
        return reply.code(422).type('application/problem+json').send({ status: 422, title: 'Unprocessable Entity', detail: message, violations: [{ propertyPath: res.field === 'password' ? 'current' : 'password', message }] });
      }
      return reply.code(204).send();
    }
    const csrf = store.csrfToken(s.value);
    if (!res.ok) return html(req, reply, 422, (text) => newPasswordPage({ text, csrf, action: '/profile/password', current: true, error: said(text, res.error) }));
    return html(req, reply, 200, (text) => newPasswordPage({ text, csrf, action: '/profile/password', current: true, notice: text.t('passwordChanged') }));
  });
}
