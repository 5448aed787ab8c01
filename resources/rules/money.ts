// Amounts on documents: integers of minor units written with their currency's decimals (JPY 0,
// USD 2, BHD 3, from the ICU data shipped with Node), by string arithmetic on the integer, never
// through a float. Quantities and rates are exact decimals (resources/rules/totals.ts).
import { scaled, SCALE } from './totals.ts';

const digitsCache = new Map<string, number>();

/** The currency's minor-unit decimals (ISO 4217, as ICU knows them). */
export function currencyDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    digitsCache.set(currency, d);
  }
  return d;
}

/** `minor` units as a decimal text with `digits` decimals: 123456, 2 → "1234.56"; grouped: "1,234.56". */
export function decimalOf(minor: number | bigint, digits: number, grouped = false): string {
  const n = BigInt(minor);
  const neg = n < 0n;
  const abs = (neg ? -n : n).toString().padStart(digits + 1, '0');
  let int = abs.slice(0, abs.length - digits);
  const frac = abs.slice(abs.length - digits);
  if (grouped) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${int}${digits ? `.${frac}` : ''}`;
}

/** An amount for people: "1,234.56" (the currency is named where the document states it). */
export const formatAmount = (minor: number | bigint, currency: string): string => decimalOf(minor, currencyDigits(currency), true);

/** An amount with its currency code: "USD 1,234.56", "-USD 10.00". */
export function formatMoney(minor: number | bigint, currency: string): string {
  const text = formatAmount(minor, currency);
  return text.startsWith('-') ? `-${currency} ${text.slice(1)}` : `${currency} ${text}`;
}

/** An exact decimal (qty, rate) without trailing zeros: "1.5000" → "1.5", 20 → "20". */
export function plainDecimal(value: string | number): string {
  const text = decimalOf(scaled(value), SCALE);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

const separatorsCache = new Map<string, { group: string; decimal: string }>();

/**
 * A decimal text written with "," groups and a "." point ("1,234.56", as formatAmount writes it)
 * in the separators of a BCP 47 locale as Intl reports them ("1.234,56" de, "1 234,56" fr): the
 * amount stays exact, only its separators change.
 */
export function localSeparators(text: string, tag: string): string {
  let sep = separatorsCache.get(tag);
  if (!sep) {
    const parts = new Intl.NumberFormat(tag).formatToParts(12345.6);
    sep = { group: parts.find((p) => p.type === 'group')?.value ?? ',', decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.' };
    separatorsCache.set(tag, sep);
  }
  const { group, decimal } = sep;
  return text.replace(/[,.]/g, (c) => (c === ',' ? '\u0000' : decimal)).replace(/\u0000/g, group);
}
