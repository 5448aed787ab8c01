// Client rules: the default currency, and the currency lock once documents or payments use it.
// (Deleting a client with invoices, quotes, recurring invoices, payments or credit notes is refused by their
// references (409); its contacts and addresses are deleted with it.)
import { eq } from 'drizzle-orm';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';

const USERS = [
  ['Invoice', 'invoices'],
  ['Quote', 'quotes'],
  ['RecurringInvoice', 'recurring invoices'],
  ['Payment', 'payments'],
  ['CreditNote', 'credit notes'],
] as const;

/** The kinds of records that use a client, e.g. ["invoices", "payments"]. */
export async function usesOf(api: HookApi, clientId: string): Promise<string[]> {
  const found: string[] = [];
  for (const [resource, label] of USERS) {
    const t = api.table(resource);
    const [row] = await api.tx.select({ id: t.id }).from(t).where(eq(t.client, clientId)).limit(1);
    if (row) found.push(label);
  }
  return found;
}

export const clientRules: HookSet = {
  // On create: the company's currency, nothing else.
  create: 'references',
  async beforeWrite(api, e) {
    // A client's currency defaults to its company's.
    if (e.op === 'create' && (e.data.currency === undefined || e.data.currency === null)) {
      e.data.currency = api.principal.company.currency;
    }
    if (e.op === 'update') {
      if (e.data.currency === null || e.data.currency === undefined) e.data.currency = e.existing!.currency;
      if (e.data.currency !== e.existing!.currency) {
        const uses = await usesOf(api, String(e.existing!.id));
        if (uses.length) {
          throw ApiError.validation([{
            propertyPath: 'currency',
            message: `The currency cannot change: this client already has ${uses.join(', ')}.`,
            code: ViolationCode.rule,
          }]);
        }
      }
    }
  },
  async beforeDelete(api, existing) {
    const uses = await usesOf(api, String(existing.id));
    if (uses.length) throw ApiError.conflict(`This client cannot be deleted: it has ${uses.join(', ')}.`);
  },
};
