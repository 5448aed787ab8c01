// Entry point of /profile/webhooks (Settings → Webhooks). The server puts the session's user,
// companies and CSRF token in the #boot data block.
import { render } from 'preact';
import { setCsrf } from './lib/api.js';
import { html } from './lib/html.js';
import { WebhooksPage } from './components/webhooks.js';

const boot = JSON.parse(document.getElementById('boot').textContent);
setCsrf(boot.csrf);
render(html`<${WebhooksPage} boot=${boot} />`, document.getElementById('app'));
