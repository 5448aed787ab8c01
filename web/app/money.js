// Amounts as people type and read them (CONTRACT §20), for every amount field and every amount
// shown by /app: a plain ES module whose only dependency is the catalogue of its messages
// (lib.js `t`: the page's language, set before the first render), so Node tests import it too.
//
// Parsing is exact (string arithmetic on digits, never a float) and never changes the magnitude
// silently: `1234.5`, `1234,50`, `1.234,50`, `1,234.50`, `1 234,50`, with an optional currency
// sign or code, are read; a separator that could be a thousands separator or a decimal point
// (`1,234` in a currency with decimals) or more decimals than the currency has is refused with a
// message saying what was understood.
import { currentLocale, t } from './lib.js';

const digitsCache = new Map();
/** The currency's minor-unit digits (USD 2, JPY 0, BHD 3), from the platform's ISO 4217 data. */
export function currencyDigits(currency) {
  if (!currency) return 2;
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

/** Minor units as a plain decimal text with the currency's digits, exactly: 123456 → "1234.56". */
export function minorToDecimal(minor, currency) {
  if (minor === null || minor === undefined || minor === '') return '';
  const digits = currencyDigits(currency);
  const n = BigInt(minor);
  const neg = n < 0n;
  const s = (neg ? -n : n).toString().padStart(digits + 1, '0');
  const whole = digits ? s.slice(0, -digits) : s;
  return `${neg ? '-' : ''}${whole}${digits ? `.${s.slice(-digits)}` : ''}`;
}

/** The decimal separator of a locale ("." in en, "," in de and fr). */
export function decimalSeparator(locale) {
  try {
    return new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  } catch {
    return '.';
  }
}

/** An amount for reading, in the locale with its currency: "$1,234.56", "1.234,56 €", "¥1,234". */
export function formatMoney(minor, currency, locale = 'en-US') {
  if (minor === null || minor === undefined || minor === '') return '';
  const digits = currencyDigits(currency);
  const text = minorToDecimal(minor, currency);
  if (!currency) return text;
  try {
    // Intl formats the exact decimal string (no float arithmetic on the amount).
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(text);
  } catch {
    return `${text} ${currency}`;
  }
}

/** An amount as an input shows it: no grouping, the locale's decimal separator ("1234,50" in de). */
export function moneyInput(minor, currency, locale = 'en-US') {
  const text = minorToDecimal(minor, currency);
  return decimalSeparator(locale) === ',' ? text.replace('.', ',') : text;
}

/** Signs a currency is written with: its code, its symbol and narrow symbol in a few locales. */
function signsOf(currency) {
  const out = new Set([currency.toUpperCase()]);
  for (const locale of ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'ja-JP']) {
    for (const display of ['symbol', 'narrowSymbol']) {
      try {
        const sym = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: display }).formatToParts(1).find((p) => p.type === 'currency')?.value;
        if (sym) out.add(sym.toUpperCase());
      } catch {
        /* an unknown currency has its code only */
      }
    }
  }
  return out;
}

const SPACES = /[\s\u00a0\u202f\u2009]/g;

/** "1234.5" in words for a message: the digits with the currency, "1,234.50 EUR" (in the person's separators: "1.234,50 EUR" in de). */
const said = (whole, frac, currency) => {
  const text = `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''}`;
  const swapped = decimalSeparator(currentLocale()) === ',' ? text.replace(/[.,]/g, (c) => (c === '.' ? ',' : groupSeparator(currentLocale()))) : text;
  return `${swapped}${currency ? ` ${currency}` : ''}`;
};

/** The group separator of a locale ("," in en, "." in de, a narrow space in fr). */
function groupSeparator(locale) {
  try {
    return new Intl.NumberFormat(locale).formatToParts(12345).find((p) => p.type === 'group')?.value ?? ',';
  } catch {
    return ',';
  }
}

/** Whether an integer part with thousands separators (spaces, or `sep`) is in groups of three. */
function ungroup(text, sep) {
  const parts = text.split(sep ? new RegExp(`[ ${sep === '.' ? '\\.' : sep}]`) : / /);
  if (parts.length === 1) return /^\d+$/.test(parts[0]) ? parts[0] : null;
  const ok = /^\d{1,3}$/.test(parts[0]) && parts.slice(1).every((p) => /^\d{3}$/.test(p));
  return ok ? parts.join('') : null;
}

/**
 * A typed amount in minor units of `currency`: `{ minor }`, `{ empty: true }` for nothing typed,
 * or `{ error }`, a sentence saying what was understood and why it was refused.
 */
export function parseMoney(input, currency) {
  const digits = currencyDigits(currency);
  const typed = String(input ?? '').trim();
  if (typed === '') return { empty: true };
  if (!/\d/.test(typed)) return { error: t('money.notAmount', { typed }) };
  // An optional minus sign, and an optional sign or code of the currency before or after the
  // number ("-€9.99", "€ -9.99", "9,99 €", "EUR 9.99").
  let s = typed.replace(SPACES, ' ');
  let neg = false;
  const minus = () => {
    const m = /^[-\u2212]\s*/.exec(s);
    if (m) {
      neg = !neg;
      s = s.slice(m[0].length);
    }
  };
  minus();
  for (const re of [/^([^\d\s.,\-\u2212]+)\s*/, /\s*([^\d\s.,]+)$/]) {
    const m = re.exec(s);
    if (!m) continue;
    if (!currency || !signsOf(currency).has(m[1].toUpperCase())) {
      return { error: t('money.notCurrency', { typed, sign: m[1], currency: currency || 'none' }) };
    }
    s = m.index === 0 ? s.slice(m[0].length) : s.slice(0, m.index);
    minus();
  }
  if (!/^\d[\d .,]*$/.test(s) || /[ .,]$/.test(s)) return { error: t('money.notAmount', { typed }) };
  const notGrouped = { error: t('money.notGrouped', { typed }) };
  const dots = s.split('.').length - 1;
  const commas = s.split(',').length - 1;
  // The decimal separator: the last of "." and "," when both appear; none when one of them
  // appears several times (thousands separators); a single one is the decimal separator, unless
  // it could as well separate thousands (three digits after it): ambiguous in a currency with
  // decimals, thousands in one without.
  let dec = null;
  if (dots && commas) dec = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
  else if (dots + commas === 1) {
    const sep = dots ? '.' : ',';
    const [before, after] = s.split(sep);
    const couldGroup = after.length === 3 && ungroup(`${before}${sep}${after}`, sep) !== null && !/^0/.test(before);
    if (couldGroup && digits > 0) {
      const whole = `${before.replace(/ /g, '')}${after}`;
      return {
        error: t('money.ambiguous', { typed, a: said(whole, '0'.repeat(digits), currency), b: said(before.replace(/ /g, ''), after, currency), digits, example: said(whole, '0'.repeat(digits), '') }),
      };
    }
    if (!couldGroup) dec = sep;
  }
  if (dec && s.split(dec).length > 2) return notGrouped;
  const at = dec ? s.lastIndexOf(dec) : s.length;
  const group = dots && commas ? (dec === '.' ? ',' : '.') : !dec && dots + commas ? (dots ? '.' : ',') : null;
  const whole = ungroup(s.slice(0, at), group);
  let frac = dec ? s.slice(at + 1) : '';
  if (whole === null || !/^\d*$/.test(frac)) return notGrouped;
  // More decimals than the currency has: refused, unless they are zeros (9.990 is 9.99).
  if (frac.length > digits) {
    if (/[^0]/.test(frac.slice(digits))) {
      return { error: t('money.tooPrecise', { typed, read: said(whole, frac, currency), currency: currency || 'none', digits }) };
    }
    frac = frac.slice(0, digits);
  }
  const n = BigInt(`${whole}${frac.padEnd(digits, '0')}`);
  const minor = Number(neg ? -n : n);
  if (!Number.isSafeInteger(minor)) return { error: t('money.tooLarge', { typed }) };
  return { minor };
}

/**
 * A percentage typed by a person (`19`, `19 %`, `19,5`, `7.25%`): `{ value }` as a number, `{ empty }`
 * or `{ error }`; at most `scale` decimals.
 */
export function parsePercent(input, scale = 4) {
  const s = String(input ?? '').trim().replace(SPACES, '');
  if (s === '') return { empty: true };
  const m = /^(-)?(\d+)(?:[.,](\d+))?%?$/.exec(s);
  if (!m) return { error: t('percent.notPercent', { typed: String(input).trim() }) };
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale) return { error: t('percent.tooPrecise', { typed: String(input).trim(), read: `${m[2]}${decimalSeparator(currentLocale())}${m[3]}`, scale }) };
  return { value: Number(`${m[1] ?? ''}${m[2]}${frac ? `.${frac}` : ''}`) };
}

/** A percentage for reading: "19 %", "7.25 %" ("7,25 %" in de). */
export function formatPercent(value, locale = 'en-US') {
  if (value === null || value === undefined || value === '') return '';
  const text = String(Number(value));
  return `${decimalSeparator(locale) === ',' ? text.replace('.', ',') : text}\u00a0%`;
}

/** A percentage as an input shows it ("19", "7,25" in de). */
export function percentInput(value, locale = 'en-US') {
  if (value === null || value === undefined || value === '') return '';
  const text = String(Number(value));
  return decimalSeparator(locale) === ',' ? text.replace('.', ',') : text;
}

/** The parsing of a plain decimal (a quantity): "1,5" or "1.5", at most `scale` decimals, or null. */
export function parseNumber(input, scale) {
  const s = String(input ?? '').trim();
  const m = /^(-)?(\d*)(?:[.,](\d*))?$/.exec(s);
  if (!m || s === '' || (m[2] === '' && !m[3])) return null;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale) return null;
  return Number(`${m[1] ?? ''}${m[2] || '0'}${frac ? `.${frac}` : ''}`);
}
