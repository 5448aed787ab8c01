// Invoice rules that are not declarations: currency and discount checks, the guard on going back
// to draft, and the clear refusal to delete an invoice that has payments.
import { eq } from 'drizzle-orm';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { checkBuyerVatOnIssue, checkDiscount, copyClientCurrency } from './documents.ts';

async function hasPayments(api: HookApi, invoiceId: string): Promise<boolean> {
  const p = api.table('Payment');
  const [row] = await api.tx.select({ id: p.id }).from(p).where(eq(p.invoice, invoiceId)).limit(1);
  return Boolean(row);
}

export const invoiceRules: HookSet = {
  // On create: the client's currency (a checked reference) and the discount; totals by computeNew.
  create: 'references',
  async beforeWrite(api, e) {
    await copyClientCurrency(api, e);
    checkDiscount(api, e);
    await checkBuyerVatOnIssue(api, e);
    // A draft never has payments: they would be lost in its edits.
    if (e.existing && e.existing.status !== 'draft' && e.data.status === 'draft' && Number(e.existing.amountCredited ?? 0) > 0) {
      throw ApiError.validation([{
        propertyPath: 'status',
        message: 'An invoice with issued credit notes cannot go back to "draft".',
        code: ViolationCode.state,
      }]);
    }
    if (e.existing && e.existing.status !== 'draft' && e.data.status === 'draft' && (await hasPayments(api, String(e.existing.id)))) {
      throw ApiError.validation([{
        propertyPath: 'status',
        message: `An invoice with payments cannot go back to "draft"; delete (void) its payments first.`,
        code: ViolationCode.state,
      }]);
    }
  },
  async beforeDelete(api, existing) {
    if (await hasPayments(api, String(existing.id))) throw ApiError.conflict('An invoice with payments cannot be deleted; delete (void) its payments first.');
  },
};
