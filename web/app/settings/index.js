// The settings pages of /app (CONTRACT §20): the company profile, the people of the company, the
// API tokens and the webhooks, at /app/settings/<page>. Each page is a module loaded when first
// opened. A viewer sees them read-only (the server refuses their writes anyway).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { Loading } from '../views/common.js';

const T = { notFound: 'Not found', company: 'Company' };

/** The pages, in the navigation's order. */
export const SETTINGS_PAGES = [
  { path: 'company', label: 'Company', load: () => import('./company.js').then((m) => m.CompanyPage) },
  { path: 'people', label: 'People', load: () => import('./people.js').then((m) => m.PeoplePage) },
  { path: 'api-tokens', label: 'API tokens', load: () => import('./tokens.js').then((m) => m.TokensPage) },
  { path: 'webhooks', label: 'Webhooks', resource: 'webhooks', load: () => import('./webhooks.js').then((m) => m.WebhooksPage) },
];

export const SETTINGS_PREFIX = '/app/settings';
export const settingsHref = (p) => `${SETTINGS_PREFIX}/${p.path}`;

/** The view of an address under /app/settings, or null. */
export function settingsRoute(pathname) {
  const m = /^\/app\/settings\/([a-z-]+)\/?$/.exec(pathname);
  if (!m) return pathname.replace(/\/+$/, '') === SETTINGS_PREFIX ? { view: 'settings', page: SETTINGS_PAGES[0] } : null;
  const page = SETTINGS_PAGES.find((p) => p.path === m[1]);
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
  return View ? html`<${View} ctx=${ctx} />` : html`<${Loading} />`;
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
