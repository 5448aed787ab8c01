// Quote rules: currency and discount checks, and what accepting a quote does.
import { eq } from 'drizzle-orm';
import type { HookSet } from '../../engine/hooks.ts';
import { checkDiscount, copyClientCurrency, keepParties } from './documents.ts';

export const quoteRules: HookSet = {
  // On create: the client's currency (a checked reference) and the discount; a new quote is never accepted.
  create: 'references',
  async beforeWrite(api, e) {
    await copyClientCurrency(api, e);
    checkDiscount(api, e);
    await keepParties(api, e, ['sent', 'accepted', 'declined']);
  },
  /** Entering `accepted` creates the draft invoice and links both ways, in the same transaction. */
  async afterWrite(api, e) {
    if (e.data.status !== 'accepted' || e.existing?.status === 'accepted') return;
    const quote = await api.read('Quote', e.id);
    if (!quote) return;
    const lines = (quote.lines as Record<string, unknown>[]).map((l, i) => ({
      description: l.description,
      qty: l.qty,
      price: l.price,
      tax: l.tax,
      position: i,
    }));
    const invoice = await api.create('Invoice', {
      client: quote.client,
      discountType: quote.discountType,
      discountValue: quote.discountValue,
      terms: quote.terms,
      notes: quote.notes,
      lines,
    });
    const q = api.table('Quote');
    const inv = api.table('Invoice');
    await api.tx.update(q).set({ invoice: invoice.id }).where(eq(q.id, e.id));
    await api.tx.update(inv).set({ quote: e.id }).where(eq(inv.id, String(invoice.id)));
  },
};
