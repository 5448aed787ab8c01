// The arithmetic of CONTRACT §6, exact: money is an integer of minor units, quantities and rates
// are decimals parsed from their exact text into scaled BigInts (4 places), and every rounding is
// half away from zero. No floating point takes part in any computation. Pure functions only:
// the hooks (documents.ts) and the property tests use this same module.

/** Decimal places of `qty`, tax `rate` and `discountValue`. */
export const SCALE = 4;
const ONE = 10n ** BigInt(SCALE);
const HUNDRED = 100n * ONE;

export type TaxType = 'exclusive' | 'inclusive';
export type DiscountType = 'none' | 'percentage' | 'fixed';

export interface LineInput {
  /** Unit price in minor units. */
  price: number | bigint;
  /** Quantity: a decimal as text ("1.5", "2.0000") or as a JSON number with at most 4 places. */
  qty: string | number;
  /** The tax applied, or null. `rate` is a percentage (decimal text or number). */
  tax: { rate: string | number; type: TaxType } | null;
}

export interface LineAmounts {
  /** round(price × qty). */
  total: number;
  /** The line's tax amount. */
  tax: number;
  /** What the line adds to the subtotal: total, less the tax it contains when inclusive. */
  net: number;
}

export interface Discount {
  type: DiscountType;
  value: string | number;
}

export interface Totals {
  lines: LineAmounts[];
  subtotal: number;
  taxTotal: number;
  discountTotal: number;
  total: number;
  /** A fixed discount larger than the amount before discount (it is capped at that amount). */
  discountExceedsGross: boolean;
}

export class AmountTooLarge extends RangeError {
  constructor() {
    super('The amounts are too large.');
  }
}

/** Parses an exact decimal ("-12.5", "3.0000", 7) into an integer scaled by 10^SCALE. */
export function scaled(value: string | number | bigint, scale = SCALE): bigint {
  if (typeof value === 'bigint') return value * 10n ** BigInt(scale);
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
    // A double that came from a decimal with ≤ `scale` places prints back as that decimal.
    text = value.toFixed(scale);
    if (Number(text) !== value) throw new RangeError(`${value} has more than ${scale} decimal places`);
  } else text = value.trim();
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new RangeError(`Not a decimal: "${text}"`);
  const [, sign, int, frac = ''] = m as unknown as [string, string, string, string | undefined];
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new RangeError(`"${text}" has more than ${scale} decimal places`);
  const digits = BigInt(int + frac.slice(0, scale).padEnd(scale, '0'));
  return sign === '-' ? -digits : digits;
}

/** n / d rounded to the nearest integer, halves away from zero. */
export function divRound(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new RangeError('Division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d; // truncates toward zero
  const r = n % d; // same sign as n
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

function toSafe(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new AmountTooLarge();
  return Number(v);
}

/** One line: `total = round(price × qty)`, then its tax, exclusive or inclusive. */
export function lineAmounts(line: LineInput): LineAmounts {
  const total = divRound(BigInt(line.price) * scaled(line.qty), ONE);
  let tax = 0n;
  if (line.tax) {
    const rate = scaled(line.tax.rate);
    if (line.tax.type === 'inclusive') tax = total - divRound(total * HUNDRED, HUNDRED + rate);
    else tax = divRound(total * rate, HUNDRED);
  }
  const net = line.tax?.type === 'inclusive' ? total - tax : total;
  return { total: toSafe(total), tax: toSafe(tax), net: toSafe(net) };
}

/** A document's totals from its lines and discount (CONTRACT §6). */
export function computeTotals(lines: readonly LineInput[], discount: Discount): Totals {
  const amounts = lines.map(lineAmounts);
  let subtotal = 0n;
  let taxTotal = 0n;
  for (const a of amounts) {
    subtotal += BigInt(a.net);
    taxTotal += BigInt(a.tax);
  }
  const gross = subtotal + taxTotal;
  let discountTotal = 0n;
  let discountExceedsGross = false;
  if (discount.type === 'percentage') {
    discountTotal = divRound(gross * scaled(discount.value), HUNDRED);
  } else if (discount.type === 'fixed') {
    // The value is a whole amount of minor units; it cannot take the total below zero.
    discountTotal = scaled(discount.value) / ONE;
    const cap = gross > 0n ? gross : 0n;
    if (discountTotal > cap) {
      discountExceedsGross = discountTotal > 0n;
      discountTotal = cap;
    }
  }
  return {
    lines: amounts,
    subtotal: toSafe(subtotal),
    taxTotal: toSafe(taxTotal),
    discountTotal: toSafe(discountTotal),
    total: toSafe(gross - discountTotal),
    discountExceedsGross,
  };
}

/** What is wrong with a discount regardless of the lines (a message for `discountValue`), or null. */
export function discountProblems(discount: Discount): string | null {
  if (discount.type === 'percentage' && scaled(discount.value) > HUNDRED) return 'A percentage discount should be between 0 and 100.';
  if (discount.type === 'fixed' && scaled(discount.value) % ONE !== 0n) return 'A fixed discount is a whole amount in minor units.';
  return null;
}
