// CONTRACT §6 for the seed: quantities, rates and percentage discounts are decimals with at most 4
// places, carried as integers scaled by 10^4; the totals themselves are the service's own module
// (resources/rules/totals.ts), so the seed and the service cannot disagree.
import { computeTotals, type TaxGroup } from '../resources/rules/totals.ts';

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
}

export interface Discount {
  type: 'none' | 'percentage' | 'fixed';
  /** Percentage scaled by 10^4, or a fixed amount in minor units scaled by 10^4. */
  value: bigint;
}

export interface DocumentTotals {
  lines: LineAmounts[];
  groups: TaxGroup[];
  subtotal: bigint;
  taxTotal: bigint;
  discountTotal: bigint;
  total: bigint;
}

/** The service's own arithmetic (resources/rules/totals.ts), one implementation of §6 for the seed too. */
export function documentTotals(lines: readonly Line[], discount: Discount): DocumentTotals {
  const t = computeTotals(
    lines.map((l) => ({ price: l.price, qty: decimalText(l.qty), tax: l.tax && { rate: decimalText(l.tax.rate), type: l.tax.type } })),
    { type: discount.type, value: decimalText(discount.value) },
  );
  return {
    lines: t.lines.map((l) => ({ total: BigInt(l.total), net: BigInt(l.net) })),
    groups: t.groups,
    subtotal: BigInt(t.subtotal),
    taxTotal: BigInt(t.taxTotal),
    discountTotal: BigInt(t.discountTotal),
    total: BigInt(t.total),
  };
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
