// The shell of /app: the top bar (with the search box), the navigation, and the view the address names. Views are
// chosen by the address's kind (list, record, form) and, for the home page, by the custom view the
// description registers for an operation (customViews below), never by a resource's name.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { choiceLabel, idOf, indexDescription, route, settingsLinks, settingsRoute, nounOf, t, titleOf, viewsOf } from '../lib.js';
import { go, Loading, Problem, useLocation } from './common.js';
import { graphql } from '../api.js';
import { importOf, ListView } from './list.js';

// ---- the shell ------------------------------------------------------------------------------

export function App({ boot }) {
  const desc = useMemo(() => indexDescription(boot.description), [boot]);
  const loc = useLocation();
  const view = settingsRoute(desc, loc.pathname) ?? extraRoute(desc, loc.pathname, loc.search) ?? route(desc, loc.pathname, loc.search);
  // Amounts and dates in the user's locale (their setting, else the browser's Accept-Language).
  const locale = boot.locale ?? navigator.language ?? 'en-US';
  const ctx = { desc, role: boot.company?.role ?? 'viewer', company: boot.company, user: boot.user, csrf: boot.csrf, notices: boot.notices ?? {}, locale, settings: boot.settings ?? {} };
  const key = loc.pathname + loc.search;
  // The home page: the custom view registered for an operation (customViews), if any.
  const home = viewsOf(desc).find((v) => customViews[v.view]);
  const homeName = home ? (home.operation.label ?? choiceLabel(home.view)) : t('nav.home');
  const title = view.view === 'dashboard' ? homeName : viewTitle(view);
  useEffect(() => {
    document.title = `${title} · Invoicing`;
  }, [title]);
  // A new view moves focus to its heading, so a screen reader announces where one is; in the
  // same task as the render, so the new view is never shown with focus still on the link.
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [loc.pathname]);
  return html`<a class="skip" href="#main">${t('shell.skip')}</a>
    <div class="app-shell">
      <header class="app-top">
        <a class="brand app-brand" href="/app"><span class="brand-mark" aria-hidden="true">i</span> Invoicing</a>
        <${SearchBox} desc=${desc} />
        <div class="app-top-end">
          <${CompanySwitcher} boot=${boot} path=${loc.pathname} />
          <span class="user-email">${boot.user.email} · ${t('shell.role', { role: ctx.role })}</span>
          <form method="post" action="/logout" class="inline">
            <input type="hidden" name="_csrf" value=${boot.csrf} />
            <button type="submit" class="btn ghost small">${t('shell.signOut')}</button>
          </form>
        </div>
      </header>
      <${Nav} desc=${desc} home=${homeName} current=${view.view === 'settings' ? `settings:${view.page.path}` : (view.resource?.name ?? view.page?.name ?? view.view)} role=${ctx.role} />
      <main id="main" class="app-main" tabindex="-1">
        ${view.view === 'dashboard' && (home ? html`<${Lazy} load=${customViews[home.view]} key=${key} ctx=${ctx} r=${home.resource} operation=${home.operation} />` : html`<h1>${t('nav.home')}</h1>`)}
        ${view.view === 'list' && html`<${ListView} key=${key} ctx=${ctx} r=${view.resource} query=${view.query} />`}
        ${view.view === 'record' && html`<${Lazy} load=${recordView} key=${key} ctx=${ctx} r=${view.resource} id=${view.id} />`}
        ${view.view === 'form' && html`<${Lazy} load=${formView} key=${key} ctx=${ctx} r=${view.resource} id=${view.id} query=${view.query} />`}
        ${view.view === 'operations' && html`<${Lazy} load=${operationsView} key=${view.page.name} ctx=${ctx} page=${view.page} query=${view.query} />`}
        ${view.view === 'import' && html`<${Lazy} load=${importView} key=${key} ctx=${ctx} r=${view.resource} op=${view.op} />`}
        ${view.view === 'settings' && html`<${SettingsView} key=${view.page.path} ctx=${ctx} page=${view.page} />`}
        ${view.view === 'missing' && html`<h1>${t('shell.notFound')}</h1><p>${t('shell.noPage')} <a href="/app">${t('shell.toDashboard')}</a></p>`}
      </main>
    </div>`;
}

function viewTitle(view) {
  switch (view.view) {
    case 'dashboard':
      return t('nav.home');
    case 'operations':
    case 'settings':
      return view.page.label;
    case 'import':
      return t('import.title', nounOf(view.resource));
    case 'list':
      return view.resource.label;
    case 'record':
      return view.resource.singular;
    case 'form':
      return t(view.id ? 'record.edit' : 'record.new', nounOf(view.resource));
    default:
      return t('shell.notFound');
  }
}

function Nav({ desc, home, current, role }) {
  // On a phone the lists fold behind a Menu button (app.css); choosing a link folds them again.
  const [open, setOpen] = useState(false);
  const item = (href, label, on) => html`<li><a href=${href} aria-current=${on ? 'page' : undefined}>${label}</a></li>`;
  return html`<nav class=${open ? 'app-nav open' : 'app-nav'} aria-label=${t('nav.main')} onClick=${(e) => e.target.closest('a') && setOpen(false)}>
    <button type="button" class="btn app-menu" aria-expanded=${open} aria-controls="app-nav-lists" onClick=${() => setOpen(!open)}>${t('nav.menu')}</button>
    <div id="app-nav-lists">
      <ul>
        ${item('/app', home, current === 'dashboard')}
        ${desc.navigation.map((name) => {
          const r = desc.get(name);
          return item(r.path, r.label, current === name);
        })}
        <${ExtraNav} desc=${desc} current=${current} role=${role} />
      </ul>
      <p class="app-nav-group" id="app-nav-settings">${t('nav.settings')}</p>
      <ul class="app-nav-settings" aria-labelledby="app-nav-settings">
        ${settingsLinks(desc).map((l) => item(l.href, l.label, current === l.key))}
      </ul>
    </div>
  </nav>`;
}

// ---- views loaded when first shown ----------------------------------------------------------
// The views of a record and of a form (with the line editor and the shared totals), the custom
// views, the reports and imports (web/app/reports.js) load when such an address is first shown,
// not with the first list page (bench/results/app.md).
const recordView = () => import('./record.js').then((m) => m.RecordView);
const formView = () => import('./form.js').then((m) => m.FormView);
const operationsView = () => import('../reports.js').then((m) => m.OperationsView);
const importView = () => import('../reports.js').then((m) => m.ImportView);

/**
 * The custom views of /app, by the name an operation's description gives (`present.view`). The
 * home page shows the view registered for the first such operation; a model with none gets a plain
 * home page. Adding a view: a module in views/, its loader here, and its name on the operation's
 * descriptor. (The views of actions on a record are in views/index.js.)
 */
const customViews = { dashboard: () => import('./dashboard.js').then((m) => m.Dashboard) };

// ---- pages of declared operations (the reports) and imports: their addresses and links ------

/** The view of an address of reports.js, or null: `/app/<page>` of operations, `/app/<path>/<import>`. */
function extraRoute(desc, pathname, search) {
  const parts = pathname.replace(/\/+$/, '').split('/').filter(Boolean).slice(1);
  const page = (desc.pages ?? []).find((p) => p.path === `/app/${parts[0]}`);
  if (page && parts.length === 1) return { view: 'operations', page, query: new URLSearchParams(search) };
  const r = parts.length === 2 ? desc.atPath(parts[0]) : undefined;
  const op = r && importOf(r);
  if (op && parts[1] === op.path) return { view: 'import', resource: r, op };
  return null;
}

/** The navigation's links to the pages of operations. */
function ExtraNav({ desc, current, role }) {
  return (desc.pages ?? [])
    .filter((p) => p.operations.some((op) => op.roles.includes(role)))
    .map((p) => html`<li><a href=${p.path} aria-current=${current === p.name ? 'page' : undefined}>${p.label}</a></li>`);
}

// ---- lazy views ------------------------------------------------------------------------------
const loadedViews = new Map();
function Lazy({ load, ...props }) {
  const [View, setView] = useState(() => loadedViews.get(load) ?? null);
  const [error, setError] = useState(null);
  useEffect(() => {
    if (!View)
      load().then(
        (v) => {
          loadedViews.set(load, v);
          setView(() => v);
        },
        (e) => setError(new Error(t('shell.loadFailed', { message: e.message }))),
      );
  }, [load]);
  if (error) return html`<${Problem} error=${error} />`;
  return View ? html`<${View} ...${props} />` : html`<${Loading} />`;
}

// ---- the search box -------------------------------------------------------------------------
// One search box for the whole application (CONTRACT §20): the records of every resource the
// description marks searchable (clients, invoices, quotes, credit notes), found by the partial
// filter of their title (a name, a number), five of each, in one GraphQL request. Ctrl-K (⌘K on
// a Mac) focuses it from any page; Escape closes the results; the arrow keys move through them.

/** The one GraphQL request of a search: `r<i>: <plural>(first: 5, <search>: "text")` per resource. */
export function searchQuery(resources, text) {
  return `{ ${resources.map((r, i) => `r${i}: ${r.plural}(first: 5, ${r.search}: ${JSON.stringify(text)}) { totalCount edges { node { id _id ${r.title} } } }`).join(' ')} }`;
}

export function SearchBox({ desc }) {
  const resources = desc.resources.filter((r) => r.searchable && r.search && r.gql);
  const [text, setText] = useState('');
  const [results, setResults] = useState(null);
  const [open, setOpen] = useState(false);
  const input = useRef(null);
  const box = useRef(null);
  useEffect(() => {
    const onKey = (e) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const q = text.trim();
    if (!q) {
      setResults(null);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      graphql(searchQuery(resources, q)).then(
        (d) => live && setResults(resources.map((r, i) => ({ r, total: d[`r${i}`].totalCount, items: d[`r${i}`].edges.map((e) => e.node) })).filter((g) => g.items.length)),
        () => live && setResults([]),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text]);
  if (!resources.length) return null;
  const links = () => [...(box.current?.querySelectorAll('.search-results a') ?? [])];
  const onKeyDown = (e) => {
    if (e.key === 'Escape') {
      setOpen(false);
      input.current?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const all = links();
      if (!all.length) return;
      e.preventDefault();
      const at = all.indexOf(document.activeElement);
      const next = e.key === 'ArrowDown' ? (at + 1) % all.length : at <= 0 ? all.length - 1 : at - 1;
      all[next].focus();
    }
  };
  const submit = (e) => {
    e.preventDefault();
    const first = links()[0];
    if (first) {
      setOpen(false);
      go(new URL(first.href).pathname);
    }
  };
  const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform ?? '');
  return html`<form ref=${box} class="app-search" role="search" aria-label=${t('search.everything')} onSubmit=${submit} onKeyDown=${onKeyDown}
      onFocusOut=${(e) => !box.current?.contains(e.relatedTarget) && setOpen(false)}>
    <label for="app-search" class="visually-hidden">${t('search.label', { what: resources.map((r) => nounOf(r).many).join(', ') })}</label>
    <input ref=${input} id="app-search" type="search" autocomplete="off" placeholder=${t('search.placeholder', { key: mac ? '⌘K' : 'Ctrl K' })} value=${text}
      onInput=${(e) => {
        setText(e.currentTarget.value);
        setOpen(true);
      }} onFocus=${() => setOpen(true)} />
    <div id="app-search-results" class="search-results" hidden=${!(open && results)} onClick=${(e) => e.target.closest('a') && setOpen(false)}>
      <p class="visually-hidden" role="status">${results ? t('search.found', { count: results.reduce((n, g) => n + g.items.length, 0) }) : ''}</p>
      ${results && results.length === 0 && html`<p class="muted">${t('search.nothing')}</p>`}
      ${(results ?? []).map(
        (g) => html`<section aria-label=${g.r.label}><h2>${g.r.label}</h2><ul>
          ${g.items.map((rec) => html`<li><a href=${`${g.r.path}/${idOf(rec.id) || rec._id}`}>${titleOf(g.r, rec)}</a></li>`)}
          ${g.total > g.items.length && html`<li><a href=${`${g.r.path}?${new URLSearchParams({ [g.r.search]: text.trim() })}`}>${t('search.all', { ...nounOf(g.r), count: g.total })}</a></li>`}
        </ul></section>`,
      )}
    </div>
  </form>`;
}

// ---- the settings pages (their addresses and links: lib.js) ------------------------------------

const loaded = new Map();

/** A settings page, once its module is loaded. */
export function SettingsView({ ctx, page }) {
  const [View, setView] = useState(() => loaded.get(page.path) ?? null);
  useEffect(() => {
    if (View) return;
    page.load().then((v) => {
      loaded.set(page.path, v);
      setView(() => v);
    });
  }, [page.path]);
  if (!page) return html`<h1>${t('shell.notFound')}</h1>`;
  return View ? html`<${View} ctx=${ctx} r=${page.resource} />` : html`<${Loading} />`;
}

/** The active company, or a choice of the user's companies when they have several (the session's form). */
export function CompanySwitcher({ boot, path }) {
  if ((boot.companies?.length ?? 0) < 2) return html`<span class="company-name">${boot.company?.name ?? ''}</span>`;
  return html`<form method="post" action="/profile/switch-company" class="switcher">
    <input type="hidden" name="_csrf" value=${boot.csrf} />
    <input type="hidden" name="next" value=${path} />
    <label for="company-switcher">${t('nav.company')}</label>
    <select id="company-switcher" name="companyId" value=${boot.company?.id} onChange=${(e) => e.currentTarget.form.submit()}>
      ${boot.companies.map((c) => html`<option value=${c.id}>${c.name}</option>`)}
    </select>
  </form>`;
}
