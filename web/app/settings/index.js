// The settings pages of /app (CONTRACT §20): the company profile, the people of the company, the
// API tokens and the webhooks, at /app/settings/<page>. Each page is a module loaded when first
// opened. A viewer sees them read-only (the server refuses their writes anyway).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { Loading } from '../views/common.js';

const T = { notFound: 'Not found', company: 'Company' };

/** The pages of what the description does not have (yet): the company, its people, the API tokens. */
const PAGES = [
  { path: 'company', label: 'Company', load: () => import('./company.js').then((m) => m.CompanyPage) },
  { path: 'people', label: 'People', load: () => import('./people.js').then((m) => m.PeoplePage) },
  { path: 'api-tokens', label: 'API tokens', load: () => import('./tokens.js').then((m) => m.TokensPage) },
];

/**
 * Pages of a settings resource, by the view one of its operations declares (`present.view`), as
 * views/index.js registers the home page's: `deliveries` (a webhook's delivery log) makes the
 * webhooks' page, with the log, in place of their plain list.
 */
export const resourceViews = { deliveries: () => import('./webhooks.js').then((m) => m.WebhooksPage) };

export const SETTINGS_PREFIX = '/app/settings';
export const settingsHref = (p) => `${SETTINGS_PREFIX}/${p.path}`;

/** The page of a settings resource whose operation declares a registered view, or null. */
function resourcePage(r) {
  const op = r.operations.find((o) => o.view && resourceViews[o.view]);
  return op ? { path: r.path.slice('/app/'.length), label: r.label, resource: r, load: resourceViews[op.view] } : null;
}

/**
 * The navigation's Settings, in order: the pages above, then each settings resource of the
 * description — its page when it has one, else its plain list — as `{ href, label, key }`.
 */
export function settingsLinks(desc) {
  const pages = PAGES.map((p) => ({ href: settingsHref(p), label: p.label, key: `settings:${p.path}` }));
  const resources = (desc.settings ?? []).map((name) => {
    const r = desc.get(name);
    const page = resourcePage(r);
    return page ? { href: settingsHref(page), label: page.label, key: `settings:${page.path}` } : { href: r.path, label: r.label, key: r.name };
  });
  return [...pages, ...resources];
}

/** The view of an address under /app/settings, or null. */
export function settingsRoute(desc, pathname) {
  const m = /^\/app\/settings\/([a-z0-9-]+)\/?$/.exec(pathname);
  if (!m) return pathname.replace(/\/+$/, '') === SETTINGS_PREFIX ? { view: 'settings', page: PAGES[0] } : null;
  const page = PAGES.find((p) => p.path === m[1]) ?? (desc.settings ?? []).map((n) => resourcePage(desc.get(n))).find((p) => p?.path === m[1]);
  return page ? { view: 'settings', page } : { view: 'missing' };
}

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
  if (!page) return html`<h1>${T.notFound}</h1>`;
  return View ? html`<${View} ctx=${ctx} r=${page.resource} />` : html`<${Loading} />`;
}

/** The active company, or a choice of the user's companies when they have several (the session's form). */
export function CompanySwitcher({ boot, path }) {
  if ((boot.companies?.length ?? 0) < 2) return html`<span class="company-name">${boot.company?.name ?? ''}</span>`;
  return html`<form method="post" action="/profile/switch-company" class="switcher">
    <input type="hidden" name="_csrf" value=${boot.csrf} />
    <input type="hidden" name="next" value=${path} />
    <label for="company-switcher">${T.company}</label>
    <select id="company-switcher" name="companyId" value=${boot.company?.id} onChange=${(e) => e.currentTarget.form.submit()}>
      ${boot.companies.map((c) => html`<option value=${c.id}>${c.name}</option>`)}
    </select>
  </form>`;
}
