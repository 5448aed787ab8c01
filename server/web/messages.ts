// What the server-rendered account pages say (CONTRACT §20): sign-in, first-run set-up, an
// invitation, a password reset and its request, changing one's password, and the pages of a
// refused form. English, German and French, ICU messages formatted by intl-messageformat as the
// documents' (server/documents/messages.ts) and the account e-mails' (server/email/account-messages.ts)
// are; see docs/languages.md. The pages escape what a message returns: values (a company's name,
// an address) are text, never parsed as messages or HTML. Apostrophes are typographic (’): an ASCII
// one is ICU's quoting character.
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES, languageOf, type Language } from '../../http/languages.ts';

const EN = {
  page: '{title} · Invoicing',
  email: 'Email',
  password: 'Password',
  passwordHint: 'At least {min, plural, one {# character} other {# characters}}.',
  // Sign-in.
  signInTitle: 'Sign in',
  signInButton: 'Sign in',
  forgotPassword: 'Forgot your password?',
  setupDone: 'Set-up is complete: sign in.',
  resetDone: 'Your password is changed: sign in with it.',
  signInThrottled: 'Too many failed sign-in attempts. Try again in {minutes, plural, one {# minute} other {# minutes}}.',
  signInMissing: 'Enter your email and password.',
  signInWrong: 'Wrong email or password.',
  // First-run set-up.
  setupTitle: 'Set up',
  setupHeading: 'Welcome',
  setupIntro: 'Create the first user and the company they work for. You can add people and companies later with the command line.',
  setupInvalid: 'Please correct {count, plural, one {the field} other {the # fields}} marked below.',
  setupYou: 'You',
  setupNameOptional: 'Your name (optional)',
  setupCompany: 'Your company',
  companyName: 'Company name',
  currency: 'Currency',
  currencyHint: 'The default currency of new clients.',
  setupButton: 'Create account and sign in',
  emailMissing: 'Enter your email address.',
  emailInvalid: 'Enter a valid email address.',
  tooShort: 'Use at least {min, plural, one {# character} other {# characters}}.',
  tooLong: 'Use at most {max, plural, one {# character} other {# characters}}.',
  companyMissing: 'Enter the name of your company.',
  currencyMissing: 'Choose a currency.',
  // An invitation.
  joinTitle: 'Join',
  joinHeading: 'Join {company}',
  joinInvited: 'You are invited as {role, select, admin {an admin} member {a member} viewer {a viewer} other {{role}}}, with the address {email}.',
  joinExisting: 'This address has an account already: sign in with its password to join.',
  yourName: 'Your name',
  joinSignIn: 'Sign in and join',
  joinCreate: 'Create account and join',
  // A password reset, asked for and used; one's own password changed.
  resetTitle: 'Reset password',
  resetHeading: 'Reset your password',
  resetButton: 'Send me a link',
  backToSignIn: 'Back to sign in',
  resetSent: 'If an account has this address, an e-mail with a link to reset its password is on its way. The link works once, for an hour.',
  resetThrottled: 'Too many requests for a reset link. Try again in {minutes, plural, one {# minute} other {# minutes}}.',
  newPasswordTitle: 'New password',
  newPasswordHeading: 'Choose a new password',
  changePasswordTitle: 'Change password',
  changePasswordHeading: 'Change your password',
  currentPassword: 'Current password',
  newPassword: 'New password',
  savePassword: 'Save the password',
  backToApp: 'Back to the application',
  passwordChanged: 'Your password is changed.',
  // The refusals of server/people.ts (AccountError).
  wrongPassword: 'The password is not right.',
  passwordLength: 'Use {min} to {max} characters.',
  currentWrong: 'The current password is not right.',
  linkGoneTitle: 'Link not valid',
  invitationGone: 'This invitation link is not valid any more: it was used, revoked or has expired.',
  resetGone: 'This reset link is not valid any more: it was used, revoked or has expired.',
  // A refused form; another company.
  formExpiredTitle: 'Form expired',
  crossSite: 'This request came from another site. Reload the page and try again.',
  csrfWrong: 'The security token of this form is missing or wrong. Reload the page and try again.',
  reload: 'Reload',
  notMemberTitle: 'Not a member',
  notMember: 'You are not a member of that company.',
  back: 'Back',
  // /app without JavaScript.
  needsJavaScript: 'This application needs JavaScript.',
};

export type PageMessage = keyof typeof EN;

const CATALOGUE: Record<Language, Record<PageMessage, string>> = {
  en: EN,
  de: {
    page: '{title} · Invoicing',
    email: 'E-Mail-Adresse',
    password: 'Passwort',
    passwordHint: 'Mindestens {min, plural, one {# Zeichen} other {# Zeichen}}.',
    signInTitle: 'Anmelden',
    signInButton: 'Anmelden',
    forgotPassword: 'Passwort vergessen?',
    setupDone: 'Die Einrichtung ist abgeschlossen: Melden Sie sich an.',
    resetDone: 'Ihr Passwort ist geändert: Melden Sie sich damit an.',
    signInThrottled: 'Zu viele fehlgeschlagene Anmeldeversuche. Versuchen Sie es in {minutes, plural, one {# Minute} other {# Minuten}} erneut.',
    signInMissing: 'Geben Sie Ihre E-Mail-Adresse und Ihr Passwort ein.',
    signInWrong: 'E-Mail-Adresse oder Passwort ist falsch.',
    setupTitle: 'Einrichtung',
    setupHeading: 'Willkommen',
    setupIntro: 'Legen Sie den ersten Benutzer und das Unternehmen an, für das er arbeitet. Weitere Personen und Unternehmen können Sie später über die Kommandozeile hinzufügen.',
    setupInvalid: 'Bitte korrigieren Sie {count, plural, one {das unten markierte Feld} other {die # unten markierten Felder}}.',
    setupYou: 'Sie',
    setupNameOptional: 'Ihr Name (optional)',
    setupCompany: 'Ihr Unternehmen',
    companyName: 'Name des Unternehmens',
    currency: 'Währung',
    currencyHint: 'Die Standardwährung neuer Kunden.',
    setupButton: 'Konto anlegen und anmelden',
    emailMissing: 'Geben Sie Ihre E-Mail-Adresse ein.',
    emailInvalid: 'Geben Sie eine gültige E-Mail-Adresse ein.',
    tooShort: 'Verwenden Sie mindestens {min, plural, one {# Zeichen} other {# Zeichen}}.',
    tooLong: 'Verwenden Sie höchstens {max, plural, one {# Zeichen} other {# Zeichen}}.',
    companyMissing: 'Geben Sie den Namen Ihres Unternehmens ein.',
    currencyMissing: 'Wählen Sie eine Währung.',
    joinTitle: 'Beitreten',
    joinHeading: '{company} beitreten',
    joinInvited: 'Sie sind als {role, select, admin {Admin} member {Mitglied} viewer {Leser} other {{role}}} eingeladen, mit der Adresse {email}.',
    joinExisting: 'Diese Adresse hat bereits ein Konto: Melden Sie sich mit seinem Passwort an, um beizutreten.',
    yourName: 'Ihr Name',
    joinSignIn: 'Anmelden und beitreten',
    joinCreate: 'Konto anlegen und beitreten',
    resetTitle: 'Passwort zurücksetzen',
    resetHeading: 'Passwort zurücksetzen',
    resetButton: 'Link senden',
    backToSignIn: 'Zurück zur Anmeldung',
    resetSent: 'Wenn ein Konto diese Adresse hat, ist eine E-Mail mit einem Link zum Zurücksetzen seines Passworts unterwegs. Der Link funktioniert einmal, eine Stunde lang.',
    resetThrottled: 'Zu viele Anfragen nach einem Link zum Zurücksetzen. Versuchen Sie es in {minutes, plural, one {# Minute} other {# Minuten}} erneut.',
    newPasswordTitle: 'Neues Passwort',
    newPasswordHeading: 'Wählen Sie ein neues Passwort',
    changePasswordTitle: 'Passwort ändern',
    changePasswordHeading: 'Ihr Passwort ändern',
    currentPassword: 'Aktuelles Passwort',
    newPassword: 'Neues Passwort',
    savePassword: 'Passwort speichern',
    backToApp: 'Zurück zur Anwendung',
    passwordChanged: 'Ihr Passwort ist geändert.',
    wrongPassword: 'Das Passwort ist nicht richtig.',
    passwordLength: 'Verwenden Sie {min} bis {max} Zeichen.',
    currentWrong: 'Das aktuelle Passwort ist nicht richtig.',
    linkGoneTitle: 'Link ungültig',
    invitationGone: 'Dieser Einladungslink ist nicht mehr gültig: Er wurde verwendet, widerrufen oder ist abgelaufen.',
    resetGone: 'Dieser Link zum Zurücksetzen ist nicht mehr gültig: Er wurde verwendet, widerrufen oder ist abgelaufen.',
    formExpiredTitle: 'Formular abgelaufen',
    crossSite: 'Diese Anfrage kam von einer anderen Website. Laden Sie die Seite neu und versuchen Sie es noch einmal.',
    csrfWrong: 'Das Sicherheitstoken dieses Formulars fehlt oder ist falsch. Laden Sie die Seite neu und versuchen Sie es noch einmal.',
    reload: 'Neu laden',
    notMemberTitle: 'Kein Mitglied',
    notMember: 'Sie sind kein Mitglied dieses Unternehmens.',
    back: 'Zurück',
    needsJavaScript: 'Diese Anwendung benötigt JavaScript.',
  },
  fr: {
    page: '{title} · Invoicing',
    email: 'Adresse e-mail',
    password: 'Mot de passe',
    passwordHint: 'Au moins {min, plural, one {# caractère} other {# caractères}}.',
    signInTitle: 'Connexion',
    signInButton: 'Se connecter',
    forgotPassword: 'Mot de passe oublié\u00a0?',
    setupDone: 'La configuration est terminée\u00a0: connectez-vous.',
    resetDone: 'Votre mot de passe est modifié\u00a0: connectez-vous avec celui-ci.',
    signInThrottled: 'Trop de tentatives de connexion échouées. Réessayez dans {minutes, plural, one {# minute} other {# minutes}}.',
    signInMissing: 'Saisissez votre adresse e-mail et votre mot de passe.',
    signInWrong: 'Adresse e-mail ou mot de passe incorrect.',
    setupTitle: 'Configuration',
    setupHeading: 'Bienvenue',
    setupIntro: 'Créez le premier utilisateur et l’entreprise pour laquelle il travaille. Vous pourrez ajouter des personnes et des entreprises plus tard en ligne de commande.',
    setupInvalid: 'Veuillez corriger {count, plural, one {le champ signalé} other {les # champs signalés}} ci-dessous.',
    setupYou: 'Vous',
    setupNameOptional: 'Votre nom (facultatif)',
    setupCompany: 'Votre entreprise',
    companyName: 'Nom de l’entreprise',
    currency: 'Devise',
    currencyHint: 'La devise par défaut des nouveaux clients.',
    setupButton: 'Créer le compte et se connecter',
    emailMissing: 'Saisissez votre adresse e-mail.',
    emailInvalid: 'Saisissez une adresse e-mail valide.',
    tooShort: 'Utilisez au moins {min, plural, one {# caractère} other {# caractères}}.',
    tooLong: 'Utilisez au plus {max, plural, one {# caractère} other {# caractères}}.',
    companyMissing: 'Saisissez le nom de votre entreprise.',
    currencyMissing: 'Choisissez une devise.',
    joinTitle: 'Rejoindre',
    joinHeading: 'Rejoindre {company}',
    joinInvited: 'Vous êtes invité {role, select, admin {en tant qu’administrateur} member {en tant que membre} viewer {en tant que lecteur} other {en tant que {role}}}, avec l’adresse {email}.',
    joinExisting: 'Cette adresse a déjà un compte\u00a0: connectez-vous avec son mot de passe pour rejoindre l’entreprise.',
    yourName: 'Votre nom',
    joinSignIn: 'Se connecter et rejoindre',
    joinCreate: 'Créer le compte et rejoindre',
    resetTitle: 'Réinitialiser le mot de passe',
    resetHeading: 'Réinitialiser votre mot de passe',
    resetButton: 'M’envoyer un lien',
    backToSignIn: 'Retour à la connexion',
    resetSent: 'Si un compte a cette adresse, un e-mail avec un lien pour réinitialiser son mot de passe est en route. Le lien fonctionne une fois, pendant une heure.',
    resetThrottled: 'Trop de demandes de lien de réinitialisation. Réessayez dans {minutes, plural, one {# minute} other {# minutes}}.',
    newPasswordTitle: 'Nouveau mot de passe',
    newPasswordHeading: 'Choisissez un nouveau mot de passe',
    changePasswordTitle: 'Changer le mot de passe',
    changePasswordHeading: 'Changer votre mot de passe',
    currentPassword: 'Mot de passe actuel',
    newPassword: 'Nouveau mot de passe',
    savePassword: 'Enregistrer le mot de passe',
    backToApp: 'Retour à l’application',
    passwordChanged: 'Votre mot de passe est modifié.',
    wrongPassword: 'Le mot de passe n’est pas correct.',
    passwordLength: 'Utilisez de {min} à {max} caractères.',
    currentWrong: 'Le mot de passe actuel n’est pas correct.',
    linkGoneTitle: 'Lien non valide',
    invitationGone: 'Ce lien d’invitation n’est plus valide\u00a0: il a été utilisé, révoqué ou a expiré.',
    resetGone: 'Ce lien de réinitialisation n’est plus valide\u00a0: il a été utilisé, révoqué ou a expiré.',
    formExpiredTitle: 'Formulaire expiré',
    crossSite: 'Cette requête vient d’un autre site. Rechargez la page et réessayez.',
    csrfWrong: 'Le jeton de sécurité de ce formulaire est absent ou incorrect. Rechargez la page et réessayez.',
    reload: 'Recharger',
    notMemberTitle: 'Non membre',
    notMember: 'Vous n’êtes pas membre de cette entreprise.',
    back: 'Retour',
    needsJavaScript: 'Cette application nécessite JavaScript.',
  },
};

/** A message of a page with the values it names (a field's error, say). */
export interface Said {
  message: PageMessage;
  values?: Record<string, string | number>;
}

/** A page's words in one language. */
export interface PageText {
  readonly language: Language;
  /** The message `key` with `values` inserted (as text). */
  t(key: PageMessage, values?: Record<string, string | number>): string;
}

// Every message is parsed once, at start-up: a broken one stops the server, not a page.
const TEXTS = new Map<Language, PageText>(
  LANGUAGES.map((language) => {
    const compiled = new Map(Object.entries(CATALOGUE[language]).map(([k, m]) => [k, new IntlMessageFormat(m, language)]));
    return [language, { language, t: (key, values) => String(compiled.get(key)!.format(values)) }];
  }),
);

/** The account pages' words in `language`. */
export const pageText = (language: Language): PageText => TEXTS.get(language)!;

/** The catalogue's messages in `language` (for tests: same keys, every one parses). */
export const pageCatalogue = (language: Language): Readonly<Record<PageMessage, string>> => CATALOGUE[language];

/**
 * The language of a page for a request: the browser's (Accept-Language, as /app's:
 * http/languages.ts). Users have no language setting of their own (docs/languages.md), so a
 * signed-in person's pages follow the same rule as /app's, and the pages before sign-in the same.
 */
export const pageLanguage = (acceptLanguage: string | undefined): Language => languageOf(acceptLanguage).language;
