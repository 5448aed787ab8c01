// Settings → Webhooks: the active company's webhooks (url, events, state, masked secret), their
// create and edit dialogs (the secret shown once, after create and after rotation), and the
// delivery log of each with "Retry now" and "Send ping". Viewers see everything read-only; the
// server refuses their writes anyway.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiPage } from '../lib/api.js';
import { dateTime, relative } from '../lib/format.js';
import { html } from '../lib/html.js';
import { Banner, Header, switchCompanyAndReload } from './app.js';
import { copyText } from './create-token.js';
import { Dialog } from './dialog.js';

const ALL = '*';


const eventsText = (events) => (events.includes(ALL) ? 'All events' : events.join(', '));

/** The whole secret, shown this once, with a copy button. */
function SecretDialog({ hook, rotated, onClose }) {
  const [copied, setCopied] = useState('');
  const valueRef = useRef(null);
  async function copy() {
    const ok = await copyText(hook.secret, valueRef.current);
    setCopied(ok ? 'Copied to the clipboard.' : 'Copying is not available here: the secret is selected, press Ctrl+C (⌘C on a Mac).');
  }
  return html`<${Dialog} title=${rotated ? 'New signing secret' : 'Webhook created'} onClose=${onClose}>
    <div class="warning" role="alert">
      <strong>Copy this signing secret now.</strong> It is shown only this once. If you lose it, rotate the secret and use the new one.
    </div>
    <div class="field">
      <label for="webhook-secret">Signing secret for ${hook.url}</label>
      <div class="copy-row">
        <textarea id="webhook-secret" ref=${valueRef} class="mono" rows="2" readonly value=${hook.secret} onFocus=${(e) => e.currentTarget.select()} spellcheck="false" autocomplete="off"></textarea>
        <button type="button" class="btn primary" data-autofocus onClick=${copy}>Copy</button>
      </div>
      <p class="hint" role="status">${copied}</p>
    </div>
    <p class="muted small">Each delivery is signed as a Standard Webhook: check the <code>webhook-signature</code> header with this secret.</p>
    <div class="dialog-actions">
      <button type="button" class="btn" onClick=${onClose}>Done</button>
    </div>
  </${Dialog}>`;
}

/** Create (no `editing`) or edit a webhook: url, description, events, and (editing) active. */
function WebhookDialog({ editing, eventTypes, onClose, onSaved, onRotate }) {
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
      const hook = editing
        ? await api(`/webhooks/${editing.id}`, { method: 'PATCH', body })
        : await api('/webhooks', { method: 'POST', body });
      onSaved(hook);
    } catch (err) {
      const byField = {};
      for (const v of err.violations) byField[v.propertyPath.replace(/\[\d+\]$/, '')] ??= v.message;
      setErrors(byField);
      setFailure(Object.keys(byField).length ? '' : err.message);
      setSaving(false);
    }
  }

  return html`<${Dialog} title=${editing ? 'Edit webhook' : 'Add webhook'} onClose=${onClose}>
    <form onSubmit=${save} novalidate>
      <div class="field">
        <label for="webhook-url">Endpoint URL <span class="required">(required)</span></label>
        <input id="webhook-url" type="url" value=${url} data-autofocus required spellcheck="false" autocomplete="off"
          aria-invalid=${errors.url ? 'true' : undefined} aria-describedby="webhook-url-note" onInput=${(e) => setUrl(e.currentTarget.value)} />
        ${errors.url
          ? html`<p class="field-error" id="webhook-url-note">${errors.url}</p>`
          : html`<p class="hint" id="webhook-url-note">Where the events are POSTed, e.g. https://example.com/hooks/invoicing.</p>`}
      </div>
      <div class="field">
        <label for="webhook-description">Description <span class="required">(optional)</span></label>
        <input id="webhook-description" value=${description} maxlength="255" onInput=${(e) => setDescription(e.currentTarget.value)} />
        ${errors.description ? html`<p class="field-error">${errors.description}</p>` : null}
      </div>
      <fieldset class="events">
        <legend>Events</legend>
        <label class="check-row"><input type="checkbox" checked=${all} onChange=${(e) => setEvents(e.currentTarget.checked ? [ALL] : [])} /> All events, including ones added later</label>
        <div class="event-grid">
          ${eventTypes.map((type) => html`<label class="check-row mono-label">
            <input type="checkbox" checked=${all || events.includes(type)} disabled=${all} onChange=${(e) => toggle(type, e.currentTarget.checked)} /> ${type}
          </label>`)}
        </div>
        ${errors.events ? html`<p class="field-error">${errors.events}</p>` : null}
      </fieldset>
      ${editing
        ? html`<div class="field">
            <label class="check-row"><input type="checkbox" checked=${active} onChange=${(e) => setActive(e.currentTarget.checked)} /> Active: deliver events to this endpoint</label>
            ${editing.disabledReason ? html`<p class="hint">Disabled by the service: ${editing.disabledReason}</p>` : null}
          </div>
          <div class="field">
            <span class="label">Signing secret</span>
            <div class="secret-row">
              <code>${editing.secret}</code>
              <button type="button" class="btn small" onClick=${() => onRotate(editing)}>Rotate secret</button>
            </div>
          </div>`
        : null}
      ${failure ? html`<p class="alert" role="alert">${failure}</p>` : null}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Cancel</button>
        <button type="submit" class="btn primary" disabled=${saving || events.length === 0}>${saving ? 'Saving…' : editing ? 'Save' : 'Create webhook'}</button>
      </div>
    </form>
  </${Dialog}>`;
}

function ConfirmDialog({ title, text, action, onConfirm, onClose }) {
  const [busy, setBusy] = useState(false);
  return html`<${Dialog} title=${title} onClose=${onClose}>
    <p>${text}</p>
    <div class="dialog-actions">
      <button type="button" class="btn" data-autofocus onClick=${onClose}>Cancel</button>
      <button type="button" class="btn danger" disabled=${busy} onClick=${async () => { setBusy(true); await onConfirm(); }}>${action}</button>
    </div>
  </${Dialog}>`;
}

const STATUS_CLASS = { pending: 'state-pending', succeeded: 'state-ok', failed: 'state-failed' };
const codeClass = (n) => `status status-${String(n)[0]}xx`;

/** The delivery log of one webhook, newest first; refreshed every 2 s while a delivery is pending. */
function DeliveriesDialog({ hook, canWrite, countedUpTo, onClose }) {
  const [list, setList] = useState(null);
  const [failure, setFailure] = useState('');
  const [note, setNote] = useState('');
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let live = true;
    apiPage(`/webhooks/${hook.id}/deliveries?itemsPerPage=50`).then(
      (l) => live && setList({ ...l, countedUpTo }),
      (e) => live && setFailure(e.message),
    );
    return () => {
      live = false;
    };
  }, [reloads]);
  // Refreshed while an attempt is due within the next half minute (not for a retry hours away).
  const pending = list?.items.some((d) => d.status === 'pending' && (!d.nextAttemptAt || Date.parse(d.nextAttemptAt) - Date.now() < 30_000));
  useEffect(() => {
    if (!pending) return undefined;
    const t = setTimeout(() => setReloads((n) => n + 1), 2000);
    return () => clearTimeout(t);
  }, [list]);

  async function act(path, text) {
    setFailure('');
    try {
      await api(path, { method: 'POST' });
      setNote(text);
      setReloads((n) => n + 1);
    } catch (e) {
      setFailure(e.message);
    }
  }

  return html`<${Dialog} title=${`Deliveries to ${hook.url}`} wide onClose=${onClose}>
    <div class="deliveries-head">
      <p class="muted small">${list ? (list.total === null ? `More than ${list.countedUpTo.toLocaleString('en-US')} deliveries` : `${list.total} ${list.total === 1 ? 'delivery' : 'deliveries'}`) : 'Loading…'}${pending ? ' · refreshing while some are pending' : ''}</p>
      <div class="toolbar">
        <button type="button" class="btn small" onClick=${() => setReloads((n) => n + 1)}>Refresh</button>
        ${canWrite ? html`<button type="button" class="btn small primary" onClick=${() => act(`/webhooks/${hook.id}/ping`, 'Ping queued.')}>Send ping</button>` : null}
      </div>
    </div>
    <p class="visually-hidden" role="status">${note}</p>
    ${failure ? html`<p class="alert" role="alert">${failure}</p>` : null}
    ${list && list.items.length === 0
      ? html`<div class="empty"><p>No deliveries yet.</p><p class="muted small">Events of this company appear here as they are sent${canWrite ? '; send a ping to try the endpoint' : ''}.</p></div>`
      : null}
    ${list && list.items.length
      ? html`<div class="table-wrap"><table class="table deliveries-table">
          <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Response</th><th scope="col">Error</th><th scope="col">Next attempt</th><th scope="col">Created</th>${canWrite ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : null}</tr></thead>
          <tbody>
            ${list.items.map((d) => html`<tr key=${d.id} data-delivery=${d.id}>
              <td data-label="Event" class="mono-cell">${d.type}</td>
              <td data-label="Status"><span class=${`state ${STATUS_CLASS[d.status]}`}>${d.status}</span></td>
              <td data-label="Attempts" class="num">${d.attempts}</td>
              <td data-label="Response">${d.responseStatus === null
                ? html`<span class="muted">—</span>`
                : html`<span><span class=${codeClass(d.responseStatus)}>${d.responseStatus}</span>${d.durationMs === null ? null : html` <span class="muted small">${d.durationMs} ms</span>`}</span>`}</td>
              <td data-label="Error" class="small error-cell">${d.lastError ?? html`<span class="muted">—</span>`}</td>
              <td data-label="Next attempt">${d.nextAttemptAt ? html`<time datetime=${d.nextAttemptAt} title=${dateTime(d.nextAttemptAt)}>${relative(d.nextAttemptAt)}</time>` : html`<span class="muted">—</span>`}</td>
              <td data-label="Created"><time datetime=${d.createdAt} title=${dateTime(d.createdAt)}>${relative(d.createdAt)}</time></td>
              ${canWrite
                ? html`<td class="actions"><button type="button" class="btn small" aria-label=${`Retry now: ${d.type} ${d.createdAt}`} onClick=${() => act(`/webhooks/${hook.id}/deliveries/${d.id}/retry`, 'Retry queued.')}>Retry now</button></td>`
                : null}
            </tr>`)}
          </tbody>
        </table></div>`
      : null}
    <div class="dialog-actions">
      <button type="button" class="btn" onClick=${onClose}>Close</button>
    </div>
  </${Dialog}>`;
}

export function WebhooksPage({ boot }) {
  const me = { user: boot.user, company: boot.company, companies: boot.companies };
  const canWrite = me.company && me.company.role !== 'viewer';
  const [hooks, setHooks] = useState(null);
  const [eventTypes, setEventTypes] = useState([]);
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const [reloads, setReloads] = useState(0);
  // The open dialog: { kind: 'create' | 'edit' | 'secret' | 'deliveries' | 'delete', hook }.
  const [dialog, setDialog] = useState(null);

  useEffect(() => {
    if (!me.company) return;
    api('/webhooks/event-types').then(setEventTypes, (e) => setMessage({ kind: 'error', text: e.message }));
  }, []);
  useEffect(() => {
    if (!me.company) return;
    apiPage('/webhooks?order[createdAt]=asc&itemsPerPage=100').then(
      (l) => setHooks(l.items),
      (e) => setMessage({ kind: 'error', text: e.message }),
    );
  }, [reloads]);
  const reload = () => setReloads((n) => n + 1);

  const switchCompany = (id) => switchCompanyAndReload(id, { setBusy, setMessage });

  async function rotate(hook) {
    try {
      const h = await api(`/webhooks/${hook.id}/rotate-secret`, { method: 'POST' });
      setDialog({ kind: 'secret', hook: h, rotated: true });
      reload();
    } catch (e) {
      setMessage({ kind: 'error', text: e.message });
    }
  }

  async function ping(hook) {
    try {
      await api(`/webhooks/${hook.id}/ping`, { method: 'POST' });
      setDialog({ kind: 'deliveries', hook });
    } catch (e) {
      setMessage({ kind: 'error', text: e.message });
    }
  }

  async function remove(hook) {
    try {
      await api(`/webhooks/${hook.id}`, { method: 'DELETE' });
      setMessage({ kind: 'success', text: `Deleted the webhook to ${hook.url}.` });
      reload();
    } catch (e) {
      setMessage({ kind: 'error', text: e.message });
    }
    setDialog(null);
  }

  const close = () => setDialog(null);

  return html`<${Header} me=${me} onSwitch=${switchCompany} switching=${busy} />
    <main class="container" id="main">
      <nav aria-label="Breadcrumb" class="crumbs">
        <ol><li>Settings</li><li aria-current="page">Webhooks</li></ol>
      </nav>
      <div class="page-head">
        <div>
          <h1>Webhooks</h1>
          <p class="muted lead">
            Endpoints that receive the events${me.company ? html` of <strong>${me.company.name}</strong>` : null} as they happen: invoices, quotes, payments, clients and more, signed with each webhook's secret.
          </p>
        </div>
        ${canWrite ? html`<button type="button" class="btn primary" onClick=${() => setDialog({ kind: 'create' })}>Add webhook</button>` : null}
      </div>
      ${!me.company ? html`<p class="alert" role="alert">You are not a member of any company yet.</p>` : null}
      ${me.company && !canWrite ? html`<p class="notice" role="status">Viewers see the webhooks of ${me.company.name}; an admin or member can change them.</p>` : null}
      <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
      ${me.company
        ? html`<section class="panel" aria-labelledby="webhooks-title">
            <div class="panel-head">
              <h2 id="webhooks-title" class="panel-title">Endpoints ${hooks ? html`<span class="count">${hooks.length}</span>` : null}</h2>
            </div>
            ${hooks === null ? html`<p class="pad muted" aria-busy="true">Loading…</p>` : null}
            ${hooks && hooks.length === 0
              ? html`<div class="empty"><p><strong>No webhooks yet.</strong></p><p class="muted">${canWrite ? 'Add one to have events sent to your endpoint.' : 'None has been set up for this company.'}</p></div>`
              : null}
            ${hooks && hooks.length
              ? html`<div class="table-wrap"><table class="table webhook-table">
                  <thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Secret</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
                  <tbody>
                    ${hooks.map((h) => html`<tr key=${h.id} data-webhook=${h.url}>
                      <td data-label="Endpoint" class="endpoint"><span class="url">${h.url}</span>${h.description ? html`<span class="muted small">${h.description}</span>` : null}</td>
                      <td data-label="Events" class="small">${eventsText(h.events)}</td>
                      <td data-label="State">${h.active
                        ? html`<span class="state state-ok">Active</span>`
                        : html`<span class="state state-failed">Disabled</span>${h.disabledReason ? html`<span class="muted small reason">${h.disabledReason}</span>` : null}`}</td>
                      <td data-label="Secret"><code class="secret">${h.secret}</code></td>
                      <td class="actions">
                        <button type="button" class="btn small" onClick=${() => setDialog({ kind: 'deliveries', hook: h })}>Deliveries</button>
                        ${canWrite
                          ? html`<button type="button" class="btn small" onClick=${() => ping(h)}>Send ping</button>
                              <button type="button" class="btn small" onClick=${() => setDialog({ kind: 'edit', hook: h })}>Edit</button>
                              <button type="button" class="btn small danger" onClick=${() => setDialog({ kind: 'delete', hook: h })}>Delete</button>`
                          : null}
                      </td>
                    </tr>`)}
                  </tbody>
                </table></div>`
              : null}
          </section>`
        : null}
    </main>
    ${dialog?.kind === 'create' || dialog?.kind === 'edit'
      ? html`<${WebhookDialog}
          key=${dialog.hook?.id ?? 'new'}
          editing=${dialog.hook}
          eventTypes=${eventTypes}
          onClose=${close}
          onRotate=${rotate}
          onSaved=${(h) => {
            reload();
            if (dialog.kind === 'create') setDialog({ kind: 'secret', hook: h });
            else {
              setDialog(null);
              setMessage({ kind: 'success', text: `Saved the webhook to ${h.url}.` });
            }
          }} />`
      : null}
    ${dialog?.kind === 'secret' ? html`<${SecretDialog} hook=${dialog.hook} rotated=${dialog.rotated} onClose=${close} />` : null}
    ${dialog?.kind === 'deliveries' ? html`<${DeliveriesDialog} hook=${dialog.hook} canWrite=${canWrite} countedUpTo=${boot.countedUpTo} onClose=${() => { close(); reload(); }} />` : null}
    ${dialog?.kind === 'delete'
      ? html`<${ConfirmDialog} title="Delete webhook?" text=${`Events will no longer be sent to ${dialog.hook.url}, and its delivery log is deleted with it.`} action="Delete" onConfirm=${() => remove(dialog.hook)} onClose=${close} />`
      : null}`;
}
