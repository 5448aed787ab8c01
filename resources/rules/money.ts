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
