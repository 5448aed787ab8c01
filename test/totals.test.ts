// The arithmetic of CONTRACT §6 and the calendar of recurring invoices, as pure functions:
// the contract's check vectors, edge cases of rounding, and properties over random documents.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths, occurrence, occurrenceAfter } from '../resources/rules/calendar.ts';
import { computeTotals, divRound, lineAmounts, scaled, type Discount, type LineInput } from '../resources/rules/totals.ts';

const tax20 = (type: 'inclusive' | 'exclusive') => ({ rate: '20', type });

describe('CONTRACT §6 check vectors', () => {
  it('two lines of 15000 × 1 with a 20 % inclusive tax: 25000, 5000, 30000', () => {
    const t = computeTotals([{ price: 15000, qty: 1, tax: tax20('inclusive') }, { price: 15000, qty: '1.0000', tax: tax20('inclusive') }], { type: 'none', value: 0 });
    expect([t.subtotal, t.taxTotal, t.total]).toEqual([25000, 5000, 30000]);
  });
  it('the same lines with a 20 % exclusive tax: 30000, 6000, 36000', () => {
    const t = computeTotals([{ price: 15000, qty: 1, tax: tax20('exclusive') }, { price: 15000, qty: 1, tax: tax20('exclusive') }], { type: 'none', value: 0 });
    expect([t.subtotal, t.taxTotal, t.total]).toEqual([30000, 6000, 36000]);
  });
});

describe('exact decimals and rounding', () => {
  it('parses decimals exactly', () => {
    expect(scaled('1.5')).toBe(15000n);
    expect(scaled('0.0001')).toBe(1n);
    expect(scaled(-2.25)).toBe(-22500n);
    expect(scaled('7')).toBe(70000n);
    expect(scaled('3.10000000')).toBe(31000n);
    expect(() => scaled('1.00005')).toThrow(RangeError);
    expect(() => scaled(0.00005)).toThrow(RangeError);
    expect(() => scaled('abc')).toThrow(RangeError);
  });
  it('rounds halves away from zero', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(-5n, 2n)).toBe(-3n);
    expect(divRound(7n, 3n)).toBe(2n);
    expect(divRound(-7n, 3n)).toBe(-2n);
    expect(divRound(5n, -2n)).toBe(-3n);
    expect(divRound(4n, 2n)).toBe(2n);
  });
  it('has no floating-point error where floats would have one', () => {
    // 0.1 + 0.2 territory: 3 × 0.1 at 1005 is 301.5 → 302 exactly (a float gives 301.49999…).
    expect(lineAmounts({ price: 1005, qty: '0.3', tax: null }).total).toBe(302);
    // 1.005 × 100 → 100.5 → 101 (Math.round(1.005 * 100) is 100).
    expect(lineAmounts({ price: 100, qty: '1.005', tax: null }).total).toBe(101);
    // Exclusive 7.5 % of 1010 = 75.75 → 76; inclusive 7.5 % in 1075 = 75 exactly.
    expect(lineAmounts({ price: 1010, qty: 1, tax: { rate: '7.5', type: 'exclusive' } }).tax).toBe(76);
    expect(lineAmounts({ price: 1075, qty: 1, tax: { rate: 7.5, type: 'inclusive' } })).toEqual({ total: 1075, tax: 75, net: 1000 });
    expect(lineAmounts({ price: -250, qty: '0.5', tax: null }).total).toBe(-125);
    expect(lineAmounts({ price: -3, qty: '0.5', tax: null }).total).toBe(-2);
  });
  it('applies percentage and fixed discounts to the gross amount', () => {
    const lines: LineInput[] = [{ price: 10000, qty: 1, tax: tax20('exclusive') }];
    expect(computeTotals(lines, { type: 'percentage', value: '12.5' })).toMatchObject({ subtotal: 10000, taxTotal: 2000, discountTotal: 1500, total: 10500 });
    expect(computeTotals(lines, { type: 'fixed', value: 2000 })).toMatchObject({ discountTotal: 2000, total: 10000, discountExceedsGross: false });
    expect(computeTotals(lines, { type: 'fixed', value: 99999 })).toMatchObject({ discountTotal: 12000, total: 0, discountExceedsGross: true });
    expect(computeTotals(lines, { type: 'none', value: 50 })).toMatchObject({ discountTotal: 0, total: 12000 });
  });
  it('refuses amounts beyond the safe integer range instead of losing cents', () => {
    expect(() => lineAmounts({ price: Number.MAX_SAFE_INTEGER, qty: 2, tax: null })).toThrow(/too large/);
  });
});

// Random documents: prices in minor units, quantities and rates with up to 4 decimals.
const decimal4 = (min: number, max: number) => fc.integer({ min: min * 10000, max: max * 10000 }).map((n) => (n / 10000).toFixed(4));
const line: fc.Arbitrary<LineInput> = fc.record({
  price: fc.integer({ min: -1_000_000, max: 10_000_000 }),
  qty: decimal4(0, 10_000).filter((q) => Number(q) > 0),
  tax: fc.option(fc.record({ rate: decimal4(0, 100), type: fc.constantFrom('exclusive' as const, 'inclusive' as const) }), { nil: null }),
});
const discount: fc.Arbitrary<Discount> = fc.oneof(
  fc.constant<Discount>({ type: 'none', value: 0 }),
  decimal4(0, 100).map((value): Discount => ({ type: 'percentage', value })),
  fc.integer({ min: 0, max: 50_000_000 }).map((value): Discount => ({ type: 'fixed', value })),
);

describe('properties of totals', () => {
  it('every amount is an integer and total = subtotal + taxTotal − discountTotal', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), discount, (lines, d) => {
        const t = computeTotals(lines, d);
        for (const v of [t.subtotal, t.taxTotal, t.discountTotal, t.total, ...t.lines.flatMap((l) => [l.total, l.tax, l.net])]) {
          expect(Number.isSafeInteger(v)).toBe(true);
        }
        expect(t.total).toBe(t.subtotal + t.taxTotal - t.discountTotal);
        expect(t.subtotal).toBe(t.lines.reduce((s, l) => s + l.net, 0));
        expect(t.taxTotal).toBe(t.lines.reduce((s, l) => s + l.tax, 0));
        if (d.type === 'fixed' && t.subtotal + t.taxTotal >= 0) expect(t.total).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });

  it('balance = total − amountPaid for any payments up to the total', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), discount, fc.array(fc.nat(), { maxLength: 5 }), (lines, d, parts) => {
        const t = computeTotals(lines, d);
        fc.pre(t.total > 0);
        // Payments as the invoice accepts them: each at most the balance left.
        let balance = t.total;
        let paid = 0;
        for (const x of parts) {
          const amount = (x % balance) + 1;
          if (amount > balance) continue;
          paid += amount;
          balance -= amount;
          expect(balance).toBe(t.total - paid);
          expect(balance).toBeGreaterThanOrEqual(0);
          if (balance === 0) break;
        }
      }),
    );
  });

  it('does not depend on the order of the lines', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), discount, fc.integer(), (lines, d, seed) => {
        const shuffled = [...lines];
        let s = seed;
        for (let i = shuffled.length - 1; i > 0; i--) {
          s = (Math.imul(s, 1103515245) + 12345) | 0;
          const j = Math.abs(s) % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        const a = computeTotals(lines, d);
        const b = computeTotals(shuffled, d);
        expect([b.subtotal, b.taxTotal, b.discountTotal, b.total]).toEqual([a.subtotal, a.taxTotal, a.discountTotal, a.total]);
      }),
    );
  });

  it('an inclusive line never changes its total; an exclusive one adds exactly its tax', () => {
    fc.assert(
      fc.property(line, (l) => {
        fc.pre(l.tax !== null);
        const a = lineAmounts(l);
        if (l.tax!.type === 'inclusive') expect(a.net + a.tax).toBe(a.total);
        else expect(a.net).toBe(a.total);
        expect(a.total).toBe(lineAmounts({ ...l, tax: null }).total);
      }),
    );
  });
});

describe('calendar of recurring invoices', () => {
  it('keeps month ends: Jan 31 monthly → Feb 28/29 → Mar 31 → Apr 30', () => {
    expect([0, 1, 2, 3].map((n) => occurrence('2026-01-31', 'monthly', 1, n))).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
    expect(occurrence('2028-01-31', 'monthly', 1, 1)).toBe('2028-02-29');
    expect(occurrence('2024-02-29', 'yearly', 1, 1)).toBe('2025-02-28');
    expect(occurrence('2024-02-29', 'yearly', 1, 4)).toBe('2028-02-29');
    expect(occurrence('2026-01-31', 'monthly', 3, 1)).toBe('2026-04-30');
    expect(addMonths('2026-12-15', 1)).toBe('2027-01-15');
    expect(occurrence('2026-03-01', 'weekly', 2, 2)).toBe('2026-03-29');
    expect(occurrence('2026-12-30', 'daily', 3, 1)).toBe('2027-01-02');
  });
  it('finds the first occurrence strictly after a date', () => {
    expect(occurrenceAfter('2026-01-31', 'monthly', 1, '2026-01-31')).toBe('2026-02-28');
    expect(occurrenceAfter('2026-01-31', 'monthly', 1, '2026-02-28')).toBe('2026-03-31');
    expect(occurrenceAfter('2026-01-31', 'monthly', 1, '2026-01-01')).toBe('2026-01-31');
    expect(occurrenceAfter('2026-01-01', 'weekly', 1, '2026-01-08')).toBe('2026-01-15');
    expect(occurrenceAfter('2026-01-01', 'yearly', 2, '2027-06-01')).toBe('2028-01-01');
  });
  it('occurrenceAfter is the smallest occurrence above the date, for any series', () => {
    const day = fc.integer({ min: 0, max: 3000 }).map((n) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
    fc.assert(
      fc.property(day, day, fc.constantFrom('daily' as const, 'weekly' as const, 'monthly' as const, 'yearly' as const), fc.integer({ min: 1, max: 5 }), (start, date, f, interval) => {
        const next = occurrenceAfter(start, f, interval, date);
        expect(next > date || (date < start && next === start)).toBe(true);
        // It is an occurrence, and the one before it is not after the date.
        let n = 0;
        while (occurrence(start, f, interval, n) < next) n++;
        expect(occurrence(start, f, interval, n)).toBe(next);
        if (n > 0) expect(occurrence(start, f, interval, n - 1) <= date).toBe(true);
      }),
    );
  });
});
