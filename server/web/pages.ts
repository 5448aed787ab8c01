// The HTML of the web pages. Sign-in and set-up are plain server-rendered forms (they work
// without JavaScript); /app is a shell that loads the application's ES modules (web/app/). No page
// has an inline script other than the import map, which the Content-Security-Policy allows by
// its hash.
import { createHash } from 'node:crypto';
import { assetUrl, IMPORT_MAP } from './static.ts';
import { readAsset } from '../assets.ts';
import type { SetupErrors, SetupInput } from './setup.ts';

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

function layout(o: { title: string; body: string; head?: string; bodyClass?: string; lang?: string; stylesheet?: string }): string {
  return `<!doctype html>
<html lang="${o.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)} · Invoicing</title>
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

function authPage(title: string, inner: string): string {
  return layout({
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

export function loginPage(o: { csrf: string; email?: string; next?: string; error?: string; notice?: string }): string {
  return authPage(
    'Sign in',
    `<h1>Sign in</h1>
${o.notice ? `<p class="notice" role="status">${esc(o.notice)}</p>` : ''}
${o.error ? `<p class="alert" role="alert">${esc(o.error)}</p>` : ''}
<form method="post" action="/login" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${o.next ? `<input type="hidden" name="next" value="${esc(o.next)}">` : ''}
  ${field({ id: 'email', label: 'Email', type: 'email', value: o.email, autocomplete: 'username', required: true, extra: o.error ? '' : ' autofocus' })}
  ${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true, extra: o.error ? ' autofocus' : '' })}
  <button type="submit" class="btn primary wide">Sign in</button>
</form>
<p><a href="/reset">Forgot your password?</a></p>`,
  );
}

export function setupPage(o: { csrf: string; input?: Partial<SetupInput>; errors?: SetupErrors; currencies: string[] }): string {
  const e = o.errors ?? {};
  const v = o.input ?? {};
  const chosen = v.currency || 'USD';
  const options = o.currencies.map((c) => `<option value="${c}"${c === chosen ? ' selected' : ''}>${c}</option>`).join('');
  const count = Object.keys(e).length;
  return authPage(
    'Set up',
    `<h1>Welcome</h1>
<p class="muted">Create the first user and the company they work for. You can add people and companies later with the command line.</p>
${count ? `<p class="alert" role="alert">Please correct ${count === 1 ? 'the field' : `the ${count} fields`} marked below.</p>` : ''}
<form method="post" action="/setup" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  <fieldset>
    <legend>You</legend>
    ${field({ id: 'name', label: 'Your name (optional)', value: v.name, autocomplete: 'name' })}
    ${field({ id: 'email', label: 'Email', type: 'email', value: v.email, autocomplete: 'username', required: true, error: e.email })}
    ${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, error: e.password, hint: 'At least 8 characters.', extra: ' minlength="8"' })}
  </fieldset>
  <fieldset>
    <legend>Your company</legend>
    ${field({ id: 'company', label: 'Company name', value: v.company, autocomplete: 'organization', required: true, error: e.company })}
    <div class="field">
      <label for="currency">Currency</label>
      <p class="hint" id="currency-hint">The default currency of new clients.</p>
      <select id="currency" name="currency" aria-describedby="currency-hint${e.currency ? ' currency-error' : ''}"${e.currency ? ' aria-invalid="true"' : ''}>${options}</select>
      ${e.currency ? `<p class="field-error" id="currency-error">${esc(e.currency)}</p>` : ''}
    </div>
  </fieldset>
  <button type="submit" class="btn primary wide">Create account and sign in</button>
</form>`,
  );
}

/** A page for a refused form (an expired CSRF token, too many attempts). */
export function messagePage(title: string, message: string, link: { href: string; label: string }): string {
  return authPage(title, `<h1>${esc(title)}</h1>\n<p class="alert" role="alert">${esc(message)}</p>\n<p><a class="btn" href="${esc(link.href)}">${esc(link.label)}</a></p>`);
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
export function appPage(boot: { description: string; language: string; [k: string]: unknown }): string {
  const data = JSON.stringify(boot).replace(/</g, '\\u003c');
  return layout({
    title: 'Invoicing',
    lang: boot.language,
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
<div id="app"><noscript><p class="alert">This application needs JavaScript.</p></noscript></div>`,
  });
}

/** An invitation's page (CONTRACT §20): a new person sets a name and password; a known one signs in. */
export function invitePage(o: { csrf: string; token: string; company: string; email: string; role: string; existingUser: boolean; name?: string; error?: string }): string {
  const article = o.role === 'admin' ? 'an' : 'a';
  return authPage(
    'Join',
    `<h1>Join ${esc(o.company)}</h1>
<p class="muted">You are invited as ${article} ${esc(o.role)}, with the address ${esc(o.email)}.</p>
${o.error ? `<p class="alert" role="alert">${esc(o.error)}</p>` : ''}
<form method="post" action="/invite/${esc(o.token)}" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${
    o.existingUser
      ? `<p>This address has an account already: sign in with its password to join.</p>
  ${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true })}`
      : `${field({ id: 'name', label: 'Your name', value: o.name, autocomplete: 'name', required: true })}
  ${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, hint: 'At least 8 characters.', extra: ' minlength="8"' })}`
  }
  <button type="submit" class="btn primary wide">${o.existingUser ? 'Sign in and join' : 'Create account and join'}</button>
</form>`,
  );
}

/** Asks for a password reset link (the same answer whether the address exists or not). */
export function resetRequestPage(o: { csrf: string; email?: string; notice?: string; error?: string }): string {
  return authPage(
    'Reset password',
    `<h1>Reset your password</h1>
${o.notice ? `<p class="notice" role="status">${esc(o.notice)}</p>` : ''}
${o.error ? `<p class="alert" role="alert">${esc(o.error)}</p>` : ''}
<form method="post" action="/reset" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${field({ id: 'email', label: 'Email', type: 'email', value: o.email, autocomplete: 'username', required: true })}
  <button type="submit" class="btn primary wide">Send me a link</button>
</form>
<p><a href="/login">Back to sign in</a></p>`,
  );
}

/** Sets a new password through a reset link, or (signed in) changes one's own. */
export function newPasswordPage(o: { csrf: string; action: string; current?: boolean; error?: string; notice?: string }): string {
  return authPage(
    o.current ? 'Change password' : 'New password',
    `<h1>${o.current ? 'Change your password' : 'Choose a new password'}</h1>
${o.notice ? `<p class="notice" role="status">${esc(o.notice)}</p>` : ''}
${o.error ? `<p class="alert" role="alert">${esc(o.error)}</p>` : ''}
<form method="post" action="${esc(o.action)}" class="stack">
  <input type="hidden" name="_csrf" value="${esc(o.csrf)}">
  ${o.current ? field({ id: 'current', label: 'Current password', type: 'password', autocomplete: 'current-password', required: true }) : ''}
  ${field({ id: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, hint: 'At least 8 characters.', extra: ' minlength="8"' })}
  <button type="submit" class="btn primary wide">Save the password</button>
</form>
${o.current ? '<p><a href="/app">Back to the application</a></p>' : ''}`,
  );
}
