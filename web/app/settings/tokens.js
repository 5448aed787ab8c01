// Settings › API tokens (spec §5.2): the four summary cards, the searchable and sortable token list
// with its batch revoke, the create dialog (the value shown once, with a copy button), edit, and
// each token's history (requests per day, then the newest requests, filtered). Tokens are the
// calling user's in the active company; every role manages its own.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, restPage } from '../api.js';
import { HistoryDialog } from './token-history.js';
import { t } from '../lib.js';
import { Banner, byField, CopyValue, dateTime, Dialog, number, relative } from './ui.js';

const PAGE_SIZE = 50;

// The page's words are messages of the catalogue (web/app/messages/, `settings.tokens.*`).
const columnName = (key) => t(`settings.tokens.column.${key}`);
const strong = (text) => html`<strong>${text}</strong>`;
const code = (text) => html`<code>${text}</code>`;

const COLUMNS = [
  { key: 'name', defaultDir: 'asc' },
  { key: 'description', defaultDir: 'asc' },
  { key: 'usageCount', defaultDir: 'desc', numeric: true },
  { key: 'lastUsedAt', defaultDir: 'desc' },
  { key: 'createdAt', defaultDir: 'desc' },
];

const query = (params) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v !== null && v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
};

export function TokensPage({ ctx }) {
  // The API tokens are a resource of the description: its address is the description's.
  const iri = ctx.desc.get('ApiToken').iri;
  const locale = ctx.locale;
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
  const reload = () => setReloads((n) => n + 1);

  // Search as one types, once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearchQuery(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(timer);
  }, [search]);

  useEffect(() => {
    if (!ctx.company) return undefined;
    let live = true;
    const q = query({ name: searchQuery, [`order[${sort.key}]`]: sort.dir, page, itemsPerPage: PAGE_SIZE });
    Promise.all([restPage(`${iri}${q}`), rest(`${iri}/summary`)]).then(
      ([found, s]) => {
        if (!live) return;
        const tokens = { items: found.items, total: found.total ?? found.items.length, page };
        setLoadError('');
        setList(tokens);
        setSummary(s);
        setSelected((prev) => new Set([...prev].filter((id) => tokens.items.some((token) => token.id === id))));
      },
      (e) => live && setLoadError(e.message),
    );
    return () => {
      live = false;
    };
  }, [searchQuery, sort.key, sort.dir, page, reloads]);

  // Spec §5.2: immediate, with no confirmation.
  async function revoke() {
    const ids = [...selected];
    setBusy(true);
    try {
      // One DELETE per token, together; one already gone counts as revoked.
      const results = await Promise.allSettled(ids.map((id) => rest(`${iri}/${encodeURIComponent(id)}`, { method: 'DELETE' })));
      const failed = results.find((r) => r.status === 'rejected' && r.reason.status !== 404);
      if (failed) throw failed.reason;
      setSelected(new Set());
      setMessage({ kind: 'success', text: t('settings.tokens.revoked', { count: ids.length }) });
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
  const close = () => setDialog(null);

  if (!ctx.company) return html`<h1>${t('settings.tokens.title')}</h1><p class="alert" role="alert">${t('settings.tokens.noCompany')}</p>`;

  return html`<div class="page-head">
      <div>
        <h1>${t('settings.tokens.title')}</h1>
        <p class="muted lead">${t('settings.tokens.lead', { company: strong(ctx.company.name), header: code('X-API-TOKEN') })}</p>
      </div>
      <button type="button" class="btn primary" onClick=${openCreate}>${t('settings.tokens.create')}</button>
    </div>
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    ${loadError && html`<div class="banner banner-error" role="alert"><span>${loadError}</span> <button type="button" class="btn small" onClick=${reload}>${t('settings.tokens.retry')}</button></div>`}
    <${SummaryCards} summary=${summary} locale=${locale} />
    <section class="panel" aria-labelledby="tokens-heading">
      <div class="panel-head">
        <h2 id="tokens-heading">${t('settings.tokens.tokens')} ${list && html`<span class="count">${list.total}</span>`}</h2>
        <div class="toolbar">
          <div class="search">
            <label for="token-search" class="visually-hidden">${t('settings.tokens.search')}</label>
            <input id="token-search" type="search" placeholder=${t('settings.tokens.searchPlaceholder')} value=${search} onInput=${(e) => setSearch(e.currentTarget.value)} />
          </div>
          <div class="mobile-sort">
            <label for="token-sort">${t('settings.tokens.sortBy')}</label>
            <select id="token-sort" value=${`${sort.key}:${sort.dir}`} onChange=${(e) => {
              const [key, dir] = e.currentTarget.value.split(':');
              onSort({ key, dir });
            }}>
              ${COLUMNS.flatMap((c) => [html`<option value=${`${c.key}:asc`}>${columnName(c.key)} ↑</option>`, html`<option value=${`${c.key}:desc`}>${columnName(c.key)} ↓</option>`])}
            </select>
          </div>
          <div class="batch" role="group" aria-label=${t('settings.tokens.batch')}>
            <span class="muted small" aria-live="polite">${selected.size ? t('settings.tokens.selected', { count: selected.size }) : ''}</span>
            <button type="button" class="btn danger" disabled=${!selected.size || busy} onClick=${revoke}>${t('settings.tokens.revoke')}</button>
          </div>
        </div>
      </div>
      ${list
        ? html`<${TokenTable} tokens=${list.items} sort=${sort} onSort=${onSort} selected=${selected} onSelect=${setSelected} locale=${locale}
            onHistory=${(token) => setDialog({ kind: 'history', token })} onEdit=${(token) => setDialog({ kind: 'edit', token })} search=${searchQuery} onCreate=${openCreate} />`
        : html`<p class="muted pad" aria-busy="true">${t('settings.tokens.loading')}</p>`}
      <${Pager} list=${list} onPage=${setPage} />
    </section>
    ${(dialog?.kind === 'create' || dialog?.kind === 'edit') &&
    html`<${TokenDialog} iri=${iri} editing=${dialog.token} onClose=${close} onSaved=${(saved) => {
      setMessage({ kind: 'success', text: t('settings.tokens.saved', { name: saved.name, edited: dialog.token ? 'yes' : 'no' }) });
      reload();
    }} />`}
    ${dialog?.kind === 'history' && html`<${HistoryDialog} iri=${iri} token=${dialog.token} limit=${ctx.settings.historyLimit ?? 100} locale=${locale} onClose=${close} />`}`;
}

function Pager({ list, onPage }) {
  if (!list || list.total <= PAGE_SIZE) return null;
  const first = (list.page - 1) * PAGE_SIZE + 1;
  const last = Math.min(list.total, list.page * PAGE_SIZE);
  return html`<nav class="pager" aria-label=${t('settings.tokens.pages')}>
    <span class="muted">${t('settings.tokens.range', { first, last, total: list.total })}</span>
    <button type="button" class="btn small" disabled=${list.page <= 1} onClick=${() => onPage(list.page - 1)}>${t('settings.tokens.previous')}</button>
    <button type="button" class="btn small" disabled=${last >= list.total} onClick=${() => onPage(list.page + 1)}>${t('settings.tokens.next')}</button>
  </nav>`;
}

function Card({ label, children, testid }) {
  return html`<li class="card" data-testid=${testid}><h2 class="card-label">${label}</h2>${children}</li>`;
}

function SummaryCards({ summary: s, locale }) {
  const loading = !s;
  const wait = html`<p class="card-value">…</p>`;
  return html`<ul class="cards" aria-label=${t('settings.tokens.summary')} aria-busy=${loading ? 'true' : 'false'}>
    <${Card} label=${t('settings.tokens.card.active')} testid="card-active"><p class="card-value">${loading ? '…' : number(s.activeTokens, locale)}</p><//>
    <${Card} label=${t('settings.tokens.card.calls')} testid="card-calls"><p class="card-value">${loading ? '…' : number(s.apiCallsThisMonth, locale)}</p><//>
    <${Card} label=${t('settings.tokens.card.last')} testid="card-last">
      ${loading
        ? wait
        : s.lastActivity
          ? html`<p class="card-value card-value-text"><time datetime=${s.lastActivity} title=${s.lastActivity}>${relative(s.lastActivity, locale)}</time></p>
              <p class="card-note">${dateTime(s.lastActivity, locale)}</p>`
          : html`<p class="card-value card-value-text muted">${t('settings.tokens.noActivity')}</p>`}
    <//>
    <${Card} label=${t('settings.tokens.card.most')} testid="card-most">
      ${loading
        ? wait
        : s.mostUsedToken
          ? html`<p class="card-value card-value-text truncate" title=${s.mostUsedToken.name}>${s.mostUsedToken.name}</p>
              <p class="card-note">${t('settings.tokens.requests', { count: s.mostUsedToken.usageCount })}</p>`
          : html`<p class="card-value card-value-text muted">${t('settings.tokens.noneUsed')}</p>`}
    <//>
  </ul>`;
}

function SortHeader({ column, sort, onSort }) {
  const active = sort.key === column.key;
  const next = active ? (sort.dir === 'asc' ? 'desc' : 'asc') : column.defaultDir;
  return html`<th scope="col" aria-sort=${active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'} class=${column.numeric ? 'num' : ''}>
    <button type="button" class=${`sort${active ? ' sort-active' : ''}`} onClick=${() => onSort({ key: column.key, dir: next })}>
      ${columnName(column.key)}
      <svg class="sort-icon" viewBox="0 0 10 14" width="10" height="14" aria-hidden="true">
        <path d="M5 1L9 5H1z" class=${active && sort.dir === 'asc' ? 'on' : ''} />
        <path d="M5 13L1 9h8z" class=${active && sort.dir === 'desc' ? 'on' : ''} />
      </svg>
    </button>
  </th>`;
}

function TokenTable({ tokens, sort, onSort, selected, onSelect, onHistory, onEdit, search, onCreate, locale }) {
  const ids = tokens.map((token) => token.id);
  const chosen = ids.filter((id) => selected.has(id)).length;
  const all = ids.length > 0 && chosen === ids.length;
  const toggleAll = () => {
    const next = new Set(selected);
    for (const id of ids) all ? next.delete(id) : next.add(id);
    onSelect(next);
  };
  const toggle = (id) => {
    const next = new Set(selected);
    next.has(id) ? next.delete(id) : next.add(id);
    onSelect(next);
  };
  if (!tokens.length) {
    return html`<div class="empty" data-testid="tokens-empty">
      ${search
        ? html`<p><strong>${t('settings.tokens.noMatch', { search })}</strong></p><p class="muted">${t('settings.tokens.noMatchHint')}</p>`
        : html`<p><strong>${t('settings.tokens.none')}</strong></p><p class="muted">${t('settings.tokens.noneHint')}</p><p><button type="button" class="btn primary" onClick=${onCreate}>${t('settings.tokens.create')}</button></p>`}
    </div>`;
  }
  return html`<div class="table-wrap">
    <table class="table token-table">
      <caption class="visually-hidden">${t('settings.tokens.title')}</caption>
      <thead><tr>
        <th scope="col" class="check"><input type="checkbox" aria-label=${t('settings.tokens.selectAll')} checked=${all} indeterminate=${chosen > 0 && !all} onChange=${toggleAll} /></th>
        ${COLUMNS.map((c) => html`<${SortHeader} column=${c} sort=${sort} onSort=${onSort} />`)}
        <th scope="col"><span class="visually-hidden">${t('settings.tokens.actions')}</span></th>
      </tr></thead>
      <tbody>
        ${tokens.map((token) => html`<tr key=${token.id} class=${selected.has(token.id) ? 'selected' : ''} data-token=${token.name}>
          <td class="check"><input type="checkbox" aria-label=${t('settings.tokens.select', { name: token.name })} checked=${selected.has(token.id)} onChange=${() => toggle(token.id)} /></td>
          <td data-label=${columnName('name')} class="name">${token.name}</td>
          <td data-label=${columnName('description')} class="description">${token.description || html`<span class="muted" aria-label=${t('settings.tokens.noDescription')}>—</span>`}</td>
          <td data-label=${columnName('usageCount')} class="num">${number(token.usageCount, locale)}</td>
          <td data-label=${columnName('lastUsedAt')}>${token.lastUsedAt ? html`<time datetime=${token.lastUsedAt} title=${token.lastUsedAt}>${dateTime(token.lastUsedAt, locale)}</time>` : ''}</td>
          <td data-label=${columnName('createdAt')}><time datetime=${token.createdAt} title=${token.createdAt}>${dateTime(token.createdAt, locale)}</time></td>
          <td class="actions">
            <button type="button" class="btn small" onClick=${() => onEdit(token)} aria-label=${t('settings.tokens.editOf', { name: token.name })}>${t('settings.tokens.editShort')}</button>
            <button type="button" class="btn small" onClick=${() => onHistory(token)} aria-label=${t('settings.tokens.historyOf', { name: token.name })}>${t('settings.tokens.history')}</button>
          </td>
        </tr>`)}
      </tbody>
    </table>
  </div>`;
}

/** Create (the value then shown once, with Copy) or edit a token's name and description. */
function TokenDialog({ iri, editing, onClose, onSaved }) {
  const [name, setName] = useState(editing ? editing.name : '');
  const [description, setDescription] = useState(editing ? editing.description || '' : '');
  const [errors, setErrors] = useState({});
  const [failure, setFailure] = useState('');
  const [saving, setSaving] = useState(false);
  const [created, setCreated] = useState(null);
  const [note, setNote] = useState('');
  const nameRef = useRef(null);
  const copyRef = useRef(null);
  useEffect(() => {
    if (created) copyRef.current?.focus();
  }, [created]);

  async function save(e) {
    e.preventDefault();
    if (saving) return;
    setFailure('');
    if (!name.trim()) {
      setErrors({ name: t('settings.tokens.nameMissing') });
      nameRef.current.focus();
      return;
    }
    setSaving(true);
    try {
      const body = { name, description: description.trim() ? description : null };
      if (editing) {
        onSaved(await rest(`${iri}/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body }));
        onClose();
        return;
      }
      const token = await rest(iri, { method: 'POST', body });
      setCreated(token);
      onSaved(token);
    } catch (err) {
      const found = byField(err);
      if (found.name && /already used/.test(found.name)) found.name = t('settings.tokens.nameUsed');
      setErrors(found);
      if (!Object.keys(found).length) setFailure(err.message);
      if (found.name) nameRef.current.focus();
    } finally {
      setSaving(false);
    }
  }

  if (created) {
    return html`<${Dialog} title=${t('settings.tokens.created')} onClose=${onClose}>
      <div class="warning" role="alert">${t('settings.tokens.copyNow', { copy: strong(t('settings.tokens.copyNowFirst')) })}</div>
      <${CopyValue} id="token-value" label=${t('settings.tokens.valueFor', { name: created.name })} value=${created.token} copyRef=${copyRef} note=${note} setNote=${setNote} />
      <p class="muted small">${t('settings.tokens.header', { header: code('X-API-TOKEN'), api: code('/api') })}</p>
      <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${t('settings.tokens.done')}</button></div>
    <//>`;
  }
  return html`<${Dialog} title=${editing ? t('settings.tokens.edit') : t('settings.tokens.create')} onClose=${onClose}>
    <form onSubmit=${save} noValidate>
      <div class="field">
        <label for="token-name">${t('settings.tokens.nameLabel')} <span class="required">${t('settings.tokens.required')}</span></label>
        <input id="token-name" ref=${nameRef} value=${name} maxLength="100" required data-autofocus autocomplete="off"
          aria-invalid=${errors.name ? 'true' : undefined} aria-describedby=${errors.name ? 'token-name-error' : 'token-name-hint'}
          onInput=${(e) => {
            setName(e.currentTarget.value);
            if (errors.name) setErrors({ ...errors, name: undefined });
          }} />
        ${errors.name ? html`<p class="field-error" id="token-name-error">${errors.name}</p>` : html`<p class="hint" id="token-name-hint">${t('settings.tokens.nameHint')}</p>`}
      </div>
      <div class="field">
        <label for="token-description">${t('settings.tokens.descriptionLabel')}</label>
        <textarea id="token-description" rows="3" value=${description} aria-invalid=${errors.description ? 'true' : undefined} onInput=${(e) => setDescription(e.currentTarget.value)}></textarea>
        ${errors.description && html`<p class="field-error">${errors.description}</p>`}
      </div>
      ${failure && html`<p class="alert" role="alert">${failure}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${t('settings.tokens.cancel')}</button>
        <button type="submit" class="btn primary" disabled=${saving}>${saving ? t('settings.tokens.saving') : t('settings.tokens.save')}</button>
      </div>
    </form>
  <//>`;
}
