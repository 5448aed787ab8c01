// Credit notes (CONTRACT §14): what issuing one does to the invoice it corrects, and the `credit`
// operation that drafts one for an invoice's balance. Issuing locks the invoice (FOR UPDATE), so
// concurrent credits and payments on one invoice are serialised and never take its balance below 0.
import { eq } from 'drizzle-orm';
import { amount, ApiError, ViolationCode } from '../../engine/errors.ts';
import type { FieldValues } from '../../engine/types.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import type { OperationDescriptor } from '../../engine/descriptor.ts';
import { checkBuyerVatOnIssue, keepParties, checkDiscount, copyClientCurrency } from './documents.ts';
import { divRound, scaled, splitFixed } from './totals.ts';

const CREDITABLE = ['pending', 'overdue'];

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

/**
 * The `credit` operation on an invoice (CONTRACT §14): a draft credit note for the invoice's whole
 * balance, linked to it. With nothing paid or credited yet, it repeats the invoice's lines and
 * discount; otherwise the balance is split over the invoice's tax groups in proportion to their
 * taxable + tax (the fixed-discount split of §6), one line per group with the largest net n whose
 * n + round(n × rate / 100) fits its share, and a line without tax for the units left.
 *
 * Written as a function over the hook API, so that it becomes the processor of a declared
 * operation once descriptors can declare operations.
 */
export async function creditInvoice(api: HookApi, invoiceId: string): Promise<FieldValues> {
  const invoice = await api.lock('Invoice', invoiceId);
  if (!invoice) throw ApiError.notFound();
  if (!CREDITABLE.includes(String(invoice.status))) {
    throw violation('status', `Only a pending or overdue invoice can be credited; this invoice is "${String(invoice.status)}".`, ViolationCode.state);
  }
  const full = (await api.read('Invoice', invoiceId))!;
  const balance = Number(invoice.balance);
  const base = { client: invoice.client, invoice: invoiceId, reason: `Credit for invoice ${String(invoice.number)}` };
  if (Number(invoice.amountPaid) === 0 && Number(invoice.amountCredited ?? 0) === 0) {
    const lines = ((full.lines as FieldValues[]) ?? []).map((l, i) => ({ description: l.description, qty: l.qty, price: l.price, tax: l.tax, position: i }));
    return api.create('CreditNote', { ...base, discountType: invoice.discountType, discountValue: invoice.discountValue, lines });
  }
  // Part of it is settled: the balance over the tax groups.
  const groups = ((full.taxGroups as FieldValues[]) ?? []).map((g) => ({ rate: scaled(g.rate as number), weight: BigInt(Number(g.taxable) + Number(g.tax)) }));
  const shares = splitFixed(BigInt(balance), groups.map((g) => (g.weight > 0n ? g.weight : 0n)), groups.map((g) => g.rate));
  // A tax of the invoice's lines at each rate (an exclusive one), to name on the credit's lines.
  const taxAt = new Map<bigint, unknown>();
  for (const l of (full.lines as FieldValues[]) ?? []) {
    if (l.tax && l.taxRate !== null && l.taxType === 'exclusive' && !taxAt.has(scaled(l.taxRate as string))) taxAt.set(scaled(l.taxRate as string), l.tax);
  }
  const lines: FieldValues[] = [];
  let covered = 0n;
  groups.forEach((g, i) => {
    const share = shares[i]!;
    if (share <= 0n) return;
    const tax = g.rate === 0n ? null : taxAt.get(g.rate);
    if (g.rate !== 0n && tax === undefined) return; // no exclusive tax at this rate to name: left to the untaxed line
    // The largest n with n + round(n × rate / 100) ≤ share.
    let n = g.rate === 0n ? share : (share * 1_000_000n) / (1_000_000n + g.rate);
    const gross = (x: bigint) => x + (g.rate === 0n ? 0n : divRound(x * g.rate, 1_000_000n));
    while (n > 0n && gross(n) > share) n--;
    while (gross(n + 1n) <= share) n++;
    if (n <= 0n) return;
    lines.push({ description: `Credit at ${Number(g.rate) / 10_000}%`, qty: 1, price: Number(n), tax: tax ?? null, position: lines.length });
    covered += gross(n);
  });
  const left = BigInt(balance) - covered;
  if (left > 0n) lines.push({ description: 'Credit (rounding)', qty: 1, price: Number(left), tax: null, position: lines.length });
  return api.create('CreditNote', { ...base, lines });
}

/**
 * The invoice's `credit` operation (CONTRACT §14): `POST /api/invoices/<id>/credit` and GraphQL
 * `creditInvoice(input: {id})`, answering 201 with the draft credit note for the invoice's
 * balance, made in the operation's transaction through the engine (validation, numbering, events).
 */
export const creditOperation: OperationDescriptor = {
  method: 'POST',
  path: 'credit',
  summary: "Drafts a credit note for a pending or overdue invoice's whole balance (its lines and discount when nothing was paid or credited yet)",
  operationId: 'api_invoices_credit',
  status: 201,
  output: { record: 'CreditNote' },
  graphql: 'creditInvoice',
  when: { status: { in: CREDITABLE }, balance: { gt: 0 } },
  present: { label: 'Credit', confirm: 'A draft credit note for the invoice’s whole balance is made; issuing it then reduces the balance.' },
  run: async (ctx) => {
    const note = await creditInvoice(ctx.api!, String(ctx.record!.id));
    return (await ctx.api!.read('CreditNote', String(note.id)))!;
  },
};
