// CONTRACT §6 in integer arithmetic, for the seed: quantities, rates and percentage discounts
// are decimals with at most 4 places, carried as integers scaled by 10^4; rounding is half away
// from zero, to the unit, per line. BigInt throughout, so no product can lose precision.

export const SCALE = 10_000n;

/** round(n / d), half away from zero; d > 0. */
export function divRound(n: bigint, d: bigint): bigint {
  if (n < 0n) return -divRound(-n, d);
  return (2n * n + d) / (2n * d);
}

/** A decimal with at most 4 places as an integer scaled by 10^4 ("2.25" → 22500n). */
export function scaled(decimal: string | number): bigint {
  const s = typeof decimal === 'number' ? decimal.toFixed(4) : decimal;
  const m = /^(-?)(\d+)(?:\.(\d{0,4}))?$/.exec(s);
  if (!m) throw new Error(`Not a decimal with at most 4 places: ${s}`);
  const v = BigInt(m[2]!) * SCALE + BigInt((m[3] ?? '').padEnd(4, '0'));
  return m[1] ? -v : v;
}

/** An integer scaled by 10^4 back to its decimal text with 4 places ("2.2500"). */
export function decimalText(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  return `${neg ? '-' : ''}${a / SCALE}.${String(a % SCALE).padStart(4, '0')}`;
}

export interface TaxRate {
  /** Percentage scaled by 10^4 (20 % → 200000n). */
  rate: bigint;
  type: 'exclusive' | 'inclusive';
}

export interface Line {
  price: bigint;
  /** Quantity scaled by 10^4. */
  qty: bigint;
  tax: TaxRate | null;
}

export interface LineAmounts {
  total: bigint;
  net: bigint;
  tax: bigint;
}

const HUNDRED_PERCENT = 100n * SCALE;

export function lineAmounts(l: Line): LineAmounts {
  const total = divRound(l.price * l.qty, SCALE);
  if (!l.tax) return { total, net: total, tax: 0n };
  if (l.tax.type === 'exclusive') {
    const tax = divRound(total * l.tax.rate, HUNDRED_PERCENT);
    return { total, net: total, tax };
  }
  // total / (1 + rate/100) = total × 100·10^4 / (100·10^4 + rate·10^4)
  const net = divRound(total * HUNDRED_PERCENT, HUNDRED_PERCENT + l.tax.rate);
  return { total, net, tax: total - net };
}

export interface Discount {
  type: 'none' | 'percentage' | 'fixed';
  /** Percentage scaled by 10^4, or a fixed amount in minor units scaled by 10^4. */
  value: bigint;
}

export interface DocumentTotals {
  lines: LineAmounts[];
  subtotal: bigint;
  taxTotal: bigint;
  discountTotal: bigint;
  total: bigint;
}

export function documentTotals(lines: readonly Line[], discount: Discount): DocumentTotals {
  const amounts = lines.map(lineAmounts);
  const subtotal = amounts.reduce((s, a) => s + a.net, 0n);
  const taxTotal = amounts.reduce((s, a) => s + a.tax, 0n);
  const gross = subtotal + taxTotal;
  let discountTotal = 0n;
  if (discount.type === 'percentage') discountTotal = divRound(gross * discount.value, HUNDRED_PERCENT);
  else if (discount.type === 'fixed') {
    discountTotal = discount.value / SCALE;
    if (discountTotal > gross) discountTotal = gross;
  }
  return { lines: amounts, subtotal, taxTotal, discountTotal, total: gross - discountTotal };
}

// The contract's own check (§6): two lines of 15000 × 1 with a 20 % tax.
{
  const twenty = (type: TaxRate['type']): Line => ({ price: 15000n, qty: SCALE, tax: { rate: 200000n, type } });
  const inc = documentTotals([twenty('inclusive'), twenty('inclusive')], { type: 'none', value: 0n });
  const exc = documentTotals([twenty('exclusive'), twenty('exclusive')], { type: 'none', value: 0n });
  if (inc.subtotal !== 25000n || inc.taxTotal !== 5000n || inc.total !== 30000n || exc.subtotal !== 30000n || exc.taxTotal !== 6000n || exc.total !== 36000n) {
    throw new Error('bench/totals.ts disagrees with the check in CONTRACT §6');
  }
}
