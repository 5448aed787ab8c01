// A form that totals as it is typed (CONTRACT §20): the lines, tax groups and totals of what the
// form holds, computed in the browser by the server's own arithmetic (web/app/rules/totals.js is
// resources/rules/totals.ts with its types stripped, scripts/app-rules.ts), so the amounts shown
// are those the record is saved with. The descriptor names the fields (`present.totals`).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { t as tr } from '../lib.js';
import { graphql } from '../api.js';
import { formatMoney, formatPercent, fromInput, lineFields } from '../lib.js';
import { computeTotals } from '../rules/totals.js';

/** The shared rules a descriptor may name. */
const RULES = { documentTotals: computeTotals };

/**
 * The taxes the lines refer to, with the rate and type the rule reads: IRI → { rate, type }. The
 * first page of them at once (a picker's choices), any other one when a line names it.
 */
export function useTaxes(ctx, r, values) {
  const [taxes, setTaxes] = useState(new Map());
  const spec = r.totals;
  const linesField = spec && r.byField.get(spec.lines);
  const taxField = linesField && lineFields(ctx.desc, linesField).find((m) => m.name === spec.line.tax);
  const target = taxField && ctx.desc.get(taxField.target);
  const wanted = spec ? [...new Set((values[spec.lines] ?? []).map((l) => l[spec.line.tax]).filter(Boolean))].sort() : [];
  const missing = wanted.filter((iri) => !taxes.has(iri));
  const node = `id ${spec?.tax.rate} ${spec?.tax.type}`;
  const add = (nodes) => setTaxes((m) => new Map([...m, ...nodes.filter(Boolean).map((n) => [n.id, { rate: n[spec.tax.rate], type: n[spec.tax.type] }])]));
  useEffect(() => {
    if (!target?.gql) return;
    graphql(`{ ${target.plural}(first: 30) { edges { node { ${node} } } } }`).then((d) => add(d[target.plural].edges.map((e) => e.node)), () => {});
  }, [target?.name]);
  useEffect(() => {
    if (!target?.gql || !missing.length) return;
    graphql(`{ ${missing.map((iri, i) => `n${i}: node(id: ${JSON.stringify(iri)}) { ... on ${target.name} { ${node} } }`).join(' ')} }`).then((d) => add(Object.values(d)), () => {});
  }, [missing.join(' ')]);
  return taxes;
}

/**
 * The totals of what a form holds: `{ lines: [minor | null], totals }`, or `{ lines, problem }`.
 * A line whose price or quantity cannot be read yet is left out (its total shows as —).
 */
export function totalsOf(ctx, r, values, currency, taxes) {
  const spec = r.totals;
  const rule = RULES[spec.rule];
  const linesField = r.byField.get(spec.lines);
  const members = new Map(lineFields(ctx.desc, linesField).map((m) => [m.name, m]));
  const inputs = [];
  const index = [];
  (values[spec.lines] ?? []).forEach((line, i) => {
    const price = fromInput(members.get(spec.line.price), line[spec.line.price], currency, line);
    const qty = line[spec.line.qty] === '' || line[spec.line.qty] === undefined ? { value: 1 } : fromInput(members.get(spec.line.qty), line[spec.line.qty], currency, line);
    if (price.error || qty.error || price.value === null || qty.value === null || !(qty.value > 0)) return;
    const tax = line[spec.line.tax] ? taxes.get(line[spec.line.tax]) : null;
    if (line[spec.line.tax] && !tax) return;
    index.push(i);
    inputs.push({ price: price.value, qty: qty.value, tax: tax ?? null });
  });
  const type = values[spec.discount.type] ?? 'none';
  const d = fromInput(r.byField.get(spec.discount.value), values[spec.discount.value], currency, values);
  const lines = (values[spec.lines] ?? []).map(() => null);
  try {
    const totals = rule(inputs, { type, value: d.error || d.value === null || type === 'none' ? 0 : d.value });
    totals.lines.forEach((l, k) => {
      lines[index[k]] = l.total;
    });
    return { lines, totals };
  } catch (e) {
    return { lines, problem: e instanceof RangeError ? e.message : String(e) };
  }
}

/** The tax groups and totals, as the saved record will show them. */
export function TotalsPreview({ ctx, r, result, currency }) {
  const spec = r.totals;
  const label = (name) => r.byField.get(name)?.label ?? name;
  const groupsField = r.byField.get(spec.groups);
  const money = (v) => formatMoney(v, currency, ctx.locale);
  const t = result.totals;
  return html`<section class="panel pad totals-preview" aria-labelledby="totals-preview">
    <h2 id="totals-preview">${tr('record.totals')}</h2>
    ${result.problem && html`<p class="field-error" role="alert">${result.problem}</p>`}
    ${t &&
    html`${t.groups.length > 0 &&
      html`<div class="table-wrap" tabindex="0" role="region" aria-label=${groupsField?.label ?? tr('totals.groups')}><table class="table compact" data-testid="preview-groups">
        <caption class="visually-hidden">${groupsField?.label ?? tr('totals.groups')}</caption>
        <thead><tr>${(groupsField?.of ?? []).map((m) => html`<th scope="col" class="num">${m.label}</th>`)}</tr></thead>
        <tbody>${t.groups.map((g) => html`<tr>${(groupsField?.of ?? []).map((m) => html`<td class="num" data-label=${m.label}>${m.kind === 'money' ? money(g[m.name]) : m.unit === 'percent' ? formatPercent(g[m.name], ctx.locale) : (g[m.name] ?? '')}</td>`)}</tr>`)}</tbody>
      </table></div>`}
      <dl class="totals">
        ${spec.fields.map((name) => html`<div class=${name === spec.fields.at(-1) ? 'grand' : ''}><dt>${label(name)}</dt><dd class="num" data-testid=${`preview-${name}`}>${money(t[name])}</dd></div>`)}
      </dl>
      <p class="visually-hidden" role="status">${label(spec.fields.at(-1))}: ${money(t[spec.fields.at(-1)])}</p>`}
  </section>`;
}
