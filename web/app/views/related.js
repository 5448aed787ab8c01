// The records that refer to a record, listed on its page: an invoice's payments, credit notes,
// e-mails and client links; a client's contacts, addresses, invoices and quotes. Each is the
// referring resource's own list (its declared columns), filtered by the reference, first page.
import { html } from '../../lib/html.js';
import { graphql, rest } from '../api.js';
import { can, formatMoney, idOf, listQuery, listUrl, titleOf, writes } from '../lib.js';
import { useLoad, Value } from './common.js';
import { nounOf, t as tr } from '../lib.js';

async function load(ctx, t, via, iri) {
  const q = new URLSearchParams({ [via]: iri });
  if (t.gql) {
    const c = (await graphql(listQuery(ctx.desc, t, q)))[t.plural];
    return { items: c.edges.map((e) => e.node), total: c.totalCount };
  }
  const body = await rest(listUrl(t, q), { accept: 'application/ld+json' });
  return { items: body.member, total: body.totalItems ?? body.member.length };
}

export function Related({ ctx, t, via, iri, label, mayAdd }) {
  const { data, error } = useLoad(() => load(ctx, t, via, iri), `${t.name}/${via}/${iri}`);
  const columns = t.columns.filter((n) => n !== via).map((n) => t.byField.get(n)).filter(Boolean);
  const id = `related-${t.name}-${via}`;
  const add = mayAdd && can(t, 'create') && writes(t, ctx.role) && !t.byField.get(via)?.readOnly;
  const all = `${t.path}?${new URLSearchParams({ [via]: iri })}`;
  return html`<section class="panel pad related-list" aria-labelledby=${id} data-testid=${id}>
    <div class="page-head"><h2 id=${id}>${label}${data ? html` <span class="muted">(${data.total})</span>` : ''}</h2>
      ${add && html`<a class="btn small" href=${`${t.path}/new?${new URLSearchParams({ [via]: iri })}`}>${tr('record.new', nounOf(t))}</a>`}</div>
    ${error && html`<p class="muted">${error.message}</p>`}
    ${data && data.items.length === 0 && html`<p class="muted">${tr('related.none')}</p>`}
    ${data &&
    data.items.length > 0 &&
    html`<div class="table-wrap"><table class="table compact">
      <thead><tr>${columns.map((f) => html`<th scope="col" class=${f.kind === 'money' ? 'num' : ''}>${f.label}</th>`)}</tr></thead>
      <tbody>${data.items.map(
        (rec) => html`<tr>${columns.map((f, i) =>
          i === 0
            ? html`<th scope="row"><a href=${`${t.path}/${idOf(rec.id ?? rec['@id']) || rec._id}`}>${f.name === t.title ? titleOf(t, rec) : html`<${Value} ctx=${ctx} r=${t} f=${f} v=${rec[f.name]} rec=${rec} />`}</a></th>`
            : html`<td class=${f.kind === 'money' ? 'num' : ''} data-label=${f.label}><${Value} ctx=${ctx} r=${t} f=${f} v=${rec[f.name]} rec=${rec} /></td>`,
        )}</tr>`,
      )}</tbody>
    </table></div>
    ${data.total > data.items.length && html`<p><a href=${all}>${tr('related.all', { ...nounOf(t), count: data.total })}</a></p>`}`}
  </section>`;
}

/**
 * A panel of what an item operation answers about the record (descriptor `present.panel`: a
 * client's open balance per currency): its items' members as the description lists them, amounts
 * in major units with the currency their item names, in the person's locale.
 */
export function OperationPanel({ ctx, op, iri }) {
  const { data, error } = useLoad(() => rest(`${iri}/${op.path}`).then((b) => (Array.isArray(b) ? b : (b.member ?? b.items ?? []))), `${iri}/${op.path}`);
  const cols = op.columns ?? [];
  const currency = cols.find((c) => c.currency);
  // The currency goes with each amount; the amounts come first.
  const shown = [...cols.filter((c) => c.money), ...cols.filter((c) => !c.money && !(currency && c === currency))];
  const id = `panel-${op.name}`;
  return html`<section class="panel pad related-list" aria-labelledby=${id} data-testid=${id}>
    <h2 id=${id}>${op.panel}</h2>
    ${error && html`<p class="muted">${error.message}</p>`}
    ${data && data.length === 0 && html`<p class="muted">${tr('record.none')}</p>`}
    ${data &&
    data.length > 0 &&
    html`<div class="table-wrap"><table class="table compact">
      <thead><tr>${shown.map((c) => html`<th scope="col" class=${c.money ? 'num' : ''}>${c.label}</th>`)}</tr></thead>
      <tbody>${data.map(
        (it) => html`<tr>${shown.map((c) => html`<td class=${c.money ? 'num' : ''} data-label=${c.label} data-field=${c.name}>${c.money ? formatMoney(it[c.name], currency ? it[currency.name] : null, ctx.locale) : String(it[c.name] ?? '')}</td>`)}</tr>`,
      )}</tbody>
    </table></div>`}
  </section>`;
}
