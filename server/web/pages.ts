// The HTML of the web pages, in the request's language (their words: server/web/messages.ts).
// Sign-in and set-up are plain server-rendered forms (they work without JavaScript); /app is a
// shell that loads the application's ES modules (web/app/). No page has an inline script other
// than the import map, which the Content-Security-Policy allows by its hash.
import { createHash } from 'node:crypto';
import { assetUrl, IMPORT_MAP } from './static.ts';
import { readAsset } from '../assets.ts';
import type { PageMessage, PageText } from './messages.ts';
import { MIN_PASSWORD, type SetupErrors, type SetupInput } from './setup.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const importMap = JSON.stringify(IMPORT_MAP);

// The icon, in the page (a data: address, 177 bytes): one request fewer on every first load.
const FAVICON = `data:image/svg+xml,${encodeURIComponent(readAsset('web', 'favicon.svg').toString('utf8').trim())}`;

/** The Content-Security-Policy of every page: scripts from this server only (and the import map). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(importMap).digest('base64')}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function layout(o: { text: PageText; title: string; body: string; head?: string; bodyClass?: string; stylesheet?: string }): string {
  return `<!doctype html>
<html lang="${o.text.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.text.t('page', { title: o.title }))}</title>
<link rel="icon" href="${FAVICON}" type="image/svg+xml">
<link rel="stylesheet" href="${o.stylesheet ?? assetUrl('app', 'styles.css')}">
${o.head ?? ''}</head>
<body${o.bodyClass ? ` class="${o.bodyClass}"` : ''}>
${o.body}
</body>
</html>
`;
}

function field(o: { id: string; label: string; type?: string; value?: string; error?: string | undefined; autocomplete?: string; required?: boolean; hint?: string; extra?: string }): string {
  const described = [o.hint ? `${o.id}-hint` : '', o.error ? `${o.id}-error` : ''].filter(Boolean).join(' ');
  return `<div class="field">
  <label for="${o.id}">${esc(o.label)}</label>
  ${o.hint ? `<p class="hint" id="${o.id}-hint">${esc(o.hint)}</p>` : ''}
  <input id="${o.id}" name="${o.id}" type="${o.type ?? 'text'}"${o.value ? ` value="${esc(o.value)}"` : ''}${o.autocomplete ? ` autocomplete="${o.autocomplete}"` : ''}${o.required ? ' required' : ''}${o.error ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}${o.extra ?? ''}>
  ${o.error ? `<p class="field-error" id="${o.id}-error">${esc(o.error)}</p>` : ''}
</div>`;
}

/** A notice (role=status) and an alert (role=alert), each when given. */
const notices = (o: { notice?: string | undefined; error?: string | undefined }) =>
  `${o.notice ? `<p class="notice" role="status">${esc(o.notice)}</p>\n` : ''}${o.error ? `<p class="alert" role="alert">${esc(o.error)}</p>\n` : ''}`;

function authPage(text: PageText, title: string, inner: string): string {
  return layout({
    text,
    title,
    bodyClass: 'auth-body',
    body: `<main class="auth">
  <p class="brand" aria-hidden="true"><span class="brand-mark">i</span> Invoicing</p>
  <div class="auth-card">
${inner}
  </div>
</main>`,
  });
}

export function loginPage(o: { text: PageText; csrf: string; email?: string; next?: string; error?: string; notice?: string }): string {
  const { t } = o.text;
  return authPage(
    o.text,
    t('signInTitle'),
    `<h1>${esc(t('signInTitle'))}</h1>
${notices(o)}<form method="post" action="/login" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${o.next ? `<input type="hidden" name="next" value="${esc(o.next)}">` : ''}
  ${field({ id: 'email', label: t('email'), type: 'email', value: o.email, autocomplete: 'username', required: true, extra: o.error ? '' : ' autofocus' })}
  ${field({ id: 'password', label: t('password'), type: 'password', autocomplete: 'current-password', required: true, extra: o.error ? ' autofocus' : '' })}
  <button type="submit" class="btn primary wide">${esc(t('signInButton'))}</button>
</form>
<p><a href="/reset">${esc(t('forgotPassword'))}</a></p>`,
  );
}

export function setupPage(o: { text: PageText; csrf: string; input?: Partial<SetupInput>; errors?: SetupErrors; currencies: string[] }): string {
  const { t } = o.text;
  const e = Object.fromEntries(Object.entries(o.errors ?? {}).map(([k, said]) => [k, t(said.message, said.values)])) as Partial<Record<keyof SetupInput, string>>;
  const v = o.input ?? {};
  const chosen = v.currency || 'USD';
  const options = o.currencies.map((c) => `<option value="${c}"${c === chosen ? ' selected' : ''}>${c}</option>`).join('');
  const count = Object.keys(e).length;
  return authPage(
    o.text,
    t('setupTitle'),
    `<h1>${esc(t('setupHeading'))}</h1>
<p class="muted">${esc(t('setupIntro'))}</p>
${count ? `<p class="alert" role="alert">${esc(t('setupInvalid', { count }))}</p>` : ''}
<form method="post" action="/setup" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  <fieldset>
    <legend>${esc(t('setupYou'))}</legend>
    ${field({ id: 'name', label: t('setupNameOptional'), value: v.name, autocomplete: 'name' })}
    ${field({ id: 'email', label: t('email'), type: 'email', value: v.email, autocomplete: 'username', required: true, error: e.email })}
    ${field({ id: 'password', label: t('password'), type: 'password', autocomplete: 'new-password', required: true, error: e.password, hint: t('passwordHint', { min: MIN_PASSWORD }), extra: ` minlength="${MIN_PASSWORD}"` })}
  </fieldset>
  <fieldset>
    <legend>${esc(t('setupCompany'))}</legend>
    ${field({ id: 'company', label: t('companyName'), value: v.company, autocomplete: 'organization', required: true, error: e.company })}
    <div class="field">
      <label for="currency">${esc(t('currency'))}</label>
      <p class="hint" id="currency-hint">${esc(t('currencyHint'))}</p>
      <select id="currency" name="currency" aria-describedby="currency-hint${e.currency ? ' currency-error' : ''}"${e.currency ? ' aria-invalid="true"' : ''}>${options}</select>
      ${e.currency ? `<p class="field-error" id="currency-error">${esc(e.currency)}</p>` : ''}
    </div>
  </fieldset>
  <button type="submit" class="btn primary wide">${esc(t('setupButton'))}</button>
</form>`,
  );
}

/** A page for a refused form (an expired CSRF token, too many attempts) or a link not valid any more. */
export function messagePage(text: PageText, title: PageMessage, message: PageMessage, link: { href: string; label: PageMessage }): string {
  const { t } = text;
  return authPage(text, t(title), `<h1>${esc(t(title))}</h1>\n<p class="alert" role="alert">${esc(t(message))}</p>\n<p><a class="btn" href="${esc(link.href)}">${esc(t(link.label))}</a></p>`);
}


/**
 * The modules every first view imports besides main.js, preloaded so that the browser fetches
 * them at once, not import by import. The views of one kind of address (a record, a form, the
 * dashboard) load when such an address is first shown (views/shell.js), not with a list.
 */
const APP_MODULES = ['views/shell.js', 'views/common.js', 'views/list.js', 'lib.js', 'money.js', 'api.js'];

/**
 * The shell of every /app address: the application's modules build the view from the boot data.
 * The model's description is a module of its own at a content-hashed address (`boot.description`,
 * cached for a year): the page itself stays small, and a warm load takes it from the cache.
 */
export function appPage(text: PageText, boot: { description: string; language: string; [k: string]: unknown }): string {
  const data = JSON.stringify(boot).replace(/</g, '\\u003c');
  return layout({
    text,
    title: 'Invoicing',
    // The site's styles and the application's in one sheet (server/web/static.ts COMBINED).
    stylesheet: assetUrl('app', 'app/page.css'),
    head: `<script type="importmap">${importMap}</script>
<link rel="modulepreload" href="${esc(boot.description)}">
<link rel="modulepreload" href="${IMPORT_MAP.imports['intl-messageformat']}">
${APP_MODULES.map((m) => `<link rel="modulepreload" href="${assetUrl('app', `app/${m}`)}">`).join('\n')}
<script type="module" src="${assetUrl('app', 'app/main.js')}"></script>
`,
    bodyClass: 'app-body',
    body: `<script type="application/json" id="boot">${data}</script>
<div id="app"><noscript><p class="alert">${esc(text.t('needsJavaScript'))}</p></noscript></div>`,
  });
}

/** An invitation's page (CONTRACT §20): a new person sets a name and password; a known one signs in. */
export function invitePage(o: { text: PageText; csrf: string; token: string; company: string; email: string; role: string; existingUser: boolean; name?: string; error?: string }): string {
  const { t } = o.text;
  return authPage(
    o.text,
    t('joinTitle'),
    `<h1>${esc(t('joinHeading', { company: o.company }))}</h1>
<p class="muted">${esc(t('joinInvited', { role: o.role, email: o.email }))}</p>
${notices(o)}<form method="post" action="/invite/${esc(o.token)}" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${
    o.existingUser
      ? `<p>${esc(t('joinExisting'))}</p>
  ${field({ id: 'password', label: t('password'), type: 'password', autocomplete: 'current-password', required: true })}`
      : `${field({ id: 'name', label: t('yourName'), value: o.name, autocomplete: 'name', required: true })}
  ${field({ id: 'password', label: t('password'), type: 'password', autocomplete: 'new-password', required: true, hint: t('passwordHint', { min: MIN_PASSWORD }), extra: ` minlength="${MIN_PASSWORD}"` })}`
  }
  <button type="submit" class="btn primary wide">${esc(t(o.existingUser ? 'joinSignIn' : 'joinCreate'))}</button>
</form>`,
  );
}

/** Asks for a password reset link (the same answer whether the address exists or not). */
export function resetRequestPage(o: { text: PageText; csrf: string; email?: string; notice?: string; error?: string }): string {
  const { t } = o.text;
  return authPage(
    o.text,
    t('resetTitle'),
    `<h1>${esc(t('resetHeading'))}</h1>
${notices(o)}<form method="post" action="/reset" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${field({ id: 'email', label: t('email'), type: 'email', value: o.email, autocomplete: 'username', required: true })}
  <button type="submit" class="btn primary wide">${esc(t('resetButton'))}</button>
</form>
<p><a href="/login">${esc(t('backToSignIn'))}</a></p>`,
  );
}

/** Sets a new password through a reset link, or (signed in) changes one's own. */
export function newPasswordPage(o: { text: PageText; csrf: string; action: string; current?: boolean; error?: string; notice?: string }): string {
  const { t } = o.text;
  return authPage(
    o.text,
    t(o.current ? 'changePasswordTitle' : 'newPasswordTitle'),
    `<h1>${esc(t(o.current ? 'changePasswordHeading' : 'newPasswordHeading'))}</h1>
${notices(o)}<form method="post" action="${esc(o.action)}" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${o.current ? field({ id: 'current', label: t('currentPassword'), type: 'password', autocomplete: 'current-password', required: true }) : ''}
  ${field({ id: 'password', label: t('newPassword'), type: 'password', autocomplete: 'new-password', required: true, hint: t('passwordHint', { min: MIN_PASSWORD }), extra: ` minlength="${MIN_PASSWORD}"` })}
  <button type="submit" class="btn primary wide">${esc(t('savePassword'))}</button>
</form>
${o.current ? `<p><a href="/app">${esc(t('backToApp'))}</a></p>` : ''}`,
  );
}
