// A reference picked by search (forms, and the lists' filters).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { graphql } from '../api.js';
import { pickerQuery, titleOf } from '../lib.js';

/**
 * A reference picked by search: a search box and a list of the matching records (the first 20,
 * by name), read with one GraphQL query per search.
 */
export function RefPicker({ ctx, id, label, target, value, onChange, required, disabled, errors, titles, anyLabel, compact = false }) {
  const [text, setText] = useState('');
  const [options, setOptions] = useState([]);
  const [total, setTotal] = useState(null);
  useEffect(() => {
    if (!target?.gql) return;
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
  }, [text, target?.name]);
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
    ${target?.search && !disabled && (!compact || (total !== null && total > options.length) || text) && html`<label for=${`${id}-search`} class="visually-hidden">Search ${target.label.toLowerCase()} for ${label}</label>
      <input type="search" id=${`${id}-search`} class="picker-search" placeholder=${`Search ${target.label.toLowerCase()}…`} value=${text} onInput=${(e) => setText(e.currentTarget.value)} />`}
    <select id=${id} value=${value ?? ''} disabled=${disabled} required=${required} aria-invalid=${errors?.length ? 'true' : undefined} aria-describedby=${errors?.length ? errId : undefined} onChange=${(e) => pick(e.currentTarget.value)}>
      <option value="">${anyLabel ?? (required ? `Choose…` : 'None')}</option>
      ${value && !known && html`<option value=${value}>${titles?.get(value) ?? (target ? titleOf(target, { id: value }) : value)}</option>`}
      ${options.map((o) => html`<option value=${o.id}>${titleOf(target, o)}</option>`)}
    </select>
    ${!compact && total !== null && total > options.length && html`<p class="hint">${options.length} of ${total} shown: search to find others.</p>`}
    ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
  </div>`;
}
