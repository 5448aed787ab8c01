// The dashboard: a custom view, registered for the collection operation whose description names
// it (`present: { view: 'dashboard' }`), not for a resource.
import { html } from '../../lib/html.js';
import { rest } from '../api.js';
import { chartBars, choiceLabel, formatMoney, monthLabel, monthTick } from '../lib.js';
import { Loading, Problem, useLoad } from './common.js';
import { nounOf, t } from '../lib.js';

// ---- dashboard ------------------------------------------------------------------------------

export function Dashboard({ ctx, r, operation }) {
  const noun = nounOf(r);
  const { data, error, loading } = useLoad(() => rest(`${r.iri}/${operation.path}`), 'dashboard');
  return html`<h1>${operation.label ?? t('dashboard.title')}</h1>
    ${loading && html`<${Loading} />`}
    <${Problem} error=${error} />
    ${data &&
    html`<section aria-labelledby="receivables">
        <h2 id="receivables">${t('dashboard.receivables')}</h2>
        <div class="cards">
          ${(data.currencies.length ? data.currencies : [{ currency: ctx.company?.currency ?? 'USD', outstanding: 0, overdue: 0, overdueCount: 0 }]).map(
            (c) => html`<div class="card">
              <p class="card-label">${t('dashboard.outstanding', { currency: c.currency })}</p>
              <p class="card-value" data-testid=${`outstanding-${c.currency}`}>${formatMoney(c.outstanding, c.currency, ctx.locale)}</p>
              <p class="card-note">${t('dashboard.overdue')} <strong data-testid=${`overdue-${c.currency}`}>${formatMoney(c.overdue, c.currency, ctx.locale)}</strong> (${t('list.count', { ...noun, count: c.overdueCount })})</p>
            </div>`,
          )}
        </div>
      </section>
      <section aria-labelledby="per-status" class="panel pad">
        <h2 id="per-status">${t('dashboard.perStatus', { label: r.label })}</h2>
        <table class="table compact">
          <thead><tr><th scope="col">${r.byField.get(r.states?.field)?.label ?? t('dashboard.status')}</th><th scope="col" class="num">${r.label}</th></tr></thead>
          <tbody>
            ${data.statuses.map((s) => html`<tr><td><a href=${`${r.path}?${r.states?.field ?? 'status'}=${s.status}`}>${choiceLabel(s.status, r.byField.get(r.states?.field))}</a></td><td class="num" data-testid=${`status-${s.status}`}>${s.count}</td></tr>`)}
          </tbody>
        </table>
      </section>
      ${[...new Set([ctx.company?.currency, ...data.payments.map((p) => p.currency)].filter(Boolean))].map((currency) => html`<${ReceivedChart} key=${currency} data=${data} currency=${currency} locale=${ctx.locale} />`)}`}`;
}

function ReceivedChart({ data, currency, locale }) {
  const bars = chartBars(data.months, data.payments, currency);
  const id = `chart-${currency}`;
  const total = bars.reduce((s, b) => s + b.amount, 0);
  const w = 44;
  const H = 160;
  return html`<figure class="panel pad chart app-chart" aria-labelledby=${`${id}-title`}>
    <figcaption><h2 id=${`${id}-title`}>${t('dashboard.received', { currency })}</h2><p class="muted">${t('dashboard.last12', { total: formatMoney(total, currency, locale) })}</p></figcaption>
    <svg class="chart-svg" viewBox=${`0 0 ${bars.length * w + 10} ${H + 30}`} role="img" aria-labelledby=${`${id}-title`} aria-describedby=${`${id}-table`}>
      <line class="chart-axis" x1="0" x2=${bars.length * w + 10} y1=${H} y2=${H} />
      ${bars.map(
        (b, i) => html`<g>
          <rect class=${b.amount ? 'chart-bar' : 'chart-bar-empty'} x=${i * w + 8} y=${H - Math.max(b.height, 1)} width=${w - 12} height=${Math.max(b.height, 1)}><title>${monthLabel(b.month)}: ${formatMoney(b.amount, currency, locale)}</title></rect>
          <text class="chart-tick" x=${i * w + 8 + (w - 12) / 2} y=${H + 18} text-anchor="middle">${monthTick(b.month)}</text>
        </g>`,
      )}
    </svg>
    <table class="visually-hidden" id=${`${id}-table`}>
      <caption>${t('dashboard.received', { currency })}</caption>
      <thead><tr><th scope="col">${t('dashboard.month')}</th><th scope="col">${t('form.amount')}</th></tr></thead>
      <tbody>${bars.map((b) => html`<tr><th scope="row">${monthLabel(b.month)}</th><td>${formatMoney(b.amount, currency, locale)}</td></tr>`)}</tbody>
    </table>
  </figure>`;
}
