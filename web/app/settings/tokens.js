// Settings › API tokens (spec §5.2): the four summary cards, the searchable and sortable token list
// with its batch revoke, the create dialog (the value shown once, with a copy button), edit, and
// each token's history (requests per day, then the newest requests, filtered). Tokens are the
// calling user's in the active company; every role manages its own.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, restPage } from '../api.js';
import { HistoryDialog } from './token-history.js';
import { Banner, byField, CopyValue, dateTime, Dialog, inLanguage, number, plural, relative } from './ui.js';

// The API tokens are served beside the model /app is described from (no description of them yet).
const IRI = '/api/api-tokens';
const PAGE_SIZE = 50;

/** The page's words in English; German and French below (ui.js inLanguage). */
const EN = {
  title: 'API tokens',
  lead: (company) => html`Tokens let scripts and integrations call the REST and GraphQL APIs as you, in <strong>${company}</strong>. Send one in the <code>X-API-TOKEN</code> header.`,
  create: 'Create API Token',
  edit: 'Edit API Token',
  tokens: 'Tokens',
  search: 'Search tokens',
  searchPlaceholder: 'Search by name',
  sortBy: 'Sort by',
  batch: 'Batch actions',
  selected: (n) => `${n} selected`,
  revoke: 'Revoke',
  revoked: (n) => `Revoked ${n === 1 ? '1 token' : `${n} tokens`}. ${n === 1 ? 'It stops' : 'They stop'} working immediately.`,
  saved: (name, edited) => `${edited ? 'Saved' : 'Created'} the token “${name}”.`,
  loading: 'Loading tokens…',
  retry: 'Retry',
  columns: { name: 'Name', description: 'Description', usageCount: 'Usage Count', lastUsedAt: 'Last Used', createdAt: 'Created' },
  selectAll: 'Select all tokens',
  select: (n) => `Select ${n}`,
  actions: 'Actions',
  editShort: 'Edit',
  editOf: (n) => `Edit ${n}`,
  history: 'View History',
  historyOf: (n) => `View History of ${n}`,
  noDescription: 'No description',
  noMatch: (s) => `No token matches “${s}”.`,
  noMatchHint: 'Try another part of a name.',
  none: 'No API tokens yet.',
  noneHint: 'Create a token to let a script or an integration call the API.',
  pages: 'Pages of tokens',
  range: (a, b, n) => `${a}–${b} of ${n}`,
  previous: 'Previous',
  next: 'Next',
  summary: 'Summary',
  cards: { active: 'Active Tokens', calls: 'API Calls This Month', last: 'Last Activity', most: 'Most Used Token' },
  noActivity: 'No activity yet',
  noneUsed: 'None used yet',
  requests: ['request', 'requests'],
  created: 'API token created',
  copyNow: html`<strong>Copy this token now.</strong> It is shown only this once and cannot be shown again. If you lose it, revoke it and create a new one.`,
  valueFor: (n) => `Token for “${n}”`,
  header: html`Send it in the <code>X-API-TOKEN</code> header of each request to <code>/api</code>.`,
  done: 'Done',
  nameLabel: 'Name',
  required: '(required)',
  nameHint: 'Up to 100 characters, for example “CI deploy”.',
  nameMissing: 'Enter a name for the token.',
  nameUsed: 'You already have a token with this name.',
  descriptionLabel: 'Description',
  cancel: 'Cancel',
  save: 'Save',
  saving: 'Saving…',
  noCompany: 'You are not a member of any company yet, so you cannot create API tokens.',
};
const T = inLanguage({
  en: EN,
  de: {
    title: 'API-Tokens',
    lead: (company) => html`Mit Tokens rufen Skripte und Integrationen die REST- und GraphQL-APIs in Ihrem Namen auf, in <strong>${company}</strong>. Senden Sie eines im Header <code>X-API-TOKEN</code>.`,
    create: 'API-Token erstellen',
    edit: 'API-Token bearbeiten',
    tokens: 'Tokens',
    search: 'Tokens durchsuchen',
    searchPlaceholder: 'Nach Name suchen',
    sortBy: 'Sortieren nach',
    batch: 'Sammelaktionen',
    selected: (n) => `${n} ausgewählt`,
    revoke: 'Widerrufen',
    revoked: (n) => `${n === 1 ? '1 Token' : `${n} Tokens`} widerrufen. ${n === 1 ? 'Es funktioniert' : 'Sie funktionieren'} ab sofort nicht mehr.`,
    saved: (name, edited) => `Das Token „${name}“ wurde ${edited ? 'gespeichert' : 'erstellt'}.`,
    loading: 'Tokens werden geladen …',
    retry: 'Erneut versuchen',
    columns: { name: 'Name', description: 'Beschreibung', usageCount: 'Verwendungen', lastUsedAt: 'Zuletzt verwendet', createdAt: 'Erstellt' },
    selectAll: 'Alle Tokens auswählen',
    select: (n) => `${n} auswählen`,
    actions: 'Aktionen',
    editShort: 'Bearbeiten',
    editOf: (n) => `${n} bearbeiten`,
    history: 'Verlauf ansehen',
    historyOf: (n) => `Verlauf ansehen: ${n}`,
    noDescription: 'Keine Beschreibung',
    noMatch: (s) => `Kein Token passt zu „${s}“.`,
    noMatchHint: 'Versuchen Sie einen anderen Teil eines Namens.',
    none: 'Noch keine API-Tokens.',
    noneHint: 'Erstellen Sie ein Token, damit ein Skript oder eine Integration die API aufrufen kann.',
    pages: 'Seiten der Tokens',
    range: (a, b, n) => `${a}–${b} von ${n}`,
    previous: 'Zurück',
    next: 'Weiter',
    summary: 'Übersicht',
    cards: { active: 'Aktive Tokens', calls: 'API-Aufrufe diesen Monat', last: 'Letzte Aktivität', most: 'Meistgenutztes Token' },
    noActivity: 'Noch keine Aktivität',
    noneUsed: 'Noch keines verwendet',
    requests: ['Anfrage', 'Anfragen'],
    created: 'API-Token erstellt',
    copyNow: html`<strong>Kopieren Sie dieses Token jetzt.</strong> Es wird nur dieses eine Mal gezeigt. Wenn Sie es verlieren, widerrufen Sie es und erstellen Sie ein neues.`,
    valueFor: (n) => `Token für „${n}“`,
    header: html`Senden Sie es im Header <code>X-API-TOKEN</code> jeder Anfrage an <code>/api</code>.`,
    done: 'Fertig',
    nameLabel: 'Name',
    required: '(Pflichtfeld)',
    nameHint: 'Bis zu 100 Zeichen, zum Beispiel „CI-Deployment“.',
    nameMissing: 'Geben Sie einen Namen für das Token ein.',
    nameUsed: 'Sie haben bereits ein Token mit diesem Namen.',
    descriptionLabel: 'Beschreibung',
    cancel: 'Abbrechen',
    save: 'Speichern',
    saving: 'Wird gespeichert …',
    noCompany: 'Sie sind noch Mitglied keines Unternehmens und können daher keine API-Tokens erstellen.',
  },
  fr: {
    title: 'Jetons d’API',
    lead: (company) => html`Les jetons permettent aux scripts et aux intégrations d’appeler les API REST et GraphQL en votre nom, dans <strong>${company}</strong>. Envoyez-en un dans l’en-tête <code>X-API-TOKEN</code>.`,
    create: 'Créer un jeton d’API',
    edit: 'Modifier le jeton d’API',
    tokens: 'Jetons',
    search: 'Rechercher des jetons',
    searchPlaceholder: 'Rechercher par nom',
    sortBy: 'Trier par',
    batch: 'Actions groupées',
    selected: (n) => `${n} sélectionné${n > 1 ? 's' : ''}`,
    revoke: 'Révoquer',
    revoked: (n) => `${n === 1 ? '1 jeton révoqué' : `${n} jetons révoqués`}. ${n === 1 ? 'Il cesse' : 'Ils cessent'} de fonctionner immédiatement.`,
    saved: (name, edited) => `Le jeton « ${name} » est ${edited ? 'enregistré' : 'créé'}.`,
    loading: 'Chargement des jetons…',
    retry: 'Réessayer',
    columns: { name: 'Nom', description: 'Description', usageCount: 'Utilisations', lastUsedAt: 'Dernière utilisation', createdAt: 'Créé le' },
    selectAll: 'Sélectionner tous les jetons',
    select: (n) => `Sélectionner ${n}`,
    actions: 'Actions',
    editShort: 'Modifier',
    editOf: (n) => `Modifier ${n}`,
    history: 'Voir l’historique',
    historyOf: (n) => `Voir l’historique de ${n}`,
    noDescription: 'Aucune description',
    noMatch: (s) => `Aucun jeton ne correspond à « ${s} ».`,
    noMatchHint: 'Essayez une autre partie d’un nom.',
    none: 'Aucun jeton d’API pour l’instant.',
    noneHint: 'Créez un jeton pour permettre à un script ou à une intégration d’appeler l’API.',
    pages: 'Pages de jetons',
    range: (a, b, n) => `${a}–${b} sur ${n}`,
    previous: 'Précédente',
    next: 'Suivante',
    summary: 'Résumé',
    cards: { active: 'Jetons actifs', calls: 'Appels d’API ce mois-ci', last: 'Dernière activité', most: 'Jeton le plus utilisé' },
    noActivity: 'Aucune activité pour l’instant',
    noneUsed: 'Aucun utilisé pour l’instant',
    requests: ['requête', 'requêtes'],
    created: 'Jeton d’API créé',
    copyNow: html`<strong>Copiez ce jeton maintenant.</strong> Il n’est affiché qu’une seule fois. Si vous le perdez, révoquez-le et créez-en un nouveau.`,
    valueFor: (n) => `Jeton pour « ${n} »`,
    header: html`Envoyez-le dans l’en-tête <code>X-API-TOKEN</code> de chaque requête à <code>/api</code>.`,
    done: 'Terminé',
    nameLabel: 'Nom',
    required: '(obligatoire)',
    nameHint: 'Jusqu’à 100 caractères, par exemple « Déploiement CI ».',
    nameMissing: 'Saisissez un nom pour le jeton.',
    nameUsed: 'Vous avez déjà un jeton portant ce nom.',
    descriptionLabel: 'Description',
    cancel: 'Annuler',
    save: 'Enregistrer',
    saving: 'Enregistrement…',
    noCompany: 'Vous n’êtes encore membre d’aucune entreprise : vous ne pouvez pas créer de jetons d’API.',
  },
});

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
    const t = setTimeout(() => {
      setSearchQuery(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [search]);

  useEffect(() => {
    if (!ctx.company) return undefined;
    let live = true;
    const q = query({ name: searchQuery, [`order[${sort.key}]`]: sort.dir, page, itemsPerPage: PAGE_SIZE });
    Promise.all([restPage(`${IRI}${q}`), rest(`${IRI}/summary`)]).then(
      ([found, s]) => {
        if (!live) return;
        const tokens = { items: found.items, total: found.total ?? found.items.length, page };
        setLoadError('');
        setList(tokens);
        setSummary(s);
        setSelected((prev) => new Set([...prev].filter((id) => tokens.items.some((t) => t.id === id))));
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
      const results = await Promise.allSettled(ids.map((id) => rest(`${IRI}/${encodeURIComponent(id)}`, { method: 'DELETE' })));
      const failed = results.find((r) => r.status === 'rejected' && r.reason.status !== 404);
      if (failed) throw failed.reason;
      setSelected(new Set());
      setMessage({ kind: 'success', text: T.revoked(ids.length) });
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

  if (!ctx.company) return html`<h1>${T.title}</h1><p class="alert" role="alert">${T.noCompany}</p>`;

  return html`<div class="page-head">
      <div>
        <h1>${T.title}</h1>
        <p class="muted lead">${T.lead(ctx.company.name)}</p>
      </div>
      <button type="button" class="btn primary" onClick=${openCreate}>${T.create}</button>
    </div>
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    ${loadError && html`<div class="banner banner-error" role="alert"><span>${loadError}</span> <button type="button" class="btn small" onClick=${reload}>${T.retry}</button></div>`}
    <${SummaryCards} summary=${summary} locale=${locale} />
    <section class="panel" aria-labelledby="tokens-heading">
      <div class="panel-head">
        <h2 id="tokens-heading">${T.tokens} ${list && html`<span class="count">${list.total}</span>`}</h2>
        <div class="toolbar">
          <div class="search">
            <label for="token-search" class="visually-hidden">${T.search}</label>
            <input id="token-search" type="search" placeholder=${T.searchPlaceholder} value=${search} onInput=${(e) => setSearch(e.currentTarget.value)} />
          </div>
          <div class="mobile-sort">
            <label for="token-sort">${T.sortBy}</label>
            <select id="token-sort" value=${`${sort.key}:${sort.dir}`} onChange=${(e) => {
              const [key, dir] = e.currentTarget.value.split(':');
              onSort({ key, dir });
            }}>
              ${COLUMNS.flatMap((c) => [html`<option value=${`${c.key}:asc`}>${T.columns[c.key]} ↑</option>`, html`<option value=${`${c.key}:desc`}>${T.columns[c.key]} ↓</option>`])}
            </select>
          </div>
          <div class="batch" role="group" aria-label=${T.batch}>
            <span class="muted small" aria-live="polite">${selected.size ? T.selected(selected.size) : ''}</span>
            <button type="button" class="btn danger" disabled=${!selected.size || busy} onClick=${revoke}>${T.revoke}</button>
          </div>
        </div>
      </div>
      ${list
        ? html`<${TokenTable} tokens=${list.items} sort=${sort} onSort=${onSort} selected=${selected} onSelect=${setSelected} locale=${locale}
            onHistory=${(t) => setDialog({ kind: 'history', token: t })} onEdit=${(t) => setDialog({ kind: 'edit', token: t })} search=${searchQuery} onCreate=${openCreate} />`
        : html`<p class="muted pad" aria-busy="true">${T.loading}</p>`}
      <${Pager} list=${list} onPage=${setPage} />
    </section>
    ${(dialog?.kind === 'create' || dialog?.kind === 'edit') &&
    html`<${TokenDialog} editing=${dialog.token} onClose=${close} onSaved=${(t) => {
      setMessage({ kind: 'success', text: T.saved(t.name, Boolean(dialog.token)) });
      reload();
    }} />`}
    ${dialog?.kind === 'history' && html`<${HistoryDialog} token=${dialog.token} limit=${ctx.settings.historyLimit ?? 100} locale=${locale} onClose=${close} />`}`;
}

function Pager({ list, onPage }) {
  if (!list || list.total <= PAGE_SIZE) return null;
  const first = (list.page - 1) * PAGE_SIZE + 1;
  const last = Math.min(list.total, list.page * PAGE_SIZE);
  return html`<nav class="pager" aria-label=${T.pages}>
    <span class="muted">${T.range(first, last, list.total)}</span>
    <button type="button" class="btn small" disabled=${list.page <= 1} onClick=${() => onPage(list.page - 1)}>${T.previous}</button>
    <button type="button" class="btn small" disabled=${last >= list.total} onClick=${() => onPage(list.page + 1)}>${T.next}</button>
  </nav>`;
}

function Card({ label, children, testid }) {
  return html`<li class="card" data-testid=${testid}><h2 class="card-label">${label}</h2>${children}</li>`;
}

function SummaryCards({ summary: s, locale }) {
  const loading = !s;
  const wait = html`<p class="card-value">…</p>`;
  return html`<ul class="cards" aria-label=${T.summary} aria-busy=${loading ? 'true' : 'false'}>
    <${Card} label=${T.cards.active} testid="card-active"><p class="card-value">${loading ? '…' : number(s.activeTokens, locale)}</p><//>
    <${Card} label=${T.cards.calls} testid="card-calls"><p class="card-value">${loading ? '…' : number(s.apiCallsThisMonth, locale)}</p><//>
    <${Card} label=${T.cards.last} testid="card-last">
      ${loading
        ? wait
        : s.lastActivity
          ? html`<p class="card-value card-value-text"><time datetime=${s.lastActivity} title=${s.lastActivity}>${relative(s.lastActivity, locale)}</time></p>
              <p class="card-note">${dateTime(s.lastActivity, locale)}</p>`
          : html`<p class="card-value card-value-text muted">${T.noActivity}</p>`}
    <//>
    <${Card} label=${T.cards.most} testid="card-most">
      ${loading
        ? wait
        : s.mostUsedToken
          ? html`<p class="card-value card-value-text truncate" title=${s.mostUsedToken.name}>${s.mostUsedToken.name}</p>
              <p class="card-note">${plural(s.mostUsedToken.usageCount, ...T.requests, locale)}</p>`
          : html`<p class="card-value card-value-text muted">${T.noneUsed}</p>`}
    <//>
  </ul>`;
}

function SortHeader({ column, sort, onSort }) {
  const active = sort.key === column.key;
  const next = active ? (sort.dir === 'asc' ? 'desc' : 'asc') : column.defaultDir;
  return html`<th scope="col" aria-sort=${active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'} class=${column.numeric ? 'num' : ''}>
    <button type="button" class=${`sort${active ? ' sort-active' : ''}`} onClick=${() => onSort({ key: column.key, dir: next })}>
      ${T.columns[column.key]}
      <svg class="sort-icon" viewBox="0 0 10 14" width="10" height="14" aria-hidden="true">
        <path d="M5 1L9 5H1z" class=${active && sort.dir === 'asc' ? 'on' : ''} />
        <path d="M5 13L1 9h8z" class=${active && sort.dir === 'desc' ? 'on' : ''} />
      </svg>
    </button>
  </th>`;
}

function TokenTable({ tokens, sort, onSort, selected, onSelect, onHistory, onEdit, search, onCreate, locale }) {
  const ids = tokens.map((t) => t.id);
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
        ? html`<p><strong>${T.noMatch(search)}</strong></p><p class="muted">${T.noMatchHint}</p>`
        : html`<p><strong>${T.none}</strong></p><p class="muted">${T.noneHint}</p><p><button type="button" class="btn primary" onClick=${onCreate}>${T.create}</button></p>`}
    </div>`;
  }
  return html`<div class="table-wrap">
    <table class="table token-table">
      <caption class="visually-hidden">${T.title}</caption>
      <thead><tr>
        <th scope="col" class="check"><input type="checkbox" aria-label=${T.selectAll} checked=${all} indeterminate=${chosen > 0 && !all} onChange=${toggleAll} /></th>
        ${COLUMNS.map((c) => html`<${SortHeader} column=${c} sort=${sort} onSort=${onSort} />`)}
        <th scope="col"><span class="visually-hidden">${T.actions}</span></th>
      </tr></thead>
      <tbody>
        ${tokens.map((t) => html`<tr key=${t.id} class=${selected.has(t.id) ? 'selected' : ''} data-token=${t.name}>
          <td class="check"><input type="checkbox" aria-label=${T.select(t.name)} checked=${selected.has(t.id)} onChange=${() => toggle(t.id)} /></td>
          <td data-label=${T.columns.name} class="name">${t.name}</td>
          <td data-label=${T.columns.description} class="description">${t.description || html`<span class="muted" aria-label=${T.noDescription}>—</span>`}</td>
          <td data-label=${T.columns.usageCount} class="num">${number(t.usageCount, locale)}</td>
          <td data-label=${T.columns.lastUsedAt}>${t.lastUsedAt ? html`<time datetime=${t.lastUsedAt} title=${t.lastUsedAt}>${dateTime(t.lastUsedAt, locale)}</time>` : ''}</td>
          <td data-label=${T.columns.createdAt}><time datetime=${t.createdAt} title=${t.createdAt}>${dateTime(t.createdAt, locale)}</time></td>
          <td class="actions">
            <button type="button" class="btn small" onClick=${() => onEdit(t)} aria-label=${T.editOf(t.name)}>${T.editShort}</button>
            <button type="button" class="btn small" onClick=${() => onHistory(t)} aria-label=${T.historyOf(t.name)}>${T.history}</button>
          </td>
        </tr>`)}
      </tbody>
    </table>
  </div>`;
}

/** Create (the value then shown once, with Copy) or edit a token's name and description. */
function TokenDialog({ editing, onClose, onSaved }) {
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
      setErrors({ name: T.nameMissing });
      nameRef.current.focus();
      return;
    }
    setSaving(true);
    try {
      const body = { name, description: description.trim() ? description : null };
      if (editing) {
        onSaved(await rest(`${IRI}/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body }));
        onClose();
        return;
      }
      const token = await rest(IRI, { method: 'POST', body });
      setCreated(token);
      onSaved(token);
    } catch (err) {
      const found = byField(err);
      if (found.name && /already used/.test(found.name)) found.name = T.nameUsed;
      setErrors(found);
      if (!Object.keys(found).length) setFailure(err.message);
      if (found.name) nameRef.current.focus();
    } finally {
      setSaving(false);
    }
  }

  if (created) {
    return html`<${Dialog} title=${T.created} onClose=${onClose}>
      <div class="warning" role="alert">${T.copyNow}</div>
      <${CopyValue} id="token-value" label=${T.valueFor(created.name)} value=${created.token} copyRef=${copyRef} note=${note} setNote=${setNote} />
      <p class="muted small">${T.header}</p>
      <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${T.done}</button></div>
    <//>`;
  }
  return html`<${Dialog} title=${editing ? T.edit : T.create} onClose=${onClose}>
    <form onSubmit=${save} noValidate>
      <div class="field">
        <label for="token-name">${T.nameLabel} <span class="required">${T.required}</span></label>
        <input id="token-name" ref=${nameRef} value=${name} maxLength="100" required data-autofocus autocomplete="off"
          aria-invalid=${errors.name ? 'true' : undefined} aria-describedby=${errors.name ? 'token-name-error' : 'token-name-hint'}
          onInput=${(e) => {
            setName(e.currentTarget.value);
            if (errors.name) setErrors({ ...errors, name: undefined });
          }} />
        ${errors.name ? html`<p class="field-error" id="token-name-error">${errors.name}</p>` : html`<p class="hint" id="token-name-hint">${T.nameHint}</p>`}
      </div>
      <div class="field">
        <label for="token-description">${T.descriptionLabel}</label>
        <textarea id="token-description" rows="3" value=${description} aria-invalid=${errors.description ? 'true' : undefined} onInput=${(e) => setDescription(e.currentTarget.value)}></textarea>
        ${errors.description && html`<p class="field-error">${errors.description}</p>`}
      </div>
      ${failure && html`<p class="alert" role="alert">${failure}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${T.cancel}</button>
        <button type="submit" class="btn primary" disabled=${saving}>${saving ? T.saving : T.save}</button>
      </div>
    </form>
  <//>`;
}
