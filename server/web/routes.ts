// The web pages: first-run set-up, sign-in and out, the switch of the active company, and the web
// application (/app), settings included (/app/settings/…; the old addresses /profile/api,
// /profile/company and /profile/webhooks lead there). Pages only: their scripts call /api like
// any client, authenticated by the session cookie with the page's CSRF token (server/access/auth.ts,
// CONTRACT §17). Everything here lives in one encapsulated fastify context: its cookie parsing,
// form parsing and security headers never touch /api.
import { createHash, randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, FieldValues } from '../../engine/types.ts';
import { sameHost } from '../access/auth.ts';
import { hashPassword, verifyPassword } from '../access/passwords.ts';
import { users } from '../schema.ts';
import { HISTORY_LIMIT } from '../access/token-service.ts';
import { describeModel } from '../../http/describe.ts';
import { appCatalogue, translateDescription } from '../../http/describe-i18n.ts';
import { LANGUAGES, languageOf, type Language } from '../../http/languages.ts';
import type { Model } from '../../engine/model.ts';
import { appPage, CONTENT_SECURITY_POLICY, loginPage, messagePage, setupPage } from './pages.ts';
import { pageLanguage, pageText, type PageMessage, type PageText } from './messages.ts';
import { clearSessionCookie, preSession, PRE_SESSION_COOKIE, SESSION_COOKIE, type SessionStore, setSessionCookie, type Session, type Membership } from './sessions.ts';
import { checkSetup, currencies, hasUsers, MAX_PASSWORD, runSetup } from './setup.ts';
import { registerStatic } from './static.ts';
import { isPeopleForm, registerPeoplePages } from './people-pages.ts';
import type { PeopleMail } from '../people.ts';
import { DEFAULT_THROTTLE, LoginThrottle, type SharedThrottle, type ThrottleOptions } from './throttle.ts';

/** Where a person lands (`/`, after set-up, after sign-in without a page asked for): the web application. */
export const HOME_PATH = '/app';
/** The settings pages of the application (web/app/settings/), by the addresses they had before it. */
export const SETTINGS_PAGES: Readonly<Record<string, string>> = {
  '/profile': '/app/settings/api-tokens',
  '/profile/api': '/app/settings/api-tokens',
  '/profile/company': '/app/settings/company',
  '/profile/webhooks': '/app/settings/webhooks',
};
/** Settings › API tokens (spec §5.2). */
export const PROFILE_PATH = SETTINGS_PAGES['/profile/api']!;
/** The form that makes another of the user's companies the active one. */
export const SWITCH_COMPANY = '/profile/switch-company';
/** The web application (CONTRACT §17). */
export const APP_PATH = '/app';

export interface WebOptions {
  db: Db;
  /** The sign-in sessions (shared with /api, which reads their cookie too). */
  sessions: SessionStore;
  clock?: () => number;
  throttle?: ThrottleOptions;
  /** Redis, when configured: sign-in failures are counted across every instance. */
  sharedThrottle?: SharedThrottle;
  /** Notices the server gives a resource's pages in /app, by resource name (held e-mails, say). */
  notices?: Readonly<Record<string, string>>;
  /** The model /api serves: /app is built from its description (http/describe.ts). */
  model: Model;
  /** Invitations' and password resets' links and e-mails (server/people.ts). */
  people: PeopleMail;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Forms posted before sign-in: their CSRF token is bound to the pre-session cookie. */
const PRE_SESSION_FORMS = new Set(['/login', '/setup']);

function securityHeaders(req: FastifyRequest): Record<string, string> {
  return {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    ...(req.protocol === 'https' ? { 'strict-transport-security': 'max-age=15552000' } : {}),
  };
}

const str = (v: unknown, max = 10_000) => (typeof v === 'string' ? v.slice(0, max) : '');
const pathOf = (req: FastifyRequest) => req.url.split('?')[0]!;
/** Where to go after sign-in: only our own pages (an /app address may carry its query). */
const safeNext = (v: unknown) => {
  const s = str(v, 1000);
  if (SETTINGS_PAGES[s]) return SETTINGS_PAGES[s]!;
  if (/^\/profile(\/[A-Za-z0-9/_-]*)?$/.test(s)) return s;
  return /^\/app(\/[A-Za-z0-9/_-]*)?(\?[A-Za-z0-9_.~%=&[\]+:,-]*)?$/.test(s) ? s : HOME_PATH;
};

const membershipOf = ({ id, name, currency, role }: Membership) => ({ id, name, currency, role });
const meOf = (s: Session) => ({
  user: { email: s.user.email, name: s.user.name },
  company: s.company && membershipOf(s.company),
  companies: s.companies.map(membershipOf),
});

export async function registerWeb(app: FastifyInstance, o: WebOptions): Promise<void> {
  const { db } = o;
  const clock = o.clock ?? Date.now;
  const store = o.sessions;
  const throttle = new LoginThrottle(o.throttle ?? DEFAULT_THROTTLE, clock, o.sharedThrottle);
  // Password reset requests: at most 5 per address and per IP an hour (CONTRACT §20), counted apart.
  const resetThrottle = new LoginThrottle({ windowMs: 3_600_000, maxPerEmail: 5, maxPerIp: 5 }, clock, o.sharedThrottle && { ...o.sharedThrottle, prefix: `${o.sharedThrottle.prefix}reset:`, failed: (e) => o.sharedThrottle!.failed(e) });
  const sessionsOf = new WeakMap<FastifyRequest, Promise<Session | null>>();
  let dummyHash: Promise<string> | undefined;
  let usersExist = false;
  const anyUser = async () => (usersExist ||= await hasUsers(db));

  await app.register(async (scope) => {
    await scope.register(cookie);
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.addHook('onRequest', async (req, reply) => {
      reply.headers(securityHeaders(req));
    });

    const sessionOf = (req: FastifyRequest): Promise<Session | null> => {
      let s = sessionsOf.get(req);
      if (!s) {
        s = store.resolve(req.cookies[SESSION_COOKIE]);
        sessionsOf.set(req, s);
      }
      return s;
    };

    // Every page in the request's language (CONTRACT §20; server/web/messages.ts): it says so
    // (Content-Language, <html lang>) and caches say that it varies with Accept-Language.
    const html = (req: FastifyRequest, reply: FastifyReply, status: number, page: (text: PageText) => string) => {
      const text = pageText(pageLanguage(req.headers['accept-language']));
      return reply.code(status).header('cache-control', 'no-store').header('vary', 'Accept-Language').header('content-language', text.language).type('text/html; charset=utf-8').send(page(text));
    };

    // Every state-changing request: same origin (when the browser says), a session unless it is
    // a pre-session form, and the CSRF token bound to that session (or pre-session) cookie.
    scope.addHook('preHandler', async (req, reply) => {
      if (SAFE_METHODS.has(req.method)) return;
      const path = pathOf(req);
      const refuse = (why: PageMessage) => html(req, reply, 403, (text) => messagePage(text, 'formExpiredTitle', why, { href: path === '/setup' ? '/setup' : '/login', label: 'reload' }));
      // The host alone is compared: behind a TLS proxy without TRUST_PROXY the scheme we see is http.
      if (!sameHost(req)) return refuse('crossSite');
      let binding: string | undefined;
      if (PRE_SESSION_FORMS.has(path) || isPeopleForm(path)) binding = req.cookies[PRE_SESSION_COOKIE];
      else {
        const s = await sessionOf(req);
        if (!s) return reply.code(303).header('location', '/login').send();
        binding = s.value;
      }
      const submitted = req.headers['x-csrf-token'] ?? (req.body as FieldValues | undefined)?._csrf;
      if (!store.checkCsrf(binding, submitted)) return refuse('csrfWrong');
    });

    registerStatic(scope);
    registerPeoplePages(scope, { db, store, mail: o.people, resetThrottle, sessionOf, html });

    // ---- pages ----------------------------------------------------------------------------

    scope.get('/', async (_req, reply) => reply.redirect(HOME_PATH));
    // The settings' old addresses open their pages in the application (a bookmark keeps working).
    for (const [from, to] of Object.entries(SETTINGS_PAGES)) scope.get(from, async (_req, reply) => reply.redirect(to));

    scope.get('/setup', async (req, reply) => {
      if (await anyUser()) return reply.redirect('/login');
      const csrf = store.csrfToken(preSession(req, reply));
      return html(req, reply, 200, (text) => setupPage({ text, csrf, currencies: [...currencies()] }));
    });

    scope.post('/setup', async (req, reply) => {
      if (await anyUser()) return reply.redirect('/login?setup=done', 303);
      const { input, errors } = checkSetup((req.body ?? {}) as FieldValues);
      if (Object.keys(errors).length) {
        const csrf = store.csrfToken(preSession(req, reply));
        return html(req, reply, 422, (text) => setupPage({ text, csrf, input: { ...input, password: '' }, errors, currencies: [...currencies()] }));
      }
      const made = await runSetup(db, input);
      usersExist = true;
      if (!made) return reply.redirect('/login?setup=done', 303);
      req.log.info({ email: input.email }, 'Set-up complete: first user created');
      const { value } = await store.create(made.userId, made.companyId);
      setSessionCookie(req, reply, value);
      return reply.redirect(HOME_PATH, 303);
    });

    scope.get<{ Querystring: { next?: string; setup?: string } }>('/login', async (req, reply) => {
      if (!(await anyUser())) return reply.redirect('/setup');
      if (await sessionOf(req)) return reply.redirect(safeNext(req.query.next));
      const notice = req.query.setup === 'done' ? 'setupDone' : (req.query as { reset?: string }).reset === 'done' ? 'resetDone' : undefined;
      const next = req.query.next ? safeNext(req.query.next) : undefined;
      const csrf = store.csrfToken(preSession(req, reply));
      return html(req, reply, 200, (text) => loginPage({ text, csrf, next, notice: notice && text.t(notice) }));
    });

    scope.post('/login', async (req, reply) => {
      const body = (req.body ?? {}) as FieldValues;
      const email = str(body.email, 254).trim().toLowerCase();
      const password = str(body.password, MAX_PASSWORD + 1);
      const next = safeNext(body.next);
      const again = (status: number, error: PageMessage, values?: Record<string, number>) => {
        const csrf = store.csrfToken(preSession(req, reply));
        return html(req, reply, status, (text) => loginPage({ text, csrf, email, next: next === HOME_PATH ? undefined : next, error: text.t(error, values) }));
      };
      const wait = await throttle.blockedFor(email, req.ip);
      if (wait > 0) {
        reply.header('retry-after', String(Math.ceil(wait / 1000)));
        return again(429, 'signInThrottled', { minutes: Math.ceil(wait / 60_000) });
      }
      if (!email || !password) return again(400, 'signInMissing');
      const [user] = await db.select({ id: users.id, hash: users.passwordHash }).from(users).where(sql`lower(${users.email}) = ${email}`);
      let ok = false;
      if (password.length <= MAX_PASSWORD) {
        if (user) ok = await verifyPassword(password, user.hash);
        // The same work for an unknown address, so timing does not tell which addresses exist.
        else await verifyPassword(password, await (dummyHash ??= hashPassword(randomBytes(16).toString('hex'))));
      }
      if (!user || !ok) {
        await throttle.failed(email, req.ip);
        req.log.info({ ip: req.ip }, 'Failed sign-in');
        return again(401, 'signInWrong');
      }
      await throttle.succeeded(email);
      // A new session id at sign-in: a session planted before it is worthless.
      await store.destroy(req.cookies[SESSION_COOKIE]);
      const [first] = await store.memberships(user.id);
      const { value } = await store.create(user.id, first?.id ?? null);
      setSessionCookie(req, reply, value);
      return reply.redirect(next, 303);
    });

    scope.post('/logout', async (req, reply) => {
      await store.destroy(req.cookies[SESSION_COOKIE]);
      clearSessionCookie(req, reply);
      return reply.redirect('/login', 303);
    });


    // ---- /app: the web application, built in the browser from the model's description ----
    // Every address under /app is the same shell; the page's router reads the address, so a
    // reload shows the same view. The description travels in the boot data (no request).
    const description = describeModel(o.model);
    const descriptionJson = JSON.stringify(description);
    const descriptionHash = createHash('sha256').update(descriptionJson).digest('base64url');
    const descriptionTag = `"${descriptionHash.slice(0, 27)}"`;
    // The pages read it as an ES module at an address named by its content hash, cached for a
    // year (it changes only with the model, and then its address changes): one per language
    // (CONTRACT §20, Accept-Language), the description's words translated (http/describe-i18n.ts),
    // exporting also the catalogue of /app's own words in that language (web/app/messages/),
    // its messages parsed to ICU ASTs (appCatalogue: the page's formatter has no parser), so
    // that the languages cost the first page no request.
    const descriptionUrls = new Map<Language, string>();
    const asScript = (value: unknown) => JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
    for (const language of LANGUAGES) {
      const module = `export const messages = ${asScript(appCatalogue(language))};\nexport default ${asScript(translateDescription(description, language))};\n`;
      const url = `${APP_PATH}/description-${language}-${createHash('sha256').update(module).digest('base64url').slice(0, 16)}.js`;
      descriptionUrls.set(language, url);
      scope.get(url, async (_req, reply) => reply.header('cache-control', 'public, max-age=31536000, immutable').type('text/javascript; charset=utf-8').send(module));
    }
    const appShell = async (req: FastifyRequest, reply: FastifyReply) => {
      const s = await sessionOf(req);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(req.url.slice(0, 1000))}`);
      const { language, locale } = languageOf(req.headers['accept-language']);
      return html(req, reply, 200, (text) => appPage(text, { csrf: store.csrfToken(s.value), ...meOf(s), description: descriptionUrls.get(language)!, language, locale, notices: o.notices ?? {}, settings: { historyLimit: HISTORY_LIMIT } }));
    };
    scope.get(APP_PATH, appShell);
    scope.get(`${APP_PATH}/*`, appShell);
    // The same description for other clients (public, like /api/docs.json).
    scope.get(`${APP_PATH}/description.json`, async (req, reply) => {
      reply.header('etag', descriptionTag).header('cache-control', 'no-cache');
      if (req.headers['if-none-match'] === descriptionTag) return reply.code(304).send();
      return reply.type('application/json; charset=utf-8').send(descriptionJson);
    });

    // Another of the user's companies becomes the active one (a form of every settings page): the
    // pages and /api then act in it.
    scope.post(SWITCH_COMPANY, async (req, reply) => {
      const s = await sessionOf(req);
      if (!s) return reply.redirect('/login', 303);
      const body = (req.body ?? {}) as FieldValues;
      const back = safeNext(body.next);
      if (!(await store.switchCompany(s, str(body.companyId, 100)))) {
        return html(req, reply, 403, (text) => messagePage(text, 'notMemberTitle', 'notMember', { href: back, label: 'back' }));
      }
      return reply.redirect(back, 303);
    });
  });
}
