// Requests per day over the last 30 days (UTC days), counted by the server from the stored
// history, drawn as inline SVG bars.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { number, plural } from '../lib/format.js';
import { html } from '../lib/html.js';

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

/** The element's width in CSS pixels, kept up to date: the chart is drawn at its real size, so text stays legible. */
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

export function UsageChart({ tokenId }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  const box = useRef(null);
  const W = Math.max(260, useWidth(box) || 600);

  useEffect(() => {
    let live = true;
    api(`/api-tokens/${encodeURIComponent(tokenId)}/daily`).then(
      (d) => live && setData(d),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [tokenId]);

  let inner;
  if (error) inner = html`<p class="alert" role="alert">${error}</p>`;
  else if (!data) inner = html`<div class="chart chart-loading" aria-busy="true">Loading the chart…</div>`;
  else inner = html`<${Chart} data=${data} width=${W} />`;
  // One element throughout, so the width is observed from the first render on.
  return html`<div ref=${box} class="chart-box">${inner}</div>`;
}

function Chart({ data, width: W }) {
  const days = data.days;
  const total = days.reduce((a, d) => a + d.count, 0);
  const busiest = days.reduce((a, d) => (d.count > a.count ? d : a), days[0]);
  const max = niceMax(busiest.count);
  const plotH = H - TOP - BOTTOM;
  const slot = (W - LEFT) / days.length;
  const barW = Math.max(2, slot - 3);
  const y = (v) => TOP + plotH - (v / max) * plotH;
  const label = total
    ? `Requests per day over the last 30 days: ${plural(total, 'request')} in total, at most ${number(busiest.count)} on ${busiest.day}.`
    : 'Requests per day over the last 30 days: none.';
  const tick = (i) => days[i].day.slice(5);

  return html`<figure class="chart" data-testid="usage-chart" data-total=${total}>
    <figcaption>
      <span class="chart-title">Requests per day, last 30 days (UTC)</span>
      <span class="chart-total">${plural(total, 'request')}</span>
    </figcaption>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${label} class="chart-svg">
      <line x1=${LEFT} x2=${W} y1=${y(max)} y2=${y(max)} class="chart-grid" />
      <line x1=${LEFT} x2=${W} y1=${y(max / 2)} y2=${y(max / 2)} class="chart-grid" />
      <line x1=${LEFT} x2=${W} y1=${y(0)} y2=${y(0)} class="chart-axis" />
      <text x=${LEFT - 6} y=${y(max) + 4} class="chart-tick" text-anchor="end">${number(max)}</text>
      <text x=${LEFT - 6} y=${y(0) + 4} class="chart-tick" text-anchor="end">0</text>
      ${days.map(
        (d, i) => html`<rect
          x=${LEFT + i * slot + (slot - barW) / 2}
          y=${d.count ? Math.min(y(d.count), y(0) - 2) : y(0) - 1}
          width=${barW}
          height=${d.count ? Math.max(2, y(0) - y(d.count)) : 1}
          class=${d.count ? 'chart-bar' : 'chart-bar chart-bar-empty'}
          data-day=${d.day}
          data-count=${d.count}
        ><title>${d.day}: ${plural(d.count, 'request')}</title></rect>`,
      )}
      <text x=${LEFT} y=${H - 6} class="chart-tick">${tick(0)}</text>
      <text x=${LEFT + (W - LEFT) / 2} y=${H - 6} class="chart-tick" text-anchor="middle">${tick(Math.floor(days.length / 2))}</text>
      <text x=${W} y=${H - 6} class="chart-tick" text-anchor="end">${tick(days.length - 1)}</text>
    </svg>
    ${data.completeSince
      ? html`<p class="hint">Only the newest requests of each token are kept: days before ${data.completeSince.slice(0, 10)} may show fewer requests than were made.</p>`
      : null}
  </figure>`;
}
