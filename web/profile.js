// Entry point of /profile/api. The server puts the session's user, companies and CSRF token in
// the #boot data block.
import { render } from 'preact';
import { setCsrf } from './lib/api.js';
import { html } from './lib/html.js';
import { App } from './components/app.js';

const boot = JSON.parse(document.getElementById('boot').textContent);
setCsrf(boot.csrf);
render(html`<${App} boot=${boot} />`, document.getElementById('app'));
