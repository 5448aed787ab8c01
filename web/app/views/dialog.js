// A modal dialog on the native <dialog> element: the rest of the page is inert while it is open,
// Tab and Shift+Tab cycle within it, Escape closes it, and focus returns to where it was.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { t } from '../lib.js';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
let ids = 0;

export function Dialog({ title, onClose, wide = false, children }) {
  const ref = useRef(null);
  const id = useRef(`dialog-title-${++ids}`).current;
  // Where the focus was when the dialog was asked for (read while rendering, before the dialog
  // exists): it goes back there when the dialog closes.
  const opener = useRef(undefined);
  if (opener.current === undefined) opener.current = document.activeElement;

  // Before paint: the dialog is modal, and focused, from its first frame.
  useLayoutEffect(() => {
    const dialog = ref.current;
    dialog.showModal();
    // showModal focuses the first focusable element; one marked data-autofocus goes first.
    const wanted = dialog.querySelector('[data-autofocus]');
    if (wanted) wanted.focus();
    return () => {
      if (dialog.open) dialog.close();
      const back = opener.current;
      if (back && typeof back.focus === 'function' && back.isConnected) back.focus();
    };
  }, []);

  function onKeyDown(e) {
    if (e.key !== 'Tab') return;
    const items = [...ref.current.querySelectorAll(FOCUSABLE)].filter((el) => !el.disabled && el.getClientRects().length > 0);
    if (!items.length) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && (document.activeElement === first || !ref.current.contains(document.activeElement))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  }

  // Escape fires "cancel": the owner decides (it unmounts us), the browser does not close on its own.
  function onCancel(e) {
    e.preventDefault();
    onClose();
  }

  return html`<dialog ref=${ref} class=${`dialog${wide ? ' dialog-wide' : ''}`} aria-labelledby=${id} onKeyDown=${onKeyDown} onCancel=${onCancel}>
    <div class="dialog-head">
      <h2 id=${id}>${title}</h2>
      <button type="button" class="icon-btn" aria-label=${t('common.close')} onClick=${onClose}>
        <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><path d="M5 5l10 10M15 5L5 15" stroke="currentColor" stroke-width="2" stroke-linecap="round" /></svg>
      </button>
    </div>
    <div class="dialog-body">${children}</div>
  </dialog>`;
}
