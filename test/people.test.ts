// People through the API and their pages (CONTRACT §20), with e-mail held (no SMTP_URL): members
// (every role reads, admins change roles and remove; the last admin stays; a removed person's
// tokens stop working), invitations (the link in the create's response while e-mail is held;
// used once; expired, revoked, or another company's: refused and nothing changed), password
// reset (the same answer for every address; one use; expired refused; 5 an hour per address) and
// changing one's own password.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { Browserish } from './web-helpers.ts';
import { registrationChangeReaches, roleChangeReaches } from './support/principal-changes.ts';

let t: TestServer;
let admin: Client;
let member: Client;
let viewer: Client;
let otherAdmin: Client;

const J = { accept: 'application/json' };
const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await t.db.database.db.execute(query));
const tokenOf = (link: string) => /\/(?:invite|reset)\/([A-Za-z0-9_-]+)$/.exec(link)![1]!;
let ips = 0;
const browser = () => new Browserish(t.url, { ip: `10.0.0.${++ips}` });

beforeAll(async () => {
  // Behind a proxy, so that the tests' browsers each have their own address (x-forwarded-for).
  t = await startTestServer({ TRUST_PROXY: 'true' });
  admin = client(t, await tokenFor(t, { email: 'boss@people.test', company: 'People Co' }));
  member = client(t, await tokenFor(t, { email: 'mem@people.test', company: 'People Co', role: 'member' }));
  viewer = client(t, await tokenFor(t, { email: 'view@people.test', company: 'People Co', role: 'viewer' }));
  otherAdmin = client(t, await tokenFor(t, { email: 'boss@other-people.test', company: 'Other People' }));
});
afterAll(() => t.close());

describe('members', () => {
  // Tokens are cached with their principal: the change must not wait for the cache to expire.
  it('a demoted admin writes no more on their next request, nor a promoted viewer less', () => roleChangeReaches(t, t, 'demotion'));
  it('a change of the company’s VAT registration applies to the next invoice created', () => registrationChangeReaches(t, t, 'registration'));

  it('every role lists them; only admins change roles; the last admin can be neither demoted nor removed', async () => {
    const list = await viewer.get('/api/members', J);
    expect(list.status).toBe(200);
    expect(list.body.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['boss@people.test', 'admin'],
      ['mem@people.test', 'member'],
      ['view@people.test', 'viewer'],
    ]);
    expect(list.body[0]).toHaveProperty('createdAt');
    const boss = list.body[0].id;
    const mem = list.body[1].id;
    expect((await member.patch(`/api/members/${mem}`, { role: 'admin' })).status).toBe(403);
    expect((await viewer.delete(`/api/members/${mem}`)).status).toBe(403);
    const demote = await admin.patch(`/api/members/${boss}`, { role: 'member' });
    expect(demote.status).toBe(422);
    expect(demote.body.violations[0].propertyPath).toBe('role');
    expect((await admin.delete(`/api/members/${boss}`)).status).toBe(422);
    expect((await admin.patch(`/api/members/${mem}`, { role: 'superuser' })).status).toBe(422);
    expect((await admin.get('/api/members', J)).body.filter((m: { role: string }) => m.role === 'admin')).toHaveLength(1);
    // Another company's member: not found here.
    const theirs = (await otherAdmin.get('/api/members', J)).body[0].id;
    expect((await admin.get(`/api/members/${theirs}`, J)).status).toBe(404);
    expect((await admin.patch(`/api/members/${theirs}`, { role: 'viewer' })).status).toBe(404);
  });

  it('removing a person revokes their tokens for the company', async () => {
    const extra = client(t, await tokenFor(t, { email: 'leaving@people.test', company: 'People Co', role: 'member' }));
    expect((await extra.get('/api/clients', J)).status).toBe(200);
    const id = (await admin.get('/api/members', J)).body.find((m: { email: string }) => m.email === 'leaving@people.test').id;
    expect((await admin.delete(`/api/members/${id}`)).status).toBe(204);
    expect((await extra.get('/api/clients', J)).status).toBe(401);
    expect((await admin.get(`/api/members/${id}`, J)).status).toBe(404);
  });
});

describe('invitations', () => {
  it('an admin invites (the link shown while e-mail is held, the e-mail kept held); the person joins once with the role', async () => {
    expect((await member.post('/api/invitations', { email: 'new@people.test', role: 'member' })).status).toBe(403);
    const bad = await admin.post('/api/invitations', { email: 'not an address', role: 'boss' });
    expect(bad.status).toBe(422);
    expect(bad.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort()).toEqual(['email', 'role']);
    expect((await admin.post('/api/invitations', { email: 'mem@people.test', role: 'viewer' })).status).toBe(422);

    const r = await admin.post('/api/invitations', { email: 'New@People.test', role: 'member' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ email: 'new@people.test', role: 'member', status: 'pending', acceptedAt: null });
    expect(r.body.link).toMatch(/\/invite\/[A-Za-z0-9_-]{20,}$/);
    const token = tokenOf(r.body.link);
    // Only a hash is stored; the e-mail is kept, held, with the link.
    expect(await q<{ n: number }>(sql`select count(*)::int as n from invitations where token_hash = ${token}`)).toEqual([{ n: 0 }]);
    const [mail] = await q<{ status: string; body: string; to: string }>(sql`select status, body, "to" from account_emails where purpose = 'invitation' order by created_at desc limit 1`);
    expect(mail).toMatchObject({ status: 'held', to: 'new@people.test' });
    expect(mail!.body).toContain(`/invite/${token}`);
    expect((await viewer.get('/api/invitations', J)).body.map((i: { email: string }) => i.email)).toContain('new@people.test');
    expect((await admin.get(`/api/invitations/${r.body.id}`, J)).body).not.toHaveProperty('link');

    const b = browser();
    const page = await b.get(`/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Join People Co');
    const short = await b.request('POST', `/invite/${token}`, { form: { _csrf: Browserish.csrfOf(page.text), name: 'Nea', password: 'short' } });
    expect(short.status).toBe(422);
    const joined = await b.request('POST', `/invite/${token}`, { form: { _csrf: Browserish.csrfOf(short.text), name: 'Nea Newcomer', password: 'a long password' } });
    expect(joined.status, joined.text).toBe(303);
    expect(joined.location).toBe('/app');
    expect((await b.get('/app')).status).toBe(200);
    const members = (await admin.get('/api/members', J)).body;
    expect(members.find((m: { email: string }) => m.email === 'new@people.test')).toMatchObject({ name: 'Nea Newcomer', role: 'member' });
    expect((await admin.get(`/api/invitations/${r.body.id}`, J)).body.status).toBe('accepted');

    // Used twice: refused, nothing changed.
    const again = browser();
    expect((await again.get(`/invite/${token}`)).status).toBe(410);
    const before = await q(sql`select count(*)::int as n from users`);
    const pre = await again.get('/reset');
    const twice = await again.request('POST', `/invite/${token}`, { form: { _csrf: Browserish.csrfOf(pre.text), name: 'X', password: 'another long one' } });
    expect(twice.status).toBe(410);
    expect(await q(sql`select count(*)::int as n from users`)).toEqual(before);
    // The new person signs in with their password.
    expect((await browser().login('new@people.test', 'a long password')).status).toBe(303);
  });

  it('expired, revoked or another company’s: refused, nothing changed; an existing user joins with their own password', async () => {
    const expired = await admin.post('/api/invitations', { email: 'late@people.test', role: 'viewer' });
    await t.db.database.db.execute(sql`update invitations set expires_at = now() - interval '1 second' where id = ${expired.body.id}`);
    const revoked = await admin.post('/api/invitations', { email: 'revoked@people.test', role: 'viewer' });
    expect((await admin.delete(`/api/invitations/${revoked.body.id}`)).status).toBe(204);
    for (const link of [expired.body.link, revoked.body.link, `${t.url}/invite/${'x'.repeat(43)}`]) {
      const b = browser();
      expect((await b.get(`/invite/${tokenOf(link)}`)).status).toBe(410);
      const pre = await b.get('/reset');
      expect((await b.request('POST', `/invite/${tokenOf(link)}`, { form: { _csrf: Browserish.csrfOf(pre.text), name: 'L', password: 'a long password' } })).status).toBe(410);
    }
    expect(await q(sql`select count(*)::int as n from users where email in ('late@people.test', 'revoked@people.test')`)).toEqual([{ n: 0 }]);

    // Another company's invitation: not theirs to read or revoke; accepting it joins that company only.
    const theirs = await otherAdmin.post('/api/invitations', { email: 'mem@people.test', role: 'viewer' });
    expect((await admin.get(`/api/invitations/${theirs.body.id}`, J)).status).toBe(403);
    expect((await admin.delete(`/api/invitations/${theirs.body.id}`)).status).toBe(403);
    const b = browser();
    const page = await b.get(`/invite/${tokenOf(theirs.body.link)}`);
    expect(page.text).toContain('sign in with its password');
    const wrong = await b.request('POST', `/invite/${tokenOf(theirs.body.link)}`, { form: { _csrf: Browserish.csrfOf(page.text), password: 'not it at all' } });
    expect(wrong.status).toBe(422);
    const ok = await b.request('POST', `/invite/${tokenOf(theirs.body.link)}`, { form: { _csrf: Browserish.csrfOf(wrong.text), password: 'password123' } });
    expect(ok.status).toBe(303);
    expect((await otherAdmin.get('/api/members', J)).body.find((m: { email: string }) => m.email === 'mem@people.test')).toMatchObject({ role: 'viewer' });
    expect((await admin.get('/api/members', J)).body.find((m: { email: string }) => m.email === 'mem@people.test')).toMatchObject({ role: 'member' });
  });
});

describe('passwords', () => {
  const ask = async (b: Browserish, email: string) => {
    const page = await b.get('/reset');
    return b.request('POST', '/reset', { form: { _csrf: Browserish.csrfOf(page.text), email } });
  };
  const lastResetLink = async () => /\/reset\/([A-Za-z0-9_-]+)/.exec((await q<{ body: string }>(sql`select body from account_emails where purpose = 'reset' order by created_at desc, id desc limit 1`))[0]!.body)![1]!;

  it('a reset link is asked with the same answer for every address, works once and sets the password', async () => {
    const known = await ask(browser(), 'view@people.test');
    const unknown = await ask(browser(), 'nobody@people.test');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const strip = (s: string) => s.replace(/name="_csrf" value="[^"]+"/, '');
    expect(strip(known.text)).toBe(strip(unknown.text));
    expect(await q(sql`select count(*)::int as n from account_emails where purpose = 'reset' and "to" = 'nobody@people.test'`)).toEqual([{ n: 0 }]);
    const token = await lastResetLink();
    expect(await q(sql`select count(*)::int as n from password_resets where token_hash = ${token}`)).toEqual([{ n: 0 }]);

    const b = browser();
    const form = await b.get(`/reset/${token}`);
    expect(form.status).toBe(200);
    const set = await b.request('POST', `/reset/${token}`, { form: { _csrf: Browserish.csrfOf(form.text), password: 'brand new secret' } });
    expect(set.status).toBe(303);
    expect(set.location).toBe('/login?reset=done');
    expect((await browser().login('view@people.test', 'brand new secret')).status).toBe(303);
    expect((await browser().login('view@people.test', 'password123')).status).toBe(401);
    // Twice: refused, the password stays.
    const again = browser();
    expect((await again.get(`/reset/${token}`)).status).toBe(410);
    const pre = await again.get('/reset');
    expect((await again.request('POST', `/reset/${token}`, { form: { _csrf: Browserish.csrfOf(pre.text), password: 'yet another secret' } })).status).toBe(410);
    expect((await browser().login('view@people.test', 'brand new secret')).status).toBe(303);
  });

  it('an expired link is refused; at most 5 requests an hour per address and per IP', async () => {
    for (let i = 0; i < 5; i++) expect((await ask(browser(), 'mem@people.test')).status).toBe(200);
    await t.db.database.db.execute(sql`update password_resets set expires_at = now() - interval '1 second'`);
    const token = await lastResetLink();
    expect((await browser().get(`/reset/${token}`)).status).toBe(410);
    const sixth = await ask(browser(), 'mem@people.test');
    expect(sixth.status).toBe(429);
    expect(await q(sql`select count(*)::int as n from account_emails where purpose = 'reset' and "to" = 'mem@people.test'`)).toEqual([{ n: 5 }]);
    const one = browser();
    for (let i = 0; i < 5; i++) expect((await ask(one, `someone${i}@people.test`)).status).toBe(200);
    expect((await ask(one, 'view@people.test')).status).toBe(429);
  });

  it('a signed-in person changes their own password, giving the current one', async () => {
    const b = browser();
    expect((await b.login('boss@people.test', 'password123')).status).toBe(303);
    const page = await b.get('/profile/password');
    expect(page.status).toBe(200);
    const wrong = await b.request('POST', '/profile/password', { form: { _csrf: Browserish.csrfOf(page.text), current: 'nope nope', password: 'the next secret' } });
    expect(wrong.status).toBe(422);
    const ok = await b.request('POST', '/profile/password', { form: { _csrf: Browserish.csrfOf(wrong.text), current: 'password123', password: 'the next secret' } });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Your password is changed');
    expect((await browser().login('boss@people.test', 'the next secret')).status).toBe(303);
  });
});
