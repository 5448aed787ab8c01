// A resource's list: its columns, filters and order, 30 per page with cursor paging.
import { useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { download, graphql, rest } from '../api.js';
import { can, choiceLabel, filterChoices, idOf, listAddress, listQuery, listUrl, orderOf, nounOf, t, titleOf, writes } from '../lib.js';
import { go, Loading, Notice, Problem, RefPicker, useLoad, Value } from './common.js';

// ---- lists ----------------------------------------------------------------------------------

async function loadList(ctx, r, query) {
  if (r.gql) {
    // One request: the page, and the first choices of its reference filters.
    const choices = filterChoices(ctx.desc, r);
    const data = await graphql(choices ? `${listQuery(ctx.desc, r, query).slice(0, -1)} ${choices} }` : listQuery(ctx.desc, r, query));
    const c = data[r.plural];
    const picks = Object.fromEntries(Object.entries(data).filter(([k]) => k.startsWith('choices_')).map(([k, v]) => [k.slice('choices_'.length), { options: v.edges.map((e) => e.node), total: v.totalCount }]));
    return { items: c.edges.map((e) => e.node), total: c.totalCount, info: c.pageInfo, choices: picks };
  }
  const body = await rest(listUrl(r, query), { accept: 'application/ld+json' });
  const view = body.view ?? {};
  const cursor = (link, k) => (link ? new URL(link, location.origin).searchParams.get(k) : null);
  return {
    items: body.member,
    total: body.totalItems ?? null,
    info: { hasNextPage: Boolean(view.next), hasPreviousPage: Boolean(view.previous), endCursor: cursor(view.next, 'after'), startCursor: cursor(view.previous, 'before') },
  };
}

export function ListView({ ctx, r, query }) {
  const { data, error, loading } = useLoad(() => loadList(ctx, r, query), query.toString());
  const order = orderOf(r, query);
  const filters = r.fields.filter((f) => f.filter);
  const columns = r.columns.map((n) => r.byField.get(n));
  const mayCreate = can(r, 'create') && writes(r, ctx.role);
  const here = (changes) => listAddress(r, query, changes);
  return html`<div class="page-head">
      <h1>${r.label}</h1>
      <div class="page-actions">
        <${CsvDownload} r=${r} query=${query} /><${ImportLink} ctx=${ctx} r=${r} />
        ${mayCreate && html`<a class="btn primary" href=${`${r.path}/new`}>${t('record.new', nounOf(r))}</a>`}
      </div>
    </div>
    <${Notice} ctx=${ctx} r=${r} />
    <${FilterBar} ctx=${ctx} r=${r} query=${query} filters=${filters} order=${order} choices=${r.gql ? (data?.choices ?? null) : undefined} />
    <${Problem} error=${error} />
    ${loading && !data && html`<${Loading} />`}
    ${data &&
    html`<p class="count" role="status" data-testid="total">${data.total === null ? t('list.moreThan', { ...nounOf(r), count: 10000 }) : t('list.count', { ...nounOf(r), count: data.total })}</p>
      <div class="table-wrap panel">
        <table class="table">
          <caption class="visually-hidden">${order ? t('list.sortedCaption', { label: r.label, field: r.byField.get(order.field)?.label ?? order.field, dir: order.dir }) : r.label}</caption>
          <thead>
            <tr>
              ${columns.map((f) => html`<th scope="col" class=${f.kind === 'money' ? 'num' : ''} aria-sort=${order?.field === f.name ? (order.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                ${r.orders.includes(f.name) ? html`<a class="sort" href=${here({ order: `${f.name}:${order?.field === f.name && order.dir === 'asc' ? 'desc' : 'asc'}` })}>${f.label}</a>` : f.label}
              </th>`)}
            </tr>
          </thead>
          <tbody>
            ${data.items.length === 0 && html`<tr><td colspan=${columns.length} class="empty">${t('list.empty')}</td></tr>`}
            ${data.items.map(
              (rec) => html`<tr>
                ${columns.map((f, i) => {
                  const id = rec._id ?? rec.id;
                  const cell = i === 0 ? html`<a href=${`${r.path}/${idOf(rec.id ?? rec['@id']) || id}`}>${f.name === r.title ? titleOf(r, rec) : html`<${Value} ctx=${ctx} r=${r} f=${f} v=${rec[f.name]} rec=${rec} />`}</a>` : html`<${Value} ctx=${ctx} r=${r} f=${f} v=${rec[f.name]} rec=${rec} />`;
                  return i === 0 ? html`<th scope="row">${cell}</th>` : html`<td class=${f.kind === 'money' ? 'num' : ''} data-label=${f.label}>${cell}</td>`;
                })}
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label=${t('list.pages')}>
        <a class="btn small" href=${here({})} aria-disabled=${data.info.hasPreviousPage ? undefined : 'true'}>${t('list.first')}</a>
        ${data.info.hasPreviousPage ? html`<a class="btn small" rel="prev" href=${here({ before: data.info.startCursor })}>${t('list.previous')}</a>` : html`<span class="btn small" aria-disabled="true">${t('list.previous')}</span>`}
        ${data.info.hasNextPage ? html`<a class="btn small" rel="next" href=${here({ after: data.info.endCursor })}>${t('list.next')}</a>` : html`<span class="btn small" aria-disabled="true">${t('list.next')}</span>`}
        <a class="btn small" href=${here({ last: '1' })}>${t('list.last')}</a>
      </nav>`}`;
}

/** `choices`: the reference filters' first choices, read with the list (null while it loads; undefined: each picker reads its own). */
function FilterBar({ ctx, r, query, filters, order, choices }) {
  const [values, setValues] = useState(() => Object.fromEntries([...query.entries()]));
  if (!filters.length && r.orders.length < 2) return null;
  const set = (k) => (e) => setValues((v) => ({ ...v, [k]: e.currentTarget.value }));
  function submit(e) {
    e.preventDefault();
    const changes = {};
    for (const f of filters) {
      if (f.filter === 'date') for (const op of ['after', 'before']) changes[`${f.name}[${op}]`] = values[`${f.name}[${op}]`] ?? null;
      else changes[f.name] = values[f.name] ?? null;
    }
    changes.order = values.order ?? null;
    go(listAddress(r, query, changes));
  }
  const id = (k) => `filter-${k.replace(/\W/g, '-')}`;
  return html`<form class="app-filters panel pad" role="search" aria-label=${t('list.filter', nounOf(r))} onSubmit=${submit}>
    ${filters.map((f) => {
      if (f.filter === 'date')
        return html`<div class="field"><label for=${id(`${f.name}-after`)}>${t('list.dateFrom', { label: f.label })}</label><input type="date" id=${id(`${f.name}-after`)} value=${values[`${f.name}[after]`] ?? ''} onInput=${set(`${f.name}[after]`)} /></div>
          <div class="field"><label for=${id(`${f.name}-before`)}>${t('list.dateTo', { label: f.label })}</label><input type="date" id=${id(`${f.name}-before`)} value=${values[`${f.name}[before]`] ?? ''} onInput=${set(`${f.name}[before]`)} /></div>`;
      if (f.kind === 'enum')
        return html`<div class="field"><label for=${id(f.name)}>${f.label}</label><select id=${id(f.name)} value=${values[f.name] ?? ''} onChange=${set(f.name)}><option value="">${t('list.any')}</option>${f.values.map((v) => html`<option value=${v}>${choiceLabel(v, f)}</option>`)}</select></div>`;
      if (f.kind === 'ref') {
        const target = ctx.desc.get(f.target);
        return target?.gql ? html`<${RefPicker} ctx=${ctx} id=${id(f.name)} label=${f.label} target=${target} value=${values[f.name] ?? ''} anyLabel=${t('list.any')} initial=${choices === undefined ? undefined : (choices?.[f.name] ?? null)} onChange=${(iri) => setValues((v) => ({ ...v, [f.name]: iri }))} />` : null;
      }
      return html`<div class="field"><label for=${id(f.name)}>${f.label}</label><input type="search" id=${id(f.name)} value=${values[f.name] ?? ''} onInput=${set(f.name)} /></div>`;
    })}
    ${r.orders.length > 1 &&
    html`<div class="field"><label for=${id('order')}>${t('list.sortBy')}</label><select id=${id('order')} value=${values.order ?? ''} onChange=${set('order')}>
      <option value="">${t('list.newestFirst')}</option>
      ${r.orders.flatMap((o) => ['asc', 'desc'].map((dir) => html`<option value=${`${o}:${dir}`}>${t('list.orderOption', { label: r.byField.get(o)?.label ?? t('list.created'), dir })}</option>`))}
    </select></div>`}
    <div class="field filter-actions"><button type="submit" class="btn">${t('list.apply')}</button> <a class="btn ghost" href=${r.path}>${t('list.clear')}</a></div>
  </form>`;
}

// ---- CSV (issue 46): a list's download and its import link --------------------------------

/** The collection operation of `r` that takes a CSV file, if any. */
export const importOf = (r) => (r.operations ?? []).find((o) => o.on === 'collection' && o.method === 'POST' && o.text === 'text/csv');

/** The list's download button: every record matching its filters, as CSV. */
export function CsvDownload({ r, query }) {
  const [error, setError] = useState(null);
  const url = new URL(listUrl(r, query), location.origin);
  for (const k of ['itemsPerPage', 'after', 'before', 'page']) url.searchParams.delete(k);
  return html`<button type="button" class="btn" onClick=${() => download(url.pathname + url.search, 'text/csv', `${r.plural}.csv`).catch(setError)}>${t('csv.download')}</button>
    ${error && html`<span class="alert" role="alert">${error.message}</span>`}`;
}

/** The import page's link on a list, for those who may import. */
export function ImportLink({ ctx, r }) {
  const op = importOf(r);
  if (!op || !op.roles.includes(ctx.role)) return null;
  return html`<a class="btn" href=${`${r.path}/${op.path}`}>${t('csv.import')}</a>`;
}
