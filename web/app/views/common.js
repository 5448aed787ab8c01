// What every view of /app shares: moving between addresses, loading, problems, values as read,
// and a reference picked by search (forms, and the lists' filters).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { graphql } from '../api.js';
import { choiceLabel, currencyField, formatMoney, formatPercent, idOf, nounOf, pageOf, pickerQuery, titleOf, t, unitOf } from '../lib.js';
import { decimalSeparator } from '../money.js';

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
  return html`<p class="muted" role="status">${t('common.loading')}</p>`;
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
      // The exact decimal as written, with the locale's decimal separator ("1,5" in de and fr).
      return decimalSeparator(ctx.locale) === ',' ? String(v).replace('.', ',') : String(v);
    }
    case 'boolean':
      return v ? t('common.yes') : t('common.no');
    case 'enum':
      return f.name === r?.states?.field ? html`<span class=${`badge badge-${v}`}>${choiceLabel(v, f)}</span>` : choiceLabel(v, f);
    case 'timestamp':
      return html`<time datetime=${v}>${formatDate(v, ctx.locale, true)}</time>`;
    case 'date':
      return html`<time datetime=${v}>${formatDate(v, ctx.locale)}</time>`;
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
      return t('common.items', { count: v.length });
    default:
      return String(v);
  }
}

/** A date (YYYY-MM-DD) or a moment as people read them in the locale ("Mar 5, 2026", "05.03.2026"); as given when it is not one. */
export function formatDate(v, locale, time = false) {
  const ms = Date.parse(time ? v : `${v}T00:00:00Z`);
  if (Number.isNaN(ms)) return String(v);
  try {
    return new Intl.DateTimeFormat(locale, time ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium', timeZone: 'UTC' }).format(ms);
  } catch {
    return String(v);
  }
}

/** What the server says of this resource's state (held e-mails), above its list and form. */
export function Notice({ ctx, r }) {
  const text = ctx.notices[r.name];
  return text ? html`<p class="notice" role="status" data-testid="notice">${text}</p>` : null;
}

// ---- a reference picked by search -----------------------------------------------------------

/**
 * A reference picked by search: a search box and a list of the matching records (the first 20,
 * by name), read with one GraphQL query per search.
 */
export function RefPicker({ ctx, id, label, target, value, onChange, required, disabled, errors, titles, anyLabel, compact = false, initial }) {
  const [text, setText] = useState('');
  const [options, setOptions] = useState([]);
  const [total, setTotal] = useState(null);
  useEffect(() => {
    if (!target?.gql) return;
    // The first choices read by the caller (a list reads its filters' with its page): null while they come.
    if (!text && initial !== undefined) {
      if (initial) {
        setOptions(initial.options);
        setTotal(initial.total);
      }
      return;
    }
    let live = true;
    const timer = setTimeout(
      () =>
        graphql(pickerQuery(target, text)).then(
          (d) => {
            if (!live) return;
            const c = d[target.plural];
            setOptions(c.edges.map((e) => e.node));
            setTotal(c.totalCount);
          },
          () => {},
        ),
      text ? 250 : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text, target?.name, initial]);
  const known = options.some((o) => o.id === value);
  // A value given by the address (`/app/payments/new?invoice=…`) is told with its record once
  // listed, as a pick is (its currency).
  useEffect(() => {
    const found = value && options.find((o) => o.id === value);
    if (found) onChange(value, found);
  }, [options]);
  const errId = `${id}-error`;
  const pick = (iri) => onChange(iri, options.find((o) => o.id === iri));
  return html`<div class=${`field picker${compact ? ' compact' : ''}`}>
    ${!compact && html`<label for=${id}>${label}${required ? html` <span class="required" aria-hidden="true">*</span>` : ''}</label>`}
    ${compact && html`<label for=${id} class="visually-hidden">${label}</label>`}
    ${target?.search && !disabled && (!compact || (total !== null && total > options.length) || text) && html`<label for=${`${id}-search`} class="visually-hidden">${t('picker.searchFor', { ...nounOf(target), label })}</label>
      <input type="search" id=${`${id}-search`} class="picker-search" placeholder=${t('picker.search', nounOf(target))} value=${text} onInput=${(e) => setText(e.currentTarget.value)} />`}
    <select id=${id} value=${value ?? ''} disabled=${disabled} required=${required} aria-invalid=${errors?.length ? 'true' : undefined} aria-describedby=${errors?.length ? errId : undefined} onChange=${(e) => pick(e.currentTarget.value)}>
      <option value="">${anyLabel ?? (required ? t('common.choose') : t('common.none'))}</option>
      ${value && !known && html`<option value=${value}>${titles?.get(value) ?? (target ? titleOf(target, { id: value }) : value)}</option>`}
      ${options.map((o) => html`<option value=${o.id}>${titleOf(target, o)}</option>`)}
    </select>
    ${!compact && total !== null && total > options.length && html`<p class="hint">${t('picker.shown', { shown: options.length, count: total })}</p>`}
    ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
  </div>`;
}
