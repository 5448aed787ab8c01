// The shell of /app: the top bar, the navigation, and the view the address names. Views are
// chosen by the address's kind (list, record, form) and, for the home page, by the custom view the
// description registers for an operation (views/index.js), never by a resource's name.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { choiceLabel, indexDescription, route, viewsOf } from '../lib.js';
import { Loading, useLocation } from './common.js';
import { ListView } from './list.js';
import { RecordView } from './record.js';
import { customViews } from './index.js';
import { SearchBox } from './search.js';
// Reports, CSV imports (web/app/reports.js): pages of declared operations, from the description.
import { ExtraNav, extraRoute, ImportView, OperationsView } from '../reports.js';
// Settings pages (company, people, API tokens, webhooks): web/app/settings/.
import { CompanySwitcher, settingsLinks, settingsRoute, SettingsView } from '../settings/index.js';

// ---- the shell ------------------------------------------------------------------------------

export function App({ boot }) {
  const desc = useMemo(() => indexDescription(boot.description), [boot]);
  const loc = useLocation();
  const view = settingsRoute(desc, loc.pathname) ?? extraRoute(desc, loc.pathname, loc.search) ?? route(desc, loc.pathname, loc.search);
  // Amounts and dates in the user's locale (their setting, else the browser's Accept-Language).
  const locale = boot.locale ?? navigator.language ?? 'en-US';
  const ctx = { desc, role: boot.company?.role ?? 'viewer', company: boot.company, user: boot.user, csrf: boot.csrf, notices: boot.notices ?? {}, locale, settings: boot.settings ?? {} };
  const key = loc.pathname + loc.search;
  // The home page: the custom view registered for an operation (views/index.js), if any.
  const home = viewsOf(desc).find((v) => customViews[v.view]);
  const homeName = home ? choiceLabel(home.view) : 'Home';
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
  return html`<a class="skip" href="#main">Skip to content</a>
    <div class="app-shell">
      <header class="app-top">
        <a class="brand app-brand" href="/app"><span class="brand-mark" aria-hidden="true">i</span> Invoicing</a>
        <${SearchBox} desc=${desc} />
        <div class="app-top-end">
          <${CompanySwitcher} boot=${boot} path=${loc.pathname} />
          <span class="user-email">${boot.user.email} · ${ctx.role}</span>
          <form method="post" action="/logout" class="inline">
            <input type="hidden" name="_csrf" value=${boot.csrf} />
            <button type="submit" class="btn ghost small">Sign out</button>
          </form>
        </div>
      </header>
      <${Nav} desc=${desc} home=${homeName} current=${view.view === 'settings' ? `settings:${view.page.path}` : (view.resource?.name ?? view.page?.name ?? view.view)} role=${ctx.role} />
      <main id="main" class="app-main" tabindex="-1">
        ${view.view === 'dashboard' && (home ? html`<${customViews[home.view]} key=${key} ctx=${ctx} r=${home.resource} operation=${home.operation} />` : html`<h1>Home</h1>`)}
        ${view.view === 'list' && html`<${ListView} key=${key} ctx=${ctx} r=${view.resource} query=${view.query} />`}
        ${view.view === 'record' && html`<${RecordView} key=${key} ctx=${ctx} r=${view.resource} id=${view.id} />`}
        ${view.view === 'form' && html`<${FormView} key=${key} ctx=${ctx} r=${view.resource} id=${view.id} query=${view.query} />`}
        ${view.view === 'operations' && html`<${OperationsView} key=${view.page.name} ctx=${ctx} page=${view.page} query=${view.query} />`}
        ${view.view === 'import' && html`<${ImportView} key=${key} ctx=${ctx} r=${view.resource} op=${view.op} />`}
        ${view.view === 'settings' && html`<${SettingsView} key=${view.page.path} ctx=${ctx} page=${view.page} />`}
        ${view.view === 'missing' && html`<h1>Not found</h1><p>There is no page at this address. <a href="/app">Go to the dashboard</a>.</p>`}
      </main>
    </div>`;
}

function viewTitle(view) {
  switch (view.view) {
    case 'dashboard':
      return 'Dashboard';
    case 'operations':
    case 'settings':
      return view.page.label;
    case 'import':
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

function Nav({ desc, home, current, role }) {
  // On a phone the lists fold behind a Menu button (app.css); choosing a link folds them again.
  const [open, setOpen] = useState(false);
  const item = (href, label, on) => html`<li><a href=${href} aria-current=${on ? 'page' : undefined}>${label}</a></li>`;
  return html`<nav class=${open ? 'app-nav open' : 'app-nav'} aria-label="Main" onClick=${(e) => e.target.closest('a') && setOpen(false)}>
    <button type="button" class="btn app-menu" aria-expanded=${open} aria-controls="app-nav-lists" onClick=${() => setOpen(!open)}>Menu</button>
    <div id="app-nav-lists">
      <ul>
        ${item('/app', home, current === 'dashboard')}
        ${desc.navigation.map((name) => {
          const r = desc.get(name);
          return item(r.path, r.label, current === name);
        })}
        <${ExtraNav} desc=${desc} current=${current} role=${role} />
      </ul>
      <p class="app-nav-group" id="app-nav-settings">Settings</p>
      <ul class="app-nav-settings" aria-labelledby="app-nav-settings">
        ${settingsLinks(desc).map((l) => item(l.href, l.label, current === l.key))}
      </ul>
    </div>
  </nav>`;
}

// The forms (with the line editor and the shared totals) load when a form is first opened, not
// with the first list page (bench/results/app.md).
let formModule = null;
function FormView(props) {
  const [mod, setMod] = useState(formModule);
  useEffect(() => {
    if (!mod) import('./form.js').then((m) => setMod((formModule = m)));
  }, []);
  return mod ? html`<${mod.FormView} ...${props} />` : html`<${Loading} />`;
}
