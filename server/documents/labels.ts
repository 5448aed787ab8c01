// What the PDF and the client page (server/links/) both write the same way: dates for people, an
// IBAN in groups, address lines, tax labels.
import { countryName } from '../../resources/rules/countries.ts';
import type { DocumentData } from './data.ts';
import { formatAmount, formatMoney, plainDecimal } from './money.ts';

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
export function taxLabel(names: readonly string[], rate: number): string {
  const pct = plainDecimal(rate);
  const says = new RegExp(`(^|[^0-9.,])${pct.replace('.', '[.,]')}\\s*%`);
  const name = names.join(', ') || 'Tax';
  return names.length && names.every((n) => says.test(n)) ? name : `${name} ${pct}%`;
}

/**
 * The totals as the tax groups say (CONTRACT §6): subtotal, discount, then per rate its taxable
 * amount (when it differs from the group's base or there are several rates) and its tax; the
 * total; for invoices the amount paid, credited and the balance due.
 */
export function totalRows(d: DocumentData): { label: string; value: string; strong?: boolean }[] {
  const rows: { label: string; value: string; strong?: boolean }[] = [{ label: 'Subtotal', value: formatAmount(d.subtotal, d.currency) }];
  if (d.discountTotal !== 0 || d.discountType !== 'none') {
    const what = d.discountType === 'percentage' ? ` (${plainDecimal(d.discountValue)}%)` : '';
    rows.push({ label: `Discount${what}`, value: formatAmount(-d.discountTotal, d.currency) });
  }
  const showTaxable = d.groups.length > 1 || d.groups.some((g) => g.discount !== 0);
  for (const g of d.groups) {
    const cat = g.category === 'S' || g.category === 'Z' ? '' : ` (${g.category})`;
    if (showTaxable || cat) rows.push({ label: `Taxable at ${plainDecimal(g.rate)}%${cat}`, value: formatAmount(g.taxable, d.currency) });
    if (g.names.length || g.tax !== 0 || g.rate !== 0) rows.push({ label: `${taxLabel(g.names, g.rate)}${g.inclusive && g.discount === 0 ? ' (included)' : ''}`, value: formatAmount(g.tax, d.currency) });
  }
  rows.push({ label: 'Total', value: formatMoney(d.total, d.currency), strong: true });
  if (d.kind === 'invoice') {
    rows.push({ label: 'Amount paid', value: formatAmount(d.amountPaid ?? 0, d.currency) });
    if (d.amountCredited) rows.push({ label: 'Credited', value: formatAmount(d.amountCredited, d.currency) });
    rows.push({ label: 'Balance due', value: formatMoney(d.balance ?? 0, d.currency), strong: true });
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
