// The arithmetic of CONTRACT §6 and the calendar of recurring invoices, as pure functions:
// the contract's check vectors, edge cases of rounding, and properties over random documents.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths, occurrence, occurrenceAfter } from '../resources/rules/calendar.ts';
import { computeTotals, divRound, lineAmounts, scaled, splitFixed, type Discount, type LineInput } from '../resources/rules/totals.ts';

const tax20 = (type: 'inclusive' | 'exclusive') => ({ rate: '20', type });

const ex = (rate: string | number) => ({ rate, type: 'exclusive' as const });
const inc = (rate: string | number) => ({ rate, type: 'inclusive' as const });
const none: Discount = { type: 'none', value: 0 };
const groupsOf = (t: ReturnType<typeof computeTotals>) => t.groups.map((g) => [g.rate, g.base, g.discount, g.taxable, g.tax]);

describe('CONTRACT §6 check vectors', () => {
  it('two lines of 15000 × 1 with a 20 % inclusive tax: 25000, 5000, 30000', () => {
    const t = computeTotals([{ price: 15000, qty: 1, tax: tax20('inclusive') }, { price: 15000, qty: '1.0000', tax: tax20('inclusive') }], none);
    expect([t.subtotal, t.taxTotal, t.total]).toEqual([25000, 5000, 30000]);
    expect(groupsOf(t)).toEqual([[20, 25000, 0, 25000, 5000]]);
  });
  it('the same lines with a 20 % exclusive tax: 30000, 6000, 36000', () => {
    const t = computeTotals([{ price: 15000, qty: 1, tax: tax20('exclusive') }, { price: 15000, qty: 1, tax: tax20('exclusive') }], none);
    expect([t.subtotal, t.taxTotal, t.total]).toEqual([30000, 6000, 36000]);
  });
  const twoRates: LineInput[] = [{ price: 3333, qty: 3, tax: ex(20) }, { price: 4550, qty: 1, tax: ex(7) }];
  it('3333 × 3 at 20 % and 4550 × 1 at 7 %: subtotal 14549', () => {
    expect(computeTotals(twoRates, none).subtotal).toBe(14549);
  });
  it('… with 10 %: discounts 1000 and 455, taxable 8999 and 4095, tax 1800 and 287, total 15181', () => {
    const t = computeTotals(twoRates, { type: 'percentage', value: 10 });
    expect(groupsOf(t)).toEqual([[7, 4550, 455, 4095, 287], [20, 9999, 1000, 8999, 1800]]);
    expect([t.subtotal, t.discountTotal, t.taxTotal, t.total]).toEqual([14549, 1455, 2087, 15181]);
  });
  it('… with a fixed 2000: discounts 1375 and 625, taxable 8624 and 3925, tax 1725 and 275, total 14549', () => {
    const t = computeTotals(twoRates, { type: 'fixed', value: 2000 });
    expect(groupsOf(t)).toEqual([[7, 4550, 625, 3925, 275], [20, 9999, 1375, 8624, 1725]]);
    expect([t.discountTotal, t.taxTotal, t.total]).toEqual([2000, 2000, 14549]);
  });
  it('one line of 70 with a 12 % inclusive tax: net 63, tax 7, total 70', () => {
    const t = computeTotals([{ price: 70, qty: 1, tax: inc(12) }], none);
    expect(t.lines[0]).toEqual({ total: 70, net: 63 });
    expect([t.taxTotal, t.total]).toEqual([7, 70]);
  });
  it('a fixed 2500 off one line of 10000 at 10 % exclusive: taxable 7500, tax 750, total 8250', () => {
    const t = computeTotals([{ price: 10000, qty: 1, tax: ex(10) }], { type: 'fixed', value: 2500 });
    expect(groupsOf(t)).toEqual([[10, 10000, 2500, 7500, 750]]);
    expect(t.total).toBe(8250);
  });
  it('lines without a tax form the 0 % group, with lines at 0 %; groups ascend by rate', () => {
    const t = computeTotals([{ price: 500, qty: 1, tax: ex('5.5') }, { price: 100, qty: 1, tax: null }, { price: 200, qty: 1, tax: ex(0) }], none);
    expect(groupsOf(t)).toEqual([[0, 300, 0, 300, 0], [5.5, 500, 0, 500, 28]]);
  });
  it('a fixed split tie goes to the larger base, then the higher rate', () => {
    // 1 unit over two equal bases: the higher rate gets it.
    const t = computeTotals([{ price: 100, qty: 1, tax: ex(7) }, { price: 100, qty: 1, tax: ex(20) }], { type: 'fixed', value: 1 });
    expect(groupsOf(t).map((g) => g[2])).toEqual([0, 1]);
    // Equal remainders (1 × 100 / 300 and 1 × 200 / 300 differ; 3 over 1:1:1 splits evenly).
    const u = computeTotals([{ price: 100, qty: 1, tax: ex(7) }, { price: 100, qty: 1, tax: ex(20) }, { price: 100, qty: 1, tax: null }], { type: 'fixed', value: 2 });
    expect(u.groups.map((g) => g.discount)).toEqual([0, 1, 1]);
  });
  it('a mixed group (inclusive and exclusive at one rate) is taxed on its base', () => {
    const t = computeTotals([{ price: 1200, qty: 1, tax: inc(20) }, { price: 1000, qty: 1, tax: ex(20) }], none);
    expect(groupsOf(t)).toEqual([[20, 2000, 0, 2000, 400]]);
  });
  it('an inclusive group with a discount is taxed on its discounted net', () => {
    const t = computeTotals([{ price: 15000, qty: 1, tax: inc(20) }, { price: 15000, qty: 1, tax: inc(20) }], { type: 'percentage', value: 10 });
    expect(groupsOf(t)).toEqual([[20, 25000, 2500, 22500, 4500]]);
    expect(t.total).toBe(27000);
  });
  it('flags a fixed discount above Σ base and caps it there', () => {
    const t = computeTotals([{ price: 10000, qty: 1, tax: ex(20) }], { type: 'fixed', value: 10001 });
    expect(t.discountExceedsBase).toBe(true);
    expect([t.discountTotal, t.taxTotal, t.total]).toEqual([10000, 0, 0]);
    expect(computeTotals([{ price: 10000, qty: 1, tax: ex(20) }], { type: 'fixed', value: 10000 }).discountExceedsBase).toBe(false);
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
    expect(computeTotals([{ price: 1010, qty: 1, tax: { rate: '7.5', type: 'exclusive' } }], none).taxTotal).toBe(76);
    expect(lineAmounts({ price: 1075, qty: 1, tax: { rate: 7.5, type: 'inclusive' } })).toEqual({ total: 1075, net: 1000 });
    expect(lineAmounts({ price: -250, qty: '0.5', tax: null }).total).toBe(-125);
    expect(lineAmounts({ price: -3, qty: '0.5', tax: null }).total).toBe(-2);
  });
  it('applies percentage and fixed discounts to the net amount, before tax', () => {
    const lines: LineInput[] = [{ price: 10000, qty: 1, tax: tax20('exclusive') }];
    expect(computeTotals(lines, { type: 'percentage', value: '12.5' })).toMatchObject({ subtotal: 10000, taxTotal: 1750, discountTotal: 1250, total: 10500 });
    expect(computeTotals(lines, { type: 'fixed', value: 2000 })).toMatchObject({ discountTotal: 2000, taxTotal: 1600, total: 9600, discountExceedsBase: false });
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

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

describe('properties of totals (thousands of random documents)', () => {
  it('the groups add up to the totals, one per rate ascending, each taxable = base − discount', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), discount, (lines, d) => {
        const t = computeTotals(lines, d);
        for (const v of [t.subtotal, t.taxTotal, t.discountTotal, t.total, ...t.lines.flatMap((l) => [l.total, l.net]), ...t.groups.flatMap((g) => [g.base, g.discount, g.taxable, g.tax])]) {
          expect(Number.isSafeInteger(v)).toBe(true);
        }
        expect(t.subtotal).toBe(sum(t.groups.map((g) => g.base)));
        expect(t.subtotal).toBe(sum(t.lines.map((l) => l.net)));
        expect(t.discountTotal).toBe(sum(t.groups.map((g) => g.discount)));
        expect(t.taxTotal).toBe(sum(t.groups.map((g) => g.tax)));
        expect(t.total).toBe(t.subtotal - t.discountTotal + t.taxTotal);
        const rates = t.groups.map((g) => scaled(g.rate));
        expect(new Set(rates).size).toBe(rates.length);
        for (let i = 1; i < rates.length; i++) expect(rates[i]! > rates[i - 1]!).toBe(true);
        for (const g of t.groups) {
          expect(g.taxable).toBe(g.base - g.discount);
          // EN 16931 (BR-CO-17): the tax is the taxable amount × rate, rounded, or for an
          // all-inclusive group what its prices contain.
          const exact = divRound(BigInt(g.taxable) * scaled(g.rate), 1_000_000n);
          const members = lines.filter((l) => (l.tax ? scaled(l.tax.rate) : 0n) === scaled(g.rate));
          if (g.discount !== 0 || !members.every((l) => l.tax?.type === 'inclusive')) expect(BigInt(g.tax)).toBe(exact);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('a fixed discount splits exactly, each share within [0, base]', () => {
    const positive: fc.Arbitrary<LineInput> = line.map((l) => ({ ...l, price: Math.abs(Number(l.price)) }));
    fc.assert(
      fc.property(fc.array(positive, { minLength: 1, maxLength: 30 }), fc.double({ min: 0, max: 1, noNaN: true }), (lines, f) => {
        const subtotal = computeTotals(lines, none).subtotal;
        const amount = Math.floor(subtotal * f);
        const t = computeTotals(lines, { type: 'fixed', value: amount });
        expect(t.discountExceedsBase).toBe(false);
        expect(t.discountTotal).toBe(amount);
        for (const g of t.groups) {
          expect(g.discount).toBeGreaterThanOrEqual(0);
          expect(g.discount).toBeLessThanOrEqual(g.base);
          // Largest remainder: never more than one unit away from the exact proportional share.
          if (subtotal === 0) expect(g.discount).toBe(0);
          else expect(Math.abs(g.discount - (amount * g.base) / subtotal)).toBeLessThan(1 + 1e-6);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('splitFixed: Σ shares = amount, each within one unit of its exact share', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 12 }), fc.bigInt({ min: 0n, max: 10n ** 12n }), (bases, a) => {
        const total = bases.reduce((s, b) => s + b, 0n);
        fc.pre(total > 0n);
        const amount = a % (total + 1n);
        const shares = splitFixed(amount, bases);
        expect(shares.reduce((s, x) => s + x, 0n)).toBe(amount);
        shares.forEach((x, i) => {
          expect(x >= 0n && x <= bases[i]!).toBe(true);
          expect(x * total <= amount * bases[i]! + total && x * total >= amount * bases[i]! - total).toBe(true);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('recomputing gives the same figures, whatever the order of the lines', () => {
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
        expect(computeTotals(lines, d)).toEqual(a);
        const b = computeTotals(shuffled, d);
        expect(b.groups).toEqual(a.groups);
        expect([b.subtotal, b.taxTotal, b.discountTotal, b.total]).toEqual([a.subtotal, a.taxTotal, a.discountTotal, a.total]);
      }),
      { numRuns: 1000 },
    );
  });

  it('without a discount, an inclusive-only group totals exactly its prices', () => {
    fc.assert(
      fc.property(fc.array(line.map((l) => ({ ...l, tax: l.tax && { ...l.tax, type: 'inclusive' as const } })), { minLength: 1, maxLength: 20 }), (lines) => {
        const t = computeTotals(lines, none);
        expect(t.total).toBe(sum(t.lines.map((l) => l.total)));
      }),
      { numRuns: 1000 },
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
