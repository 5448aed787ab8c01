// "Create API Token": Name (required) and Description; on Save the value is shown once, with a
// copy button and a warning that it cannot be shown again. Given `editing` (a token), the same
// form edits its name and description ("Edit API Token"); a token's value never changes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { Dialog } from './dialog.js';

/** Copies with the Clipboard API, else with the selection and execCommand; false when neither worked. */
export async function copyText(text, input) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, not focused): try the older way.
  }
  input.focus();
  input.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

export function CreateTokenDialog({ editing, onClose, onCreated }) {
  const [name, setName] = useState(editing ? editing.name : '');
  const [description, setDescription] = useState(editing ? editing.description || '' : '');
  const [errors, setErrors] = useState({});
  const [failure, setFailure] = useState('');
  const [saving, setSaving] = useState(false);
  const [created, setCreated] = useState(null);
  const [copied, setCopied] = useState('');
  const nameRef = useRef(null);
  const valueRef = useRef(null);
  const copyRef = useRef(null);

  // The form gives way to the value: the focus moves to the copy button.
  useEffect(() => {
    if (created) copyRef.current.focus();
  }, [created]);

  async function save(e) {
    e.preventDefault();
    if (saving) return;
    setFailure('');
    if (!name.trim()) {
      setErrors({ name: 'Enter a name for the token.' });
      nameRef.current.focus();
      return;
    }
    setSaving(true);
    try {
      const body = { name, description: description.trim() ? description : null };
      if (editing) {
        onCreated(await api(`/api-tokens/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body }));
        onClose();
        return;
      }
      const token = await api('/api-tokens', { method: 'POST', body });
      setCreated(token);
      onCreated(token);
    } catch (err) {
      const byField = {};
      for (const v of err.violations) byField[v.propertyPath] = v.propertyPath === 'name' && /already used/.test(v.message) ? 'You already have a token with this name.' : v.message;
      setErrors(byField);
      if (!err.violations.length) setFailure(err.message);
      if (byField.name) nameRef.current.focus();
    } finally {
      setSaving(false);
    }
  }

  async function copy() {
    const ok = await copyText(created.token, valueRef.current);
    setCopied(ok ? 'Copied to the clipboard.' : 'Copying is not available here: the token is selected, press Ctrl+C (⌘C on a Mac).');
    if (!ok) {
      valueRef.current.focus();
      valueRef.current.select();
    }
  }

  if (created) {
    return html`<${Dialog} title="API token created" onClose=${onClose}>
      <div class="warning" role="alert">
        <strong>Copy this token now.</strong> It is shown only this once and cannot be shown again. If you lose it, revoke it and create a new one.
      </div>
      <div class="field">
        <label for="token-value">Token for “${created.name}”</label>
        <div class="copy-row">
          <textarea id="token-value" ref=${valueRef} class="mono" rows="2" readonly value=${created.token} onFocus=${(e) => e.currentTarget.select()} spellcheck="false" autocomplete="off"></textarea>
          <button type="button" class="btn primary" ref=${copyRef} onClick=${copy}>Copy</button>
        </div>
        <p class="hint" role="status">${copied}</p>
      </div>
      <p class="muted small">Send it in the <code>X-API-TOKEN</code> header of each request to <code>/api</code>.</p>
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Done</button>
      </div>
    <//>`;
  }

  return html`<${Dialog} title=${editing ? 'Edit API Token' : 'Create API Token'} onClose=${onClose}>
    <form onSubmit=${save} noValidate>
      <div class="field">
        <label for="token-name">Name <span class="required">(required)</span></label>
        <input
          id="token-name"
          ref=${nameRef}
          value=${name}
          maxLength="100"
          required
          data-autofocus
          autocomplete="off"
          aria-invalid=${errors.name ? 'true' : undefined}
          aria-describedby=${errors.name ? 'token-name-error' : 'token-name-hint'}
          onInput=${(e) => {
            setName(e.currentTarget.value);
            if (errors.name) setErrors({ ...errors, name: undefined });
          }}
        />
        ${errors.name ? html`<p class="field-error" id="token-name-error">${errors.name}</p>` : html`<p class="hint" id="token-name-hint">Up to 100 characters, for example “CI deploy”.</p>`}
      </div>
      <div class="field">
        <label for="token-description">Description</label>
        <textarea id="token-description" rows="3" value=${description} aria-invalid=${errors.description ? 'true' : undefined} onInput=${(e) => setDescription(e.currentTarget.value)}></textarea>
        ${errors.description ? html`<p class="field-error">${errors.description}</p>` : null}
      </div>
      ${failure ? html`<p class="alert" role="alert">${failure}</p>` : null}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Cancel</button>
        <button type="submit" class="btn primary" disabled=${saving}>${saving ? 'Saving…' : 'Save'}</button>
      </div>
    </form>
  <//>`;
}
