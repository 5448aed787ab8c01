// "View History" for one token: the requests-per-day chart, then the most recent requests (at
// most 100), filtered by a date range (local days), method and status range.
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../lib/api.js';
import { dateTime, plural } from '../lib/format.js';
import { html } from '../lib/html.js';
import { UsageChart } from './chart.js';
import { Dialog } from './dialog.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const STATUSES = [
  ['2xx', '2xx Success'],
  ['3xx', '3xx Redirection'],
  ['4xx', '4xx Client error'],
  ['5xx', '5xx Server error'],
];
const NO_FILTERS = { from: '', to: '', method: '', status: '' };

/** Midnight starting a local day (YYYY-MM-DD), as an instant the server understands. */
const startOfDay = (day, plusDays = 0) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d + plusDays).toISOString();
};

const statusClass = (s) => `status status-${String(s)[0]}xx`;

export function HistoryDialog({ token, limit, onClose }) {
  const [filters, setFilters] = useState(NO_FILTERS);
  const [entries, setEntries] = useState(null);
  const [error, setError] = useState('');
  const badRange = filters.from && filters.to && filters.from > filters.to;

  useEffect(() => {
    if (badRange) return undefined;
    let live = true;
    setError('');
    const q = query({
      'date[after]': filters.from ? startOfDay(filters.from) : '',
      'date[strictly_before]': filters.to ? startOfDay(filters.to, 1) : '',
      method: filters.method,
      status: filters.status,
    });
    api(`/api-tokens/${encodeURIComponent(token.id)}/history${q}`).then(
      (d) => live && setEntries(d),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [token.id, filters.from, filters.to, filters.method, filters.status, badRange]);

  const set = (key) => (e) => setFilters({ ...filters, [key]: e.currentTarget.value });
  const filtered = filters.from || filters.to || filters.method || filters.status;

  return html`<${Dialog} title=${`History of “${token.name}”`} wide onClose=${onClose}>
    <${UsageChart} tokenId=${token.id} />
    <form class="filters" onSubmit=${(e) => e.preventDefault()} aria-label="Filter the history">
      <div class="field">
        <label for="history-from">From</label>
        <input type="date" id="history-from" value=${filters.from} max=${filters.to || undefined} onChange=${set('from')} />
      </div>
      <div class="field">
        <label for="history-to">To</label>
        <input type="date" id="history-to" value=${filters.to} min=${filters.from || undefined} onChange=${set('to')} />
      </div>
      <div class="field">
        <label for="history-method">Method</label>
        <select id="history-method" value=${filters.method} onChange=${set('method')}>
          <option value="">All methods</option>
          ${METHODS.map((m) => html`<option value=${m}>${m}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="history-status">Status</label>
        <select id="history-status" value=${filters.status} onChange=${set('status')}>
          <option value="">All statuses</option>
          ${STATUSES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
        </select>
      </div>
      <div class="field field-action">
        <button type="button" class="btn" disabled=${!filtered} onClick=${() => setFilters(NO_FILTERS)}>Clear filters</button>
      </div>
    </form>
    ${badRange ? html`<p class="alert" role="alert">The “From” date is after the “To” date.</p>` : null}
    ${error ? html`<p class="alert" role="alert">${error}</p>` : null}
    ${!badRange && !error ? html`<${Entries} entries=${entries} limit=${limit} filtered=${filtered} />` : null}
  <//>`;
}

function Entries({ entries, limit, filtered }) {
  if (!entries) return html`<p class="muted" aria-busy="true">Loading…</p>`;
  if (!entries.length) {
    return html`<div class="empty" data-testid="history-empty">
      <p><strong>${filtered ? 'No request matches these filters.' : 'No requests yet.'}</strong></p>
      <p class="muted">${filtered ? 'Change or clear the filters.' : 'Requests made with this token will show up here.'}</p>
    </div>`;
  }
  return html`<p class="muted small" role="status">
      ${entries.length >= limit ? `The ${limit} most recent requests${filtered ? ' that match' : ''} (older ones are not shown).` : `${plural(entries.length, 'request')}${filtered ? ' match' : ''}, newest first.`}
    </p>
    <div class="table-wrap">
      <table class="table history-table">
        <caption class="visually-hidden">Requests made with the token, newest first</caption>
        <thead>
          <tr><th scope="col">Date</th><th scope="col">Method</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">IP Address</th><th scope="col">User Agent</th></tr>
        </thead>
        <tbody>
          ${entries.map(
            (e) => html`<tr>
              <td data-label="Date"><time datetime=${e.date} title=${e.date}>${dateTime(e.date)}</time></td>
              <td data-label="Method"><span class="method">${e.method}</span></td>
              <td data-label="Endpoint" class="mono break">${e.endpoint}</td>
              <td data-label="Status"><span class=${statusClass(e.status)}>${e.status}</span></td>
              <td data-label="IP Address" class="mono">${e.ipAddress ?? ''}</td>
              <td data-label="User Agent" class="break small">${e.userAgent ?? ''}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}
