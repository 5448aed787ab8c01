// The four summary cards above the token list.
import { html } from '../lib/html.js';
import { dateTime, number, plural, relative } from '../lib/format.js';

function Card({ label, children, testid }) {
  return html`<li class="card" data-testid=${testid}>
    <h2 class="card-label">${label}</h2>
    ${children}
  </li>`;
}

export function SummaryCards({ summary }) {
  const s = summary;
  const loading = !s;
  return html`<ul class="cards" aria-label="Summary" aria-busy=${loading ? 'true' : 'false'}>
    <${Card} label="Active Tokens" testid="card-active">
      <p class="card-value">${loading ? '…' : number(s.activeTokens)}</p>
    <//>
    <${Card} label="API Calls This Month" testid="card-calls">
      <p class="card-value">${loading ? '…' : number(s.apiCallsThisMonth)}</p>
    <//>
    <${Card} label="Last Activity" testid="card-last">
      ${loading
        ? html`<p class="card-value">…</p>`
        : s.lastActivity
          ? html`<p class="card-value card-value-text"><time datetime=${s.lastActivity} title=${s.lastActivity}>${relative(s.lastActivity)}</time></p>
              <p class="card-note">${dateTime(s.lastActivity)}</p>`
          : html`<p class="card-value card-value-text muted">No activity yet</p>`}
    <//>
    <${Card} label="Most Used Token" testid="card-most">
      ${loading
        ? html`<p class="card-value">…</p>`
        : s.mostUsedToken
          ? html`<p class="card-value card-value-text truncate" title=${s.mostUsedToken.name}>${s.mostUsedToken.name}</p>
              <p class="card-note">${plural(s.mostUsedToken.usageCount, 'request')}</p>`
          : html`<p class="card-value card-value-text muted">None used yet</p>`}
    <//>
  </ul>`;
}
