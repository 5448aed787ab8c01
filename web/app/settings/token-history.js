// "View history" of one API token (spec §5.2): requests per day over the last 30 days, drawn as
// SVG bars, then its most recent requests (at most the server's limit), filtered by a range of
// local days, a method and a status range.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest } from '../api.js';
import { dateTime, Dialog, inLanguage, number, plural } from './ui.js';

const IRI = '/api/api-tokens';

/** The page's words in English; German and French below, the person's language chosen once (lib.js). */
const EN = {
  title: (n) => `History of “${n}”`,
  filters: 'Filter the history',
  from: 'From',
  to: 'To',
  method: 'Method',
  allMethods: 'All methods',
  status: 'Status',
  allStatuses: 'All statuses',
  statuses: { '2xx': '2xx Success', '3xx': '3xx Redirection', '4xx': '4xx Client error', '5xx': '5xx Server error' },
  clear: 'Clear filters',
  badRange: 'The “From” date is after the “To” date.',
  loading: 'Loading…',
  noMatch: 'No request matches these filters.',
  noMatchHint: 'Change or clear the filters.',
  none: 'No requests yet.',
  noneHint: 'Requests made with this token will show up here.',
  limited: (limit, filtered) => `The ${limit} most recent requests${filtered ? ' that match' : ''} (older ones are not shown).`,
  count: (n, filtered, locale) => `${plural(n, 'request', 'requests', locale)}${filtered ? ' match' : ''}, newest first.`,
  caption: 'Requests made with the token, newest first',
  columns: ['Date', 'Method', 'Endpoint', 'Status', 'IP Address', 'User Agent'],
  chartTitle: 'Requests per day, last 30 days (UTC)',
  chartLoading: 'Loading the chart…',
  chartLabel: (total, max, day, locale) => (total ? `Requests per day over the last 30 days: ${plural(total, 'request', 'requests', locale)} in total, at most ${number(max, locale)} on ${day}.` : 'Requests per day over the last 30 days: none.'),
  trimmed: (day) => `Only the newest requests of each token are kept: days before ${day} may show fewer requests than were made.`,
  requests: (n, locale) => plural(n, 'request', 'requests', locale),
};
const T = inLanguage({
  en: EN,
  de: {
    title: (n) => `Verlauf von „${n}“`,
    filters: 'Verlauf filtern',
    from: 'Von',
    to: 'Bis',
    method: 'Methode',
    allMethods: 'Alle Methoden',
    status: 'Status',
    allStatuses: 'Alle Status',
    statuses: { '2xx': '2xx Erfolg', '3xx': '3xx Umleitung', '4xx': '4xx Clientfehler', '5xx': '5xx Serverfehler' },
    clear: 'Filter zurücksetzen',
    badRange: 'Das Datum „Von“ liegt nach dem Datum „Bis“.',
    loading: 'Wird geladen …',
    noMatch: 'Keine Anfrage passt zu diesen Filtern.',
    noMatchHint: 'Ändern oder löschen Sie die Filter.',
    none: 'Noch keine Anfragen.',
    noneHint: 'Anfragen mit diesem Token erscheinen hier.',
    limited: (limit, filtered) => `Die ${limit} neuesten Anfragen${filtered ? ', die passen' : ''} (ältere werden nicht gezeigt).`,
    count: (n, filtered, locale) => `${plural(n, 'Anfrage', 'Anfragen', locale)}${filtered ? ' passen' : ''}, neueste zuerst.`,
    caption: 'Anfragen mit dem Token, neueste zuerst',
    columns: ['Datum', 'Methode', 'Endpunkt', 'Status', 'IP-Adresse', 'User-Agent'],
    chartTitle: 'Anfragen pro Tag, letzte 30 Tage (UTC)',
    chartLoading: 'Diagramm wird geladen …',
    chartLabel: (total, max, day, locale) => (total ? `Anfragen pro Tag in den letzten 30 Tagen: insgesamt ${plural(total, 'Anfrage', 'Anfragen', locale)}, höchstens ${number(max, locale)} am ${day}.` : 'Anfragen pro Tag in den letzten 30 Tagen: keine.'),
    trimmed: (day) => `Nur die neuesten Anfragen jedes Tokens werden aufbewahrt: Tage vor dem ${day} zeigen womöglich weniger Anfragen, als gestellt wurden.`,
    requests: (n, locale) => plural(n, 'Anfrage', 'Anfragen', locale),
  },
  fr: {
    title: (n) => `Historique de « ${n} »`,
    filters: 'Filtrer l’historique',
    from: 'Du',
    to: 'Au',
    method: 'Méthode',
    allMethods: 'Toutes les méthodes',
    status: 'Statut',
    allStatuses: 'Tous les statuts',
    statuses: { '2xx': '2xx Succès', '3xx': '3xx Redirection', '4xx': '4xx Erreur du client', '5xx': '5xx Erreur du serveur' },
    clear: 'Effacer les filtres',
    badRange: 'La date « Du » est postérieure à la date « Au ».',
    loading: 'Chargement…',
    noMatch: 'Aucune requête ne correspond à ces filtres.',
    noMatchHint: 'Modifiez ou effacez les filtres.',
    none: 'Aucune requête pour l’instant.',
    noneHint: 'Les requêtes faites avec ce jeton apparaîtront ici.',
    limited: (limit, filtered) => `Les ${limit} requêtes les plus récentes${filtered ? ' qui correspondent' : ''} (les plus anciennes ne sont pas affichées).`,
    count: (n, filtered, locale) => `${plural(n, 'requête', 'requêtes', locale)}${filtered ? (n > 1 ? ' correspondent' : ' correspond') : ''}, les plus récentes d’abord.`,
    caption: 'Requêtes faites avec le jeton, les plus récentes d’abord',
    columns: ['Date', 'Méthode', 'Point de terminaison', 'Statut', 'Adresse IP', 'Agent utilisateur'],
    chartTitle: 'Requêtes par jour, 30 derniers jours (UTC)',
    chartLoading: 'Chargement du graphique…',
    chartLabel: (total, max, day, locale) => (total ? `Requêtes par jour sur les 30 derniers jours : ${plural(total, 'requête', 'requêtes', locale)} au total, au plus ${number(max, locale)} le ${day}.` : 'Requêtes par jour sur les 30 derniers jours : aucune.'),
    trimmed: (day) => `Seules les requêtes les plus récentes de chaque jeton sont conservées : les jours avant le ${day} peuvent en montrer moins qu’il n’y en a eu.`,
    requests: (n, locale) => plural(n, 'requête', 'requêtes', locale),
  },
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const NO_FILTERS = { from: '', to: '', method: '', status: '' };

/** Midnight starting a local day (YYYY-MM-DD), as an instant the server understands. */
const startOfDay = (day, plusDays = 0) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d + plusDays).toISOString();
};

export function HistoryDialog({ token, limit, locale, onClose }) {
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
    rest(`${IRI}/${encodeURIComponent(token.id)}/history${p.size ? `?${p}` : ''}`).then(
      (d) => live && setEntries(d),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [token.id, filters.from, filters.to, filters.method, filters.status, badRange]);
  const set = (key) => (e) => setFilters({ ...filters, [key]: e.currentTarget.value });
  const filtered = Boolean(filters.from || filters.to || filters.method || filters.status);
  return html`<${Dialog} title=${T.title(token.name)} wide onClose=${onClose}>
    <${UsageChart} tokenId=${token.id} locale=${locale} />
    <form class="filters" onSubmit=${(e) => e.preventDefault()} aria-label=${T.filters}>
      <div class="field"><label for="history-from">${T.from}</label><input type="date" id="history-from" value=${filters.from} max=${filters.to || undefined} onChange=${set('from')} /></div>
      <div class="field"><label for="history-to">${T.to}</label><input type="date" id="history-to" value=${filters.to} min=${filters.from || undefined} onChange=${set('to')} /></div>
      <div class="field">
        <label for="history-method">${T.method}</label>
        <select id="history-method" value=${filters.method} onChange=${set('method')}>
          <option value="">${T.allMethods}</option>
          ${METHODS.map((m) => html`<option value=${m}>${m}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="history-status">${T.status}</label>
        <select id="history-status" value=${filters.status} onChange=${set('status')}>
          <option value="">${T.allStatuses}</option>
          ${Object.entries(T.statuses).map(([v, l]) => html`<option value=${v}>${l}</option>`)}
        </select>
      </div>
      <div class="field field-action"><button type="button" class="btn" disabled=${!filtered} onClick=${() => setFilters(NO_FILTERS)}>${T.clear}</button></div>
    </form>
    ${badRange && html`<p class="alert" role="alert">${T.badRange}</p>`}
    ${error && html`<p class="alert" role="alert">${error}</p>`}
    ${!badRange && !error && html`<${Entries} entries=${entries} limit=${limit} filtered=${filtered} locale=${locale} />`}
  <//>`;
}

function Entries({ entries, limit, filtered, locale }) {
  if (!entries) return html`<p class="muted" aria-busy="true">${T.loading}</p>`;
  if (!entries.length) {
    return html`<div class="empty" data-testid="history-empty">
      <p><strong>${filtered ? T.noMatch : T.none}</strong></p>
      <p class="muted">${filtered ? T.noMatchHint : T.noneHint}</p>
    </div>`;
  }
  return html`<p class="muted small" role="status">${entries.length >= limit ? T.limited(limit, filtered) : T.count(entries.length, filtered, locale)}</p>
    <div class="table-wrap">
      <table class="table history-table">
        <caption class="visually-hidden">${T.caption}</caption>
        <thead><tr>${T.columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
        <tbody>
          ${entries.map((e) => html`<tr>
            <td data-label=${T.columns[0]}><time datetime=${e.date} title=${e.date}>${dateTime(e.date, locale)}</time></td>
            <td data-label=${T.columns[1]}><span class="method">${e.method}</span></td>
            <td data-label=${T.columns[2]} class="mono break">${e.endpoint}</td>
            <td data-label=${T.columns[3]}><span class=${`status status-${String(e.status)[0]}xx`}>${e.status}</span></td>
            <td data-label=${T.columns[4]} class="mono">${e.ipAddress ?? ''}</td>
            <td data-label=${T.columns[5]} class="break small">${e.userAgent ?? ''}</td>
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

function UsageChart({ tokenId, locale }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  const box = useRef(null);
  const W = Math.max(260, useWidth(box) || 600);
  useEffect(() => {
    let live = true;
    rest(`${IRI}/${encodeURIComponent(tokenId)}/daily`).then(
      (d) => live && setData(d),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [tokenId]);
  let inner;
  if (error) inner = html`<p class="alert" role="alert">${error}</p>`;
  else if (!data) inner = html`<div class="chart chart-loading" aria-busy="true">${T.chartLoading}</div>`;
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
    <figcaption><span class="chart-title">${T.chartTitle}</span> <span class="chart-total">${T.requests(total, locale)}</span></figcaption>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${T.chartLabel(total, busiest.count, busiest.day, locale)} class="chart-svg">
      <line x1=${LEFT} x2=${W} y1=${y(max)} y2=${y(max)} class="chart-grid" />
      <line x1=${LEFT} x2=${W} y1=${y(max / 2)} y2=${y(max / 2)} class="chart-grid" />
      <line x1=${LEFT} x2=${W} y1=${y(0)} y2=${y(0)} class="chart-axis" />
      <text x=${LEFT - 6} y=${y(max) + 4} class="chart-tick" text-anchor="end">${number(max, locale)}</text>
      <text x=${LEFT - 6} y=${y(0) + 4} class="chart-tick" text-anchor="end">0</text>
      ${days.map((d, i) => html`<rect x=${LEFT + i * slot + (slot - barW) / 2} y=${d.count ? Math.min(y(d.count), y(0) - 2) : y(0) - 1} width=${barW}
          height=${d.count ? Math.max(2, y(0) - y(d.count)) : 1} class=${d.count ? 'chart-bar' : 'chart-bar chart-bar-empty'} data-day=${d.day} data-count=${d.count}>
          <title>${d.day}: ${T.requests(d.count, locale)}</title></rect>`)}
      <text x=${LEFT} y=${H - 6} class="chart-tick">${tick(0)}</text>
      <text x=${LEFT + (W - LEFT) / 2} y=${H - 6} class="chart-tick" text-anchor="middle">${tick(Math.floor(days.length / 2))}</text>
      <text x=${W} y=${H - 6} class="chart-tick" text-anchor="end">${tick(days.length - 1)}</text>
    </svg>
    ${data.completeSince && html`<p class="hint">${T.trimmed(data.completeSince.slice(0, 10))}</p>`}
  </figure>`;
}
