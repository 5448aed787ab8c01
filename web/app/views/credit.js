// "Credit" asks what to credit (CONTRACT §20): the dialog of an item operation whose description
// registers the view `credit` and declares `whole`, the record's amount it takes when given no
// input. Its declared input (the description's `schema`) says what else it takes: a list whose
// items name one of the record's lines (their required member) with a quantity (their other one),
// and an integer amount. The dialog offers the whole amount (the default), chosen lines with their
// quantities, or an amount typed as people type money; it shows the resulting total before it is
// confirmed — for lines, by the server's own rules (rules/totals.js: computeTotals, and
// partDiscount for the document's discount) — then calls the operation; the caller goes to the
// record it made. The record's lines, prices, quantities, taxes and discount are found through
// the resource's declared totals (`present.totals`), as the editor finds them.
import { useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { Dialog } from './dialog.js';
import { rest } from '../api.js';
import { formatMoney, moneyInput, parseMoney, parseNumber } from '../money.js';
import { inSentence, nounOf, t, titleOf, violationsByField } from '../lib.js';
import { computeTotals, partDiscount } from '../rules/totals.js';
import { currencyOf } from './common.js';
import { useTaxes } from './totals.js';

/** The members of the operation's input the dialog fills: `{ list, ref, qty, amount }` (names, or null). */
export function creditMembers(schema) {
  const props = schema?.properties ?? {};
  const list = Object.keys(props).find((k) => props[k].type === 'array' && props[k].items?.type === 'object') ?? null;
  const item = list ? props[list].items : null;
  const ref = item ? ((item.required ?? [])[0] ?? null) : null;
  const qty = item ? (Object.keys(item.properties ?? {}).find((k) => k !== ref) ?? null) : null;
  const amount = Object.keys(props).find((k) => props[k].type === 'integer') ?? null;
  return { list, ref, qty, amount };
}

/** A quantity as an input shows it, with the locale's decimal separator. */
const qtyInput = (v, locale) => {
  const text = String(Number(v ?? 1));
  return (0.5).toLocaleString(locale).includes(',') ? text.replace('.', ',') : text;
};

export function CreditDialog({ ctx, r, rec, op, title, iri, onClose, onDone }) {
  const m = creditMembers(op.schema);
  const spec = r.totals;
  const linesField = spec && r.byField.get(spec.lines);
  const child = linesField && ctx.desc.get(linesField.target);
  const items = (spec && rec[spec.lines]) || [];
  const currency = currencyOf(rec, ctx, r);
  const whole = Number(rec[op.whole] ?? 0);
  const money = (v) => formatMoney(v, currency, ctx.locale);
  const wholeLabel = inSentence(r.byField.get(op.whole)?.label ?? op.whole);
  const qtyLabel = child?.byField.get(spec.line.qty)?.label ?? t('credit.quantity');
  const priceLabel = child?.byField.get(spec.line.price)?.label ?? t('credit.price');
  const byLines = Boolean(m.list && m.ref && linesField && items.length);
  const byAmount = Boolean(m.amount);
  const taxes = useTaxes(ctx, r, rec);
  const made = op.resource ? ctx.desc.get(op.resource) : null;

  const [mode, setMode] = useState('whole');
  const [chosen, setChosen] = useState(() => items.map((l) => ({ on: false, qty: qtyInput(l[spec.line.qty], ctx.locale) })));
  const [amountText, setAmountText] = useState('');
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);

  // The chosen lines as the operation takes them, with what is wrong with each, and their total.
  function linesResult() {
    const sent = [];
    const errors = {};
    const inputs = [];
    let pending = false;
    chosen.forEach((c, i) => {
      if (!c.on) return;
      const line = items[i];
      const most = Number(line[spec.line.qty] ?? 1);
      const q = parseNumber(c.qty, 4);
      if (q === null) errors[i] = t('credit.qtyFormat');
      else if (!(q > 0)) errors[i] = t('credit.qtyAbove');
      else if (q > most) errors[i] = t('credit.atMost', { most: qtyInput(most, ctx.locale) });
      if (errors[i]) return;
      sent.push({ i, body: { [m.ref]: line['@id'] ?? line.id, ...(m.qty ? { [m.qty]: String(q) } : {}) } });
      const taxIri = line[spec.line.tax];
      if (taxIri && !taxes.get(taxIri)) pending = true;
      inputs.push({ price: line[spec.line.price], qty: String(q), tax: taxIri ? (taxes.get(taxIri) ?? null) : null });
    });
    if (!sent.length || Object.keys(errors).length || pending) return { sent, errors, total: null, pending };
    // The document's discount on these lines, as the server takes it: its subtotal is its lines' before it.
    const all = items.map((l) => ({ price: l[spec.line.price], qty: String(l[spec.line.qty] ?? 1), tax: l[spec.line.tax] ? (taxes.get(l[spec.line.tax]) ?? null) : null }));
    try {
      const subtotal = computeTotals(all, { type: 'none', value: 0 }).subtotal;
      const discount = partDiscount({ type: rec[spec.discount.type] ?? 'none', value: rec[spec.discount.value] ?? 0 }, inputs, subtotal);
      return { sent, errors, total: computeTotals(inputs, discount).total };
    } catch (e) {
      return { sent, errors, total: null, problem: e.message };
    }
  }

  let total = null;
  let invalid = null;
  let lines = null;
  let parsed = null;
  if (mode === 'whole') total = whole;
  else if (mode === 'lines') {
    lines = linesResult();
    total = lines.total;
    if (!lines.sent.length && !Object.keys(lines.errors).length) invalid = t('credit.chooseLines');
    else if (lines.problem) invalid = lines.problem;
  } else {
    parsed = parseMoney(amountText, currency);
    if (parsed.empty) invalid = t('credit.typeAmount');
    else if (parsed.error) invalid = parsed.error;
    else if (!(parsed.minor > 0)) invalid = t('credit.amountAbove');
    else total = parsed.minor;
  }
  if (total !== null && total > whole) invalid = t('credit.moreThan', { whole: wholeLabel, amount: money(whole) });
  const ready = total !== null && !invalid && !(lines && Object.keys(lines.errors).length);

  // What the server refused, where it belongs: `lines[1].quantity` at the line it was sent for.
  const refused = violationsByField(problem?.violations);
  const sentIndex = (k) => lines?.sent[Number(k)]?.i;
  const lineError = (i) => {
    if (lines?.errors[i]) return lines.errors[i];
    const at = Object.entries(refused.lines[m.list] ?? {}).find(([k]) => sentIndex(k) === i);
    return at ? Object.values(at[1]).flat().join(' ') : null;
  };
  const amountError = mode === 'amount' ? (parsed?.error ?? (refused.fields[m.amount] ?? []).join(' ')) || null : null;
  const shownAt = mode === 'amount' ? m.amount : null;
  const other = !problem ? null : !problem.violations.length ? problem.message : [...Object.entries(refused.fields).filter(([k]) => k !== shownAt).flatMap(([, v]) => v), ...refused.other].join(' ') || null;

  async function confirm() {
    setBusy(true);
    setProblem(null);
    const body = mode === 'lines' ? { [m.list]: lines.sent.map((s) => s.body) } : mode === 'amount' ? { [m.amount]: parsed.minor } : {};
    try {
      onDone(await rest(`${iri}/${op.path}`, { method: 'POST', body }));
    } catch (e) {
      setProblem(e);
      setBusy(false);
    }
  }

  const choose = (value) => () => {
    setMode(value);
    setProblem(null);
  };
  const setLine = (i, change) => {
    setChosen(chosen.map((c, k) => (k === i ? { ...c, ...change } : c)));
    setProblem(null);
  };
  const label = op.label ?? t('credit.credit');

  return html`<${Dialog} title=${t('credit.title', { label, title })} wide=${mode === 'lines'} onClose=${onClose}>
    <form class="credit-form" onSubmit=${(e) => {
      e.preventDefault();
      if (ready && !busy) confirm();
    }}>
      <fieldset class="field">
        <legend>${t('credit.what')}</legend>
        <label class="check-row"><input type="radio" name="credit-mode" value="whole" checked=${mode === 'whole'} onChange=${choose('whole')} data-autofocus /> ${t('credit.whole', { whole: wholeLabel, amount: money(whole) })}</label>
        ${byLines && html`<label class="check-row"><input type="radio" name="credit-mode" value="lines" checked=${mode === 'lines'} onChange=${choose('lines')} /> ${t('credit.lines', { lines: inSentence(linesField.label ?? spec.lines) })}</label>`}
        ${byAmount && html`<label class="check-row"><input type="radio" name="credit-mode" value="amount" checked=${mode === 'amount'} onChange=${choose('amount')} /> ${t('credit.anAmount')}</label>`}
      </fieldset>
      ${mode === 'lines' &&
      html`<div class="table-wrap"><table class="table compact credit-lines">
        <caption class="visually-hidden">${t('credit.linesCaption', { label: linesField.label })}</caption>
        <thead><tr><th scope="col">${t('credit.credit')}</th><th scope="col" class="num">${priceLabel}</th><th scope="col">${qtyLabel}</th></tr></thead>
        <tbody>${items.map((line, i) => {
          const name = child ? titleOf(child, line) : `#${i + 1}`;
          const error = chosen[i].on ? lineError(i) : null;
          return html`<tr>
            <td><label class="check-row"><input type="checkbox" checked=${chosen[i].on} onChange=${(e) => setLine(i, { on: e.currentTarget.checked })} /> ${name}</label></td>
            <td class="num" data-label=${priceLabel}>${money(line[spec.line.price])}</td>
            <td data-label=${qtyLabel}>
              <input type="text" inputmode="decimal" class="credit-qty" aria-label=${`${qtyLabel}: ${name}`} aria-invalid=${Boolean(error)} aria-describedby=${error ? `credit-line-${i}-error` : `credit-line-${i}-hint`} disabled=${!chosen[i].on} value=${chosen[i].qty} onInput=${(e) => setLine(i, { qty: e.currentTarget.value })} />
              <span class="hint" id=${`credit-line-${i}-hint`}>${t('credit.of', { qty: qtyInput(line[spec.line.qty], ctx.locale) })}</span>
              ${error && html`<p class="field-error" id=${`credit-line-${i}-error`}>${error}</p>`}
            </td>
          </tr>`;
        })}</tbody>
      </table></div>`}
      ${mode === 'amount' &&
      html`<div class="field">
        <label for="credit-amount">${t('credit.amount', { currency })}</label>
        <input id="credit-amount" type="text" inputmode="decimal" autocomplete="off" aria-describedby=${amountError ? 'credit-amount-error' : 'credit-amount-hint'} aria-invalid=${Boolean(amountError)} value=${amountText} onInput=${(e) => {
          setAmountText(e.currentTarget.value);
          setProblem(null);
        }} placeholder=${moneyInput(whole, currency, ctx.locale)} />
        <p class="hint" id="credit-amount-hint">${t('credit.amountHint', { whole: wholeLabel, amount: money(whole) })}</p>
        ${amountError && html`<p class="field-error" id="credit-amount-error">${amountError}</p>`}
      </div>`}
      <p class="credit-total" aria-live="polite">${made ? t('credit.madeTotal', { ...nounOf(made), name: made.singular }) : t('credit.total')}: <strong data-testid="credit-total">${total === null ? '—' : money(total)}</strong></p>
      ${invalid && !(mode === 'amount' && amountError) && html`<p class="hint" data-testid="credit-invalid">${invalid}</p>`}
      ${other && html`<p class="alert" role="alert">${other}</p>`}
      ${op.confirm && html`<p class="hint">${op.confirm}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${t('common.notNow')}</button>
        <button type="submit" class="btn primary" disabled=${busy || !ready}>${busy ? t('credit.crediting') : label}</button>
      </div>
    </form>
  <//>`;
}
