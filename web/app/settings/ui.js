// What the settings pages of /app share: a modal dialog, a dismissible banner, copying a value
// shown once, and dates and numbers in the user's locale (Intl). Their words are messages of the
// catalogue (web/app/messages/, `settings.ui.*`), formatted by lib.js's t().
import { useRef } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { Dialog } from '../views/dialog.js';
import { t } from '../lib.js';

export { Dialog };

// ---- formatting -------------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, '0');

/** A date and time in the user's locale (local time). */
export function dateTime(iso, locale) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

/** YYYY-MM-DD of a Date in local time (the value of an <input type="date">). */
export const localDay = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

export const number = (n, locale) => new Intl.NumberFormat(locale).format(n);

const UNITS = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/** "5 minutes ago", "yesterday", "in 2 hours". */
export function relative(iso, locale, now = Date.now()) {
  if (!iso) return '';
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const f = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return f.format(Math.round(seconds / size), unit);
  return t('settings.ui.justNow');
}

// ---- copying -------------------------------------------------------------------------------

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

/** A value shown once (a token, a secret, a link) with a Copy button. */
export function CopyValue({ id, label, value, copyRef, setNote, note }) {
  const ref = useRef(null);
  async function copy() {
    const ok = await copyText(value, ref.current);
    setNote(ok ? t('settings.ui.copied') : t('settings.ui.noCopy'));
    if (!ok) {
      ref.current.focus();
      ref.current.select();
    }
  }
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <div class="copy-row">
      <textarea id=${id} ref=${ref} class="mono" rows="2" readonly value=${value} onFocus=${(e) => e.currentTarget.select()} spellcheck="false" autocomplete="off"></textarea>
      <button type="button" class="btn primary" ref=${copyRef} data-autofocus onClick=${copy}>${t('settings.ui.copy')}</button>
    </div>
    <p class="hint" role="status">${note}</p>
  </div>`;
}

// ---- messages and dialogs -------------------------------------------------------------------

/** A dismissible message: `{ kind: 'error' | 'success' | 'info', text }`, or nothing. */
export function Banner({ message, onDismiss }) {
  if (!message) return null;
  return html`<div class=${`banner banner-${message.kind}`} role=${message.kind === 'error' ? 'alert' : 'status'}>
    <span>${message.text}</span>
    <button type="button" class="icon-btn" aria-label=${t('settings.ui.dismiss')} onClick=${onDismiss}>×</button>
  </div>`;
}


/** Asks before an irreversible action, naming its consequence. */
export function Confirm({ title, text, action, cancel = t('common.cancel'), onConfirm, onClose }) {
  return html`<${Dialog} title=${title} onClose=${onClose}>
    <p>${text}</p>
    <div class="dialog-actions">
      <button type="button" class="btn" data-autofocus onClick=${onClose}>${cancel}</button>
      <button type="button" class="btn danger" onClick=${onConfirm}>${action}</button>
    </div>
  <//>`;
}

/** The violations of a 422 by field (`events[2]` under `events`); the first message of each. */
export function byField(error) {
  const out = {};
  for (const v of error?.violations ?? []) out[String(v.propertyPath ?? '').replace(/\[\d+\]$/, '')] ??= v.message;
  return out;
}
