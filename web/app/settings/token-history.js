// "View history" of one API token (spec §5.2): requests per day over the last 30 days, drawn as
// SVG bars, then its most recent requests (at most the server's limit), filtered by a range of
// local days, a method and a status range.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest } from '../api.js';
import { t } from '../lib.js';
import { dateTime, Dialog, number } from './ui.js';

// The dialog's words are messages of the catalogue (web/app/messages/, `settings.tokenHistory.*`).
const STATUS_RANGES = ['2xx', '3xx', '4xx', '5xx'];
const COLUMNS = ['date', 'method', 'endpoint', 'status', 'ipAddress', 'userAgent'];
const columnName = (key) => t(`settings.tokenHistory.column.${key}`);
const requests = (count) => t('settings.tokenHistory.requests', { count });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const NO_FILTERS = { from: '', to: '', method: '', status: '' };

/** Midnight starting a local day (YYYY-MM-DD), as an instant the server understands. */
const startOfDay = (day, plusDays = 0) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d + plusDays).toISOString();
};

/** The history of `token`, an API token at `iri` (the description's address of the API tokens). */
export function HistoryDialog({ iri, token, limit, locale, onClose }) {
  const [filters, setFilters] = useState(NO_FILTERS);
  const [entries, setEntries] = useState(null);
  const [error, setError] = useState('');
  const badRange = filters.from && filters.to && filters.from > filters.to;
  useEffect(() => {
    if (badRange) return undefined;
    let live = true;
    setError('');
    const p = new URLSearchParams();
    if (filters.from) p.set('date[after]', startOfDay(filters.from));
    if (filters.to) p.set('date[strictly_before]', startOfDay(filters.to, 1));
    if (filters.method) p.set('method', filters.method);
    if (filters.status) p.set('status', filters.status);
    rest(`${iri}/${encodeURIComponent(token.id)}/history${p.size ? `?${p}` : ''}`).then(
      (d) => live && setEntries(d),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [token.id, filters.from, filters.to, filters.method, filters.status, badRange]);
  const set = (key) => (e) => setFilters({ ...filters, [key]: e.currentTarget.value });
  const filtered = Boolean(filters.from || filters.to || filters.method || filters.status);
  return html`<${Dialog} title=${t('settings.tokenHistory.title', { name: token.name })} wide onClose=${onClose}>
    <${UsageChart} iri=${iri} tokenId=${token.id} locale=${locale} />
    <form class="filters" onSubmit=${(e) => e.preventDefault()} aria-label=${t('settings.tokenHistory.filters')}>
      <div class="field"><label for="history-from">${t('settings.tokenHistory.from')}</label><input type="date" id="history-from" value=${filters.from} max=${filters.to || undefined} onChange=${set('from')} /></div>
      <div class="field"><label for="history-to">${t('settings.tokenHistory.to')}</label><input type="date" id="history-to" value=${filters.to} min=${filters.from || undefined} onChange=${set('to')} /></div>
      <div class="field">
        <label for="history-method">${t('settings.tokenHistory.method')}</label>
        <select id="history-method" value=${filters.method} onChange=${set('method')}>
          <option value="">${t('settings.tokenHistory.allMethods')}</option>
          ${METHODS.map((m) => html`<option value=${m}>${m}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="history-status">${t('settings.tokenHistory.status')}</label>
        <select id="history-status" value=${filters.status} onChange=${set('status')}>
          <option value="">${t('settings.tokenHistory.allStatuses')}</option>
          ${STATUS_RANGES.map((range) => html`<option value=${range}>${t('settings.tokenHistory.statusRange', { range })}</option>`)}
        </select>
      </div>
      <div class="field field-action"><button type="button" class="btn" disabled=${!filtered} onClick=${() => setFilters(NO_FILTERS)}>${t('settings.tokenHistory.clear')}</button></div>
    </form>
    ${badRange && html`<p class="alert" role="alert">${t('settings.tokenHistory.badRange')}</p>`}
    ${error && html`<p class="alert" role="alert">${error}</p>`}
    ${!badRange && !error && html`<${Entries} entries=${entries} limit=${limit} filtered=${filtered} locale=${locale} />`}
  <//>`;
}

function Entries({ entries, limit, filtered, locale }) {
  if (!entries) return html`<p class="muted" aria-busy="true">${t('settings.tokenHistory.loading')}</p>`;
  if (!entries.length) {
    return html`<div class="empty" data-testid="history-empty">
      <p><strong>${filtered ? t('settings.tokenHistory.noMatch') : t('settings.tokenHistory.none')}</strong></p>
      <p class="muted">${filtered ? t('settings.tokenHistory.noMatchHint') : t('settings.tokenHistory.noneHint')}</p>
    </div>`;
  }
  return html`<p class="muted small" role="status">${entries.length >= limit ? t('settings.tokenHistory.limited', { limit, filtered: filtered ? 'yes' : 'no' }) : t('settings.tokenHistory.count', { count: entries.length, filtered: filtered ? 'yes' : 'no' })}</p>
    <div class="table-wrap">
      <table class="table history-table">
        <caption class="visually-hidden">${t('settings.tokenHistory.caption')}</caption>
        <thead><tr>${COLUMNS.map((c) => html`<th scope="col">${columnName(c)}</th>`)}</tr></thead>
        <tbody>
          ${entries.map((e) => html`<tr>
            <td data-label=${columnName('date')}><time datetime=${e.date} title=${e.date}>${dateTime(e.date, locale)}</time></td>
            <td data-label=${columnName('method')}><span class="method">${e.method}</span></td>
            <td data-label=${columnName('endpoint')} class="mono break">${e.endpoint}</td>
            <td data-label=${columnName('status')}><span class=${`status status-${String(e.status)[0]}xx`}>${e.status}</span></td>
            <td data-label=${columnName('ipAddress')} class="mono">${e.ipAddress ?? ''}</td>
            <td data-label=${columnName('userAgent')} class="break small">${e.userAgent ?? ''}</td>
          </tr>`)}
        </tbody>
      </table>
    </div>`;
}

// ---- the chart ------------------------------------------------------------------------------

const H = 140;
const TOP = 12;
const BOTTOM = 22;
const LEFT = 34;

/** A round upper bound for the axis: 1, 2, 5, 10, 20, 50… */
function niceMax(n) {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= n);
}

function useWidth(ref) {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round(entry.contentRect.width)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return width;
}

function UsageChart({ iri, tokenId, locale }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  const box = useRef(null);
  const W = Math.max(260, useWidth(box) || 600);
  useEffect(() => {
    let live = true;
    rest(`${iri}/${encodeURIComponent(tokenId)}/daily`).then(
      (d) => live && setData(d),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [tokenId]);
  let inner;
  if (error) inner = html`<p class="alert" role="alert">${error}</p>`;
  else if (!data) inner = html`<div class="chart chart-loading" aria-busy="true">${t('settings.tokenHistory.chartLoading')}</div>`;
  else inner = html`<${Chart} data=${data} width=${W} locale=${locale} />`;
  return html`<div ref=${box} class="chart-box">${inner}</div>`;
}

function Chart({ data, width: W, locale }) {
  const days = data.days;
  const total = days.reduce((a, d) => a + d.count, 0);
  const busiest = days.reduce((a, d) => (d.count > a.count ? d : a), days[0]);
  const max = niceMax(busiest.count);
  const plotH = H - TOP - BOTTOM;
  const slot = (W - LEFT) / days.length;
  const barW = Math.max(2, slot - 3);
  const y = (v) => TOP + plotH - (v / max) * plotH;
  const tick = (i) => days[i].day.slice(5);
  return html`<figure class="chart" data-testid="usage-chart" data-total=${total}>
    <figcaption><span class="chart-title">${t('settings.tokenHistory.chartTitle')}</span> <span class="chart-total">${requests(total)}</span></figcaption>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${t('settings.tokenHistory.chartLabel', { total, max: busiest.count, day: busiest.day })} class="chart-svg">
      <line x1=${LEFT} x2=${W} y1=${y(max)} y2=${y(max)} class="chart-grid" />
      <line x1=${LEFT} x2=${W} y1=${y(max / 2)} y2=${y(max / 2)} class="chart-grid" />
      <line x1=${LEFT} x2=${W} y1=${y(0)} y2=${y(0)} class="chart-axis" />
      <text x=${LEFT - 6} y=${y(max) + 4} class="chart-tick" text-anchor="end">${number(max, locale)}</text>
      <text x=${LEFT - 6} y=${y(0) + 4} class="chart-tick" text-anchor="end">0</text>
      ${days.map((d, i) => html`<rect x=${LEFT + i * slot + (slot - barW) / 2} y=${d.count ? Math.min(y(d.count), y(0) - 2) : y(0) - 1} width=${barW}
          height=${d.count ? Math.max(2, y(0) - y(d.count)) : 1} class=${d.count ? 'chart-bar' : 'chart-bar chart-bar-empty'} data-day=${d.day} data-count=${d.count}>
          <title>${d.day}: ${requests(d.count)}</title></rect>`)}
      <text x=${LEFT} y=${H - 6} class="chart-tick">${tick(0)}</text>
      <text x=${LEFT + (W - LEFT) / 2} y=${H - 6} class="chart-tick" text-anchor="middle">${tick(Math.floor(days.length / 2))}</text>
      <text x=${W} y=${H - 6} class="chart-tick" text-anchor="end">${tick(days.length - 1)}</text>
    </svg>
    ${data.completeSince && html`<p class="hint">${t('settings.tokenHistory.trimmed', { day: data.completeSince.slice(0, 10) })}</p>`}
  </figure>`;
}
