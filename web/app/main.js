// Entry point of /app. The server puts the session (user, company, role, CSRF token) in the #boot
// data block, with the address of the model's description (http/describe.ts): a module at a
// content-hashed address, preloaded by the page and cached for a year. Everything else is built
// from them.
import { render } from 'preact';
import { html } from '../lib/html.js';
import { setCsrf } from './api.js';
import { App } from './views/shell.js';

const boot = JSON.parse(document.getElementById('boot').textContent);
setCsrf(boot.csrf);
if (typeof boot.description === 'string') boot.description = (await import(boot.description)).default;
render(html`<${App} boot=${boot} />`, document.getElementById('app'));
