// Settings › Webhooks: the company's webhooks (url, events, state, masked secret); add and edit
// them (the secret shown once, after creating and after rotating), delete them, send a ping; and
// each one's delivery log, filtered by status and event type, paged by its cursors, with "Retry
// now". The resource is the description's (its address, its operations' paths, who writes it):
// the page is shown for the view its delivery log's operation declares (lib.js).
// Viewers see everything read-only (the server refuses their writes anyway).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, restPage } from '../api.js';
import { writes } from '../lib.js';
import { Banner, byField, Confirm, CopyValue, dateTime, Dialog, inLanguage, relative } from './ui.js';

const PAGE = 30;
const ALL = '*';

/** The page's words in English; German and French below (ui.js inLanguage). */
const EN = {
  title: 'Webhooks',
  lead: (company) => html`Endpoints that receive the events of <strong>${company}</strong> as they happen, signed with each webhook's secret.`,
  add: 'Add webhook',
  readOnly: (company) => `You see the webhooks of ${company}; an admin or member can change them.`,
  endpoints: 'Endpoints',
  loading: 'Loading…',
  none: 'No webhooks yet.',
  noneHint: (w) => (w ? 'Add one to have events sent to your endpoint.' : 'None has been set up for this company.'),
  columns: { url: 'Endpoint', events: 'Events', state: 'State', secret: 'Secret' },
  actions: 'Actions',
  allEvents: 'All events',
  active: 'Active',
  disabled: 'Disabled',
  deliveries: 'Deliveries',
  ping: 'Send ping',
  edit: 'Edit',
  remove: 'Delete',
  removeTitle: 'Delete webhook?',
  removeText: (url) => `Events will no longer be sent to ${url}, and its delivery log is deleted with it.`,
  removed: (url) => `Deleted the webhook to ${url}.`,
  saved: (url) => `Saved the webhook to ${url}.`,
  created: 'Webhook created',
  rotated: 'New signing secret',
  copyNow: html`<strong>Copy this signing secret now.</strong> It is shown only this once. If you lose it, rotate the secret and use the new one.`,
  secretFor: (url) => `Signing secret for ${url}`,
  signed: html`Each delivery is signed as a Standard Webhook: check the <code>webhook-signature</code> header with this secret.`,
  done: 'Done',
  editTitle: 'Edit webhook',
  url: 'Endpoint URL',
  required: '(required)',
  optional: '(optional)',
  urlHint: 'Where the events are POSTed, e.g. https://example.com/hooks/invoicing.',
  description: 'Description',
  events: 'Events',
  eventTypes: 'Event types',
  everyEvent: 'All events, including ones added later',
  activeLabel: 'Active: deliver events to this endpoint',
  disabledBy: (r) => `Disabled by the service: ${r}`,
  secret: 'Signing secret',
  rotate: 'Rotate secret',
  cancel: 'Cancel',
  save: 'Save',
  saving: 'Saving…',
  create: 'Create webhook',
  log: (url) => `Deliveries to ${url}`,
  total: (n, locale) => (n === null ? 'Many deliveries' : `${new Intl.NumberFormat(locale).format(n)} ${n === 1 ? 'delivery' : 'deliveries'}`),
  refreshing: ' · refreshing while some are pending',
  refresh: 'Refresh',
  filterLog: 'Filter the deliveries',
  status: 'Status',
  allStatuses: 'All statuses',
  statuses: { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' },
  type: 'Event type',
  allTypes: 'All event types',
  noDeliveries: 'No deliveries yet.',
  noMatch: 'No delivery matches these filters.',
  logHint: (w) => `Events of this company appear here as they are sent${w ? '; send a ping to try the endpoint' : ''}.`,
  logColumns: { type: 'Event', status: 'Status', attempts: 'Attempts', response: 'Response', error: 'Error', next: 'Next attempt', created: 'Created' },
  retry: 'Retry now',
  retryOf: (d) => `Retry now: ${d.type} ${d.createdAt}`,
  retried: 'Retry queued.',
  pinged: 'Ping queued.',
  pages: 'Pages of deliveries',
  newer: 'Newer',
  older: 'Older',
  close: 'Close',
  noCompany: 'You are not a member of any company yet.',
};
const T = inLanguage({
  en: EN,
  de: {
    title: 'Webhooks',
    lead: (company) => html`Endpunkte, die die Ereignisse von <strong>${company}</strong> sofort erhalten, signiert mit dem Geheimnis jedes Webhooks.`,
    add: 'Webhook hinzufügen',
    readOnly: (company) => `Sie sehen die Webhooks von ${company}; ein Administrator oder Mitglied kann sie ändern.`,
    endpoints: 'Endpunkte',
    loading: 'Wird geladen …',
    none: 'Noch keine Webhooks.',
    noneHint: (w) => (w ? 'Fügen Sie einen hinzu, damit Ereignisse an Ihren Endpunkt gesendet werden.' : 'Für dieses Unternehmen ist keiner eingerichtet.'),
    columns: { url: 'Endpunkt', events: 'Ereignisse', state: 'Zustand', secret: 'Geheimnis' },
    actions: 'Aktionen',
    allEvents: 'Alle Ereignisse',
    active: 'Aktiv',
    disabled: 'Deaktiviert',
    deliveries: 'Zustellungen',
    ping: 'Ping senden',
    edit: 'Bearbeiten',
    remove: 'Löschen',
    removeTitle: 'Webhook löschen?',
    removeText: (url) => `Ereignisse werden nicht mehr an ${url} gesendet, und das Zustellprotokoll wird mit gelöscht.`,
    removed: (url) => `Der Webhook an ${url} ist gelöscht.`,
    saved: (url) => `Der Webhook an ${url} ist gespeichert.`,
    created: 'Webhook erstellt',
    rotated: 'Neues Signaturgeheimnis',
    copyNow: html`<strong>Kopieren Sie dieses Signaturgeheimnis jetzt.</strong> Es wird nur dieses eine Mal gezeigt. Wenn Sie es verlieren, erneuern Sie das Geheimnis und verwenden Sie das neue.`,
    secretFor: (url) => `Signaturgeheimnis für ${url}`,
    signed: html`Jede Zustellung ist als Standard Webhook signiert: Prüfen Sie den Header <code>webhook-signature</code> mit diesem Geheimnis.`,
    done: 'Fertig',
    editTitle: 'Webhook bearbeiten',
    url: 'Endpunkt-URL',
    required: '(Pflichtfeld)',
    optional: '(optional)',
    urlHint: 'Wohin die Ereignisse per POST gesendet werden, z. B. https://example.com/hooks/invoicing.',
    description: 'Beschreibung',
    events: 'Ereignisse',
    eventTypes: 'Ereignistypen',
    everyEvent: 'Alle Ereignisse, auch später hinzugefügte',
    activeLabel: 'Aktiv: Ereignisse an diesen Endpunkt zustellen',
    disabledBy: (r) => `Vom Dienst deaktiviert: ${r}`,
    secret: 'Signaturgeheimnis',
    rotate: 'Geheimnis erneuern',
    cancel: 'Abbrechen',
    save: 'Speichern',
    saving: 'Wird gespeichert …',
    create: 'Webhook erstellen',
    log: (url) => `Zustellungen an ${url}`,
    total: (n, locale) => (n === null ? 'Viele Zustellungen' : `${new Intl.NumberFormat(locale).format(n)} ${n === 1 ? 'Zustellung' : 'Zustellungen'}`),
    refreshing: ' · wird aktualisiert, solange welche offen sind',
    refresh: 'Aktualisieren',
    filterLog: 'Zustellungen filtern',
    status: 'Status',
    allStatuses: 'Alle Status',
    statuses: { pending: 'Offen', succeeded: 'Erfolgreich', failed: 'Fehlgeschlagen' },
    type: 'Ereignistyp',
    allTypes: 'Alle Ereignistypen',
    noDeliveries: 'Noch keine Zustellungen.',
    noMatch: 'Keine Zustellung passt zu diesen Filtern.',
    logHint: (w) => `Ereignisse dieses Unternehmens erscheinen hier, sobald sie gesendet werden${w ? '; senden Sie einen Ping, um den Endpunkt zu testen' : ''}.`,
    logColumns: { type: 'Ereignis', status: 'Status', attempts: 'Versuche', response: 'Antwort', error: 'Fehler', next: 'Nächster Versuch', created: 'Erstellt' },
    retry: 'Jetzt wiederholen',
    retryOf: (d) => `Jetzt wiederholen: ${d.type} ${d.createdAt}`,
    retried: 'Wiederholung eingeplant.',
    pinged: 'Ping eingeplant.',
    pages: 'Seiten der Zustellungen',
    newer: 'Neuere',
    older: 'Ältere',
    close: 'Schließen',
    noCompany: 'Sie sind noch Mitglied keines Unternehmens.',
  },
  fr: {
    title: 'Webhooks',
    lead: (company) => html`Des points de terminaison qui reçoivent les événements de <strong>${company}</strong> à mesure qu’ils se produisent, signés avec le secret de chaque webhook.`,
    add: 'Ajouter un webhook',
    readOnly: (company) => `Vous voyez les webhooks de ${company} ; un administrateur ou un membre peut les modifier.`,
    endpoints: 'Points de terminaison',
    loading: 'Chargement…',
    none: 'Aucun webhook pour l’instant.',
    noneHint: (w) => (w ? 'Ajoutez-en un pour que les événements soient envoyés à votre point de terminaison.' : 'Aucun n’est configuré pour cette entreprise.'),
    columns: { url: 'Point de terminaison', events: 'Événements', state: 'État', secret: 'Secret' },
    actions: 'Actions',
    allEvents: 'Tous les événements',
    active: 'Actif',
    disabled: 'Désactivé',
    deliveries: 'Livraisons',
    ping: 'Envoyer un ping',
    edit: 'Modifier',
    remove: 'Supprimer',
    removeTitle: 'Supprimer le webhook ?',
    removeText: (url) => `Les événements ne seront plus envoyés à ${url}, et son journal de livraisons est supprimé avec lui.`,
    removed: (url) => `Le webhook vers ${url} est supprimé.`,
    saved: (url) => `Le webhook vers ${url} est enregistré.`,
    created: 'Webhook créé',
    rotated: 'Nouveau secret de signature',
    copyNow: html`<strong>Copiez ce secret de signature maintenant.</strong> Il n’est affiché qu’une seule fois. Si vous le perdez, renouvelez le secret et utilisez le nouveau.`,
    secretFor: (url) => `Secret de signature pour ${url}`,
    signed: html`Chaque livraison est signée comme un Standard Webhook : vérifiez l’en-tête <code>webhook-signature</code> avec ce secret.`,
    done: 'Terminé',
    editTitle: 'Modifier le webhook',
    url: 'URL du point de terminaison',
    required: '(obligatoire)',
    optional: '(facultatif)',
    urlHint: 'Où les événements sont envoyés par POST, p. ex. https://example.com/hooks/invoicing.',
    description: 'Description',
    events: 'Événements',
    eventTypes: 'Types d’événements',
    everyEvent: 'Tous les événements, y compris ceux ajoutés plus tard',
    activeLabel: 'Actif : livrer les événements à ce point de terminaison',
    disabledBy: (r) => `Désactivé par le service : ${r}`,
    secret: 'Secret de signature',
    rotate: 'Renouveler le secret',
    cancel: 'Annuler',
    save: 'Enregistrer',
    saving: 'Enregistrement…',
    create: 'Créer le webhook',
    log: (url) => `Livraisons vers ${url}`,
    total: (n, locale) => (n === null ? 'De nombreuses livraisons' : `${new Intl.NumberFormat(locale).format(n)} ${n > 1 ? 'livraisons' : 'livraison'}`),
    refreshing: ' · actualisé tant que certaines sont en attente',
    refresh: 'Actualiser',
    filterLog: 'Filtrer les livraisons',
    status: 'Statut',
    allStatuses: 'Tous les statuts',
    statuses: { pending: 'En attente', succeeded: 'Réussie', failed: 'Échouée' },
    type: 'Type d’événement',
    allTypes: 'Tous les types d’événements',
    noDeliveries: 'Aucune livraison pour l’instant.',
    noMatch: 'Aucune livraison ne correspond à ces filtres.',
    logHint: (w) => `Les événements de cette entreprise apparaissent ici à mesure qu’ils sont envoyés${w ? ' ; envoyez un ping pour essayer le point de terminaison' : ''}.`,
    logColumns: { type: 'Événement', status: 'Statut', attempts: 'Tentatives', response: 'Réponse', error: 'Erreur', next: 'Prochaine tentative', created: 'Créée le' },
    retry: 'Réessayer maintenant',
    retryOf: (d) => `Réessayer maintenant : ${d.type} ${d.createdAt}`,
    retried: 'Nouvelle tentative planifiée.',
    pinged: 'Ping planifié.',
    pages: 'Pages de livraisons',
    newer: 'Plus récentes',
    older: 'Plus anciennes',
    close: 'Fermer',
    noCompany: 'Vous n’êtes encore membre d’aucune entreprise.',
  },
});

const eventsText = (events) => (events.includes(ALL) ? T.allEvents : events.join(', '));

/** The address of `r`'s declared operation `name` (`deliveries/{delivery}/retry`), its parameters filled. */
const opUrl = (r, name, id, params = {}) => {
  const op = r.operations.find((o) => o.name === name);
  const path = op.path.replace(/\{(\w+)\}/g, (_, p) => encodeURIComponent(params[p]));
  return op.on === 'item' ? `${r.iri}/${id}/${path}` : `${r.iri}/${path}`;
};

export function WebhooksPage({ ctx, r }) {
  const canWrite = Boolean(r && writes(r, ctx.role));
  const [hooks, setHooks] = useState(null);
  const [eventTypes, setEventTypes] = useState([]);
  const [message, setMessage] = useState(null);
  const [reloads, setReloads] = useState(0);
  // The open dialog: { kind: 'create' | 'edit' | 'secret' | 'deliveries' | 'delete', hook }.
  const [dialog, setDialog] = useState(null);
  const reload = () => setReloads((n) => n + 1);
  const fail = (e) => setMessage({ kind: 'error', text: e.message });
  useEffect(() => {
    if (r) rest(opUrl(r, 'eventTypes')).then(setEventTypes, fail);
  }, []);
  useEffect(() => {
    if (r) restPage(`${r.iri}?order[createdAt]=asc&itemsPerPage=100`).then((l) => setHooks(l.items), fail);
  }, [reloads]);
  if (!r || !ctx.company) return html`<h1>${T.title}</h1><p class="alert" role="alert">${T.noCompany}</p>`;

  async function rotate(hook) {
    try {
      setDialog({ kind: 'secret', hook: await rest(opUrl(r, 'rotateSecret', hook.id), { method: 'POST' }), rotated: true });
      reload();
    } catch (e) {
      fail(e);
    }
  }
  async function ping(hook) {
    try {
      await rest(opUrl(r, 'ping', hook.id), { method: 'POST' });
      setDialog({ kind: 'deliveries', hook });
    } catch (e) {
      fail(e);
    }
  }
  async function remove(hook) {
    setDialog(null);
    try {
      await rest(`${r.iri}/${hook.id}`, { method: 'DELETE' });
      setMessage({ kind: 'success', text: T.removed(hook.url) });
      reload();
    } catch (e) {
      fail(e);
    }
  }
  const close = () => setDialog(null);

  return html`<div class="page-head">
      <div><h1>${T.title}</h1><p class="muted lead">${T.lead(ctx.company.name)}</p></div>
      ${canWrite && html`<button type="button" class="btn primary" onClick=${() => setDialog({ kind: 'create' })}>${T.add}</button>`}
    </div>
    ${!canWrite && html`<p class="notice" role="status">${T.readOnly(ctx.company.name)}</p>`}
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <section class="panel" aria-labelledby="webhooks-title">
      <div class="panel-head"><h2 id="webhooks-title" class="panel-title">${T.endpoints} ${hooks && html`<span class="count">${hooks.length}</span>`}</h2></div>
      ${hooks === null && html`<p class="pad muted" aria-busy="true">${T.loading}</p>`}
      ${hooks?.length === 0 && html`<div class="empty"><p><strong>${T.none}</strong></p><p class="muted">${T.noneHint(canWrite)}</p></div>`}
      ${hooks?.length > 0 &&
      html`<div class="table-wrap"><table class="table webhook-table">
        <caption class="visually-hidden">${T.endpoints}</caption>
        <thead><tr>${Object.values(T.columns).map((c) => html`<th scope="col">${c}</th>`)}<th scope="col"><span class="visually-hidden">${T.actions}</span></th></tr></thead>
        <tbody>
          ${hooks.map((h) => html`<tr key=${h.id} data-webhook=${h.url}>
            <td data-label=${T.columns.url} class="endpoint"><span class="url">${h.url}</span>${h.description && html`<span class="muted small">${h.description}</span>`}</td>
            <td data-label=${T.columns.events} class="small">${eventsText(h.events)}</td>
            <td data-label=${T.columns.state}>${h.active
              ? html`<span class="state state-ok">${T.active}</span>`
              : html`<span class="state state-failed">${T.disabled}</span>${h.disabledReason && html`<span class="muted small reason">${h.disabledReason}</span>`}`}</td>
            <td data-label=${T.columns.secret}><code class="secret">${h.secret}</code></td>
            <td class="actions">
              <button type="button" class="btn small" onClick=${() => setDialog({ kind: 'deliveries', hook: h })}>${T.deliveries}</button>
              ${canWrite &&
              html`<button type="button" class="btn small" onClick=${() => ping(h)}>${T.ping}</button>
                <button type="button" class="btn small" onClick=${() => setDialog({ kind: 'edit', hook: h })}>${T.edit}</button>
                <button type="button" class="btn small danger" onClick=${() => setDialog({ kind: 'delete', hook: h })}>${T.remove}</button>`}
            </td>
          </tr>`)}
        </tbody>
      </table></div>`}
    </section>
    ${(dialog?.kind === 'create' || dialog?.kind === 'edit') &&
    html`<${WebhookDialog} key=${dialog.hook?.id ?? 'new'} iri=${r.iri} editing=${dialog.hook} eventTypes=${eventTypes} onClose=${close} onRotate=${rotate}
      onSaved=${(h) => {
        reload();
        if (dialog.kind === 'create') setDialog({ kind: 'secret', hook: h });
        else {
          setDialog(null);
          setMessage({ kind: 'success', text: T.saved(h.url) });
        }
      }} />`}
    ${dialog?.kind === 'secret' && html`<${SecretDialog} hook=${dialog.hook} rotated=${dialog.rotated} onClose=${close} />`}
    ${dialog?.kind === 'deliveries' && html`<${DeliveriesDialog} r=${r} hook=${dialog.hook} eventTypes=${eventTypes} canWrite=${canWrite} locale=${ctx.locale} onClose=${() => (close(), reload())} />`}
    ${dialog?.kind === 'delete' && html`<${Confirm} title=${T.removeTitle} text=${T.removeText(dialog.hook.url)} action=${T.remove} cancel=${T.cancel} onConfirm=${() => remove(dialog.hook)} onClose=${close} />`}`;
}

/** The whole secret, shown this once, with a copy button. */
function SecretDialog({ hook, rotated, onClose }) {
  const [note, setNote] = useState('');
  return html`<${Dialog} title=${rotated ? T.rotated : T.created} onClose=${onClose}>
    <div class="warning" role="alert">${T.copyNow}</div>
    <${CopyValue} id="webhook-secret" label=${T.secretFor(hook.url)} value=${hook.secret} note=${note} setNote=${setNote} />
    <p class="muted small">${T.signed}</p>
    <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${T.done}</button></div>
  <//>`;
}

/** Create (no `editing`) or edit a webhook: url, description, events, and (editing) active. */
function WebhookDialog({ iri, editing, eventTypes, onClose, onSaved, onRotate }) {
  const [url, setUrl] = useState(editing ? editing.url : 'https://');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [events, setEvents] = useState(editing ? editing.events : [ALL]);
  const [active, setActive] = useState(editing ? editing.active : true);
  const [errors, setErrors] = useState({});
  const [failure, setFailure] = useState('');
  const [saving, setSaving] = useState(false);
  const all = events.includes(ALL);
  const toggle = (type, on) => setEvents((list) => (on ? [...list.filter((e) => e !== ALL), type] : list.filter((e) => e !== type)));
  async function save(e) {
    e.preventDefault();
    setSaving(true);
    setFailure('');
    const body = { url: url.trim(), description: description.trim() || null, events };
    if (editing) body.active = active;
    try {
      onSaved(editing ? await rest(`${iri}/${editing.id}`, { method: 'PATCH', body }) : await rest(iri, { method: 'POST', body }));
    } catch (err) {
      const found = byField(err);
      setErrors(found);
      setFailure(Object.keys(found).length ? '' : err.message);
      setSaving(false);
    }
  }
  return html`<${Dialog} title=${editing ? T.editTitle : T.add} onClose=${onClose}>
    <form onSubmit=${save} novalidate>
      <div class="field">
        <label for="webhook-url">${T.url} <span class="required">${T.required}</span></label>
        <input id="webhook-url" type="url" value=${url} data-autofocus required spellcheck="false" autocomplete="off"
          aria-invalid=${errors.url ? 'true' : undefined} aria-describedby="webhook-url-note" onInput=${(e) => setUrl(e.currentTarget.value)} />
        ${errors.url ? html`<p class="field-error" id="webhook-url-note">${errors.url}</p>` : html`<p class="hint" id="webhook-url-note">${T.urlHint}</p>`}
      </div>
      <div class="field">
        <label for="webhook-description">${T.description} <span class="required">${T.optional}</span></label>
        <input id="webhook-description" value=${description} maxlength="255" onInput=${(e) => setDescription(e.currentTarget.value)} />
        ${errors.description && html`<p class="field-error">${errors.description}</p>`}
      </div>
      <fieldset class="events">
        <legend>${T.events}</legend>
        <label class="check-row"><input type="checkbox" checked=${all} onChange=${(e) => setEvents(e.currentTarget.checked ? [ALL] : [])} /> ${T.everyEvent}</label>
        <div class="event-grid" role="group" aria-label=${T.eventTypes} tabindex="0">
          ${eventTypes.filter((t) => t !== ALL).map((type) => html`<label class="check-row mono-label">
            <input type="checkbox" checked=${all || events.includes(type)} disabled=${all} onChange=${(e) => toggle(type, e.currentTarget.checked)} /> ${type}
          </label>`)}
        </div>
        ${errors.events && html`<p class="field-error">${errors.events}</p>`}
      </fieldset>
      ${editing &&
      html`<div class="field">
          <label class="check-row"><input type="checkbox" checked=${active} onChange=${(e) => setActive(e.currentTarget.checked)} /> ${T.activeLabel}</label>
          ${editing.disabledReason && html`<p class="hint">${T.disabledBy(editing.disabledReason)}</p>`}
        </div>
        <div class="field">
          <span class="label">${T.secret}</span>
          <div class="secret-row"><code>${editing.secret}</code> <button type="button" class="btn small" onClick=${() => onRotate(editing)}>${T.rotate}</button></div>
        </div>`}
      ${failure && html`<p class="alert" role="alert">${failure}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${T.cancel}</button>
        <button type="submit" class="btn primary" disabled=${saving || events.length === 0}>${saving ? T.saving : editing ? T.save : T.create}</button>
      </div>
    </form>
  <//>`;
}

const STATUS_CLASS = { pending: 'state-pending', succeeded: 'state-ok', failed: 'state-failed' };

/** One webhook's delivery log, newest first, filtered and paged; refreshed every 2 s while a delivery is due. */
function DeliveriesDialog({ r, hook, eventTypes, canWrite, locale, onClose }) {
  const [filters, setFilters] = useState({ status: '', type: '' });
  // The cursors of the pages before this one (the first page has none).
  const [cursors, setCursors] = useState([]);
  const [list, setList] = useState(null);
  const [failure, setFailure] = useState('');
  const [note, setNote] = useState('');
  const [reloads, setReloads] = useState(0);
  const after = cursors.at(-1) ?? '';
  useEffect(() => {
    let live = true;
    const p = new URLSearchParams({ itemsPerPage: String(PAGE) });
    if (filters.status) p.set('status', filters.status);
    if (filters.type) p.set('type', filters.type);
    if (after) p.set('after', after);
    restPage(`${opUrl(r, 'deliveries', hook.id)}?${p}`).then(
      (l) => live && setList(l),
      (e) => live && setFailure(e.message),
    );
    return () => {
      live = false;
    };
  }, [reloads, filters.status, filters.type, after]);
  const pending = list?.items.some((d) => d.status === 'pending' && (!d.nextAttemptAt || Date.parse(d.nextAttemptAt) - Date.now() < 30_000));
  useEffect(() => {
    if (!pending) return undefined;
    const t = setTimeout(() => setReloads((n) => n + 1), 2000);
    return () => clearTimeout(t);
  }, [list]);
  async function act(path, text) {
    setFailure('');
    try {
      await rest(path, { method: 'POST' });
      setNote(text);
      setReloads((n) => n + 1);
    } catch (e) {
      setFailure(e.message);
    }
  }
  const setFilter = (key) => (e) => {
    setFilters({ ...filters, [key]: e.currentTarget.value });
    setCursors([]);
  };
  const filtered = filters.status || filters.type;
  return html`<${Dialog} title=${T.log(hook.url)} wide onClose=${onClose}>
    <div class="deliveries-head">
      <p class="muted small">${list ? T.total(list.total, locale) : T.loading}${pending ? T.refreshing : ''}</p>
      <div class="toolbar">
        <button type="button" class="btn small" onClick=${() => setReloads((n) => n + 1)}>${T.refresh}</button>
        ${canWrite && html`<button type="button" class="btn small primary" onClick=${() => act(opUrl(r, 'ping', hook.id), T.pinged)}>${T.ping}</button>`}
      </div>
    </div>
    <form class="filters" aria-label=${T.filterLog} onSubmit=${(e) => e.preventDefault()}>
      <div class="field">
        <label for="delivery-status">${T.status}</label>
        <select id="delivery-status" value=${filters.status} onChange=${setFilter('status')}>
          <option value="">${T.allStatuses}</option>
          ${Object.entries(T.statuses).map(([v, l]) => html`<option value=${v}>${l}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="delivery-type">${T.type}</label>
        <select id="delivery-type" value=${filters.type} onChange=${setFilter('type')}>
          <option value="">${T.allTypes}</option>
          ${eventTypes.filter((t) => t !== ALL).map((t) => html`<option value=${t}>${t}</option>`)}
        </select>
      </div>
    </form>
    <p class="visually-hidden" role="status">${note}</p>
    ${failure && html`<p class="alert" role="alert">${failure}</p>`}
    ${list?.items.length === 0 && html`<div class="empty"><p>${filtered ? T.noMatch : T.noDeliveries}</p><p class="muted small">${T.logHint(canWrite)}</p></div>`}
    ${list?.items.length > 0 &&
    html`<div class="table-wrap"><table class="table deliveries-table">
      <caption class="visually-hidden">${T.log(hook.url)}</caption>
      <thead><tr>${Object.entries(T.logColumns).map(([k, c]) => html`<th scope="col" class=${k === 'attempts' ? 'num' : ''}>${c}</th>`)}${canWrite && html`<th scope="col"><span class="visually-hidden">${T.actions}</span></th>`}</tr></thead>
      <tbody>
        ${list.items.map((d) => html`<tr key=${d.id} data-delivery=${d.id}>
          <td data-label=${T.logColumns.type} class="mono-cell">${d.type}</td>
          <td data-label=${T.logColumns.status}><span class=${`state ${STATUS_CLASS[d.status]}`}>${T.statuses[d.status] ?? d.status}</span></td>
          <td data-label=${T.logColumns.attempts} class="num">${d.attempts}</td>
          <td data-label=${T.logColumns.response}>${d.responseStatus === null
            ? html`<span class="muted">—</span>`
            : html`<span><span class=${`status status-${String(d.responseStatus)[0]}xx`}>${d.responseStatus}</span>${d.durationMs !== null && html` <span class="muted small">${d.durationMs} ms</span>`}</span>`}</td>
          <td data-label=${T.logColumns.error} class="small error-cell">${d.lastError ?? html`<span class="muted">—</span>`}</td>
          <td data-label=${T.logColumns.next}>${d.nextAttemptAt ? html`<time datetime=${d.nextAttemptAt} title=${dateTime(d.nextAttemptAt, locale)}>${relative(d.nextAttemptAt, locale)}</time>` : html`<span class="muted">—</span>`}</td>
          <td data-label=${T.logColumns.created}><time datetime=${d.createdAt} title=${dateTime(d.createdAt, locale)}>${relative(d.createdAt, locale)}</time></td>
          ${canWrite && html`<td class="actions"><button type="button" class="btn small" aria-label=${T.retryOf(d)} onClick=${() => act(opUrl(r, 'retry', hook.id, { delivery: d.id }), T.retried)}>${T.retry}</button></td>`}
        </tr>`)}
      </tbody>
    </table></div>`}
    ${(cursors.length > 0 || list?.next) &&
    html`<nav class="pager" aria-label=${T.pages}>
      <button type="button" class="btn small" disabled=${!cursors.length} onClick=${() => setCursors(cursors.slice(0, -1))}>${T.newer}</button>
      <button type="button" class="btn small" disabled=${!list?.next} onClick=${() => setCursors([...cursors, list.next])}>${T.older}</button>
    </nav>`}
    <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${T.close}</button></div>
  <//>`;
}
