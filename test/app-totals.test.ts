// The document editor totals with the server's own arithmetic: web/app/rules/totals.js is
// resources/rules/totals.ts with its types stripped (scripts/app-rules.ts), checked in because the
// application has no build step. This fails while the two differ, and checks that the browser's
// module computes what the server's does.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeTotals } from '../resources/rules/totals.ts';
import { browserModule, SOURCE, TARGET } from '../scripts/app-rules.ts';
// @ts-expect-error: the pages' plain ES module, run here as the browser runs it.
import * as browser from '../web/app/rules/totals.js';

describe('the totals the editor computes', () => {
  it('are the server’s module with its types stripped (run `npx tsx scripts/app-rules.ts` after changing it)', () => {
    expect(readFileSync(TARGET, 'utf8')).toBe(browserModule(readFileSync(SOURCE, 'utf8')));
  });

  it('give what the server’s give, for random documents', () => {
    const tax = fc.option(fc.record({ rate: fc.constantFrom(0, 5.5, 7.5, 19, 20, 21), type: fc.constantFrom('exclusive' as const, 'inclusive' as const) }), { nil: null });
    const line = fc.record({ price: fc.integer({ min: -100000, max: 10_000_000 }), qty: fc.constantFrom(1, 2, 0.5, 1.25, 3.3333, 10), tax });
    const discount = fc.oneof(fc.constant({ type: 'none' as const, value: 0 }), fc.record({ type: fc.constant('percentage' as const), value: fc.integer({ min: 0, max: 10000 }).map((n) => n / 100) }), fc.record({ type: fc.constant('fixed' as const), value: fc.integer({ min: 0, max: 100000 }) }));
    fc.assert(fc.property(fc.array(line, { maxLength: 12 }), discount, (lines, d) => {
      expect(browser.computeTotals(lines, d)).toEqual(computeTotals(lines, d));
    }), { numRuns: 300 });
  });
});
