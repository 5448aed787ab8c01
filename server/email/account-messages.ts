// What the account e-mails say (CONTRACT §20): invitations, in the inviting company's language
// (its profile's `locale`), and password resets, in the language the request asked for
// (Accept-Language; users have no language setting). ICU messages formatted by intl-messageformat,
// as the documents' catalogue (server/documents/messages.ts); see docs/languages.md.
import { IntlMessageFormat } from 'intl-messageformat';
import { localeOf, type Locale } from '../documents/messages.ts';

const CATALOGUE = {
  en: {
    invitationSubject: 'Invitation to {company} on Invoicing',
    invitationBody:
      '{who} invites you to join {company} as {role, select, admin {admin} member {member} viewer {viewer} other {{role}}}.\n\nAccept the invitation here (the link works once, for {days, plural, one {# day} other {# days}}):\n{link}\n\nIf you did not expect this e-mail, ignore it.',
    someone: 'An admin',
    resetSubject: 'Reset your Invoicing password',
    resetBody:
      'Someone asked to reset the password of {email}.\n\nSet a new password here (the link works once, for {minutes, plural, one {# minute} other {# minutes}}):\n{link}\n\nIf it was not you, ignore this e-mail: your password stays as it is.',
  },
  de: {
    invitationSubject: 'Einladung zu {company} bei Invoicing',
    invitationBody:
      '{who} lädt Sie ein, {company} als {role, select, admin {Admin} member {Mitglied} viewer {Leser} other {{role}}} beizutreten.\n\nNehmen Sie die Einladung hier an (der Link funktioniert einmal, {days, plural, one {# Tag} other {# Tage}} lang):\n{link}\n\nWenn Sie diese E-Mail nicht erwartet haben, ignorieren Sie sie.',
    someone: 'Ein Admin',
    resetSubject: 'Ihr Passwort für Invoicing zurücksetzen',
    resetBody:
      'Jemand hat darum gebeten, das Passwort von {email} zurückzusetzen.\n\nLegen Sie hier ein neues Passwort fest (der Link funktioniert einmal, {minutes, plural, one {# Minute} other {# Minuten}} lang):\n{link}\n\nWaren Sie das nicht, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.',
  },
  fr: {
    invitationSubject: 'Invitation à rejoindre {company} sur Invoicing',
    invitationBody:
      '{who} vous invite à rejoindre {company} {role, select, admin {en tant qu’administrateur} member {en tant que membre} viewer {en tant que lecteur} other {en tant que {role}}}.\n\nAcceptez l’invitation ici (le lien fonctionne une fois, pendant {days, plural, one {# jour} other {# jours}})\u00a0:\n{link}\n\nSi vous n’attendiez pas cet e-mail, ignorez-le.',
    someone: 'Un administrateur',
    resetSubject: 'Réinitialiser votre mot de passe Invoicing',
    resetBody:
      'Quelqu’un a demandé à réinitialiser le mot de passe de {email}.\n\nChoisissez un nouveau mot de passe ici (le lien fonctionne une fois, pendant {minutes, plural, one {# minute} other {# minutes}})\u00a0:\n{link}\n\nSi ce n’était pas vous, ignorez cet e-mail\u00a0: votre mot de passe reste inchangé.',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type AccountMessage = keyof (typeof CATALOGUE)['en'];

/** An account e-mail's message in `locale` (en, de, fr; else English). Values are text: a name with braces stays as typed. */
export function accountMessage(locale: unknown, key: AccountMessage, values: Record<string, string | number> = {}): string {
  const l = localeOf(locale);
  return String(new IntlMessageFormat(CATALOGUE[l][key], l).format(values));
}
