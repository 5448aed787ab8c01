// Entry point of /app. The server puts the session (user, company, role, CSRF token) in the #boot
// data block, with the address of the model's description (http/describe.ts): a module at a
// content-hashed address per language, preloaded by the page and cached for a year, which also
// gives the catalogue of the application's words in that language. Everything else is built from them.
import { render } from 'preact';
import { html } from '../lib/html.js';
import { setCsrf } from './api.js';
import { App } from './views/shell.js';
import { setLanguage } from './lib.js';

const boot = JSON.parse(document.getElementById('boot').textContent);
setCsrf(boot.csrf);
if (typeof boot.description === 'string') {
  // The description in the person's language, with the catalogue of /app's words (`messages`), in one module.
  const { default: description, messages } = await import(boot.description);
  boot.description = description;
  setLanguage(boot.language, boot.locale, messages);
}
render(html`<${App} boot=${boot} />`, document.getElementById('app'));
