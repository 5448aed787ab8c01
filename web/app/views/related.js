// The records that refer to a record, listed on its page: an invoice's payments, credit notes,
// e-mails and client links; a client's contacts, addresses, invoices and quotes. Each is the
// referring resource's own list (its declared columns), filtered by the reference, first page.
import { html } from '../../lib/html.js';
import { graphql, rest } from '../api.js';
import { can, idOf, listQuery, listUrl, titleOf, writes } from '../lib.js';
import { useLoad, Value } from './common.js';

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
      ${add && html`<a class="btn small" href=${`${t.path}/new?${new URLSearchParams({ [via]: iri })}`}>New ${t.singular.toLowerCase()}</a>`}</div>
    ${error && html`<p class="muted">${error.message}</p>`}
    ${data && data.items.length === 0 && html`<p class="muted">None yet.</p>`}
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
    ${data.total > data.items.length && html`<p><a href=${all}>All ${data.total} ${t.label.toLowerCase()}</a></p>`}`}
  </section>`;
}
