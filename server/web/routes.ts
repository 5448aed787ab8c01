// The web pages: first-run set-up, sign-in and out, and /profile/api (Settings → API Keys) with
// the session-authenticated JSON endpoints its script calls (/profile/api/…). Everything here
// lives in one encapsulated fastify context: its cookie parsing, form parsing and security
// headers never touch /api, which stays stateless (X-API-TOKEN only) and never reads a cookie.
// Token rules are token-service.ts's, the same as /api/api-tokens'.
import { createHash, randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, FieldValues } from '../../engine/types.ts';
import { ApiError } from '../../engine/errors.ts';
import type { HistoryRecorder } from '../history.ts';
import { hashPassword, verifyPassword } from '../passwords.ts';
import { users } from '../schema.ts';
import { settleHistory } from '../token-storage.ts';
import {
  createToken,
  updateToken,
  dailyUsage,
  historyFilters,
  HISTORY_LIMIT,
  listTokens,
  ownToken,
  recOf,
  revokeTokens,
  searchCondition,
  tokenColumns,
  tokenHistory,
  tokenSummary,
  type Owner,
  type TokenColumn,
  type TokenRow,
} from '../token-service.ts';
import { readCompany, updateCompany } from '../company.ts';
import type { Principal } from '../../engine/types.ts';
import type { Engine } from '../../engine/operations.ts';
import { json as jsonFormat } from '../../formats/json.ts';
import { MAX_COUNTED } from '../../resources/rules/webhook-operations.ts';
import { operationOf, type RunOperation } from '../../engine/declared.ts';
import { describeModel } from '../../engine/describe.ts';
import { CREDIT_OPERATION } from '../credit.ts';
import { appPage, CONTENT_SECURITY_POLICY, loginPage, messagePage, profilePage, setupPage } from './pages.ts';
import { clearSessionCookie, preSession, PRE_SESSION_COOKIE, SESSION_COOKIE, SessionStore, setSessionCookie, type Session } from './sessions.ts';
import { checkSetup, currencies, hasUsers, MAX_PASSWORD, runSetup } from './setup.ts';
import { registerStatic } from './static.ts';
import { DEFAULT_THROTTLE, LoginThrottle, type SharedThrottle, type ThrottleOptions } from './throttle.ts';

export const PROFILE_PATH = '/profile/api';
/** Settings → Company: the company profile printed on invoices and quotes. */
export const COMPANY_PAGE = '/profile/company';
/** Settings → Webhooks: the company's webhooks and their deliveries. */
export const WEBHOOKS_PAGE = '/profile/webhooks';
/** The web application (CONTRACT §17). */
export const APP_PATH = '/app';

export interface WebOptions {
  db: Db;
  /** The app secret (settings/APP_SECRET): keys the CSRF tokens. */
  secret: string;
  history: HistoryRecorder;
  /** Called after a token was deleted, so every instance stops accepting it. */
  revoked(tokenId: string): Promise<void>;
  clock?: () => number;
  throttle?: ThrottleOptions;
  /** Redis, when configured: sign-in failures are counted across every instance. */
  sharedThrottle?: SharedThrottle;
  /** The engine: the Webhook records of Settings → Webhooks, read and written as the session's member. */
  engine: Engine;
  /** Runs the declared operations of /api/webhooks/… (rotate, deliveries, retry, ping). */
  run: RunOperation;
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

/** The Origin header, when the browser sent one, names this host. */
function sameHost(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === req.host;
  } catch {
    return false;
  }
}

const str = (v: unknown, max = 10_000) => (typeof v === 'string' ? v.slice(0, max) : '');
const pathOf = (req: FastifyRequest) => req.url.split('?')[0]!;
const isJsonEndpoint = (path: string) => path.startsWith(`${PROFILE_PATH}/`);
/** Where to go after sign-in: only our own pages (an /app address may carry its query). */
const safeNext = (v: unknown) => {
  const s = str(v, 1000);
  if (/^\/profile(\/[A-Za-z0-9/_-]*)?$/.test(s)) return s;
  return /^\/app(\/[A-Za-z0-9/_-]*)?(\?[A-Za-z0-9_.~%=&[\]+:,-]*)?$/.test(s) ? s : PROFILE_PATH;
};

const tokenOut = (t: TokenRow) => {
  const r = recOf(t);
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    usageCount: r.usageCount,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    createdAt: t.createdAt.toISOString(),
  };
};

const meOf = (s: Session) => ({
  user: { email: s.user.email, name: s.user.name },
  company: s.company,
  companies: s.companies,
});

function intParam(name: string, raw: string | null, min: number, max: number, fallback: number): number {
  if (raw === null || raw === '') return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < min) throw ApiError.badRequest(`${name} must be an integer of at least ${min}.`);
  return Math.min(Number(raw), max);
}

export async function registerWeb(app: FastifyInstance, o: WebOptions): Promise<void> {
  const { db } = o;
  const clock = o.clock ?? Date.now;
  const store = new SessionStore(db, o.secret, clock);
  const throttle = new LoginThrottle(o.throttle ?? DEFAULT_THROTTLE, clock, o.sharedThrottle);
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

    const html = (reply: FastifyReply, status: number, body: string) =>
      reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);

    // Every state-changing request: same origin (when the browser says), a session unless it is
    // a pre-session form, and the CSRF token bound to that session (or pre-session) cookie.
    scope.addHook('preHandler', async (req, reply) => {
      if (SAFE_METHODS.has(req.method)) return;
      const path = pathOf(req);
      const json = isJsonEndpoint(path);
      const refuse = (detail: string) => {
        if (json) throw new ApiError(403, detail);
        return html(reply, 403, messagePage('Form expired', `${detail} Reload the page and try again.`, { href: path === '/setup' ? '/setup' : '/login', label: 'Reload' }));
      };
      // The host alone is compared: behind a TLS proxy without TRUST_PROXY the scheme we see is http.
      if (!sameHost(req)) return refuse('This request came from another site.');
      let binding: string | undefined;
      if (PRE_SESSION_FORMS.has(path)) binding = req.cookies[PRE_SESSION_COOKIE];
      else {
        const s = await sessionOf(req);
        if (!s) {
          if (json) throw new ApiError(401, 'Your session has ended: sign in again.', { extra: { message: 'Not signed in' } });
          return reply.code(303).header('location', '/login').send();
        }
        binding = s.value;
      }
      const submitted = req.headers['x-csrf-token'] ?? (req.body as FieldValues | undefined)?._csrf;
      if (!store.checkCsrf(binding, submitted)) return refuse('The security token of this form is missing or wrong.');
    });

    registerStatic(scope);

    // ---- pages ----------------------------------------------------------------------------

    scope.get('/', async (_req, reply) => reply.redirect(PROFILE_PATH));
    scope.get('/profile', async (_req, reply) => reply.redirect(PROFILE_PATH));

    scope.get('/setup', async (req, reply) => {
      if (await anyUser()) return reply.redirect('/login');
      return html(reply, 200, setupPage({ csrf: store.csrfToken(preSession(req, reply)), currencies: [...currencies()] }));
    });

    scope.post('/setup', async (req, reply) => {
      if (await anyUser()) return reply.redirect('/login?setup=done', 303);
      const { input, errors } = checkSetup((req.body ?? {}) as FieldValues);
      if (Object.keys(errors).length) {
        return html(reply, 422, setupPage({ csrf: store.csrfToken(preSession(req, reply)), input: { ...input, password: '' }, errors, currencies: [...currencies()] }));
      }
      const made = await runSetup(db, input);
      usersExist = true;
      if (!made) return reply.redirect('/login?setup=done', 303);
      req.log.info({ email: input.email }, 'Set-up complete: first user created');
      const { value } = await store.create(made.userId, made.companyId);
      setSessionCookie(req, reply, value);
      return reply.redirect(PROFILE_PATH, 303);
    });

    scope.get<{ Querystring: { next?: string; setup?: string } }>('/login', async (req, reply) => {
      if (!(await anyUser())) return reply.redirect('/setup');
      if (await sessionOf(req)) return reply.redirect(safeNext(req.query.next));
      const notice = req.query.setup === 'done' ? 'Set-up is complete: sign in.' : undefined;
      const next = req.query.next ? safeNext(req.query.next) : undefined;
      return html(reply, 200, loginPage({ csrf: store.csrfToken(preSession(req, reply)), next, notice }));
    });

    scope.post('/login', async (req, reply) => {
      const body = (req.body ?? {}) as FieldValues;
      const email = str(body.email, 254).trim().toLowerCase();
      const password = str(body.password, MAX_PASSWORD + 1);
      const next = safeNext(body.next);
      const again = (status: number, error: string) =>
        html(reply, status, loginPage({ csrf: store.csrfToken(preSession(req, reply)), email, next: next === PROFILE_PATH ? undefined : next, error }));
      const wait = await throttle.blockedFor(email, req.ip);
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60_000);
        reply.header('retry-after', String(Math.ceil(wait / 1000)));
        return again(429, `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
      }
      if (!email || !password) return again(400, 'Enter your email and password.');
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
        return again(401, 'Wrong email or password.');
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

    scope.get(PROFILE_PATH, async (req, reply) => {
      const s = await sessionOf(req);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(PROFILE_PATH)}`);
      return html(reply, 200, profilePage({ csrf: store.csrfToken(s.value), historyLimit: HISTORY_LIMIT, ...meOf(s) }));
    });

    scope.get(COMPANY_PAGE, async (req, reply) => {
      const s = await sessionOf(req);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(COMPANY_PAGE)}`);
      return html(reply, 200, profilePage({ csrf: store.csrfToken(s.value), ...meOf(s) }, { title: 'Company', script: 'company.js' }));
    });

    scope.get(WEBHOOKS_PAGE, async (req, reply) => {
      const s = await sessionOf(req);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(WEBHOOKS_PAGE)}`);
      return html(reply, 200, profilePage({ csrf: store.csrfToken(s.value), ...meOf(s) }, { title: 'Webhooks', script: 'webhooks.js' }));
    });

    // ---- /app: the web application, built in the browser from the model's description ----
    // Every address under /app is the same shell; the page's router reads the address, so a
    // reload shows the same view. The description travels in the boot data (no request).
    const description = describeModel(o.engine.model, { Invoice: [CREDIT_OPERATION] });
    const descriptionJson = JSON.stringify(description);
    const descriptionTag = `"${createHash('sha256').update(descriptionJson).digest('base64url').slice(0, 27)}"`;
    const appShell = async (req: FastifyRequest, reply: FastifyReply) => {
      const s = await sessionOf(req);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(req.url.slice(0, 1000))}`);
      return html(reply, 200, appPage({ csrf: store.csrfToken(s.value), ...meOf(s), description }));
    };
    scope.get(APP_PATH, appShell);
    scope.get(`${APP_PATH}/*`, appShell);
    // The same description for other clients (public, like /api/docs.json).
    scope.get(`${APP_PATH}/description.json`, async (req, reply) => {
      reply.header('etag', descriptionTag).header('cache-control', 'no-cache');
      if (req.headers['if-none-match'] === descriptionTag) return reply.code(304).send();
      return reply.type('application/json; charset=utf-8').send(descriptionJson);
    });

    // ---- JSON endpoints of the page ---------------------------------------------------------

    const json = (reply: FastifyReply, status: number, body: unknown) =>
      reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(body));

    async function signedIn(req: FastifyRequest): Promise<Session> {
      const s = await sessionOf(req);
      if (!s) throw new ApiError(401, 'Your session has ended: sign in again.', { extra: { message: 'Not signed in' } });
      return s;
    }
    async function owner(req: FastifyRequest): Promise<Owner> {
      const s = await signedIn(req);
      if (!s.company) throw ApiError.forbidden('You are not a member of any company.');
      return { userId: s.user.id, companyId: s.company.id };
    }
    const objectBody = (req: FastifyRequest): FieldValues => {
      const b = req.body;
      if (b === null || typeof b !== 'object' || Array.isArray(b)) throw ApiError.badRequest('The request body must be a JSON object.');
      const { _csrf: _, ...rest } = b as FieldValues;
      return rest;
    };
    const settle = (req: FastifyRequest) => settleHistory(o.history, req);

    scope.get(`${PROFILE_PATH}/me`, async (req, reply) => json(reply, 200, meOf(await signedIn(req))));

    scope.post(`${PROFILE_PATH}/company`, async (req, reply) => {
      const s = await signedIn(req);
      const companyId = str(objectBody(req).companyId, 100);
      if (!(await store.switchCompany(s, companyId))) throw ApiError.forbidden('You are not a member of that company.');
      return json(reply, 200, meOf({ ...s, company: s.companies.find((c) => c.id === companyId)! }));
    });

    // The active company's profile (company.ts: any member reads it, admins change it).
    async function activeCompany(req: FastifyRequest) {
      const s = await signedIn(req);
      if (!s.company) throw ApiError.forbidden('You are not a member of any company.');
      return s.company;
    }
    scope.get(`${PROFILE_PATH}/company-profile`, async (req, reply) => json(reply, 200, await readCompany(db, (await activeCompany(req)).id)));
    scope.patch(`${PROFILE_PATH}/company-profile`, async (req, reply) => {
      const company = await activeCompany(req);
      return json(reply, 200, await updateCompany(db, { role: company.role, company }, objectBody(req)));
    });

    // Settings → Webhooks: the engine's Webhook operations and the functions behind
    // /api/webhooks/… (declared in resources/rules/webhook-operations.ts), as the session's member of the active company
    // (its role decides, as a token's would: viewers read only).
    const hookResource = o.engine.model.get('Webhook');
    const call = async (req: FastifyRequest, name: string, params: Record<string, string>, query?: URLSearchParams) =>
      o.run(await principal(req), hookResource, operationOf(hookResource, name), { id: params.id, params, query });
    async function principal(req: FastifyRequest): Promise<Principal> {
      const s = await signedIn(req);
      if (!s.company) throw ApiError.forbidden('You are not a member of any company.');
      return { userId: s.user.id, role: s.company.role, company: { id: s.company.id, currency: s.company.currency } };
    }
    const hookOut = (rec: FieldValues) => jsonFormat.item(o.engine.model, hookResource, rec).body;
    const HOOK_FIELDS = ['url', 'events', 'description', 'active'];
    const hookInput = (req: FastifyRequest): FieldValues => {
      const body = objectBody(req);
      return Object.fromEntries(Object.entries(body).filter(([k]) => HOOK_FIELDS.includes(k)));
    };
    scope.get(`${PROFILE_PATH}/webhooks/event-types`, async (req, reply) => {
      return json(reply, 200, await call(req, 'eventTypes', {}));
    });
    scope.get(`${PROFILE_PATH}/webhooks`, async (req, reply) => {
      const p = await principal(req);
      const page = await o.engine.list(p, hookResource, { where: [], order: [{ field: 'createdAt', dir: 'asc' }], offset: 0, limit: 100 });
      return json(reply, 200, { items: page.items.map(hookOut), total: page.total });
    });
    scope.post(`${PROFILE_PATH}/webhooks`, async (req, reply) => {
      const p = await principal(req);
      // The created record carries the whole secret: this response only (no-store).
      return json(reply, 201, hookOut(await o.engine.create(p, hookResource, hookInput(req))));
    });
    scope.patch<{ Params: { id: string } }>(`${PROFILE_PATH}/webhooks/:id`, async (req, reply) => {
      const p = await principal(req);
      return json(reply, 200, hookOut(await o.engine.update(p, hookResource, req.params.id, hookInput(req), 'update')));
    });
    scope.delete<{ Params: { id: string } }>(`${PROFILE_PATH}/webhooks/:id`, async (req, reply) => {
      const p = await principal(req);
      await o.engine.remove(p, hookResource, req.params.id);
      return reply.code(204).header('cache-control', 'no-store').send();
    });
    scope.post<{ Params: { id: string } }>(`${PROFILE_PATH}/webhooks/:id/rotate-secret`, async (req, reply) => {
      return json(reply, 200, hookOut((await call(req, 'rotateSecret', req.params)) as FieldValues));
    });
    scope.get<{ Params: { id: string } }>(`${PROFILE_PATH}/webhooks/:id/deliveries`, async (req, reply) => {
      const q = new URL(req.url, 'http://x').searchParams;
      // The page words a missing total from the bound it stops counting at.
      return json(reply, 200, { ...((await call(req, 'deliveries', req.params, q)) as object), countedUpTo: MAX_COUNTED });
    });
    scope.post<{ Params: { id: string; delivery: string } }>(`${PROFILE_PATH}/webhooks/:id/deliveries/:delivery/retry`, async (req, reply) => {
      return json(reply, 202, await call(req, 'retry', req.params));
    });
    scope.post<{ Params: { id: string } }>(`${PROFILE_PATH}/webhooks/:id/ping`, async (req, reply) => {
      return json(reply, 202, await call(req, 'ping', req.params));
    });

    scope.get(`${PROFILE_PATH}/tokens`, async (req, reply) => {
      const who = await owner(req);
      const q = new URL(req.url, 'http://x').searchParams;
      const sort = q.get('sort') ?? 'createdAt';
      if (!Object.hasOwn(tokenColumns, sort)) throw ApiError.badRequest(`sort must be one of ${Object.keys(tokenColumns).join(', ')}.`);
      const dir = q.get('dir') ?? 'desc';
      if (dir !== 'asc' && dir !== 'desc') throw ApiError.badRequest('dir must be asc or desc.');
      const page = intParam('page', q.get('page'), 1, 100_000, 1);
      const itemsPerPage = intParam('itemsPerPage', q.get('itemsPerPage'), 1, 100, 50);
      await settle(req);
      const { rows, total } = await listTokens(db, who, {
        conditions: [searchCondition(str(q.get('search'), 200))],
        order: [{ field: sort as TokenColumn, dir }],
        forPeople: true,
        limit: itemsPerPage,
        offset: (page - 1) * itemsPerPage,
      });
      return json(reply, 200, { items: rows.map(tokenOut), total, page, itemsPerPage });
    });

    scope.post(`${PROFILE_PATH}/tokens`, async (req, reply) => {
      const { row, value } = await createToken(db, await owner(req), objectBody(req));
      // The value is in this response only; no-store keeps it out of every cache.
      return json(reply, 201, { ...tokenOut(row), token: value });
    });

    // Renaming or redescribing a token (its value never changes).
    scope.patch<{ Params: { id: string } }>(`${PROFILE_PATH}/tokens/:id`, async (req, reply) => {
      return json(reply, 200, tokenOut(await updateToken(db, await owner(req), req.params.id, objectBody(req))));
    });

    scope.post(`${PROFILE_PATH}/tokens/revoke`, async (req, reply) => {
      const who = await owner(req);
      const ids = objectBody(req).ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 500 || !ids.every((id) => typeof id === 'string')) {
        throw ApiError.badRequest('ids must be a list of 1 to 500 token ids.');
      }
      const revoked = await revokeTokens(db, who, ids as string[]);
      // Together: each waits until every instance has seen its revocation (at most a bound each).
      await Promise.all(revoked.map((id) => o.revoked(id)));
      return json(reply, 200, { revoked });
    });

    scope.get(`${PROFILE_PATH}/summary`, async (req, reply) => {
      const who = await owner(req);
      await settle(req);
      return json(reply, 200, await tokenSummary(db, who, clock()));
    });

    scope.get<{ Params: { id: string } }>(`${PROFILE_PATH}/tokens/:id/history`, async (req, reply) => {
      const token = await ownToken(db, await owner(req), req.params.id);
      const filters = historyFilters(new URL(req.url, 'http://x').searchParams);
      await settle(req);
      return json(reply, 200, { items: await tokenHistory(db, token.id, filters), limit: HISTORY_LIMIT });
    });

    scope.get<{ Params: { id: string } }>(`${PROFILE_PATH}/tokens/:id/daily`, async (req, reply) => {
      const who = await owner(req);
      // Flushed first: usage_count is compared with the stored history.
      await settle(req);
      return json(reply, 200, await dailyUsage(db, await ownToken(db, who, req.params.id), clock()));
    });
  });
}
