// Settings › Webhooks: the company's webhooks (url, events, state, masked secret); add and edit
// them (the secret shown once, after creating and after rotating), delete them, send a ping; and
// each one's delivery log, filtered by status and event type, paged by its cursors, with "Retry
// now". The resource is the description's (its address, its operations' paths, who writes it):
// the page is shown for the view its delivery log's operation declares (lib.js).
// Viewers see everything read-only (the server refuses their writes anyway).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, restPage } from '../api.js';
import { t, writes } from '../lib.js';
import { Banner, byField, Confirm, CopyValue, dateTime, Dialog, relative } from './ui.js';

const PAGE = 30;
const ALL = '*';

// The page's words are messages of the catalogue (web/app/messages/, `settings.webhooks.*`).
const COLUMNS = ['url', 'events', 'state', 'secret'];
const LOG_COLUMNS = ['type', 'status', 'attempts', 'response', 'error', 'next', 'created'];
const STATUSES = ['pending', 'succeeded', 'failed'];
const columnName = (key) => t(`settings.webhooks.column.${key}`);
const logColumnName = (key) => t(`settings.webhooks.logColumn.${key}`);
const statusName = (status) => t('settings.webhooks.statusName', { status });
const yes = (b) => (b ? 'yes' : 'no');

const eventsText = (events) => (events.includes(ALL) ? t('settings.webhooks.allEvents') : events.join(', '));

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
  if (!r || !ctx.company) return html`<h1>${t('settings.webhooks.title')}</h1><p class="alert" role="alert">${t('settings.webhooks.noCompany')}</p>`;

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
      setMessage({ kind: 'success', text: t('settings.webhooks.removed', { url: hook.url }) });
      reload();
    } catch (e) {
      fail(e);
    }
  }
  const close = () => setDialog(null);

  return html`<div class="page-head">
      <div><h1>${t('settings.webhooks.title')}</h1><p class="muted lead">${t('settings.webhooks.lead', { company: html`<strong>${ctx.company.name}</strong>` })}</p></div>
      ${canWrite && html`<button type="button" class="btn primary" onClick=${() => setDialog({ kind: 'create' })}>${t('settings.webhooks.add')}</button>`}
    </div>
    ${!canWrite && html`<p class="notice" role="status">${t('settings.webhooks.readOnly', { company: ctx.company.name })}</p>`}
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <section class="panel" aria-labelledby="webhooks-title">
      <div class="panel-head"><h2 id="webhooks-title" class="panel-title">${t('settings.webhooks.endpoints')} ${hooks && html`<span class="count">${hooks.length}</span>`}</h2></div>
      ${hooks === null && html`<p class="pad muted" aria-busy="true">${t('settings.webhooks.loading')}</p>`}
      ${hooks?.length === 0 && html`<div class="empty"><p><strong>${t('settings.webhooks.none')}</strong></p><p class="muted">${t('settings.webhooks.noneHint', { canWrite: yes(canWrite) })}</p></div>`}
      ${hooks?.length > 0 &&
      html`<div class="table-wrap"><table class="table webhook-table">
        <caption class="visually-hidden">${t('settings.webhooks.endpoints')}</caption>
        <thead><tr>${COLUMNS.map((c) => html`<th scope="col">${columnName(c)}</th>`)}<th scope="col"><span class="visually-hidden">${t('settings.webhooks.actions')}</span></th></tr></thead>
        <tbody>
          ${hooks.map((h) => html`<tr key=${h.id} data-webhook=${h.url}>
            <td data-label=${columnName('url')} class="endpoint"><span class="url">${h.url}</span>${h.description && html`<span class="muted small">${h.description}</span>`}</td>
            <td data-label=${columnName('events')} class="small">${eventsText(h.events)}</td>
            <td data-label=${columnName('state')}>${h.active
              ? html`<span class="state state-ok">${t('settings.webhooks.active')}</span>`
              : html`<span class="state state-failed">${t('settings.webhooks.disabled')}</span>${h.disabledReason && html`<span class="muted small reason">${h.disabledReason}</span>`}`}</td>
            <td data-label=${columnName('secret')}><code class="secret">${h.secret}</code></td>
            <td class="actions">
              <button type="button" class="btn small" onClick=${() => setDialog({ kind: 'deliveries', hook: h })}>${t('settings.webhooks.deliveries')}</button>
              ${canWrite &&
              html`<button type="button" class="btn small" onClick=${() => ping(h)}>${t('settings.webhooks.ping')}</button>
                <button type="button" class="btn small" onClick=${() => setDialog({ kind: 'edit', hook: h })}>${t('settings.webhooks.edit')}</button>
                <button type="button" class="btn small danger" onClick=${() => setDialog({ kind: 'delete', hook: h })}>${t('settings.webhooks.remove')}</button>`}
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
          setMessage({ kind: 'success', text: t('settings.webhooks.saved', { url: h.url }) });
        }
      }} />`}
    ${dialog?.kind === 'secret' && html`<${SecretDialog} hook=${dialog.hook} rotated=${dialog.rotated} onClose=${close} />`}
    ${dialog?.kind === 'deliveries' && html`<${DeliveriesDialog} r=${r} hook=${dialog.hook} eventTypes=${eventTypes} canWrite=${canWrite} locale=${ctx.locale} onClose=${() => (close(), reload())} />`}
    ${dialog?.kind === 'delete' && html`<${Confirm} title=${t('settings.webhooks.removeTitle')} text=${t('settings.webhooks.removeText', { url: dialog.hook.url })} action=${t('settings.webhooks.remove')} cancel=${t('settings.webhooks.cancel')} onConfirm=${() => remove(dialog.hook)} onClose=${close} />`}`;
}

/** The whole secret, shown this once, with a copy button. */
function SecretDialog({ hook, rotated, onClose }) {
  const [note, setNote] = useState('');
  return html`<${Dialog} title=${rotated ? t('settings.webhooks.rotated') : t('settings.webhooks.created')} onClose=${onClose}>
    <div class="warning" role="alert">${t('settings.webhooks.copyNow', { copy: html`<strong>${t('settings.webhooks.copyNowFirst')}</strong>` })}</div>
    <${CopyValue} id="webhook-secret" label=${t('settings.webhooks.secretFor', { url: hook.url })} value=${hook.secret} note=${note} setNote=${setNote} />
    <p class="muted small">${t('settings.webhooks.signed', { header: html`<code>webhook-signature</code>` })}</p>
    <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${t('settings.webhooks.done')}</button></div>
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
  return html`<${Dialog} title=${editing ? t('settings.webhooks.editTitle') : t('settings.webhooks.add')} onClose=${onClose}>
    <form onSubmit=${save} novalidate>
      <div class="field">
        <label for="webhook-url">${t('settings.webhooks.url')} <span class="required">${t('settings.webhooks.required')}</span></label>
        <input id="webhook-url" type="url" value=${url} data-autofocus required spellcheck="false" autocomplete="off"
          aria-invalid=${errors.url ? 'true' : undefined} aria-describedby="webhook-url-note" onInput=${(e) => setUrl(e.currentTarget.value)} />
        ${errors.url ? html`<p class="field-error" id="webhook-url-note">${errors.url}</p>` : html`<p class="hint" id="webhook-url-note">${t('settings.webhooks.urlHint')}</p>`}
      </div>
      <div class="field">
        <label for="webhook-description">${t('settings.webhooks.description')} <span class="required">${t('settings.webhooks.optional')}</span></label>
        <input id="webhook-description" value=${description} maxlength="255" onInput=${(e) => setDescription(e.currentTarget.value)} />
        ${errors.description && html`<p class="field-error">${errors.description}</p>`}
      </div>
      <fieldset class="events">
        <legend>${t('settings.webhooks.events')}</legend>
        <label class="check-row"><input type="checkbox" checked=${all} onChange=${(e) => setEvents(e.currentTarget.checked ? [ALL] : [])} /> ${t('settings.webhooks.everyEvent')}</label>
        <div class="event-grid" role="group" aria-label=${t('settings.webhooks.eventTypes')} tabindex="0">
          ${eventTypes.filter((type) => type !== ALL).map((type) => html`<label class="check-row mono-label">
            <input type="checkbox" checked=${all || events.includes(type)} disabled=${all} onChange=${(e) => toggle(type, e.currentTarget.checked)} /> ${type}
          </label>`)}
        </div>
        ${errors.events && html`<p class="field-error">${errors.events}</p>`}
      </fieldset>
      ${editing &&
      html`<div class="field">
          <label class="check-row"><input type="checkbox" checked=${active} onChange=${(e) => setActive(e.currentTarget.checked)} /> ${t('settings.webhooks.activeLabel')}</label>
          ${editing.disabledReason && html`<p class="hint">${t('settings.webhooks.disabledBy', { reason: editing.disabledReason })}</p>`}
        </div>
        <div class="field">
          <span class="label">${t('settings.webhooks.secret')}</span>
          <div class="secret-row"><code>${editing.secret}</code> <button type="button" class="btn small" onClick=${() => onRotate(editing)}>${t('settings.webhooks.rotate')}</button></div>
        </div>`}
      ${failure && html`<p class="alert" role="alert">${failure}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${t('settings.webhooks.cancel')}</button>
        <button type="submit" class="btn primary" disabled=${saving || events.length === 0}>${saving ? t('settings.webhooks.saving') : editing ? t('settings.webhooks.save') : t('settings.webhooks.create')}</button>
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
    const timer = setTimeout(() => setReloads((n) => n + 1), 2000);
    return () => clearTimeout(timer);
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
  return html`<${Dialog} title=${t('settings.webhooks.log', { url: hook.url })} wide onClose=${onClose}>
    <div class="deliveries-head">
      <p class="muted small">${list ? (list.total === null ? t('settings.webhooks.totalUnknown') : t('settings.webhooks.total', { count: list.total })) : t('settings.webhooks.loading')}${pending ? ` ${t('settings.webhooks.refreshing')}` : ''}</p>
      <div class="toolbar">
        <button type="button" class="btn small" onClick=${() => setReloads((n) => n + 1)}>${t('settings.webhooks.refresh')}</button>
        ${canWrite && html`<button type="button" class="btn small primary" onClick=${() => act(opUrl(r, 'ping', hook.id), t('settings.webhooks.pinged'))}>${t('settings.webhooks.ping')}</button>`}
      </div>
    </div>
    <form class="filters" aria-label=${t('settings.webhooks.filterLog')} onSubmit=${(e) => e.preventDefault()}>
      <div class="field">
        <label for="delivery-status">${t('settings.webhooks.status')}</label>
        <select id="delivery-status" value=${filters.status} onChange=${setFilter('status')}>
          <option value="">${t('settings.webhooks.allStatuses')}</option>
          ${STATUSES.map((status) => html`<option value=${status}>${statusName(status)}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="delivery-type">${t('settings.webhooks.type')}</label>
        <select id="delivery-type" value=${filters.type} onChange=${setFilter('type')}>
          <option value="">${t('settings.webhooks.allTypes')}</option>
          ${eventTypes.filter((type) => type !== ALL).map((type) => html`<option value=${type}>${type}</option>`)}
        </select>
      </div>
    </form>
    <p class="visually-hidden" role="status">${note}</p>
    ${failure && html`<p class="alert" role="alert">${failure}</p>`}
    ${list?.items.length === 0 && html`<div class="empty"><p>${filtered ? t('settings.webhooks.noMatch') : t('settings.webhooks.noDeliveries')}</p><p class="muted small">${t('settings.webhooks.logHint', { canWrite: yes(canWrite) })}</p></div>`}
    ${list?.items.length > 0 &&
    html`<div class="table-wrap"><table class="table deliveries-table">
      <caption class="visually-hidden">${t('settings.webhooks.log', { url: hook.url })}</caption>
      <thead><tr>${LOG_COLUMNS.map((k) => html`<th scope="col" class=${k === 'attempts' ? 'num' : ''}>${logColumnName(k)}</th>`)}${canWrite && html`<th scope="col"><span class="visually-hidden">${t('settings.webhooks.actions')}</span></th>`}</tr></thead>
      <tbody>
        ${list.items.map((d) => html`<tr key=${d.id} data-delivery=${d.id}>
          <td data-label=${logColumnName('type')} class="mono-cell">${d.type}</td>
          <td data-label=${logColumnName('status')}><span class=${`state ${STATUS_CLASS[d.status]}`}>${statusName(d.status)}</span></td>
          <td data-label=${logColumnName('attempts')} class="num">${d.attempts}</td>
          <td data-label=${logColumnName('response')}>${d.responseStatus === null
            ? html`<span class="muted">—</span>`
            : html`<span><span class=${`status status-${String(d.responseStatus)[0]}xx`}>${d.responseStatus}</span>${d.durationMs !== null && html` <span class="muted small">${d.durationMs} ms</span>`}</span>`}</td>
          <td data-label=${logColumnName('error')} class="small error-cell">${d.lastError ?? html`<span class="muted">—</span>`}</td>
          <td data-label=${logColumnName('next')}>${d.nextAttemptAt ? html`<time datetime=${d.nextAttemptAt} title=${dateTime(d.nextAttemptAt, locale)}>${relative(d.nextAttemptAt, locale)}</time>` : html`<span class="muted">—</span>`}</td>
          <td data-label=${logColumnName('created')}><time datetime=${d.createdAt} title=${dateTime(d.createdAt, locale)}>${relative(d.createdAt, locale)}</time></td>
          ${canWrite && html`<td class="actions"><button type="button" class="btn small" aria-label=${t('settings.webhooks.retryOf', { type: d.type, created: d.createdAt })} onClick=${() => act(opUrl(r, 'retry', hook.id, { delivery: d.id }), t('settings.webhooks.retried'))}>${t('settings.webhooks.retry')}</button></td>`}
        </tr>`)}
      </tbody>
    </table></div>`}
    ${(cursors.length > 0 || list?.next) &&
    html`<nav class="pager" aria-label=${t('settings.webhooks.pages')}>
      <button type="button" class="btn small" disabled=${!cursors.length} onClick=${() => setCursors(cursors.slice(0, -1))}>${t('settings.webhooks.newer')}</button>
      <button type="button" class="btn small" disabled=${!list?.next} onClick=${() => setCursors([...cursors, list.next])}>${t('settings.webhooks.older')}</button>
    </nav>`}
    <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${t('settings.webhooks.close')}</button></div>
  <//>`;
}
