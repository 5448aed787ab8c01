// Entry point of /app. The server puts the session (user, company, role, CSRF token) and the
// model's description (engine/describe.ts) in the #boot data block; everything else is built
// from them.
import { render } from 'preact';
import { html } from '../lib/html.js';
import { setCsrf } from './api.js';
import { App } from './views/shell.js';

const boot = JSON.parse(document.getElementById('boot').textContent);
setCsrf(boot.csrf);
render(html`<${App} boot=${boot} />`, document.getElementById('app'));
