// The web pages' server side: first-run set-up (once, even when raced), sign-in with throttling,
// sessions (cookie attributes, expiry, logout), CSRF refusal, the company switcher, the JSON
// endpoints of the API tokens page sharing the token rules of /api/api-tokens, static files and
// headers; the old settings addresses (/profile/api…) leading to the application's pages.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../server/db.ts';
import { apiTokenHistory, apiTokens, sessions, users } from '../server/schema.ts';
import { userCreate } from '../server/cli/commands.ts';
import { call, client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { Browserish } from './web-helpers.ts';

let t: TestServer;
let offset = 0;
const clock = () => Date.now() + offset;
let ips = 0;
/** A visitor from its own address, so that throttling in one test does not reach another. */
const visitor = () => new Browserish(t.url, { ip: `10.0.0.${++ips}` });
const db = () => t.db.database.db;
const PASSWORD = 'correct horse battery';

/** The status of a GET whose path goes out exactly as written. */
function rawStatus(path: string): Promise<number> {
  const u = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  t = await startTestServer({ TRUST_PROXY: 'true' }, { clock });
});
afterAll(() => t?.close());

describe('first run', () => {
  it('sends every page to /setup while no user exists', async () => {
    const v = visitor();
    expect((await v.get('/login')).location).toBe('/setup');
    const profile = await v.get('/profile/api');
    expect(profile.status).toBe(302);
    expect(profile.location).toBe('/app/settings/api-tokens');
    const settings = await v.get('/app/settings/api-tokens');
    expect(settings.status).toBe(302);
    expect(settings.location).toBe('/login?next=%2Fapp%2Fsettings%2Fapi-tokens');
    for (const [from, to] of [['/profile', '/app/settings/api-tokens'], ['/profile/company', '/app/settings/company'], ['/profile/webhooks', '/app/settings/webhooks']]) expect((await v.get(from!)).location).toBe(to);
    expect((await v.get('/')).location).toBe('/app');
    const setup = await v.get('/setup');
    expect(setup.status).toBe(200);
    expect(setup.text).toContain('name="currency"');
    expect(setup.text).toContain('<option value="EUR">EUR</option>');
  });

  it('refuses a set-up without or with a wrong CSRF token, creating nothing', async () => {
    const v = visitor();
    await v.get('/setup');
    const fields = { email: 'first@a.test', password: PASSWORD, company: 'Acme', currency: 'EUR' };
    expect((await v.request('POST', '/setup', { form: fields })).status).toBe(403);
    expect((await v.request('POST', '/setup', { form: { ...fields, _csrf: 'x'.repeat(43) } })).status).toBe(403);
    // A token from another visitor's page is bound to that visitor's cookie.
    const other = visitor();
    const csrf = Browserish.csrfOf((await other.get('/setup')).text);
    expect((await v.request('POST', '/setup', { form: { ...fields, _csrf: csrf } })).status).toBe(403);
    expect((await db().select({ n: count() }).from(users))[0]!.n).toBe(0);
  });

  it('shows what to correct and keeps the entered values, creating nothing', async () => {
    const v = visitor();
    const res = await v.submit('/setup', '/setup', { email: 'not-an-address', password: 'short', company: ' ', currency: 'XXY', name: 'Ann <b>' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('Enter a valid email address.');
    expect(res.text).toContain('Use at least 8 characters.');
    expect(res.text).toContain('Enter the name of your company.');
    expect(res.text).toContain('Choose a currency.');
    expect(res.text).toContain('value="Ann &#60;b&#62;"');
    expect(res.text).not.toContain('value="short"');
    expect((await db().select({ n: count() }).from(users))[0]!.n).toBe(0);
  });

  it('creates exactly one first user when set-ups race, and signs that one in', async () => {
    const people = Array.from({ length: 4 }, visitor);
    const forms = await Promise.all(people.map((p) => p.get('/setup')));
    const results = await Promise.all(
      people.map((p, i) =>
        p.request('POST', '/setup', { form: { _csrf: Browserish.csrfOf(forms[i]!.text), email: `racer${i}@a.test`, password: PASSWORD, company: `Racer ${i}`, currency: i === 0 ? 'EUR' : 'USD', name: 'First' } }),
      ),
    );
    expect(results.every((r) => r.status === 303)).toBe(true);
    expect(results.map((r) => r.location).sort()).toEqual(['/app', '/login?setup=done', '/login?setup=done', '/login?setup=done']);
    const rows = await db().select().from(users);
    expect(rows).toHaveLength(1);
    const w = results.findIndex((r) => r.location === '/app');
    expect(rows[0]!.email).toBe(`racer${w}@a.test`);
    people.forEach((p, i) => expect(p.cookies.has('inv_session')).toBe(i === w));
    const me = (await people[w]!.me())!;
    expect(me.user.email).toBe(`racer${w}@a.test`);
    expect(me.company).toMatchObject({ name: `Racer ${w}`, role: 'admin', currency: w === 0 ? 'EUR' : 'USD' });
    expect(me.companies).toHaveLength(1);
  });

  it('sends /setup to /login afterwards, and refuses another set-up', async () => {
    const v = visitor();
    const setup = await v.get('/setup');
    expect(setup.status).toBe(302);
    expect(setup.location).toBe('/login');
    const login = await v.get('/login?setup=done');
    expect(login.text).toContain('Set-up is complete');
    const again = await v.request('POST', '/setup', { form: { _csrf: Browserish.csrfOf(login.text), email: 'third@a.test', password: PASSWORD, company: 'X', currency: 'USD' } });
    expect(again.location).toBe('/login?setup=done');
    expect((await db().select({ n: count() }).from(users))[0]!.n).toBe(1);
  });
});

describe('sign-in', () => {
  beforeAll(async () => {
    await userCreate({ db: db() }, { email: 'ann@b.test', password: PASSWORD, company: 'Bravo', currency: 'GBP' });
    await userCreate({ db: db() }, { email: 'ann@b.test', password: PASSWORD, company: 'Charlie', currency: 'USD', role: 'viewer' });
  });

  it('refuses a wrong password or an unknown address with the same message, and signs in with the right one', async () => {
    const v = visitor();
    for (const [email, password] of [['ann@b.test', 'wrong password'], ['nobody@b.test', PASSWORD]] as const) {
      const res = await v.login(email, password);
      expect(res.status).toBe(401);
      expect(res.text).toContain('Wrong email or password.');
      expect(res.text).toContain(`value="${email}"`);
      expect(v.cookies.has('inv_session')).toBe(false);
    }
    const ok = await v.login('ANN@b.test', PASSWORD);
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/app');
    expect(v.cookies.has('inv_session')).toBe(true);
    // Signed in, /login goes to the web application.
    expect((await v.get('/login')).location).toBe('/app');
  });

  it('sets an HttpOnly, SameSite=Lax session cookie, Secure over https, storing only its hash', async () => {
    const plain = visitor();
    const form = await plain.get('/login');
    const res = await plain.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(form.text), email: 'ann@b.test', password: PASSWORD } });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('inv_session='))!;
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/; Secure/i);

    const secure = visitor();
    const https = { 'x-forwarded-proto': 'https' };
    const f2 = await secure.request('GET', '/login', { headers: https });
    const r2 = await secure.request('POST', '/login', { headers: https, form: { _csrf: Browserish.csrfOf(f2.text), email: 'ann@b.test', password: PASSWORD } });
    expect(r2.status).toBe(303);
    expect(r2.headers.getSetCookie().find((c) => c.startsWith('inv_session='))).toMatch(/; Secure/i);
    expect(r2.headers.get('strict-transport-security')).toMatch(/max-age=/);

    const value = plain.cookies.get('inv_session')!;
    expect(await db().select().from(sessions).where(eq(sessions.id, value))).toHaveLength(0);
    expect(await db().select().from(sessions).where(eq(sessions.id, createHash('sha256').update(value).digest('hex')))).toHaveLength(1);
  });

  it('goes back to the page asked for, but never off the site', async () => {
    const v = visitor();
    const form = await v.get('/login?next=%2Fprofile%2Fapi');
    expect(form.text).toContain('name="next" value="/app/settings/api-tokens"');
    const evil = visitor();
    const f = await evil.get('/login?next=https%3A%2F%2Fevil.test%2F');
    expect(f.text).not.toContain('evil.test');
    const res = await evil.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(f.text), email: 'ann@b.test', password: PASSWORD, next: '//evil.test/x' } });
    expect(res.location).toBe('/app');
  });

  it('throttles an address after 5 failures, even with the right password, and answers 429 with Retry-After', async () => {
    const v = visitor();
    await userCreate({ db: db() }, { email: 'target@b.test', password: PASSWORD, company: 'Bravo' });
    for (let i = 0; i < 5; i++) expect((await v.login('target@b.test', `guess ${i}`)).status).toBe(401);
    // From another address too: the count is per email.
    const other = visitor();
    const blocked = await other.login('target@b.test', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.text).toContain('Too many failed sign-in attempts');
    expect(other.cookies.has('inv_session')).toBe(false);
    // After the window, the right password works again.
    offset += 16 * 60_000;
    expect((await other.login('target@b.test', PASSWORD)).status).toBe(303);
  });

  it('throttles an IP address after 30 failures whatever the addresses tried', async () => {
    const v = visitor();
    for (let i = 0; i < 30; i++) expect((await v.login(`spray${i}@b.test`, 'password1')).status).toBe(401);
    expect((await v.login('ann@b.test', PASSWORD)).status).toBe(429);
    // Another IP is not affected.
    expect((await visitor().login('ann@b.test', PASSWORD)).status).toBe(303);
    offset += 16 * 60_000;
  });
});

describe('sessions', () => {
  it('ends after 12 idle hours', async () => {
    const v = visitor();
    await v.login('ann@b.test', PASSWORD);
    expect((await v.get('/api/company')).status).toBe(200);
    offset += 11 * 3600_000;
    expect((await v.get('/api/company')).status).toBe(200);
    offset += 11 * 3600_000; // 11 h after the last use: still alive (the expiry moved on)
    expect((await v.get('/api/company')).status).toBe(200);
    offset += 12 * 3600_000 + 60_000;
    const me = await v.get('/api/company');
    expect(me.status).toBe(401);
    expect(me.body.message).toBe('No API token provided');
    expect((await v.get('/app/settings/api-tokens')).location).toBe('/login?next=%2Fapp%2Fsettings%2Fapi-tokens');
  });

  it('ends 7 days after sign-in however busy', async () => {
    const v = visitor();
    await v.login('ann@b.test', PASSWORD);
    const start = offset;
    let alive = true;
    while (alive && offset - start < 8 * 86_400_000) {
      offset += 10 * 3600_000;
      alive = (await v.get('/api/company')).status === 200;
    }
    expect(alive).toBe(false);
    expect(offset - start).toBeGreaterThan(7 * 86_400_000 - 10 * 3600_000);
    expect(offset - start).toBeLessThanOrEqual(7 * 86_400_000 + 10 * 3600_000);
  });

  it('signs out with the CSRF token only; the old cookie is then worthless', async () => {
    const v = visitor();
    await v.login('ann@b.test', PASSWORD);
    const value = v.cookies.get('inv_session')!;
    expect((await v.request('POST', '/logout', { form: {} })).status).toBe(403);
    expect((await v.get('/api/company')).status).toBe(200);
    const csrf = await v.csrf();
    const out = await v.request('POST', '/logout', { form: { _csrf: csrf } });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    expect(v.cookies.has('inv_session')).toBe(false);
    const replay = new Browserish(t.url);
    replay.cookies.set('inv_session', value);
    expect((await replay.get('/api/company')).status).toBe(401);
  });

  it('is accepted by /api for reads (CONTRACT §17), with none of the pages’ headers or cookies', async () => {
    const v = visitor();
    await v.login('ann@b.test', PASSWORD);
    const res = await v.get('/api/clients', { accept: 'application/ld+json' });
    expect(res.status).toBe(200);
    expect(res.body['@type']).toBe('Collection');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('content-security-policy')).toBeNull();
    // Counted per user, in the X-RateLimit-* headers.
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    // A cookie that names no session: 401 as without any credential.
    const stranger = new Browserish(t.url);
    stranger.cookies.set('inv_session', 'x'.repeat(43));
    const none = await stranger.get('/api/clients', { accept: 'application/ld+json' });
    expect(none.status).toBe(401);
    expect(none.body.message).toBe('No API token provided');
  });
});

describe('/api with the session cookie, as the pages call it (CONTRACT §17)', () => {
  let v: Browserish;
  let csrf: string;
  beforeAll(async () => {
    v = visitor();
    await v.login('ann@b.test', PASSWORD);
    csrf = await v.csrf();
  });
  const tokenCount = async () => Number((await db().select({ n: count() }).from(apiTokens))[0]!.n);
  /** The names of a token list (`query` after /api/api-tokens), and its total. */
  const listed = async (query = '') => {
    const r = await v.get(`/api/api-tokens${query}`, { accept: 'application/json' });
    expect(r.status).toBe(200);
    return { names: (r.body as { name: string }[]).map((x) => x.name), items: r.body as { id: string; name: string; usageCount: number; lastUsedAt: string | null }[], total: Number(r.headers.get('x-total-count')), text: r.text };
  };

  it('refuses writes without, or with a wrong, CSRF token (403) and changes nothing', async () => {
    const before = await tokenCount();
    const none = await v.call('POST', '/api/api-tokens', { name: 'sneaky' }, null);
    expect(none.status).toBe(403);
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(none.body.detail).toMatch(/X-CSRF-Token/);
    // One character changed (replacing the last two with 'AA' left the token intact whenever it
    // already ended so: 1 run in 1,024).
    const altered = csrf.slice(0, 10) + (csrf[10] === 'A' ? 'B' : 'A') + csrf.slice(11);
    expect(altered).not.toBe(csrf);
    expect((await v.call('POST', '/api/api-tokens', { name: 'sneaky' }, altered)).status).toBe(403);
    // A form field is no CSRF header.
    expect((await v.call('POST', '/api/api-tokens', { name: 'sneaky', _csrf: csrf }, null)).status).toBe(403);
    // Another session's token does not fit this session.
    const other = visitor();
    await other.login('ann@b.test', PASSWORD);
    expect((await v.call('POST', '/api/api-tokens', { name: 'sneaky' }, await other.csrf())).status).toBe(403);
    // The right token from another origin.
    const cross = await v.request('POST', '/api/api-tokens', { json: { name: 'sneaky' }, headers: { 'x-csrf-token': csrf, origin: 'https://evil.test' } });
    expect(cross.status).toBe(403);
    // GraphQL mutations too, in GraphQL's shape.
    const gql = await v.request('POST', '/api/graphql', { json: { query: 'mutation { createClient(input: { name: "sneaky" }) { client { id } } }' } });
    expect(gql.status).toBe(403);
    expect(gql.body.errors[0].extensions.status).toBe(403);
    expect(await tokenCount()).toBe(before);

    const created = await v.call('POST', '/api/api-tokens', { name: 'kept' }, csrf);
    expect(created.status).toBe(201);
    for (const bad of [null, 'wrong']) {
      expect((await v.call('DELETE', `/api/api-tokens/${created.body.id}`, undefined, bad)).status).toBe(403);
      expect((await v.call('PATCH', `/api/api-tokens/${created.body.id}`, { name: 'renamed' }, bad)).status).toBe(403);
      expect((await v.switchCompany(created.body.id, bad)).status).toBe(403);
    }
    expect((await client(t, created.body.token).get('/api/clients')).status).toBe(200);
    expect(await tokenCount()).toBe(before + 1);
    // With the header, GraphQL accepts the session's writes.
    const ok = await v.request('POST', '/api/graphql', { json: { query: 'mutation { createClient(input: { name: "Via session" }) { client { name } } }' }, headers: { 'x-csrf-token': csrf } });
    expect(ok.body.data.createClient.client.name).toBe('Via session');
  });

  it('creates a token for the active company, whose value works once shown, and never again', async () => {
    const res = await v.call('POST', '/api/api-tokens', { name: 'CI deploy', description: 'pipeline' }, csrf);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ name: 'CI deploy', description: 'pipeline', usageCount: 0, lastUsedAt: null });
    expect(res.body.token).toMatch(/^inv_/);
    const api = client(t, res.body.token);
    expect((await v.me())!.company!.name).toBe('Bravo');
    expect((await api.post('/api/clients', { name: 'Made in Bravo' })).body.currency).toBe('GBP');
    expect((await api.get('/api/clients')).status).toBe(200);
    const list = await listed('?name=CI%20deploy');
    expect(list.items).toHaveLength(1);
    expect(list.text).not.toContain(res.body.token);
  });

  it('applies the rules of /api/api-tokens: name required, at most 100, unique; unknown fields refused', async () => {
    const missing = await v.call('POST', '/api/api-tokens', { description: 'x' }, csrf);
    expect(missing.status).toBe(422);
    expect(missing.body.violations[0].propertyPath).toBe('name');
    expect((await v.call('POST', '/api/api-tokens', { name: 'x'.repeat(101) }, csrf)).status).toBe(422);
    const dup = await v.call('POST', '/api/api-tokens', { name: 'CI deploy' }, csrf);
    expect(dup.status).toBe(422);
    expect(dup.body.violations[0]).toMatchObject({ propertyPath: 'name', message: 'This value is already used.' });
    expect((await v.call('POST', '/api/api-tokens', { name: 'ok', token: 'inv_mine' }, csrf)).status).toBe(400);
    expect((await v.call('POST', '/api/api-tokens', [1], csrf)).status).toBe(400);
    const broken = await v.request('POST', '/api/api-tokens', { headers: { 'x-csrf-token': csrf, 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
  });

  it('searches names, sorts every column as people read a table (never-used tokens last), and pages', async () => {
    for (const [name, description] of [['alpha', 'nightly export'], ['Beta', null], ['gamma', 'EXPORT to books']]) {
      expect((await v.call('POST', '/api/api-tokens', { name, description }, csrf)).status).toBe(201);
    }
    expect((await listed('?description=export&order[name]=asc')).names).toEqual(['alpha', 'gamma']);
    expect((await listed('?name=%25')).names).toEqual([]);
    expect((await listed('?name=ALP')).names).toEqual(['alpha']);
    expect((await listed('?order[name]=asc')).names.slice(0, 3)).toEqual(['alpha', 'Beta', 'CI deploy']);
    const used = (await listed('?name=CI%20deploy')).items[0]!;
    expect(used.usageCount).toBe(2);
    for (const dir of ['asc', 'desc']) {
      const list = (await listed(`?order[lastUsedAt]=${dir}`)).items;
      expect(list[0]!.lastUsedAt).not.toBeNull();
      expect(list.at(-1)!.lastUsedAt).toBeNull();
    }
    expect((await listed('?order[usageCount]=desc')).names[0]).toBe('CI deploy');
    expect((await listed('?order[description]=asc')).names.slice(0, 2)).toEqual(['gamma', 'alpha']);
    const page = await listed('?order[name]=asc&itemsPerPage=2&page=2');
    expect(page.total).toBeGreaterThanOrEqual(5);
    expect(page.names).toEqual(['CI deploy', 'gamma']);
    for (const q of ['?order[name]=sideways', '?page=0', '?itemsPerPage=x']) expect((await v.get(`/api/api-tokens${q}`, { accept: 'application/json' })).status, q).toBe(400);
  });

  it('answers the list, the summary and the history in a fixed number of SQL statements', async () => {
    const statements = async (path: string) => {
      const before = t.db.database.statements();
      expect((await v.get(path, { accept: 'application/json' })).status).toBe(200);
      return t.db.database.statements() - before;
    };
    const [token] = (await listed('?name=CI%20deploy')).items;
    const paths = ['/api/api-tokens?order[name]=asc', '/api/api-tokens/summary', `/api/api-tokens/${token!.id}/history`];
    const measure = async () => {
      const counts: number[] = [];
      for (const path of paths) counts.push(await statements(path));
      return counts;
    };
    const few = await measure();
    for (let i = 0; i < 20; i++) expect((await v.call('POST', '/api/api-tokens', { name: `bulk ${i}` }, csrf)).status).toBe(201);
    const many = await measure();
    // Session (1: the session, its user and their companies) + the list (1) | the summary (2) | the token and its history (2).
    expect(few).toEqual([2, 3, 3]);
    expect(many).toEqual(few);
    const bulk = (await listed('?name=bulk&itemsPerPage=100')).items.map((x) => x.id);
    for (const id of bulk) expect((await v.call('DELETE', `/api/api-tokens/${id}`, undefined, csrf)).status).toBe(204);
  });

  it('summarises as a token sees it', async () => {
    const page = (await v.get('/api/api-tokens/summary', { accept: 'application/json' })).body;
    const [any] = (await listed('?name=CI%20deploy')).items;
    const rest = await call(t, 'GET', '/api/api-tokens/summary', { accept: 'application/json', token: (await v.call('POST', '/api/api-tokens', { name: 'summary probe' }, csrf)).body.token });
    expect(rest.status).toBe(200);
    // One more token (the probe); its own request is recorded after it is answered. The
    // session's own requests are recorded in no token's history.
    expect(rest.body).toMatchObject({ activeTokens: page.activeTokens + 1, apiCallsThisMonth: page.apiCallsThisMonth });
    expect(page.apiCallsThisMonth).toBe(3);
    expect(page.mostUsedToken).toMatchObject({ id: any!.id, name: 'CI deploy' });
    expect(page.lastActivity).toMatch(/Z$/);
  });

  it('shows a token’s history with every filter, at most 100 entries', async () => {
    const [token] = (await listed('?name=CI%20deploy')).items;
    const now = clock();
    const day = 86_400_000;
    // Noon (UTC) three and ten days ago: each group falls on one day.
    const noon = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate(), 12);
    const rows = Array.from({ length: 130 }, (_, i) => ({
      tokenId: token!.id,
      date: new Date(noon - (i < 120 ? 3 * day : 10 * day) - i * 1000),
      method: i % 2 ? 'POST' : 'GET',
      endpoint: '/api/clients',
      status: i % 10 === 0 ? 404 : i % 2 ? 201 : 200,
      ipAddress: '10.1.1.1',
      userAgent: 'seed',
    }));
    await db().insert(apiTokenHistory).values(rows);
    const h = async (q = '') => {
      const r = await v.get(`/api/api-tokens/${token!.id}/history${q}`, { accept: 'application/json' });
      expect(r.status).toBe(200);
      return r.body as { date: string; method: string; status: number }[];
    };
    const all = await h();
    expect(all).toHaveLength(100);
    expect(all[0]).toMatchObject({ method: 'GET', endpoint: '/api/clients', status: 200, userAgent: 'node' });
    expect(all[1]).toMatchObject({ method: 'POST', endpoint: '/api/clients', status: 201 });
    expect(all.every((e, i) => i === 0 || e.date <= all[i - 1]!.date)).toBe(true);
    expect((await h('?method=POST')).every((e) => e.method === 'POST')).toBe(true);
    const notFound = await h('?status=4xx');
    expect(notFound.length).toBe(13);
    expect(notFound.every((e) => e.status === 404)).toBe(true);
    const old = await h(`?date[strictly_before]=${new Date(now - 5 * day).toISOString()}`);
    expect(old).toHaveLength(10);
    const recent = await h(`?date[after]=${new Date(now - 5 * day).toISOString()}&method=GET&status=2xx`);
    expect(recent.every((e) => e.method === 'GET' && e.status === 200 && Date.parse(e.date) > now - 5 * day)).toBe(true);
    expect(recent.length).toBeGreaterThan(40);
    expect((await v.get(`/api/api-tokens/${token!.id}/history?status=6xx`)).status).toBe(400);
    expect((await v.get(`/api/api-tokens/${token!.id}/history?date[after]=yesterday`)).status).toBe(400);
  });

  it('counts requests per day over 30 days in SQL, beyond the 100 entries the history shows', async () => {
    const [token] = (await listed('?name=CI%20deploy')).items;
    const res = await v.get(`/api/api-tokens/${token!.id}/daily`, { accept: 'application/json' });
    expect(res.status).toBe(200);
    const days = res.body.days as { day: string; count: number }[];
    expect(days).toHaveLength(30);
    expect(days.at(-1)!.day).toBe(new Date(clock()).toISOString().slice(0, 10));
    const byDay = new Map(days.map((d) => [d.day, d.count]));
    const expected = rowsOf<{ day: string; n: string | number }>(
      await db().execute(sql`select to_char(date at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from api_token_history where token_id = ${token!.id} group by 1`),
    );
    for (const e of expected) if (byDay.has(e.day)) expect(byDay.get(e.day)).toBe(Number(e.n));
    expect(Math.max(...days.map((d) => d.count))).toBe(120);
    expect(days.reduce((a, d) => a + d.count, 0)).toBe(132);
    // More stored rows than requests counted: nothing was trimmed.
    expect(res.body.completeSince).toBeNull();
  });

  it('revokes tokens: gone from the list, 401 on /api; other users’ tokens are out of reach', async () => {
    const mine = await Promise.all(['r1', 'r2'].map(async (name) => (await v.call('POST', '/api/api-tokens', { name }, csrf)).body));
    const foreign = await tokenFor(t, { email: 'mallory@b.test', company: 'Bravo', name: 'theirs' });
    const [foreignRow] = await db().select().from(apiTokens).where(eq(apiTokens.name, 'theirs'));
    for (const m of mine) expect((await client(t, m.token).get('/api/clients')).status).toBe(200);
    const statuses = await Promise.all([...mine.map((m) => m.id), foreignRow!.id, 'not-a-uuid'].map(async (id) => (await v.call('DELETE', `/api/api-tokens/${id}`, undefined, csrf)).status));
    // Another user's token: 403, as on /api/api-tokens with a token; an unknown id: 404.
    expect(statuses).toEqual([204, 204, 403, 404]);
    for (const m of mine) {
      const r = await client(t, m.token).get('/api/clients');
      expect(r.status).toBe(401);
      expect(r.body.message).toBe('Invalid API token');
    }
    expect((await client(t, foreign).get('/api/clients')).status).toBe(200);
    expect((await listed('?name=r1')).items).toHaveLength(0);
  });

  it('keeps other users’ and other companies’ tokens out of reach (403 / 404)', async () => {
    const [theirs] = await db().select().from(apiTokens).where(eq(apiTokens.name, 'theirs'));
    const status = async (path: string) => (await v.get(path, { accept: 'application/json' })).status;
    expect(await status(`/api/api-tokens/${theirs!.id}/history`)).toBe(403);
    expect(await status(`/api/api-tokens/${theirs!.id}/daily`)).toBe(403);
    expect(await status('/api/api-tokens/0190f3c2-0000-7000-8000-000000000000/history')).toBe(404);
    expect(await status('/api/api-tokens/nope/history')).toBe(404);
  });

  it('switches the active company: /api then acts in it, kept in the session', async () => {
    const me = (await v.me())!;
    expect(me.companies.map((c) => c.name)).toEqual(['Bravo', 'Charlie']);
    const charlie = me.companies.find((c) => c.name === 'Charlie')!;
    const switched = await v.switchCompany(charlie.id);
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/app/settings/api-tokens');
    expect((await v.me())!.company).toMatchObject({ name: 'Charlie', role: 'viewer' });
    expect((await listed()).total).toBe(0);
    expect((await v.get('/api/company', { accept: 'application/json' })).body.name).toBe('Charlie');
    // Any role manages its own tokens; a viewer's session reads the company's data and cannot write it.
    const made = await v.call('POST', '/api/api-tokens', { name: 'CI deploy' }, csrf);
    expect(made.status).toBe(201);
    const [row] = await db().select().from(apiTokens).where(eq(apiTokens.id, made.body.id));
    expect(row!.companyId).toBe(charlie.id);
    expect((await v.call('POST', '/api/clients', { name: 'No' }, csrf)).status).toBe(403);
    const api = client(t, made.body.token);
    expect((await api.get('/api/clients')).body.totalItems).toBe(0);
    expect((await api.post('/api/clients', { name: 'No' })).status).toBe(403);
    // Not a member: refused, and the session keeps its company.
    const [other] = rowsOf<{ id: string }>(await db().execute(sql`select id from companies where name like 'Racer %'`));
    expect((await v.switchCompany(other!.id)).status).toBe(403);
    expect((await v.me())!.company!.name).toBe('Charlie');
  });
});

describe('pages and static files', () => {
  it('sends the security headers with the pages, and none of them with /api', async () => {
    const v = visitor();
    for (const path of ['/login', '/assets/app/app/main.js']) {
      const res = await v.get(path);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self' 'sha256-");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
    const api = await call(t, 'GET', '/api');
    expect(api.headers.get('x-frame-options')).toBeNull();
    const docs = await call(t, 'GET', '/api/docs/');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-security-policy') ?? '').not.toContain("frame-ancestors 'none'");
  });

  it('serves the static roots, with ETags, and nothing outside them', async () => {
    const v = visitor();
    const js = await v.get('/assets/app/app/main.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = js.headers.get('etag')!;
    expect((await v.get('/assets/app/app/main.js', { 'if-none-match': etag })).status).toBe(304);
    expect((await v.get('/assets/preact/dist/preact.mjs')).status).toBe(200);
    expect((await v.get('/assets/preact/hooks/dist/hooks.mjs')).status).toBe(200);
    expect((await v.get('/assets/htm/htm.mjs')).status).toBe(200);
    expect((await v.get('/assets/app/styles.css')).headers.get('content-type')).toMatch(/^text\/css/);
    for (const path of ['/assets/app/../package.json', '/assets/app/%2e%2e/server/serve.ts', '/assets/preact/package.json', '/assets/nope/x.js', '/assets/app/missing.js', '/assets/app/.eslintrc.js', '/assets/app']) {
      const res = await v.get(path);
      expect(res.status, path).toBe(404);
    }
    // Sent as is (fetch would resolve the dots itself).
    for (const path of ['/assets/app/../package.json', '/assets/app/..%2f..%2fpackage.json', '/assets/preact/../../package.json', '/assets/app/%2e%2e/%2e%2e/package.json']) {
      expect(await rawStatus(path), path).toBe(404);
    }
  });
});
