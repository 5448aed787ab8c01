// Reports, CSV downloads and CSV imports in /app (issue 46), built from the description like the
// other views: a page of declared operations (http/describe-pages.ts: each report's address,
// query parameters and columns) with the period chosen in a form, a chart and a table; a CSV
// download for every list, keeping its filters; and the import page of any collection operation
// taking a CSV file, with a preview (its dry run) before importing. Names no resource.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { ApiProblem, download, graphql, rest } from './api.js';
import { formatMoney } from './money.js';
// What every list page and the shell need of this (the address of its pages, their links, a list's
// CSV download and import link) is in views/shell.js and views/list.js: this module loads when one
// of its pages is first shown.
import { currentLocale, nounOf, t, titleOf, titlesQuery } from './lib.js';

/** Records named per GraphQL request (the API's default limit of aliases, engine/graphql/limits.ts). */
const ALIASES = 30;

const label = (name) => {
  const s = name.replace(/([a-z])([A-Z0-9])/g, '$1 $2').replace(/(\d)([a-z])/g, '$1 $2').toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/** A report's words for one of its names: the description's (translated), else the name in words. */
const named = (op, name) => op.labels?.[name] ?? label(name);

const year = () => new Date().toISOString().slice(0, 4);

/** A page of operations (the reports): one tab per operation, its parameters, a chart and a table. */
export function OperationsView({ ctx, page, query }) {
  const ops = page.operations.filter((op) => op.roles.includes(ctx.role));
  const op = ops.find((o) => o.name === query.get('report')) ?? ops[0];
  const params = new URLSearchParams();
  for (const q of op?.query ?? []) if (query.get(q.name)) params.set(q.name, query.get(q.name));
  const url = op ? `${op.url}${params.size ? `?${params}` : ''}` : '';
  const [state, setState] = useState({ loading: true, items: null, error: null });
  const [names, setNames] = useState(new Map());
  // What is typed in the form, until it is shown: a report arriving meanwhile re-renders the form,
  // which must not put back the values of the address.
  const [draft, setDraft] = useState({});
  useEffect(() => setDraft({}), [url]);
  useEffect(() => {
    if (!op) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    rest(url).then(
      async (items) => {
        // References (a client's IRI) shown by their records' titles: one GraphQL request per
        // ALIASES records named (the API's alias limit), not one request per record.
        const refs = [...new Set(op.columns.filter((c) => c.refers).flatMap((c) => items.map((it) => it[c.name])).filter(Boolean))].slice(0, 200);
        const found = new Map();
        const chunks = [];
        for (let i = 0; i < refs.length; i += ALIASES) chunks.push(refs.slice(i, i + ALIASES));
        await Promise.all(
          chunks.map(async (chunk) => {
            const q = titlesQuery(ctx.desc, chunk);
            const data = q ? await graphql(q).catch(() => ({})) : {};
            chunk.forEach((iri, i) => {
              const node = data[`r${i}`];
              const target = ctx.desc.ofIri(iri);
              found.set(iri, node && target ? titleOf(target, node) : iri);
            });
          }),
        );
        if (live) {
          setNames(found);
          setState({ loading: false, items, error: null });
        }
      },
      (error) => live && setState({ loading: false, items: null, error }),
    );
    return () => {
      live = false;
    };
  }, [url]);
  if (!op) return html`<h1>${page.label}</h1><p>${t('reports.notYours')}</p>`;
  const address = (changes) => {
    const p = new URLSearchParams(query);
    for (const [k, v] of Object.entries(changes)) (v ? p.set(k, v) : p.delete(k));
    return `${page.path}?${p}`;
  };
  function submit(e) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const changes = { report: op.name };
    for (const q of op.query) changes[q.name] = String(data.get(q.name) ?? '');
    window.history.pushState(null, '', address(changes));
    window.dispatchEvent(new Event('app:navigate'));
  }
  const keep = (name) => (e) => {
    const v = e.currentTarget.value;
    setDraft((d) => ({ ...d, [name]: v }));
  };
  const money = op.columns.filter((c) => c.money);
  const text = op.columns.filter((c) => !c.money);
  return html`<div class="page-head">
      <h1>${page.label}</h1>
      <button type="button" class="btn" onClick=${() => download(url, 'text/csv', `${op.name}.csv`).catch((e) => setState((s) => ({ ...s, error: e })))}>${t('csv.download')}</button>
    </div>
    <nav class="report-tabs" aria-label=${page.label}>
      ${ops.map((o) => html`<a class=${o === op ? 'btn small primary' : 'btn small'} href=${address({ report: o.name, ...Object.fromEntries(op.query.map((q) => [q.name, null])) })} aria-current=${o === op ? 'page' : undefined}>${named(o, o.name)}</a>`)}
    </nav>
    <p>${op.summary}.</p>
    <form class="app-filters panel pad" aria-label=${t('reports.period')} onSubmit=${submit}>
      ${op.query.map((q) => {
        const id = `report-${q.name}`;
        const value = draft[q.name] ?? query.get(q.name) ?? (q.date ? (q.name === 'from' ? `${year()}-01-01` : q.name === 'to' ? `${year()}-12-31` : new Date().toISOString().slice(0, 10)) : (q.choices?.[0] ?? ''));
        return html`<div class="field">
          <label for=${id}>${named(op, q.name)}</label>
          ${q.choices
            ? html`<select id=${id} name=${q.name} value=${value} onChange=${keep(q.name)}>${q.choices.map((c) => html`<option value=${c}>${named(op, c)}</option>`)}</select>`
            : html`<input id=${id} name=${q.name} type=${q.date ? 'date' : 'text'} value=${value} onInput=${keep(q.name)} />`}
        </div>`;
      })}
      <div class="field actions"><button type="submit" class="btn primary">${t('reports.show')}</button></div>
    </form>
    ${state.error && html`<div class="alert" role="alert">${state.error.message}${state.error instanceof ApiProblem && state.error.violations.length ? html`<ul>${state.error.violations.map((v) => html`<li>${v.propertyPath}: ${v.message}</li>`)}</ul>` : ''}</div>`}
    ${state.loading && html`<p role="status">${t('common.loading')}</p>`}
    ${state.items && html`<p class="count" role="status">${t('csv.rows', { count: state.items.length })}</p>
      ${money.length > 0 && state.items.length > 0 && html`<${Chart} op=${op} items=${state.items} money=${money} text=${text} names=${names} />`}
      <div class="table-wrap panel">
        <table class="table">
          <caption class="visually-hidden">${named(op, op.name)}</caption>
          <thead><tr>${op.columns.map((c) => html`<th scope="col" class=${c.money ? 'num' : ''}>${named(op, c.name)}</th>`)}</tr></thead>
          <tbody>
            ${state.items.length === 0 && html`<tr><td colspan=${op.columns.length} class="empty">${t('reports.empty')}</td></tr>`}
            ${state.items.map((it) => html`<tr>${op.columns.map((c, i) => {
              const v = c.money ? formatMoney(it[c.name], it.currency, currentLocale()) : c.refers ? (names.get(it[c.name]) ?? it[c.name]) : String(it[c.name] ?? '');
              return i === 0 ? html`<th scope="row">${v}</th>` : html`<td class=${c.money ? 'num' : ''} data-label=${named(op, c.name)}>${v}</td>`;
            })}</tr>`)}
          </tbody>
        </table>
      </div>`}`;
}

/** Bars of each row's amounts, per currency (amounts of two currencies are never on one scale). */
function Chart({ op, items, money, text, names }) {
  const currencies = [...new Set(items.map((it) => it.currency))];
  const key = text.find((c) => c.name !== 'currency');
  const rowLabel = (it) => (key ? (key.refers ? (names.get(it[key.name]) ?? '') : String(it[key.name])) : '');
  return currencies.map((cur) => {
    const rows = items.filter((it) => it.currency === cur).slice(0, 24);
    const max = Math.max(1, ...rows.flatMap((it) => money.map((m) => Math.abs(Number(it[m.name]) || 0))));
    const H = 140;
    const group = money.length * 14 + 14;
    const id = `chart-${op.name}-${cur}`;
    // At least 640 units wide, so that a few bars keep the size of many.
    const W = Math.max(rows.length * group + 10, 640);
    return html`<figure class="panel pad chart app-chart">
      <figcaption id=${id}><span>${t('reports.in', { name: named(op, op.name), currency: cur })}</span> <span class="legends">${money.map((m, i) => html`<span class=${`legend legend-${i}`}>${named(op, m.name)}</span>`)}</span></figcaption>
      <svg class="chart-svg report-chart" viewBox=${`0 0 ${W} ${H + 30}`} role="img" aria-labelledby=${id}>
        <line class="chart-axis" x1="0" x2=${W} y1=${H} y2=${H} />
        ${rows.map((it, i) => html`<g>
          ${money.map((m, k) => {
            const v = Math.abs(Number(it[m.name]) || 0);
            const h = Math.round((v / max) * (H - 10));
            return html`<rect class=${`chart-bar report-bar-${k}`} x=${i * group + 8 + k * 14} y=${H - Math.max(h, 1)} width="12" height=${Math.max(h, 1)}><title>${rowLabel(it)} ${named(op, m.name)}: ${formatMoney(it[m.name], cur, currentLocale())}</title></rect>`;
          })}
          <text class="chart-tick" x=${i * group + 8 + (group - 14) / 2} y=${H + 18} text-anchor="middle">${rowLabel(it).slice(0, 10)}</text>
        </g>`)}
      </svg>
    </figure>`;
  });
}

/** Import from a CSV file: a preview (the dry run) first, then the import, all rows or none. */
export function ImportView({ ctx, r, op }) {
  const [file, setFile] = useState(null);
  const [preview, setPreview] = useState(null);
  const [done, setDone] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  async function send(dryRun) {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(`${r.iri}/${op.path}${dryRun ? '?dryRun=true' : ''}`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'text/csv', accept: 'application/json', 'x-csrf-token': ctx.csrf }, body: file });
      const body = await res.json().catch(() => null);
      if (!res.ok) throw new ApiProblem(res.status, body);
      if (dryRun) setPreview(body);
      else {
        setDone(body);
        setPreview(null);
      }
    } catch (e) {
      setError(e);
      setPreview(null);
    } finally {
      setBusy(false);
    }
  }
  return html`<div class="page-head"><h1>${t('import.title', nounOf(r))}</h1><a class="btn" href=${r.path}>${t('common.backTo', nounOf(r))}</a></div>
    <p>${op.summary}. ${t('import.intro')}</p>
    <form class="panel pad" onSubmit=${(e) => (e.preventDefault(), file && send(true))}>
      <div class="field">
        <label for="import-file">${t('import.file')}</label>
        <input id="import-file" type="file" accept=".csv,text/csv" onChange=${(e) => (setFile(e.currentTarget.files?.[0] ?? null), setPreview(null), setDone(null), setError(null))} />
      </div>
      <button type="submit" class="btn primary" disabled=${!file || busy}>${t('send.preview')}</button>
    </form>
    ${error && html`<div class="alert" role="alert"><p>${error.violations?.length ? t('import.refused') : error.message}</p>
      ${error.violations?.length > 0 && html`<ul class="import-errors">${error.violations.map((v) => html`<li>${v.propertyPath.replace(/^rows\[(\d+)\]\.?/, (_, n) => t('import.lineAt', { n }))}: ${v.message}</li>`)}</ul>`}</div>`}
    ${preview && html`<section class="panel pad" aria-labelledby="preview-title">
      <h2 id="preview-title">${t('import.previewTitle', { count: preview.created })}</h2>
      <div class="table-wrap"><table class="table">
        <caption class="visually-hidden">${t('import.rowsCaption')}</caption>
        <thead><tr>${['line', 'name', 'currency', 'contact', 'address'].map((k) => html`<th scope="col">${t(`import.${k}`)}</th>`)}</tr></thead>
        <tbody>${preview.clients.slice(0, 100).map((c) => html`<tr><th scope="row">${c.line}</th><td>${c.name}</td><td>${c.currency}</td><td>${c.contact ? t('import.yes') : ''}</td><td>${c.address ? t('import.yes') : ''}</td></tr>`)}</tbody>
      </table></div>
      ${preview.clients.length > 100 && html`<p>${t('import.more', { count: preview.clients.length - 100 })}</p>`}
      <button type="button" class="btn primary" disabled=${busy} onClick=${() => send(false)}>${t('import.rows', { count: preview.created })}</button>
    </section>`}
    ${done && html`<p class="notice" role="status">${t('import.done', { count: done.created })} <a href=${r.path}>${t('import.see')}</a></p>`}`;
}
