// What every view of /app shares: moving between addresses, loading, problems, values as read.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { choiceLabel, currencyField, formatMoney, formatPercent, idOf, pageOf, titleOf, unitOf } from '../lib.js';

// ---- navigation ---------------------------------------------------------------------------

/** Goes to an /app address without reloading (the address bar shows it; reload shows the same). */
export function go(href, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event('app:navigate'));
}

export function useLocation() {
  const [loc, setLoc] = useState(() => ({ pathname: location.pathname, search: location.search }));
  useEffect(() => {
    const update = () => setLoc({ pathname: location.pathname, search: location.search });
    // Links to /app addresses change the view in place; others (and modified clicks) are left alone.
    const onClick = (e) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target.closest && e.target.closest('a[href]');
      if (!a || a.target || a.hasAttribute('download')) return;
      const url = new URL(a.href, location.href);
      if (url.origin !== location.origin || !/^\/app(\/|$)/.test(url.pathname)) return;
      e.preventDefault();
      go(url.pathname + url.search);
    };
    window.addEventListener('popstate', update);
    window.addEventListener('app:navigate', update);
    document.addEventListener('click', onClick);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('app:navigate', update);
      document.removeEventListener('click', onClick);
    };
  }, []);
  return loc;
}

/** Loads `fn()` whenever `key` changes: { data, error, loading, reload }. */
export function useLoad(fn, key) {
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    fn().then(
      (data) => live && setState({ loading: false, data, error: null }),
      (error) => live && setState({ loading: false, data: null, error }),
    );
    return () => {
      live = false;
    };
  }, [key, n]);
  return { ...state, reload: () => setN((x) => x + 1) };
}

export function Problem({ error }) {
  if (!error) return null;
  return html`<p class="alert" role="alert">${error.message}</p>`;
}

export function Loading() {
  return html`<p class="muted" role="status">Loading…</p>`;
}

// ---- values ---------------------------------------------------------------------------------

/** The currency of a record's amounts: its declared currency field (`present.currency`), else the company's. */
export const currencyOf = (rec, ctx, r) => (currencyField(r) && rec?.[currencyField(r)]) || ctx.company?.currency;

/** A value as read on a page: amounts in their currency, references as links to their record. */
export function Value({ ctx, f, v, rec, r, titles }) {
  if (v === null || v === undefined || v === '') return html`<span class="muted">—</span>`;
  switch (f.kind) {
    case 'money':
      return html`<span class="num">${formatMoney(v, currencyOf(rec, ctx, r), ctx.locale)}</span>`;
    case 'decimal': {
      const unit = unitOf(f, rec);
      if (unit === 'money') return html`<span class="num">${formatMoney(Math.round(Number(v)), currencyOf(rec, ctx, r), ctx.locale)}</span>`;
      if (unit === 'percent') return html`<span class="num">${formatPercent(v, ctx.locale)}</span>`;
      return String(v);
    }
    case 'boolean':
      return v ? 'Yes' : 'No';
    case 'enum':
      return f.name === r?.states?.field ? html`<span class=${`badge badge-${v}`}>${choiceLabel(v)}</span>` : choiceLabel(v);
    case 'timestamp':
      return html`<time datetime=${v}>${String(v).replace('T', ' ').slice(0, 16)}</time>`;
    case 'ref': {
      const iri = typeof v === 'object' ? v.id : v;
      const t = ctx.desc.ofIri(iri);
      const label = typeof v === 'object' && t ? titleOf(t, v) : (titles?.get(iri) ?? (t ? titleOf(t, { id: iri }) : iri));
      const href = t && !t.owner ? pageOf(iri) : null;
      return href ? html`<a href=${href}>${label}</a>` : label;
    }
    case 'textList':
      return (v ?? []).join(', ');
    case 'list':
      return `${v.length} item${v.length === 1 ? '' : 's'}`;
    default:
      return String(v);
  }
}

/** What the server says of this resource's state (held e-mails), above its list and form. */
export function Notice({ ctx, r }) {
  const text = ctx.notices[r.name];
  return text ? html`<p class="notice" role="status" data-testid="notice">${text}</p>` : null;
}


