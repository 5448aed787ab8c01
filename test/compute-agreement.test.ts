// A new document's totals are computed before its insert (computeNew); every later change runs the
// full recompute from the stored lines. Both must give the same amounts, to the cent.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;
let taxes: string[];

beforeAll(async () => {
  t = await startTestServer();
  api = client(t, await tokenFor(t, { email: 'c@c.test', company: 'C' }));
  clientIri = (await api.post('/api/clients', { name: 'Agree' })).body['@id'];
  taxes = [
    (await api.post('/api/taxes', { name: 'Ex 19', rate: 19 })).body['@id'],
    (await api.post('/api/taxes', { name: 'In 7.5', rate: 7.5, type: 'inclusive' })).body['@id'],
    (await api.post('/api/taxes', { name: 'Ex 0.0125', rate: 0.0125 })).body['@id'],
  ];
});
afterAll(() => t.close());

const amounts = (b: Record<string, unknown>) => ({
  subtotal: b.subtotal, taxTotal: b.taxTotal, discountTotal: b.discountTotal, total: b.total, balance: b.balance,
  lines: (b.lines as Record<string, unknown>[]).map((l) => [l.total, l.taxRate, l.taxType]),
});

it('computes a new invoice exactly as the recompute does', async () => {
  let compared = 0;
  const line = fc.record({
    description: fc.constant('x'),
    price: fc.integer({ min: -100_000, max: 10_000_000 }),
    qty: fc.integer({ min: 1, max: 999_999 }).map((n) => n / 10_000),
    tax: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 100 }), async (lines, pct) => {
      const created = await api.post('/api/invoices', {
        client: clientIri,
        discountType: 'percentage',
        discountValue: pct,
        lines: lines.map((l) => ({ ...l, tax: l.tax === null ? null : taxes[l.tax] })),
      });
      if (created.status === 422) return; // e.g. a discount or amounts out of range: refused alike
      expect(created.status, created.text).toBe(201);
      // Entering pending recomputes from the stored lines.
      const pending = await api.patch(created.body['@id'], { status: 'pending' });
      expect(pending.status, pending.text).toBe(200);
      expect(amounts(pending.body)).toEqual(amounts(created.body));
      compared++;
    }),
    { numRuns: 25 },
  );
  expect(compared).toBeGreaterThan(15);
});
