// The account e-mails in English, German and French (CONTRACT §20), delivered to a loopback SMTP
// server: an invitation in the inviting company's language (its profile's locale), a password
// reset in the language the request asked for (Accept-Language), English otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';
import { Mailbox, until, type Arrived } from './support/smtp.ts';
import { Browserish } from './web-helpers.ts';

let t: TestServer;
let smtp: Mailbox;
let ips = 0;

beforeAll(async () => {
  smtp = new Mailbox();
  await smtp.start();
  t = await startTestServer({ TRUST_PROXY: 'true', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Invoicing <no-reply@i18n-mail.test>', MAIL_POLL_INTERVAL: '100ms' });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});

async function mailTo(to: string): Promise<Arrived> {
  await until(() => smtp.accepted.some((a) => a.rcpt.includes(to)), 20_000, `the e-mail to ${to}`);
  return smtp.accepted.find((a) => a.rcpt.includes(to))!;
}

describe('invitations', () => {
  it.each([
    { locale: 'en', subject: 'Invitation to Acme en on Invoicing', says: ['invites you to join Acme en as member.', 'for 7 days'] },
    { locale: 'de', subject: 'Einladung zu Acme de bei Invoicing', says: ['lädt Sie ein, Acme de als Mitglied beizutreten.', '7 Tage lang'] },
    { locale: 'fr', subject: 'Invitation à rejoindre Acme fr sur Invoicing', says: ['vous invite à rejoindre Acme fr en tant que membre.', 'pendant 7 jours'] },
  ])('in the inviting company’s language: $locale', async ({ locale, subject, says }) => {
    const admin = client(t, await tokenFor(t, { email: `boss-${locale}@i18n-mail.test`, company: `Acme ${locale}` }));
    expect((await admin.patch('/api/company', { locale })).status).toBe(200);
    const to = `new-${locale}@i18n-mail.test`;
    const r = await admin.post('/api/invitations', { email: to, role: 'member' });
    expect(r.status).toBe(201);
    const m = await mailTo(to);
    expect(m.parsed.subject).toBe(subject);
    for (const s of says) expect(m.parsed.text).toContain(s);
    expect(m.parsed.text).toMatch(/\/invite\/[A-Za-z0-9_-]{20,}/);
  });
});

describe('password resets', () => {
  beforeAll(async () => {
    for (const l of ['en', 'de', 'fr', 'es']) await tokenFor(t, { email: `reset-${l}@i18n-mail.test`, company: 'Reset Co' });
  });
  it.each([
    { who: 'de', header: 'de-DE,de;q=0.9,en;q=0.8', subject: 'Ihr Passwort für Invoicing zurücksetzen', says: 'Jemand hat darum gebeten, das Passwort von reset-de@i18n-mail.test zurückzusetzen.' },
    { who: 'fr', header: 'it;q=1, fr-CH;q=0.9, en;q=0.5', subject: 'Réinitialiser votre mot de passe Invoicing', says: 'Quelqu’un a demandé à réinitialiser le mot de passe de reset-fr@i18n-mail.test.' },
    { who: 'es', header: 'es-ES', subject: 'Reset your Invoicing password', says: 'Someone asked to reset the password of reset-es@i18n-mail.test.' },
    { who: 'en', header: undefined, subject: 'Reset your Invoicing password', says: 'for 60 minutes' },
  ])('in the language the request asks for: $header', async ({ who, header, subject, says }) => {
    const b = new Browserish(t.url, { ip: `10.9.0.${++ips}` });
    const page = await b.get('/reset');
    const to = `reset-${who}@i18n-mail.test`;
    const r = await b.request('POST', '/reset', { form: { _csrf: Browserish.csrfOf(page.text), email: to }, headers: header ? { 'accept-language': header } : {} });
    expect(r.status).toBe(200);
    const m = await mailTo(to);
    expect(m.parsed.subject).toBe(subject);
    expect(m.parsed.text).toContain(says);
    expect(m.parsed.text).toMatch(/\/reset\/[A-Za-z0-9_-]{20,}/);
  });
});
