// The views of /app, built from the model's description: navigation, dashboard, list, record
// and form. No view is written for one resource: each reads the resource's description
// (fields, filters, orders, states, documents, operations) and asks /api.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { Dialog } from '../components/dialog.js';
import { ApiProblem, download, graphql, rest } from './api.js';
import {
  can,
  chartBars,
  choiceLabel,
  currencyDigits,
  formatMoney,
  formFields,
  fromInput,
  idOf,
  indexDescription,
  lineFields,
  listAddress,
  listQuery,
  listUrl,
  lockedFields,
  monthLabel,
  orderOf,
  pageOf,
  pickerQuery,
  route,
  titleOf,
  titlesQuery,
  toInput,
  transitionLabel,
  violationsByField,
  writes,
} from './lib.js';
// issue 46: reports, CSV downloads and imports live in reports.js; the hooks below are marked.
import { CsvDownload, ExtraNav, extraRoute, ImportLink, ImportView, OperationsView } from './reports.js';

// ---- navigation ---------------------------------------------------------------------------

/** Goes to an /app address without reloading (the address bar shows it; reload shows the same). */
export function go(href, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event('app:navigate'));
}

function useLocation() {
  const [loc, setLoc] = useState(() => ({ pathname: location.pathname, search: location.search }));
  useEffect(() => {
    const update = () => setLoc({ pathname: location.pathname, search: location.search });
    // Links to /app addresses change the view in place; others (and modified clicks) are left alone.
    const onClick = (e) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target.closest && e.target.closest('a[href]');
      if (!a || a.target || a.hasAttribute('download')) return;
      const url = new URL(a.href, location.href);
      if (url.origin !== location.origin || !/^\/app(\/|$)/.test(url.pathname)) return;
      e.preventDefault();
      go(url.pathname + url.search);
    };
    window.addEventListener('popstate', update);
    window.addEventListener('app:navigate', update);
    document.addEventListener('click', onClick);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('app:navigate', update);
      document.removeEventListener('click', onClick);
    };
  }, []);
  return loc;
}

/** Loads `fn()` whenever `key` changes: { data, error, loading, reload }. */
function useLoad(fn, key) {
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    fn().then(
      (data) => live && setState({ loading: false, data, error: null }),
      (error) => live && setState({ loading: false, data: null, error }),
    );
    return () => {
      live = false;
    };
  }, [key, n]);
  return { ...state, reload: () => setN((x) => x + 1) };
}

// ---- the shell ------------------------------------------------------------------------------

export function App({ boot }) {
  const desc = useMemo(() => indexDescription(boot.description), [boot]);
  const loc = useLocation();
  const view = extraRoute(desc, loc.pathname, loc.search) ?? route(desc, loc.pathname, loc.search); // issue 46: reports.js's pages first
  const ctx = { desc, role: boot.company?.role ?? 'viewer', company: boot.company, csrf: boot.csrf, notices: boot.notices ?? {} };
  const key = loc.pathname + loc.search;
  const title = viewTitle(view);
  useEffect(() => {
    document.title = `${title} · Invoicing`;
  }, [title]);
  // A new view moves focus to its heading, so a screen reader announces where one is.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [loc.pathname]);
  return html`<a class="skip" href="#main">Skip to content</a>
    <div class="app-shell">
      <header class="app-top">
        <a class="brand app-brand" href="/app"><span class="brand-mark" aria-hidden="true">i</span> Invoicing</a>
        <div class="app-top-end">
          <span class="company-name">${boot.company?.name ?? ''}</span>
          <span class="user-email">${boot.user.email} · ${ctx.role}</span>
          <form method="post" action="/logout" class="inline">
            <input type="hidden" name="_csrf" value=${boot.csrf} />
            <button type="submit" class="btn ghost small">Sign out</button>
          </form>
        </div>
      </header>
      <${Nav} desc=${desc} current=${view.resource?.name ?? view.page?.name ?? view.view} role=${ctx.role} />
      <main id="main" class="app-main" tabindex="-1">
        ${view.view === 'dashboard' && html`<${Dashboard} key=${key} ctx=${ctx} />`}
        ${view.view === 'list' && html`<${ListView} key=${key} ctx=${ctx} r=${view.resource} query=${view.query} />`}
        ${view.view === 'record' && html`<${RecordView} key=${key} ctx=${ctx} r=${view.resource} id=${view.id} />`}
        ${view.view === 'form' && html`<${FormView} key=${key} ctx=${ctx} r=${view.resource} id=${view.id} query=${view.query} />`}
        ${view.view === 'operations' && html`<${OperationsView} key=${view.page.name} ctx=${ctx} page=${view.page} query=${view.query} />`}
        ${view.view === 'import' && html`<${ImportView} key=${key} ctx=${ctx} r=${view.resource} op=${view.op} />`}
        ${view.view === 'missing' && html`<h1>Not found</h1><p>There is no page at this address. <a href="/app">Go to the dashboard</a>.</p>`}
      </main>
    </div>`;
}

function viewTitle(view) {
  switch (view.view) {
    case 'dashboard':
      return 'Dashboard';
    case 'operations': // issue 46
      return view.page.label;
    case 'import': // issue 46
      return `Import ${view.resource.label.toLowerCase()}`;
    case 'list':
      return view.resource.label;
    case 'record':
      return view.resource.singular;
    case 'form':
      return view.id ? `Edit ${view.resource.singular.toLowerCase()}` : `New ${view.resource.singular.toLowerCase()}`;
    default:
      return 'Not found';
  }
}

function Nav({ desc, current, role }) {
  // On a phone the lists fold behind a Menu button (app.css); choosing a link folds them again.
  const [open, setOpen] = useState(false);
  const item = (href, label, on) => html`<li><a href=${href} aria-current=${on ? 'page' : undefined}>${label}</a></li>`;
  return html`<nav class=${open ? 'app-nav open' : 'app-nav'} aria-label="Main" onClick=${(e) => e.target.closest('a') && setOpen(false)}>
    <button type="button" class="btn app-menu" aria-expanded=${open} aria-controls="app-nav-lists" onClick=${() => setOpen(!open)}>Menu</button>
    <div id="app-nav-lists">
      <ul>
        ${item('/app', 'Dashboard', current === 'dashboard')}
        ${desc.navigation.map((name) => {
          const r = desc.get(name);
          return item(r.path, r.label, current === name);
        })}
        <${ExtraNav} desc=${desc} current=${current} role=${role} /> ${/* issue 46 */ ''}
      </ul>
      <ul class="app-nav-settings" aria-label="Settings">
        ${item('/profile/api', 'API tokens', false)}
        ${item('/profile/company', 'Company', false)}
      </ul>
    </div>
  </nav>`;
}

function Problem({ error }) {
  if (!error) return null;
  return html`<p class="alert" role="alert">${error.message}</p>`;
}

function Loading() {
  return html`<p class="muted" role="status">Loading…</p>`;
}

// ---- values ---------------------------------------------------------------------------------

const currencyOf = (rec, ctx) => rec?.currency || ctx.company?.currency;

/** A value as read on a page: amounts in their currency, references as links to their record. */
function Value({ ctx, f, v, rec, titles }) {
  if (v === null || v === undefined || v === '') return html`<span class="muted">—</span>`;
  switch (f.kind) {
    case 'money':
      return html`<span class="num">${formatMoney(v, currencyOf(rec, ctx))}</span>`;
    case 'boolean':
      return v ? 'Yes' : 'No';
    case 'enum':
      return f.name === 'status' ? html`<span class=${`badge badge-${v}`}>${choiceLabel(v)}</span>` : choiceLabel(v);
    case 'timestamp':
      return html`<time datetime=${v}>${String(v).replace('T', ' ').slice(0, 16)}</time>`;
    case 'ref': {
      const iri = typeof v === 'object' ? v.id : v;
      const t = ctx.desc.ofIri(iri);
      const label = typeof v === 'object' && t ? titleOf(t, v) : (titles?.get(iri) ?? (t ? titleOf(t, { id: iri }) : iri));
      const href = t && !t.owner ? pageOf(iri) : null;
      return href ? html`<a href=${href}>${label}</a>` : label;
    }
    case 'textList':
      return (v ?? []).join(', ');
    case 'list':
      return `${v.length} item${v.length === 1 ? '' : 's'}`;
    default:
      return String(v);
  }
}

// ---- dashboard ------------------------------------------------------------------------------

function Dashboard({ ctx }) {
  const invoices = ctx.desc.get('Invoice');
  const hasDashboard = invoices?.operations.some((o) => o.name === 'dashboard');
  const { data, error, loading } = useLoad(() => (hasDashboard ? rest(`${invoices.iri}/dashboard`) : Promise.resolve(null)), 'dashboard');
  return html`<h1>Dashboard</h1>
    ${loading && html`<${Loading} />`}
    <${Problem} error=${error} />
    ${data &&
    html`<section aria-labelledby="receivables">
        <h2 id="receivables">Receivables</h2>
        <div class="cards">
          ${(data.currencies.length ? data.currencies : [{ currency: ctx.company?.currency ?? 'USD', outstanding: 0, overdue: 0, overdueCount: 0 }]).map(
            (c) => html`<div class="card">
              <p class="card-label">Outstanding (${c.currency})</p>
              <p class="card-value" data-testid=${`outstanding-${c.currency}`}>${formatMoney(c.outstanding, c.currency)}</p>
              <p class="card-note">Overdue: <strong data-testid=${`overdue-${c.currency}`}>${formatMoney(c.overdue, c.currency)}</strong> (${c.overdueCount} invoice${c.overdueCount === 1 ? '' : 's'})</p>
            </div>`,
          )}
        </div>
      </section>
      <section aria-labelledby="per-status" class="panel pad">
        <h2 id="per-status">Invoices per status</h2>
        <table class="table compact">
          <thead><tr><th scope="col">Status</th><th scope="col" class="num">Invoices</th></tr></thead>
          <tbody>
            ${data.statuses.map((s) => html`<tr><td><a href=${`${invoices.path}?status=${s.status}`}>${choiceLabel(s.status)}</a></td><td class="num" data-testid=${`status-${s.status}`}>${s.count}</td></tr>`)}
          </tbody>
        </table>
      </section>
      ${[...new Set([ctx.company?.currency, ...data.payments.map((p) => p.currency)].filter(Boolean))].map((currency) => html`<${PaymentsChart} key=${currency} data=${data} currency=${currency} />`)}`}`;
}

function PaymentsChart({ data, currency }) {
  const bars = chartBars(data.months, data.payments, currency);
  const id = `chart-${currency}`;
  const total = bars.reduce((s, b) => s + b.amount, 0);
  const w = 44;
  const H = 160;
  return html`<figure class="panel pad chart app-chart" aria-labelledby=${`${id}-title`}>
    <figcaption><h2 id=${`${id}-title`}>Payments per month (${currency})</h2><p class="muted">Last 12 months: ${formatMoney(total, currency)}</p></figcaption>
    <svg class="chart-svg" viewBox=${`0 0 ${bars.length * w + 10} ${H + 30}`} role="img" aria-labelledby=${`${id}-title`} aria-describedby=${`${id}-table`}>
      <line class="chart-axis" x1="0" x2=${bars.length * w + 10} y1=${H} y2=${H} />
      ${bars.map(
        (b, i) => html`<g>
          <rect class=${b.amount ? 'chart-bar' : 'chart-bar-empty'} x=${i * w + 8} y=${H - Math.max(b.height, 1)} width=${w - 12} height=${Math.max(b.height, 1)}><title>${monthLabel(b.month)}: ${formatMoney(b.amount, currency)}</title></rect>
          <text class="chart-tick" x=${i * w + 8 + (w - 12) / 2} y=${H + 18} text-anchor="middle">${monthLabel(b.month).slice(0, 3)}</text>
        </g>`,
      )}
    </svg>
    <table class="visually-hidden" id=${`${id}-table`}>
      <caption>Payments per month in ${currency}</caption>
      <thead><tr><th scope="col">Month</th><th scope="col">Amount</th></tr></thead>
      <tbody>${bars.map((b) => html`<tr><th scope="row">${monthLabel(b.month)}</th><td>${formatMoney(b.amount, currency)}</td></tr>`)}</tbody>
    </table>
  </figure>`;
}

// ---- lists ----------------------------------------------------------------------------------

async function loadList(ctx, r, query) {
  if (r.gql) {
    const data = await graphql(listQuery(ctx.desc, r, query));
    const c = data[r.plural];
    return { items: c.edges.map((e) => e.node), total: c.totalCount, info: c.pageInfo };
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

/** What the server says of this resource's state (held e-mails), above its list and form. */
function Notice({ ctx, r }) {
  const text = ctx.notices[r.name];
  return text ? html`<p class="notice" role="status" data-testid="notice">${text}</p>` : null;
}

function ListView({ ctx, r, query }) {
  const { data, error, loading } = useLoad(() => loadList(ctx, r, query), query.toString());
  const order = orderOf(r, query);
  const filters = r.fields.filter((f) => f.filter);
  const columns = r.columns.map((n) => r.byField.get(n));
  const mayCreate = can(r, 'create') && writes(r, ctx.role);
  const here = (changes) => listAddress(r, query, changes);
  return html`<div class="page-head">
      <h1>${r.label}</h1>
      <div class="page-actions">
        <${CsvDownload} r=${r} query=${query} /><${ImportLink} ctx=${ctx} r=${r} /> ${/* issue 46 */ ''}
        ${mayCreate && html`<a class="btn primary" href=${`${r.path}/new`}>New ${r.singular.toLowerCase()}</a>`}
      </div>
    </div>
    <${Notice} ctx=${ctx} r=${r} />
    <${FilterBar} ctx=${ctx} r=${r} query=${query} filters=${filters} order=${order} />
    <${Problem} error=${error} />
    ${loading && !data && html`<${Loading} />`}
    ${data &&
    html`<p class="count" role="status" data-testid="total">${data.total === null ? 'More than 10,000' : data.total} ${data.total === 1 ? r.singular.toLowerCase() : r.label.toLowerCase()}</p>
      <div class="table-wrap panel">
        <table class="table">
          <caption class="visually-hidden">${r.label}${order ? `, sorted by ${order.field} ${order.dir === 'asc' ? 'ascending' : 'descending'}` : ''}</caption>
          <thead>
            <tr>
              ${columns.map((f) => html`<th scope="col" class=${f.kind === 'money' ? 'num' : ''} aria-sort=${order?.field === f.name ? (order.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                ${r.orders.includes(f.name) ? html`<a class="sort" href=${here({ order: `${f.name}:${order?.field === f.name && order.dir === 'asc' ? 'desc' : 'asc'}` })}>${f.label}</a>` : f.label}
              </th>`)}
            </tr>
          </thead>
          <tbody>
            ${data.items.length === 0 && html`<tr><td colspan=${columns.length} class="empty">Nothing here yet.</td></tr>`}
            ${data.items.map(
              (rec) => html`<tr>
                ${columns.map((f, i) => {
                  const id = rec._id ?? rec.id;
                  const cell = i === 0 ? html`<a href=${`${r.path}/${idOf(rec.id ?? rec['@id']) || id}`}>${f.name === r.title ? titleOf(r, rec) : html`<${Value} ctx=${ctx} f=${f} v=${rec[f.name]} rec=${rec} />`}</a>` : html`<${Value} ctx=${ctx} f=${f} v=${rec[f.name]} rec=${rec} />`;
                  return i === 0 ? html`<th scope="row">${cell}</th>` : html`<td class=${f.kind === 'money' ? 'num' : ''} data-label=${f.label}>${cell}</td>`;
                })}
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages">
        <a class="btn small" href=${here({})} aria-disabled=${data.info.hasPreviousPage ? undefined : 'true'}>First</a>
        ${data.info.hasPreviousPage ? html`<a class="btn small" rel="prev" href=${here({ before: data.info.startCursor })}>Previous</a>` : html`<span class="btn small" aria-disabled="true">Previous</span>`}
        ${data.info.hasNextPage ? html`<a class="btn small" rel="next" href=${here({ after: data.info.endCursor })}>Next</a>` : html`<span class="btn small" aria-disabled="true">Next</span>`}
        <a class="btn small" href=${here({ last: '1' })}>Last</a>
      </nav>`}`;
}

function FilterBar({ ctx, r, query, filters, order }) {
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
  return html`<form class="app-filters panel pad" role="search" aria-label=${`Filter ${r.label.toLowerCase()}`} onSubmit=${submit}>
    ${filters.map((f) => {
      if (f.filter === 'date')
        return html`<div class="field"><label for=${id(`${f.name}-after`)}>${f.label} from</label><input type="date" id=${id(`${f.name}-after`)} value=${values[`${f.name}[after]`] ?? ''} onInput=${set(`${f.name}[after]`)} /></div>
          <div class="field"><label for=${id(`${f.name}-before`)}>${f.label} to</label><input type="date" id=${id(`${f.name}-before`)} value=${values[`${f.name}[before]`] ?? ''} onInput=${set(`${f.name}[before]`)} /></div>`;
      if (f.kind === 'enum')
        return html`<div class="field"><label for=${id(f.name)}>${f.label}</label><select id=${id(f.name)} value=${values[f.name] ?? ''} onChange=${set(f.name)}><option value="">Any</option>${f.values.map((v) => html`<option value=${v}>${choiceLabel(v)}</option>`)}</select></div>`;
      if (f.kind === 'ref') {
        const t = ctx.desc.get(f.target);
        return t?.gql ? html`<${RefPicker} ctx=${ctx} id=${id(f.name)} label=${f.label} target=${t} value=${values[f.name] ?? ''} anyLabel="Any" onChange=${(iri) => setValues((v) => ({ ...v, [f.name]: iri }))} />` : null;
      }
      return html`<div class="field"><label for=${id(f.name)}>${f.label}</label><input type="search" id=${id(f.name)} value=${values[f.name] ?? ''} onInput=${set(f.name)} /></div>`;
    })}
    ${r.orders.length > 1 &&
    html`<div class="field"><label for=${id('order')}>Sort by</label><select id=${id('order')} value=${values.order ?? ''} onChange=${set('order')}>
      <option value="">Newest first</option>
      ${r.orders.flatMap((o) => ['asc', 'desc'].map((dir) => html`<option value=${`${o}:${dir}`}>${r.byField.get(o)?.label ?? 'Created'} (${dir === 'asc' ? 'ascending' : 'descending'})</option>`))}
    </select></div>`}
    <div class="field filter-actions"><button type="submit" class="btn">Apply</button> <a class="btn ghost" href=${r.path}>Clear</a></div>
  </form>`;
}

// ---- records --------------------------------------------------------------------------------

/** The IRIs a record refers to (its references and its lines'). */
function referencesOf(ctx, r, rec) {
  const out = new Set();
  for (const f of r.fields) {
    if (f.kind === 'ref' && typeof rec[f.name] === 'string') out.add(rec[f.name]);
    if ((f.kind === 'children' && f.embedded) || f.kind === 'list') {
      const members = lineFields(ctx.desc, f);
      for (const line of rec[f.name] ?? []) for (const m of members) if (m.kind === 'ref' && typeof line[m.name] === 'string') out.add(line[m.name]);
    }
  }
  return [...out];
}

async function loadRecord(ctx, r, id) {
  const rec = await rest(`${r.iri}/${encodeURIComponent(id)}`);
  const titles = new Map();
  const iris = referencesOf(ctx, r, rec);
  const q = titlesQuery(ctx.desc, iris);
  if (q) {
    const data = await graphql(q).catch(() => ({}));
    iris.forEach((iri, i) => {
      const node = data[`r${i}`];
      const t = ctx.desc.ofIri(iri);
      if (node && t) titles.set(iri, titleOf(t, node));
    });
  }
  return { rec, titles };
}

function RecordView({ ctx, r, id }) {
  const { data, error, loading, reload } = useLoad(() => loadRecord(ctx, r, id), id);
  const [problem, setProblem] = useState(null);
  const [notice, setNotice] = useState(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  if (loading && !data) return html`<${Loading} />`;
  if (error) return html`<h1>${r.singular}</h1><${Problem} error=${error} />`;
  const { rec, titles } = data;
  const iri = `${r.iri}/${id}`;
  const mayWrite = writes(r, ctx.role);
  const state = r.states ? rec[r.states.field] : null;
  const targets = r.states && mayWrite && can(r, 'update') ? (r.states.transitions[state] ?? []) : [];
  // What the state machine forbids is not offered (the API would refuse it with a 409 or 422).
  const deletable = can(r, 'delete') && mayWrite && (!r.states?.deletable || r.states.deletable.includes(state));
  const editable = can(r, 'update') && mayWrite && !(r.states?.editable?.[state] && r.states.editable[state].length === 0);
  const ops = r.operations.filter((o) => o.on === 'item' && o.method === 'POST' && !o.input && !o.params && o.roles.includes(ctx.role));

  async function act(fn, done) {
    setBusy(true);
    setProblem(null);
    setNotice(null);
    try {
      const out = await fn();
      if (done) done(out);
    } catch (e) {
      setProblem(e);
    } finally {
      setBusy(false);
    }
  }
  const transition = (to) => act(() => rest(iri, { method: 'PATCH', body: { [r.states.field]: to } }), () => {
    setNotice(`${r.singular} is now ${choiceLabel(to).toLowerCase()}.`);
    reload();
  });
  const operate = (op) =>
    act(() => rest(`${iri}/${op.path}`, { method: 'POST', body: {} }), (out) => {
      const target = op.resource && ctx.desc.get(op.resource);
      const made = out && (out['@id'] ?? (target && out.id ? `${target.iri}/${out.id}` : null));
      if (target && made && target.name !== r.name) go(pageOf(made));
      else {
        setNotice(`${choiceLabel(op.name)}: done.`);
        reload();
      }
    });
  const remove = () =>
    act(() => rest(iri, { method: 'DELETE' }), () => go(r.path)).finally(() => setConfirming(false));

  const shown = r.fields.filter((f) => f.kind !== 'children' && f.kind !== 'list' && f.name !== r.states?.field);
  const lines = r.fields.filter((f) => (f.kind === 'children' && f.embedded) || f.kind === 'list');
  const related = r.fields.filter((f) => f.kind === 'children' && !f.embedded && ctx.desc.get(f.target)?.byField.get(f.via)?.filter && !ctx.desc.get(f.target)?.owner);
  // Records of other resources that name this one by IRI (`refersTo`: an e-mail sending it, a
  // client link to it), offered as a create prefilled with this record.
  const referring = ctx.desc.resources.flatMap((x) =>
    can(x, 'create') && writes(x, ctx.role) ? x.fields.filter((f) => f.refersTo?.includes(r.name) && !f.readOnly).map((f) => ({ x, f })) : [],
  );
  return html`<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href=${r.path}>${r.label}</a></li><li><span aria-current="page">${titleOf(r, rec)}</span></li></ol></nav>
    <div class="page-head">
      <h1>${r.singular} ${titleOf(r, rec) !== `${r.singular} ${String(rec.id).slice(-6)}` ? titleOf(r, rec) : ''} ${state && html`<span class=${`badge badge-${state}`}>${choiceLabel(state)}</span>`}</h1>
    </div>
    <div class="actions" role="group" aria-label="Actions">
      ${editable && html`<a class="btn" href=${`${r.path}/${id}/edit`}>Edit</a>`}
      ${targets.map((to) => html`<button type="button" class="btn" disabled=${busy} onClick=${() => transition(to)}>${transitionLabel(to)}</button>`)}
      ${r.documents.map((d) => html`<button type="button" class="btn" disabled=${busy} onClick=${() => act(() => download(iri, d.mediaType, `${titleOf(r, rec)}.${d.extension}`))}>Download ${d.extension === 'pdf' ? 'PDF' : d.mediaType.includes('ubl') ? 'UBL e-invoice' : d.extension.toUpperCase()}</button>`)}
      ${ops.map((op) => html`<button type="button" class="btn" disabled=${busy} title=${op.summary} onClick=${() => operate(op)}>${choiceLabel(op.name.replace(/([A-Z])/g, ' $1').toLowerCase())}</button>`)}
      ${referring.map(({ x, f }) => html`<a class="btn" href=${`${x.path}/new?${new URLSearchParams({ [f.name]: iri })}`}>New ${x.singular.toLowerCase()}</a>`)}
      ${deletable && html`<button type="button" class="btn danger" disabled=${busy} onClick=${() => setConfirming(true)}>Delete</button>`}
    </div>
    ${problem && html`<p class="alert" role="alert">${problem.message}</p>`}
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    <section class="panel pad" aria-label="Details">
      <dl class="record">
        ${shown.map((f) => html`<div><dt>${f.label}</dt><dd data-field=${f.name}><${Value} ctx=${ctx} f=${f} v=${rec[f.name]} rec=${rec} titles=${titles} /></dd></div>`)}
      </dl>
    </section>
    ${lines.map((f) => html`<${LinesTable} ctx=${ctx} f=${f} rec=${rec} titles=${titles} />`)}
    ${related.length > 0 &&
    html`<section class="panel pad" aria-labelledby="related"><h2 id="related">Related</h2><ul class="related">
      ${related.map((f) => {
        const t = ctx.desc.get(f.target);
        const field = t.byField.get(f.via);
        const mayAdd = can(t, 'create') && writes(t, ctx.role) && field && !field.readOnly;
        return html`<li><a href=${`${t.path}?${f.via}=${encodeURIComponent(iri)}`}>${f.label}</a>${mayAdd && html` · <a href=${`${t.path}/new?${f.via}=${encodeURIComponent(iri)}`}>New ${t.singular.toLowerCase()}</a>`}</li>`;
      })}
    </ul></section>`}
    ${confirming &&
    html`<${Dialog} title=${`Delete ${r.singular.toLowerCase()}?`} onClose=${() => setConfirming(false)}>
      <p>${titleOf(r, rec)} will be deleted. This cannot be undone.</p>
      <div class="dialog-actions">
        <button type="button" class="btn" data-autofocus onClick=${() => setConfirming(false)}>Keep it</button>
        <button type="button" class="btn danger" disabled=${busy} onClick=${remove}>Delete</button>
      </div>
    <//>`}`;
}

function LinesTable({ ctx, f, rec, titles }) {
  const child = f.kind === 'children' ? ctx.desc.get(f.target) : null;
  const members = child ? child.fields.filter((c) => c.name !== f.via && c.name !== f.orderBy && c.kind !== 'children' && c.kind !== 'list') : f.of;
  // The members a person typed, and the first computed amount (a line's total); the other
  // read-only members are the engine's bookkeeping, shown on nothing but the API.
  const amount = members.find((m) => m.readOnly && m.kind === 'money');
  const shown = members.filter((m) => !m.readOnly || m === amount);
  const items = rec[f.name] ?? [];
  return html`<section class="panel pad" aria-labelledby=${`lines-${f.name}`}>
    <h2 id=${`lines-${f.name}`}>${f.label}</h2>
    <div class="table-wrap"><table class="table">
      <thead><tr>${shown.map((m) => html`<th scope="col" class=${m.kind === 'money' ? 'num' : ''}>${m.label}</th>`)}</tr></thead>
      <tbody>
        ${items.length === 0 && html`<tr><td colspan=${shown.length} class="empty">None.</td></tr>`}
        ${items.map((line) => html`<tr>${shown.map((m) => html`<td class=${m.kind === 'money' ? 'num' : ''} data-label=${m.label}><${Value} ctx=${ctx} f=${m} v=${line[m.name]} rec=${rec} titles=${titles} /></td>`)}</tr>`)}
      </tbody>
    </table></div>
  </section>`;
}

// ---- forms ----------------------------------------------------------------------------------

/** A viewer's form address: the API's own refusal, asked with a write that changes nothing. */
async function refusal(r) {
  try {
    await rest(r.iri, { method: 'POST', body: { '(viewer check)': true } });
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 403) return e;
  }
  return new ApiProblem(403, { detail: 'You may only read.' });
}

async function loadForm(ctx, r, id) {
  if (!writes(r, ctx.role)) return { refused: await refusal(r) };
  if (!id) return { rec: null, titles: new Map() };
  return loadRecord(ctx, r, id);
}

function emptyLine(ctx, f, currency) {
  return Object.fromEntries(lineFields(ctx.desc, f).map((m) => [m.name, m.default !== undefined ? toInput(m, m.default, currency) : toInput(m, null, currency)]));
}

function FormView({ ctx, r, id, query }) {
  const { data, error, loading } = useLoad(() => loadForm(ctx, r, id), `${r.name}/${id}`);
  if (loading) return html`<${Loading} />`;
  const title = id ? `Edit ${r.singular.toLowerCase()}` : `New ${r.singular.toLowerCase()}`;
  if (error) return html`<h1>${title}</h1><${Problem} error=${error} />`;
  if (data.refused) return html`<h1>${title}</h1><p class="alert" role="alert">${data.refused.message}</p><p><a href=${r.path}>Back to ${r.label.toLowerCase()}</a></p>`;
  return html`<${Form} ctx=${ctx} r=${r} id=${id} rec=${data.rec} titles=${data.titles} title=${title} query=${query} />`;
}

function Form({ ctx, r, id, rec, titles, title, query }) {
  const mode = id ? 'update' : 'create';
  const fields = formFields(r, mode);
  const locked = lockedFields(r, rec);
  const [currency, setCurrency] = useState(currencyOf(rec, ctx));
  const [values, setValues] = useState(() => {
    const v = {};
    for (const f of fields) {
      if (f.kind === 'children' || f.kind === 'list') v[f.name] = (rec?.[f.name] ?? []).map((line) => Object.fromEntries(lineFields(ctx.desc, f).map((m) => [m.name, toInput(m, line[m.name], currency)])));
      else v[f.name] = toInput(f, rec ? rec[f.name] : (query?.get(f.name) ?? f.default ?? null), currency);
    }
    return v;
  });
  const [errors, setErrors] = useState({ fields: {}, lines: {}, other: [] });
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState(null);
  const formRef = useRef(null);
  const onceRef = useRef(null);
  useEffect(() => onceRef.current?.focus(), [created]);
  const set = (name, value) => setValues((v) => ({ ...v, [name]: value }));

  async function submit(e) {
    e.preventDefault();
    const body = {};
    const local = { fields: {}, lines: {}, other: [] };
    for (const f of fields) {
      if (locked.has(f.name)) continue;
      if (f.kind === 'children' || f.kind === 'list') {
        body[f.name] = values[f.name].map((line, i) => {
          const out = {};
          for (const m of lineFields(ctx.desc, f)) {
            const c = fromInput(m, line[m.name], currency);
            if (c.error) ((local.lines[f.name] ??= {})[i] ??= {})[m.name] = [c.error];
            else if (c.value !== null || m.kind === 'ref') out[m.name] = c.value;
          }
          return out;
        });
        continue;
      }
      const c = fromInput(f, values[f.name], currency);
      if (c.error) local.fields[f.name] = [c.error];
      else if (c.value !== null || mode === 'update') body[f.name] = c.value;
    }
    setProblem(null);
    if (Object.keys(local.fields).length || Object.keys(local.lines).length) {
      setErrors(local);
      setProblem(new Error('Please correct the fields marked below.'));
      focusFirstInvalid();
      return;
    }
    setBusy(true);
    try {
      const out = await rest(mode === 'create' ? r.iri : `${r.iri}/${id}`, { method: mode === 'create' ? 'POST' : 'PATCH', body });
      const address = `${r.path}/${out.id ?? idOf(out['@id'])}`;
      // A value the create response alone carries (a client link's URL) is shown here, this once.
      const once = (r.shownOnce ?? []).filter((n) => out[n]);
      if (mode === 'create' && once.length) setCreated({ address, values: once.map((n) => ({ name: n, value: String(out[n]) })) });
      else go(address);
    } catch (err) {
      const v = violationsByField(err.violations);
      setErrors(v);
      setProblem(err.violations?.length ? new Error(`Please correct the field${err.violations.length === 1 ? '' : 's'} marked below.${v.other.length ? ` ${v.other.join(' ')}` : ''}`) : err);
      focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  }
  function focusFirstInvalid() {
    setTimeout(() => {
      const el = formRef.current?.querySelector('[aria-invalid="true"]');
      if (el) el.focus();
      else formRef.current?.querySelector('[role="alert"]')?.focus();
    });
  }

  return html`<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href=${r.path}>${r.label}</a></li>${rec && html`<li><a href=${`${r.path}/${id}`}>${titleOf(r, rec)}</a></li>`}<li><span aria-current="page">${id ? 'Edit' : 'New'}</span></li></ol></nav>
    <h1>${title}</h1>
    <${Notice} ctx=${ctx} r=${r} />
    ${created &&
    html`<section class="panel pad" aria-label="Shown once" data-testid="shown-once">
      <p class="warning" role="status"><strong>Copy this now:</strong> it is shown only this once.</p>
      ${created.values.map(
        (v, i) => html`<div class="field"><label for=${`once-${v.name}`}>${v.name === 'url' ? 'Link' : v.name}</label>
          <input id=${`once-${v.name}`} ref=${i === 0 ? onceRef : undefined} class="mono" readonly value=${v.value} onFocus=${(e) => e.currentTarget.select()} /></div>`,
      )}
      <p><a class="btn primary" href=${created.address}>Continue</a></p>
    </section>`}
    <form ref=${formRef} hidden=${Boolean(created)} class="app-form panel pad" novalidate onSubmit=${submit}>
      ${problem && html`<p class="alert" role="alert" tabindex="-1">${problem.message}</p>`}
      <div class="field-grid">
        ${fields.filter((f) => f.kind !== 'children' && f.kind !== 'list').map(
          (f) => html`<${Input} ctx=${ctx} f=${f} value=${values[f.name]} currency=${currency} locked=${locked.has(f.name)} errors=${errors.fields[f.name]} titles=${titles}
            onChange=${(v, option) => {
              set(f.name, v);
              // A record whose currency is its reference's (an invoice's is its client's) takes it from the pick.
              if (option?.currency && f.kind === 'ref' && r.byField.has('currency')) setCurrency(option.currency);
            }} />`,
        )}
      </div>
      ${fields.filter((f) => f.kind === 'children' || f.kind === 'list').map(
        (f) => html`<${LineEditor} ctx=${ctx} f=${f} lines=${values[f.name]} currency=${currency} locked=${locked.has(f.name)} errors=${errors.lines[f.name] ?? {}} titles=${titles} onChange=${(lines) => set(f.name, lines)} />`,
      )}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled=${busy}>${mode === 'create' ? `Create ${r.singular.toLowerCase()}` : 'Save changes'}</button>
        <a class="btn ghost" href=${id ? `${r.path}/${id}` : r.path}>Cancel</a>
      </div>
    </form>`;
}

function Input({ ctx, f, value, currency, locked, errors, onChange, titles, idPrefix = 'f', label, compact = false }) {
  const id = `${idPrefix}-${f.name}`;
  const errId = `${id}-error`;
  const hintId = `${id}-hint`;
  const hint = compact ? null : f.kind === 'money' ? `In ${currency || 'the currency'}, with ${currencyDigits(currency)} decimals.` : f.description && f.description.length < 120 ? f.description : null;
  const described = [hint ? hintId : '', errors?.length ? errId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-invalid': errors?.length ? 'true' : undefined, 'aria-describedby': described, disabled: locked, required: f.required };
  const name = label ?? f.label;
  const labelEl = compact ? html`<label for=${id} class="visually-hidden">${name}</label>` : html`<label for=${id}>${f.label}${f.required ? html` <span class="required" aria-hidden="true">*</span>` : ''}</label>`;
  let control;
  switch (f.kind) {
    case 'enum':
      control = html`<select ...${common} value=${value ?? ''} onChange=${(e) => onChange(e.currentTarget.value)}>
        ${f.default === undefined && html`<option value="">${f.required ? 'Choose…' : '—'}</option>`}
        ${f.values.map((v) => html`<option value=${v}>${choiceLabel(v)}</option>`)}
      </select>`;
      break;
    case 'boolean':
      return html`<div class="field bool-field"><input type="checkbox" ...${common} checked=${Boolean(value)} onChange=${(e) => onChange(e.currentTarget.checked)} /> <label for=${id}>${name}</label>
        ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}</div>`;
    case 'ref': {
      const t = ctx.desc.get(f.target);
      return html`<${RefPicker} ctx=${ctx} id=${id} label=${name} target=${t} value=${value ?? ''} required=${f.required} disabled=${locked} errors=${errors} titles=${titles} compact=${compact} onChange=${onChange} />`;
    }
    case 'textList':
      if (f.values) {
        return html`<fieldset class="field wide events" aria-describedby=${described}>
          <legend>${f.label}</legend>
          <div class="event-grid">${f.values.map((v) => html`<label class="check-row"><input type="checkbox" checked=${(value ?? []).includes(v)} disabled=${locked}
            onChange=${(e) => onChange(e.currentTarget.checked ? [...(value ?? []), v] : (value ?? []).filter((x) => x !== v))} /> <span class="mono-label">${v}</span></label>`)}</div>
          ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
        </fieldset>`;
      }
      control = html`<textarea ...${common} value=${(value ?? []).join('\n')} onInput=${(e) => onChange(e.currentTarget.value.split('\n'))} />`;
      break;
    case 'text':
      control = f.multiline && !compact
        ? html`<textarea ...${common} rows="3" value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`
        : html`<input type=${f.format === 'email' ? 'email' : f.format === 'url' ? 'url' : 'text'} ...${common} maxlength=${f.max} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
      break;
    case 'date':
      control = html`<input type="date" ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
      break;
    case 'timestamp':
      control = html`<input type="datetime-local" ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
      break;
    case 'money':
      control = html`<div class="money-input"><input type="text" inputmode="decimal" ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />${!compact && html`<span class="unit" aria-hidden="true">${currency ?? ''}</span>`}</div>`;
      break;
    default:
      control = html`<input type="text" inputmode=${f.kind === 'integer' ? 'numeric' : 'decimal'} ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
  }
  return html`<div class=${`field${f.multiline && !compact ? ' wide' : ''}`}>
    ${labelEl}
    ${hint && html`<p class="hint" id=${hintId}>${hint}</p>`}
    ${control}
    ${locked && !compact && html`<p class="hint">Cannot change in this state.</p>`}
    ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
  </div>`;
}

/**
 * A reference picked by search: a search box and a list of the matching records (the first 20,
 * by name), read with one GraphQL query per search.
 */
function RefPicker({ ctx, id, label, target, value, onChange, required, disabled, errors, titles, anyLabel, compact = false }) {
  const [text, setText] = useState('');
  const [options, setOptions] = useState([]);
  const [total, setTotal] = useState(null);
  useEffect(() => {
    if (!target?.gql) return;
    let live = true;
    const timer = setTimeout(
      () =>
        graphql(pickerQuery(target, text)).then(
          (d) => {
            if (!live) return;
            const c = d[target.plural];
            setOptions(c.edges.map((e) => e.node));
            setTotal(c.totalCount);
          },
          () => {},
        ),
      text ? 250 : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text, target?.name]);
  const known = options.some((o) => o.id === value);
  // A value given by the address (`/app/payments/new?invoice=…`) is told with its record once
  // listed, as a pick is (its currency).
  useEffect(() => {
    const found = value && options.find((o) => o.id === value);
    if (found) onChange(value, found);
  }, [options]);
  const errId = `${id}-error`;
  const pick = (iri) => onChange(iri, options.find((o) => o.id === iri));
  return html`<div class=${`field picker${compact ? ' compact' : ''}`}>
    ${!compact && html`<label for=${id}>${label}${required ? html` <span class="required" aria-hidden="true">*</span>` : ''}</label>`}
    ${compact && html`<label for=${id} class="visually-hidden">${label}</label>`}
    ${target?.search && !disabled && (!compact || (total !== null && total > options.length) || text) && html`<label for=${`${id}-search`} class="visually-hidden">Search ${target.label.toLowerCase()} for ${label}</label>
      <input type="search" id=${`${id}-search`} class="picker-search" placeholder=${`Search ${target.label.toLowerCase()}…`} value=${text} onInput=${(e) => setText(e.currentTarget.value)} />`}
    <select id=${id} value=${value ?? ''} disabled=${disabled} required=${required} aria-invalid=${errors?.length ? 'true' : undefined} aria-describedby=${errors?.length ? errId : undefined} onChange=${(e) => pick(e.currentTarget.value)}>
      <option value="">${anyLabel ?? (required ? `Choose…` : 'None')}</option>
      ${value && !known && html`<option value=${value}>${titles?.get(value) ?? (target ? titleOf(target, { id: value }) : value)}</option>`}
      ${options.map((o) => html`<option value=${o.id}>${titleOf(target, o)}</option>`)}
    </select>
    ${!compact && total !== null && total > options.length && html`<p class="hint">${options.length} of ${total} shown: search to find others.</p>`}
    ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
  </div>`;
}

/** Lines of a record: added, removed and moved; each member a labelled input. */
function LineEditor({ ctx, f, lines, currency, locked, errors, titles, onChange }) {
  const members = lineFields(ctx.desc, f);
  const one = f.label.replace(/s$/, '').toLowerCase();
  const setLine = (i, name, v) => onChange(lines.map((l, j) => (j === i ? { ...l, [name]: v } : l)));
  const move = (i, d) => {
    const next = [...lines];
    [next[i], next[i + d]] = [next[i + d], next[i]];
    onChange(next);
  };
  const rowErrors = (i) => errors[i] ?? {};
  return html`<fieldset class="lines" disabled=${locked}>
    <legend>${f.label}</legend>
    ${locked && html`<p class="hint">Cannot change in this state.</p>`}
    <div class="table-wrap"><table class="table line-table">
      <thead><tr><th scope="col">#</th>${members.map((m) => html`<th scope="col">${m.label}${m.kind === 'money' && currency ? ` (${currency})` : ''}</th>`)}<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>
        ${lines.length === 0 && html`<tr><td colspan=${members.length + 2} class="empty">No ${one} yet.</td></tr>`}
        ${lines.map(
          (line, i) => html`<tr>
            <td data-label=${`${one[0].toUpperCase()}${one.slice(1)}`}>${i + 1}</td>
            ${members.map((m) => html`<td data-label=${`${m.label}${m.kind === 'money' && currency ? ` (${currency})` : ''}`}><${Input} ctx=${ctx} f=${m} idPrefix=${`${f.name}-${i}`} compact=${true} label=${`${m.label}, ${one} ${i + 1}`} value=${line[m.name]} currency=${currency} errors=${rowErrors(i)[m.name]} titles=${titles} onChange=${(v) => setLine(i, m.name, v)} /></td>`)}
            <td class="line-actions">
              <button type="button" class="btn small ghost" aria-label=${`Move ${one} ${i + 1} up`} disabled=${i === 0} onClick=${() => move(i, -1)}>↑</button>
              <button type="button" class="btn small ghost" aria-label=${`Move ${one} ${i + 1} down`} disabled=${i === lines.length - 1} onClick=${() => move(i, 1)}>↓</button>
              <button type="button" class="btn small ghost" aria-label=${`Remove ${one} ${i + 1}`} onClick=${() => onChange(lines.filter((_, j) => j !== i))}>Remove</button>
            </td>
          </tr>
          ${rowErrors(i)._ && html`<tr><td colspan=${members.length + 2}><p class="field-error">${rowErrors(i)._.join(' ')}</p></td></tr>`}`,
        )}
      </tbody>
    </table></div>
    <button type="button" class="btn" onClick=${() => onChange([...lines, emptyLine(ctx, f, currency)])}>Add ${one}</button>
  </fieldset>`;
}
