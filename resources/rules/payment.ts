// What a payment does to its invoice. The invoice row is locked (FOR UPDATE) before its balance
// is read, so concurrent payments on one invoice are serialised and their sum never exceeds the
// total. Deleting a payment voids it: the balance comes back, and a paid invoice is pending (or
// overdue, when its due date has passed) again.
import { eq, sql } from 'drizzle-orm';
import { amount, ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { today } from './calendar.ts';

const PAYABLE = ['pending', 'overdue'];

/** Re-derives amountPaid, balance, status and paidAt of a (locked) invoice from its payments. */
async function settle(api: HookApi, invoiceId: string, paidAt: Date | null): Promise<void> {
  const inv = api.table('Invoice');
  const pay = api.table('Payment');
  const [invoice] = (await api.tx
    .select({ status: inv.status, total: inv.total, amountCredited: inv.amountCredited, dueDate: inv.dueDate, paidAt: inv.paidAt })
    .from(inv)
    .where(eq(inv.id, invoiceId))) as { status: string; total: number; amountCredited: number; dueDate: string | null; paidAt: Date | null }[];
  if (!invoice) return;
  const [sum] = await api.tx.select({ paid: sql<string>`coalesce(sum(${pay.amount}), 0)` }).from(pay).where(eq(pay.invoice, invoiceId));
  const amountPaid = Number(sum?.paid ?? 0);
  const balance = Number(invoice.total) - amountPaid - Number(invoice.amountCredited ?? 0);
  let status = invoice.status;
  let paid = invoice.paidAt;
  if (PAYABLE.includes(status) && balance <= 0 && amountPaid > 0) {
    status = 'paid';
    paid = paidAt ?? new Date();
  } else if (status === 'paid' && balance > 0) {
    status = invoice.dueDate !== null && invoice.dueDate < today() ? 'overdue' : 'pending';
    paid = null;
  }
  await api.tx.update(inv).set({ amountPaid, balance, status, paidAt: paid, updatedAt: new Date() }).where(eq(inv.id, invoiceId));
  await api.emit('Invoice', invoiceId, status === 'paid' && invoice.status !== 'paid' ? ['invoice.updated', 'invoice.paid'] : ['invoice.updated']);
}

export const paymentRules: HookSet = {
  // A payment locks its invoice and settles it: its create runs in a transaction.
  create: 'transaction',
  async beforeWrite(api, e) {
    if (e.op !== 'create') return;
    const invoice = await api.lock('Invoice', String(e.data.invoice));
    if (!invoice) return; // the reference check has already refused it
    if (!PAYABLE.includes(String(invoice.status))) {
      throw ApiError.validation([{
        propertyPath: 'invoice',
        message: `Payments can only be made on pending or overdue invoices; this invoice is "${String(invoice.status)}".`,
        code: ViolationCode.state,
      }]);
    }
    const balance = Number(invoice.balance);
    if (Number(e.data.amount) > balance) {
      throw ApiError.validation([{
        propertyPath: 'amount',
        message: "This value should be at most the invoice's balance, {balance}.",
        code: ViolationCode.range,
        extensions: { balance: amount(balance, String(invoice.currency)), amount: amount(Number(e.data.amount), String(invoice.currency)) },
      }]);
    }
    e.data.client = invoice.client;
    e.data.currency = invoice.currency;
  },
  async afterWrite(api, e) {
    if (e.op === 'create') await settle(api, String(e.data.invoice), e.data.paidAt as Date);
  },
  async beforeDelete(api, existing) {
    await api.lock('Invoice', String(existing.invoice));
  },
  async afterDelete(api, existing) {
    await settle(api, String(existing.invoice), null);
  },
};
