// What the PDF and the client page (server/links/) both write the same way: dates for people, an
// IBAN in groups, address lines, tax labels, the totals, in the company's language (messages.ts).
import { countryName } from '../../resources/rules/countries.ts';
import type { DocumentData } from './data.ts';
import { formatAmount, formatMoney, plainDecimal } from './money.ts';
import { messages, type Messages } from './messages.ts';

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
export const humanDate = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return Number.isNaN(t) ? d : dateFormat.format(t);
};

/** IBAN in groups of four, as printed on paper. */
export const groupIban = (iban: string) => iban.replace(/(.{4})(?=.)/g, '$1 ');

export function addressLines(a: Record<string, unknown> | null): string[] {
  if (!a) return [];
  const s = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : '');
  const place = [s(a.zip), s(a.city)].filter(Boolean).join(' ');
  const region = [place, s(a.state)].filter(Boolean).join(', ');
  return [s(a.street1), s(a.street2), region, countryName(a.country) ?? s(a.country)].filter(Boolean);
}

/**
 * A tax row's label naming its rate once: the taxes' names ("VAT"), followed by the rate unless a
 * name already says it ("VAT 20%" stays "VAT 20%", never "VAT 20% 20%").
 */
export function taxLabel(names: readonly string[], rate: number, m: Messages = messages('en')): string {
  const pct = plainDecimal(rate);
  const says = new RegExp(`(^|[^0-9.,])${pct.replace('.', '[.,]')}\\s*%`);
  const name = names.join(', ') || m.t('tax');
  return names.length && names.every((n) => says.test(n)) ? name : `${name} ${m.percent(pct)}`;
}

/** The messages of a document's language: its company's locale. */
export const messagesOf = (d: DocumentData): Messages => messages(d.seller.locale);

/** An amount in the document's language: "1,234.56", "1.234,56", "1 234,56". */
export const amountIn = (m: Messages, minor: number, currency: string): string => m.number(formatAmount(minor, currency));

/** An amount with its currency code in the document's language. */
export const moneyIn = (m: Messages, minor: number, currency: string): string => {
  const text = formatMoney(minor, currency);
  return m.number(text);
};

/**
 * The totals as the tax groups say (CONTRACT §6): subtotal, discount, then per rate its taxable
 * amount (when it differs from the group's base or there are several rates) and its tax; the
 * total; for invoices the amount paid, credited and the balance due.
 */
export function totalRows(d: DocumentData): { label: string; value: string; strong?: boolean }[] {
  const m = messagesOf(d);
  const amount = (v: number) => amountIn(m, v, d.currency);
  const money = (v: number) => moneyIn(m, v, d.currency);
  const rows: { label: string; value: string; strong?: boolean }[] = [{ label: m.t('subtotal'), value: amount(d.subtotal) }];
  if (d.discountTotal !== 0 || d.discountType !== 'none') {
    const what = d.discountType === 'percentage' ? ` (${m.percent(plainDecimal(d.discountValue))})` : '';
    rows.push({ label: `${m.t('discount')}${what}`, value: amount(-d.discountTotal) });
  }
  const showTaxable = d.groups.length > 1 || d.groups.some((g) => g.discount !== 0);
  for (const g of d.groups) {
    const cat = g.category === 'S' || g.category === 'Z' ? '' : ` (${g.category})`;
    if (showTaxable || cat) rows.push({ label: `${m.t('taxableAt', { rate: m.percent(plainDecimal(g.rate)) })}${cat}`, value: amount(g.taxable) });
    if (g.names.length || g.tax !== 0 || g.rate !== 0) {
      const label = taxLabel(g.names, g.rate, m);
      rows.push({ label: g.inclusive && g.discount === 0 ? m.t('taxIncluded', { label }) : label, value: amount(g.tax) });
    }
  }
  rows.push({ label: m.t('total'), value: money(d.total), strong: true });
  if (d.kind === 'invoice') {
    rows.push({ label: m.t('amountPaid'), value: amount(d.amountPaid ?? 0) });
    if (d.amountCredited) rows.push({ label: m.t('credited'), value: amount(d.amountCredited) });
    rows.push({ label: m.t('balanceDue'), value: money(d.balance ?? 0), strong: true });
  }
  return rows;
}

/** The VAT categories other than S and Z, as a person reads them. */
export const CATEGORY_NAMES: Record<string, string> = {
  S: 'standard rate', Z: 'zero rated', E: 'exempt', AE: 'reverse charge', K: 'intra-community supply', G: 'export outside the EU', O: 'not subject to VAT',
};

/** One line per tax group with an exemption reason: "Reverse charge (AE): …" (CONTRACT §18). */
export function vatNoteLines(d: Pick<DocumentData, 'groups'>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const g of d.groups) {
    if (!g.exemptionReason) continue;
    const name = CATEGORY_NAMES[g.category]!;
    const says = g.exemptionReason.toLowerCase().startsWith(name.toLowerCase());
    const line = `${says ? '' : `${name[0]!.toUpperCase()}${name.slice(1)}: `}${g.exemptionReason}${g.exemptionReasonCode ? ` (${g.exemptionReasonCode})` : ''}`;
    if (!seen.has(line)) out.push(line);
    seen.add(line);
  }
  return out;
}
