// Credit notes (CONTRACT §14): what issuing one does to the invoice it corrects (the invoice's
// `credit` operation, which drafts one, is in credit-invoice.ts). Issuing locks the invoice (FOR UPDATE), so
// concurrent credits and payments on one invoice are serialised and never take its balance below 0.
import { eq } from 'drizzle-orm';
import { amount, ApiError, ViolationCode } from '../../engine/errors.ts';
import type { FieldValues } from '../../engine/types.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { checkBuyerVatOnIssue, keepParties, checkDiscount, copyClientCurrency } from './documents.ts';
import { CREDITABLE } from './credit-invoice.ts';

const violation = (propertyPath: string, message: string, code: string = ViolationCode.rule, extensions?: Record<string, unknown>) =>
  ApiError.validation([extensions ? { propertyPath, message, code, extensions } : { propertyPath, message, code }]);

/** The linked invoice must be the credit note's client's. */
async function checkInvoice(api: HookApi, data: FieldValues): Promise<FieldValues | null> {
  if (data.invoice === null || data.invoice === undefined) return null;
  const invoice = await api.read('Invoice', String(data.invoice));
  if (!invoice) return null; // the reference check has refused it
  if (String(invoice.client) !== String(data.client)) throw violation('invoice', 'The invoice belongs to another client than this credit note.');
  return invoice;
}

export const creditNoteRules: HookSet = {
  create: 'references',
  async beforeWrite(api, e) {
    await copyClientCurrency(api, e);
    checkDiscount(api, e);
    const relinked = !e.existing || e.data.invoice !== e.existing.invoice || e.data.client !== e.existing.client;
    if (relinked) await checkInvoice(api, e.data);
    await checkBuyerVatOnIssue(api, e);
    await keepParties(api, e, ['issued']);
    // Issuing, by an update or by a create in the issued state (which runs in a transaction): the
    // invoice is locked and must be open; the total is checked against its balance in afterWrite,
    // once the credit note's totals are computed (a create computes them after beforeWrite).
    if (e.data.status !== 'issued' || e.existing?.status === 'issued') return;
    if (e.data.invoice === null || e.data.invoice === undefined) return;
    const invoice = await api.lock('Invoice', String(e.data.invoice));
    if (!invoice) return;
    if (!CREDITABLE.includes(String(invoice.status))) {
      throw violation('invoice', `Only a pending or overdue invoice can be credited; this invoice is "${String(invoice.status)}".`, ViolationCode.state);
    }
  },
  async afterWrite(api, e) {
    if (e.data.status !== 'issued' || e.existing?.status === 'issued' || !e.data.invoice) return;
    // The total as written (its lines and discount may have changed in the same write).
    const note = await api.read('CreditNote', e.id);
    const invoice = await api.lock('Invoice', String(e.data.invoice)); // held since beforeWrite: its balance now
    if (!note || !invoice) return;
    const total = Number(note.total);
    if (total > Number(invoice.balance)) {
      const currency = String(invoice.currency);
      throw violation('lines', "The credit note's total, {total}, exceeds the invoice's balance, {balance}.", ViolationCode.range, { total: amount(total, currency), balance: amount(Number(invoice.balance), currency) });
    }
    await applyCredit(api, String(e.data.invoice), total);
  },
};

/** Adds an issued credit note's total to its (locked) invoice; a balance of 0 ends the invoice. */
async function applyCredit(api: HookApi, invoiceId: string, amount: number): Promise<void> {
  const inv = api.table('Invoice');
  const [invoice] = (await api.tx
    .select({ status: inv.status, total: inv.total, amountPaid: inv.amountPaid, amountCredited: inv.amountCredited })
    .from(inv)
    .where(eq(inv.id, invoiceId))) as { status: string; total: number; amountPaid: number; amountCredited: number }[];
  if (!invoice) return;
  const amountCredited = Number(invoice.amountCredited) + amount;
  const balance = Number(invoice.total) - Number(invoice.amountPaid) - amountCredited;
  const set: FieldValues = { amountCredited, balance, updatedAt: new Date() };
  const events = ['invoice.updated'];
  if (balance <= 0) {
    // Settled by credit: paid when it had payments, else cancelled.
    if (Number(invoice.amountPaid) > 0) {
      set.status = 'paid';
      set.paidAt = new Date();
      events.push('invoice.paid');
    } else {
      set.status = 'cancelled';
      events.push('invoice.cancelled');
    }
  }
  await api.tx.update(inv).set(set).where(eq(inv.id, invoiceId));
  await api.emit('Invoice', invoiceId, events);
}
