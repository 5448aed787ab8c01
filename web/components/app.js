// Settings → API Keys: the summary cards, the searchable and sortable token list with its batch
// actions, and the create and history dialogs. Tokens belong to the active company.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, apiPage, csrfToken, query, switchCompany as submitSwitch } from '../lib/api.js';
import { plural } from '../lib/format.js';
import { html } from '../lib/html.js';
import { SummaryCards } from './cards.js';
import { CreateTokenDialog } from './create-token.js';
import { HistoryDialog } from './history.js';
import { COLUMNS, TokenTable } from './tokens.js';

const PAGE_SIZE = 50;

const SETTINGS = [
  { href: '/profile/api', label: 'API Keys' },
  { href: '/profile/company', label: 'Company' },
  { href: '/profile/webhooks', label: 'Webhooks' },
];

/** A dismissible message: `{ kind: 'error' | 'success' | …, text }`, or nothing. */
export function Banner({ message, onDismiss }) {
  if (!message) return null;
  return html`<div class=${`banner banner-${message.kind}`} role=${message.kind === 'error' ? 'alert' : 'status'}>
    <span>${message.text}</span>
    <button type="button" class="icon-btn" aria-label="Dismiss" onClick=${onDismiss}>×</button>
  </div>`;
}

/** Makes another company the active one; the browser comes back to this page, now in that company. */
export function switchCompanyAndReload(id, { setBusy }) {
  setBusy(true);
  submitSwitch(id);
}

export function Header({ me, onSwitch, switching }) {
  const several = me.companies.length > 1;
  const here = window.location.pathname;
  return html`<header class="topbar">
    <a class="brand" href="/profile/api"><span class="brand-mark" aria-hidden="true">i</span> Invoicing</a>
    <nav class="tabs" aria-label="Settings">
      ${SETTINGS.map((s) => html`<a href=${s.href} aria-current=${here === s.href ? 'page' : undefined}>${s.label}</a>`)}
    </nav>
    <div class="topbar-end">
      ${several
        ? html`<div class="switcher">
            <label for="company-switcher">Company</label>
            <select id="company-switcher" value=${me.company?.id} disabled=${switching} onChange=${(e) => onSwitch(e.currentTarget.value)}>
              ${me.companies.map((c) => html`<option value=${c.id}>${c.name}</option>`)}
            </select>
          </div>`
        : me.company
          ? html`<span class="company-name" title="Company">${me.company.name}</span>`
          : null}
      <span class="user-email" title="Signed in as">${me.user.email}</span>
      <form method="post" action="/logout" class="inline">
        <input type="hidden" name="_csrf" value=${csrfToken()} />
        <button type="submit" class="btn ghost">Sign out</button>
      </form>
    </div>
  </header>`;
}

function Pager({ list, onPage }) {
  if (!list || list.total <= list.itemsPerPage) return null;
  const first = (list.page - 1) * list.itemsPerPage + 1;
  const last = Math.min(list.total, list.page * list.itemsPerPage);
  return html`<nav class="pager" aria-label="Pages of tokens">
    <span class="muted">${first}–${last} of ${list.total}</span>
    <button type="button" class="btn small" disabled=${list.page <= 1} onClick=${() => onPage(list.page - 1)}>Previous</button>
    <button type="button" class="btn small" disabled=${last >= list.total} onClick=${() => onPage(list.page + 1)}>Next</button>
  </nav>`;
}

export function App({ boot }) {
  const [me, setMe] = useState({ user: boot.user, company: boot.company, companies: boot.companies });
  const [summary, setSummary] = useState(null);
  const [list, setList] = useState(null);
  const [sort, setSort] = useState({ key: 'createdAt', dir: 'desc' });
  const [search, setSearch] = useState('');
  const [searchQuery, setSearchQuery] = useState('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState(new Set());
  const [dialog, setDialog] = useState(null);
  const [message, setMessage] = useState(null);
  const [loadError, setLoadError] = useState('');
  const [busy, setBusy] = useState(false);
  const [reloads, setReloads] = useState(0);
  const createButton = useRef(null);

  const reload = useCallback(() => setReloads((n) => n + 1), []);

  // Search as you type, once typing pauses.
  useEffect(() => {
    const t = setTimeout(() => {
      setSearchQuery(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [search]);

  useEffect(() => {
    if (!me.company) return undefined;
    let live = true;
    const q = query({ name: searchQuery, [`order[${sort.key}]`]: sort.dir, page, itemsPerPage: PAGE_SIZE });
    Promise.all([apiPage(`/api-tokens${q}`), api('/api-tokens/summary')]).then(
      ([found, s]) => {
        if (!live) return;
        const tokens = { items: found.items, total: found.total ?? found.items.length, page, itemsPerPage: PAGE_SIZE };
        setLoadError('');
        setList(tokens);
        setSummary(s);
        // Forget selections of tokens that are gone.
        setSelected((prev) => new Set([...prev].filter((id) => tokens.items.some((t) => t.id === id))));
      },
      (e) => live && setLoadError(e.message),
    );
    return () => {
      live = false;
    };
  }, [me.company?.id, searchQuery, sort.key, sort.dir, page, reloads]);

  function switchCompany(id) {
    switchCompanyAndReload(id, { setBusy });
  }

  async function revoke() {
    const ids = [...selected];
    if (!ids.length) return;
    setBusy(true);
    try {
      // One DELETE per token, together; one that is already gone counts as revoked.
      const results = await Promise.allSettled(ids.map((id) => api(`/api-tokens/${encodeURIComponent(id)}`, { method: 'DELETE' })));
      const failed = results.find((r) => r.status === 'rejected' && r.reason.status !== 404);
      if (failed) throw failed.reason;
      const revoked = ids;
      setSelected(new Set());
      setMessage({ kind: 'success', text: `Revoked ${plural(revoked.length, 'token')}. ${revoked.length === 1 ? 'It stops' : 'They stop'} working immediately.` });
      reload();
    } catch (e) {
      setMessage({ kind: 'error', text: e.message });
    } finally {
      setBusy(false);
    }
  }

  const onSort = (s) => {
    setSort(s);
    setPage(1);
  };
  const openCreate = () => setDialog({ kind: 'create' });
  const closeDialog = () => setDialog(null);
  const sortValue = `${sort.key}:${sort.dir}`;

  if (!me.company) {
    return html`<${Header} me=${me} onSwitch=${switchCompany} switching=${busy} />
      <main class="container">
        <h1>API Keys</h1>
        <p class="alert" role="alert">You are not a member of any company yet, so you cannot create API tokens. Ask an administrator to add you to one.</p>
      </main>`;
  }

  return html`<${Header} me=${me} onSwitch=${switchCompany} switching=${busy} />
    <main class="container" id="main">
      <nav aria-label="Breadcrumb" class="crumbs">
        <ol><li>Settings</li><li aria-current="page">API Keys</li></ol>
      </nav>
      <div class="page-head">
        <div>
          <h1>API Keys</h1>
          <p class="muted lead">
            Tokens let scripts and integrations call the REST and GraphQL APIs as you, in <strong>${me.company.name}</strong>.
            Send one in the <code>X-API-TOKEN</code> header.
          </p>
        </div>
        <button type="button" class="btn primary" ref=${createButton} onClick=${openCreate}>Create API Token</button>
      </div>

      <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
      ${loadError
        ? html`<div class="banner banner-error" role="alert"><span>${loadError}</span> <button type="button" class="btn small" onClick=${reload}>Retry</button></div>`
        : null}

      <${SummaryCards} summary=${summary} />

      <section class="panel" aria-labelledby="tokens-heading">
        <div class="panel-head">
          <h2 id="tokens-heading">Tokens ${list ? html`<span class="count">${list.total}</span>` : null}</h2>
          <div class="toolbar">
            <div class="search">
              <label for="token-search" class="visually-hidden">Search tokens</label>
              <input id="token-search" type="search" placeholder="Search by name" value=${search} onInput=${(e) => setSearch(e.currentTarget.value)} />
            </div>
            <div class="mobile-sort">
              <label for="token-sort">Sort by</label>
              <select id="token-sort" value=${sortValue} onChange=${(e) => {
                const [key, dir] = e.currentTarget.value.split(':');
                onSort({ key, dir });
              }}>
                ${COLUMNS.flatMap((c) => [
                  html`<option value=${`${c.key}:asc`}>${c.label} ↑</option>`,
                  html`<option value=${`${c.key}:desc`}>${c.label} ↓</option>`,
                ])}
              </select>
            </div>
            <div class="batch" role="group" aria-label="Batch actions">
              <span class="muted small" aria-live="polite">${selected.size ? `${selected.size} selected` : ''}</span>
              <button type="button" class="btn danger" disabled=${!selected.size || busy} onClick=${revoke}>Revoke</button>
            </div>
          </div>
        </div>
        ${list
          ? html`<${TokenTable}
              tokens=${list.items}
              sort=${sort}
              onSort=${onSort}
              selected=${selected}
              onSelect=${setSelected}
              onHistory=${(t) => setDialog({ kind: 'history', token: t })}
              onEdit=${(t) => setDialog({ kind: 'edit', token: t })}
              search=${searchQuery}
              onCreate=${openCreate}
            />`
          : html`<p class="muted pad" aria-busy="true">Loading tokens…</p>`}
        <${Pager} list=${list} onPage=${setPage} />
      </section>
    </main>
    ${dialog?.kind === 'create' || dialog?.kind === 'edit'
      ? html`<${CreateTokenDialog}
          editing=${dialog.token}
          onClose=${closeDialog}
          onCreated=${(t) => {
            setMessage({ kind: 'success', text: `${dialog.token ? 'Saved' : 'Created'} the token “${t.name}”.` });
            reload();
          }}
        />`
      : null}
    ${dialog?.kind === 'history' ? html`<${HistoryDialog} token=${dialog.token} limit=${boot.historyLimit} onClose=${closeDialog} />` : null}`;
}
