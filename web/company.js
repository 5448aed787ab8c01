// Entry point of /profile/company (Settings → Company). The server puts the session's user,
// companies and CSRF token in the #boot data block.
import { render } from 'preact';
import { setCsrf } from './lib/api.js';
import { html } from './lib/html.js';
import { CompanyPage } from './components/company.js';

const boot = JSON.parse(document.getElementById('boot').textContent);
setCsrf(boot.csrf);
render(html`<${CompanyPage} boot=${boot} />`, document.getElementById('app'));
