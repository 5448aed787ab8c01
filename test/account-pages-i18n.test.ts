// The server-rendered account pages in English, German and French (CONTRACT §20): first-run
// set-up, sign-in, an invitation, a password reset asked for and used, one's own password
// changed, and the pages of a refused form, each in the language of the request's
// Accept-Language, saying so (<html lang>, Content-Language, Vary: Accept-Language), their
// refusals (wrong password, expired link, password too short, too many requests) included. With
// e-mail held (no SMTP_URL): an invitation's link is in the API's answer, a reset's in the held
// e-mail.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { LANGUAGES } from '../http/languages.ts';
import { pageCatalogue, pageText } from '../server/web/messages.ts';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';
import { Browserish, type WebRes } from './web-helpers.ts';

let t: TestServer;
let ips = 0;
const HEADERS = { de: 'de-DE,de;q=0.9,en;q=0.5', fr: 'it;q=1, fr-CH;q=0.9, en;q=0.5', en: undefined } as const;
type Lang = keyof typeof HEADERS;
/** A visitor from its own address whose browser asks for `lang`. */
const visitor = (lang: Lang) => new Browserish(t.url, { ip: `10.7.0.${++ips}`, language: HEADERS[lang] });
const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await t.db.database.db.execute(query));
const tokenOf = (link: string) => /\/(?:invite|reset)\/([A-Za-z0-9_-]+)$/.exec(link)![1]!;

/** The page is in `lang`, says so, says each of `says` and none of `notSays` (the English it replaces). */
function inLanguage(res: WebRes, lang: Lang, says: string[], notSays: string[] = []): void {
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toContain(`<html lang="${lang}">`);
  expect(res.headers.get('content-language')).toBe(lang);
  expect(res.headers.get('vary')).toMatch(/Accept-Language/i);
  for (const s of says) expect(res.text).toContain(s);
  for (const s of notSays) expect(res.text).not.toContain(s);
}

beforeAll(async () => {
  t = await startTestServer({ TRUST_PROXY: 'true' });
});
afterAll(() => t?.close());

describe('the catalogue', () => {
  it('has the same messages in every language; each formats with its values, ASCII apostrophes nowhere (ICU quotes with them)', () => {
    const keys = Object.keys(pageCatalogue('en')).sort();
    const values = { title: 'T', min: 8, max: 1024, minutes: 2, count: 2, company: 'C', role: 'member', email: 'e@x.test' };
    for (const l of LANGUAGES) {
      expect(Object.keys(pageCatalogue(l)).sort()).toEqual(keys);
      for (const [key, message] of Object.entries(pageCatalogue(l))) {
        expect(message, `${l}.${key}`).not.toMatch(/'/);
        const out = pageText(l).t(key as never, values);
        expect(out, `${l}.${key}`).not.toMatch(/[{}]/);
      }
    }
  });

  it('counts by each language’s plural rules', () => {
    expect(pageText('en').t('signInThrottled', { minutes: 1 })).toBe('Too many failed sign-in attempts. Try again in 1 minute.');
    expect(pageText('en').t('signInThrottled', { minutes: 15 })).toBe('Too many failed sign-in attempts. Try again in 15 minutes.');
    expect(pageText('de').t('signInThrottled', { minutes: 1 })).toContain('in 1 Minute erneut');
    expect(pageText('de').t('signInThrottled', { minutes: 15 })).toContain('in 15 Minuten erneut');
    expect(pageText('fr').t('setupInvalid', { count: 1 })).toBe('Veuillez corriger le champ signalé ci-dessous.');
    expect(pageText('fr').t('setupInvalid', { count: 3 })).toBe('Veuillez corriger les 3 champs signalés ci-dessous.');
    expect(pageText('fr').t('joinInvited', { role: 'admin', email: 'a@b.test' })).toBe('Vous êtes invité en tant qu’administrateur, avec l’adresse a@b.test.');
  });
});

describe('first-run set-up', () => {
  it('in German: the form, then its errors', async () => {
    const v = visitor('de');
    const page = await v.get('/setup');
    expect(page.status).toBe(200);
    inLanguage(page, 'de', ['<title>Einrichtung · Invoicing</title>', '<h1>Willkommen</h1>', 'Ihr Unternehmen', 'Name des Unternehmens', 'Die Standardwährung neuer Kunden.', 'Mindestens 8 Zeichen.', 'Konto anlegen und anmelden'], ['Welcome', 'Company name', 'At least 8']);
    const bad = await v.request('POST', '/setup', { form: { _csrf: Browserish.csrfOf(page.text), email: 'x', password: 'short', company: '', currency: 'EUR' } });
    expect(bad.status).toBe(422);
    inLanguage(bad, 'de', ['Bitte korrigieren Sie die 3 unten markierten Felder.', 'Geben Sie eine gültige E-Mail-Adresse ein.', 'Verwenden Sie mindestens 8 Zeichen.', 'Geben Sie den Namen Ihres Unternehmens ein.'], ['Enter a valid', 'Use at least']);
  });

  it('in French: one error, then set up and signed in', async () => {
    const v = visitor('fr');
    const page = await v.get('/setup');
    inLanguage(page, 'fr', ['<h1>Bienvenue</h1>', 'Nom de l’entreprise', 'Devise', 'Créer le compte et se connecter'], ['Welcome']);
    const bad = await v.request('POST', '/setup', { form: { _csrf: Browserish.csrfOf(page.text), email: 'owner@pages-i18n.test', password: 'short', company: 'Société Pages', currency: 'EUR' } });
    expect(bad.status).toBe(422);
    inLanguage(bad, 'fr', ['Veuillez corriger le champ signalé ci-dessous.', 'Utilisez au moins 8 caractères.']);
    const done = await v.request('POST', '/setup', { form: { _csrf: Browserish.csrfOf(bad.text), email: 'owner@pages-i18n.test', password: 'password123', company: 'Société Pages', currency: 'EUR' } });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/app');
    const app = await v.get('/app');
    inLanguage(app, 'fr', ['Cette application nécessite JavaScript.'], ['needs JavaScript']);
  });
});

describe('sign-in', () => {
  it('in English without Accept-Language, or one the service does not have', async () => {
    for (const r of [await visitor('en').get('/login'), await visitor('en').get('/login', { 'accept-language': 'es-ES,it;q=0.8' })]) {
      inLanguage(r, 'en', ['<title>Sign in · Invoicing</title>', '<label for="email">Email</label>', 'Forgot your password?'], ['Anmelden', 'Connexion']);
    }
  });

  it.each([
    { lang: 'de' as const, says: ['<title>Anmelden · Invoicing</title>', '<h1>Anmelden</h1>', '<label for="email">E-Mail-Adresse</label>', '<label for="password">Passwort</label>', 'Passwort vergessen?'], missing: 'Geben Sie Ihre E-Mail-Adresse und Ihr Passwort ein.', wrong: 'E-Mail-Adresse oder Passwort ist falsch.', setup: 'Die Einrichtung ist abgeschlossen: Melden Sie sich an.' },
    { lang: 'fr' as const, says: ['<title>Connexion · Invoicing</title>', '<h1>Connexion</h1>', '<label for="email">Adresse e-mail</label>', '<label for="password">Mot de passe</label>', 'Se connecter</button>', 'Mot de passe oublié\u00a0?'], missing: 'Saisissez votre adresse e-mail et votre mot de passe.', wrong: 'Adresse e-mail ou mot de passe incorrect.', setup: 'La configuration est terminée\u00a0: connectez-vous.' },
  ])('in $lang: the form, its refusals, its notice; the language of the request, not of a page before', async ({ lang, says, missing, wrong, setup }) => {
    const v = visitor(lang);
    const page = await v.get('/login');
    expect(page.status).toBe(200);
    inLanguage(page, lang, says, ['Sign in', 'Password', 'Forgot your password']);
    const empty = await v.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(page.text), email: '', password: '' } });
    expect(empty.status).toBe(400);
    inLanguage(empty, lang, [missing]);
    const bad = await v.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(empty.text), email: 'owner@pages-i18n.test', password: 'not the password' } });
    expect(bad.status).toBe(401);
    inLanguage(bad, lang, [wrong, 'value="owner@pages-i18n.test"'], ['Wrong email or password']);
    inLanguage(await v.get('/login?setup=done'), lang, [setup], ['Set-up is complete']);
    // The same visitor in English the next time its browser asks so.
    inLanguage(await v.get('/login', { 'accept-language': 'en-GB' }), 'en', ['<h1>Sign in</h1>', 'Forgot your password?']);
    const ok = await v.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(bad.text), email: 'owner@pages-i18n.test', password: 'password123' } });
    expect(ok.status).toBe(303);
  });

  it('a refused form (a wrong security token, another site) and another company’s switch, in the request’s language', async () => {
    const fr = visitor('fr');
    await fr.get('/login');
    const forged = await fr.request('POST', '/login', { form: { _csrf: 'forged', email: 'owner@pages-i18n.test', password: 'password123' } });
    expect(forged.status).toBe(403);
    inLanguage(forged, 'fr', ['<h1>Formulaire expiré</h1>', 'Le jeton de sécurité de ce formulaire est absent ou incorrect. Rechargez la page et réessayez.', '>Recharger</a>'], ['Form expired']);
    const de = visitor('de');
    const page = await de.get('/login');
    const cross = await de.request('POST', '/login', { form: { _csrf: Browserish.csrfOf(page.text), email: 'x@y.test', password: 'whatever1' }, headers: { origin: 'https://elsewhere.example' } });
    expect(cross.status).toBe(403);
    inLanguage(cross, 'de', ['Diese Anfrage kam von einer anderen Website.']);
    expect((await de.login('owner@pages-i18n.test', 'password123')).status).toBe(303);
    const csrf = await de.csrf();
    const other = await de.request('POST', '/profile/switch-company', { form: { _csrf: csrf, companyId: '00000000-0000-7000-8000-000000000000' } });
    expect(other.status).toBe(403);
    inLanguage(other, 'de', ['<h1>Kein Mitglied</h1>', 'Sie sind kein Mitglied dieses Unternehmens.', '>Zurück</a>']);
  });
});

describe('invitations', () => {
  let admin: Client;
  beforeAll(async () => {
    admin = client(t, await tokenFor(t, { email: 'boss@acme-pages.test', company: 'Acme & Söhne' }));
    await tokenFor(t, { email: 'known@pages-i18n.test', company: 'Elsewhere' });
  });
  const invite = async (email: string, role: string) => {
    const r = await admin.post('/api/invitations', { email, role });
    expect(r.status, r.text).toBe(201);
    return tokenOf(r.body.link);
  };

  it('in German: a new person, a password too short, then joined', async () => {
    const token = await invite('neu@pages-i18n.test', 'member');
    const v = visitor('de');
    const page = await v.get(`/invite/${token}`);
    expect(page.status).toBe(200);
    inLanguage(page, 'de', ['<title>Beitreten · Invoicing</title>', '<h1>Acme &#38; Söhne beitreten</h1>', 'Sie sind als Mitglied eingeladen, mit der Adresse neu@pages-i18n.test.', '<label for="name">Ihr Name</label>', 'Mindestens 8 Zeichen.', 'Konto anlegen und beitreten'], ['You are invited', 'Join ']);
    const short = await v.request('POST', `/invite/${token}`, { form: { _csrf: Browserish.csrfOf(page.text), name: 'Nele', password: 'short' } });
    expect(short.status).toBe(422);
    inLanguage(short, 'de', ['Verwenden Sie 8 bis 1024 Zeichen.'], ['Use 8 to']);
    const joined = await v.request('POST', `/invite/${token}`, { form: { _csrf: Browserish.csrfOf(short.text), name: 'Nele', password: 'a long password' } });
    expect(joined.status).toBe(303);
    // Used: the link is gone, said in German.
    const gone = await visitor('de').get(`/invite/${token}`);
    expect(gone.status).toBe(410);
    inLanguage(gone, 'de', ['<h1>Link ungültig</h1>', 'Dieser Einladungslink ist nicht mehr gültig: Er wurde verwendet, widerrufen oder ist abgelaufen.', '>Anmelden</a>'], ['not valid any more']);
  });

  it('in French: a person with an account signs in to join; a wrong password is refused', async () => {
    const token = await invite('known@pages-i18n.test', 'admin');
    const v = visitor('fr');
    const page = await v.get(`/invite/${token}`);
    inLanguage(page, 'fr', ['<h1>Rejoindre Acme &#38; Söhne</h1>', 'Vous êtes invité en tant qu’administrateur, avec l’adresse known@pages-i18n.test.', 'Cette adresse a déjà un compte\u00a0: connectez-vous avec son mot de passe pour rejoindre l’entreprise.', 'Se connecter et rejoindre'], ['This address has an account']);
    const wrong = await v.request('POST', `/invite/${token}`, { form: { _csrf: Browserish.csrfOf(page.text), password: 'not it at all' } });
    expect(wrong.status).toBe(422);
    inLanguage(wrong, 'fr', ['<p class="alert" role="alert">Le mot de passe n’est pas correct.</p>']);
    const gone = await visitor('fr').get(`/invite/${'x'.repeat(43)}`);
    expect(gone.status).toBe(410);
    inLanguage(gone, 'fr', ['<h1>Lien non valide</h1>', 'Ce lien d’invitation n’est plus valide\u00a0: il a été utilisé, révoqué ou a expiré.', '>Connexion</a>']);
  });
});

describe('password reset', () => {
  beforeAll(async () => {
    await tokenFor(t, { email: 'forgets@pages-i18n.test', company: 'Forgetful' });
    await tokenFor(t, { email: 'oublie@pages-i18n.test', company: 'Forgetful' });
  });
  const lastResetToken = async (to: string) => /\/reset\/([A-Za-z0-9_-]+)/.exec((await q<{ body: string }>(sql`select body from account_emails where purpose = 'reset' and "to" = ${to} order by created_at desc, id desc limit 1`))[0]!.body)![1]!;

  it('in German: asked for (an empty address refused), the new password set (too short refused), the link then gone; signed in with the notice', async () => {
    const v = visitor('de');
    const page = await v.get('/reset');
    inLanguage(page, 'de', ['<title>Passwort zurücksetzen · Invoicing</title>', '<h1>Passwort zurücksetzen</h1>', 'Link senden', 'Zurück zur Anmeldung'], ['Send me a link', 'Back to sign in']);
    const empty = await v.request('POST', '/reset', { form: { _csrf: Browserish.csrfOf(page.text), email: '' } });
    expect(empty.status).toBe(400);
    inLanguage(empty, 'de', ['Geben Sie Ihre E-Mail-Adresse ein.']);
    const asked = await v.request('POST', '/reset', { form: { _csrf: Browserish.csrfOf(empty.text), email: 'forgets@pages-i18n.test' } });
    expect(asked.status).toBe(200);
    inLanguage(asked, 'de', ['Wenn ein Konto diese Adresse hat, ist eine E-Mail mit einem Link zum Zurücksetzen seines Passworts unterwegs.'], ['If an account has']);
    const token = await lastResetToken('forgets@pages-i18n.test');

    const form = await v.get(`/reset/${token}`);
    expect(form.status).toBe(200);
    inLanguage(form, 'de', ['<title>Neues Passwort · Invoicing</title>', '<h1>Wählen Sie ein neues Passwort</h1>', '<label for="password">Neues Passwort</label>', 'Passwort speichern'], ['Choose a new password']);
    const short = await v.request('POST', `/reset/${token}`, { form: { _csrf: Browserish.csrfOf(form.text), password: 'short' } });
    expect(short.status).toBe(422);
    inLanguage(short, 'de', ['Verwenden Sie 8 bis 1024 Zeichen.']);
    const set = await v.request('POST', `/reset/${token}`, { form: { _csrf: Browserish.csrfOf(short.text), password: 'brand new secret' } });
    expect(set.status).toBe(303);
    expect(set.location).toBe('/login?reset=done');
    inLanguage(await v.get('/login?reset=done'), 'de', ['Ihr Passwort ist geändert: Melden Sie sich damit an.']);
    const gone = await v.get(`/reset/${token}`);
    expect(gone.status).toBe(410);
    inLanguage(gone, 'de', ['Dieser Link zum Zurücksetzen ist nicht mehr gültig']);
  });

  it('in French: too many requests for one address, with the wait in minutes', async () => {
    const v = visitor('fr');
    let page = await v.get('/reset');
    inLanguage(page, 'fr', ['<h1>Réinitialiser votre mot de passe</h1>', 'M’envoyer un lien', 'Retour à la connexion']);
    for (let i = 0; i < 5; i++) {
      page = await v.request('POST', '/reset', { form: { _csrf: Browserish.csrfOf(page.text), email: 'oublie@pages-i18n.test' } });
      expect(page.status).toBe(200);
      inLanguage(page, 'fr', ['Si un compte a cette adresse, un e-mail avec un lien pour réinitialiser son mot de passe est en route.']);
    }
    const sixth = await v.request('POST', '/reset', { form: { _csrf: Browserish.csrfOf(page.text), email: 'oublie@pages-i18n.test' } });
    expect(sixth.status).toBe(429);
    inLanguage(sixth, 'fr', ['Trop de demandes de lien de réinitialisation. Réessayez dans 60 minutes.'], ['Too many']);
    // The link's own page, in French.
    const token = await lastResetToken('oublie@pages-i18n.test');
    inLanguage(await v.get(`/reset/${token}`), 'fr', ['<h1>Choisissez un nouveau mot de passe</h1>', 'Enregistrer le mot de passe', 'Au moins 8 caractères.']);
  });
});

describe('one’s own password', () => {
  it('in German (the page) and French (the application’s JSON refusal)', async () => {
    const v = visitor('de');
    expect((await v.login('owner@pages-i18n.test', 'password123')).status).toBe(303);
    const page = await v.get('/profile/password');
    inLanguage(page, 'de', ['<h1>Ihr Passwort ändern</h1>', '<label for="current">Aktuelles Passwort</label>', 'Zurück zur Anwendung'], ['Change your password']);
    const wrong = await v.request('POST', '/profile/password', { form: { _csrf: Browserish.csrfOf(page.text), current: 'nope nope', password: 'the next secret' } });
    expect(wrong.status).toBe(422);
    inLanguage(wrong, 'de', ['Das aktuelle Passwort ist nicht richtig.']);
    const json = await v.request('POST', '/profile/password', { json: { current: 'nope nope', password: 'the next secret' }, headers: { accept: 'application/json', 'x-csrf-token': Browserish.csrfOf(page.text), 'accept-language': 'fr-FR' } });
    expect(json.status).toBe(422);
    expect(json.headers.get('content-language')).toBe('fr');
    expect(json.body).toMatchObject({ detail: 'Le mot de passe actuel n’est pas correct.', violations: [{ propertyPath: 'current', message: 'Le mot de passe actuel n’est pas correct.' }] });
    const ok = await v.request('POST', '/profile/password', { form: { _csrf: Browserish.csrfOf(page.text), current: 'password123', password: 'the next secret' } });
    expect(ok.status).toBe(200);
    inLanguage(ok, 'de', ['Ihr Passwort ist geändert.']);
  });
});
