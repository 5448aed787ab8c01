// The invoice's `credit` operation (CONTRACT §14, §20 "Credit asks what to credit"): a draft
// credit note linked to a pending or overdue invoice, for its whole balance, for chosen lines (and
// quantities of them), or for an amount. Everything is checked before the draft is kept; a refusal
// is a 422 naming the member (`lines[0].quantity`, `amount`) and, since the operation runs in one
// transaction, changes nothing.
import { Type } from '@sinclair/typebox';
import { amount as money, ApiError, ViolationCode, type Violation } from '../../engine/errors.ts';
import type { FieldValues } from '../../engine/types.ts';
import type { HookApi } from '../../engine/hooks.ts';
import type { OperationDescriptor } from '../../engine/descriptor.ts';
import { divRound, partDiscount, scaled, SCALE, splitFixed, type DiscountType, type LineInput } from './totals.ts';

export const CREDITABLE = ['pending', 'overdue'];

const violation = (propertyPath: string, message: string, code: string = ViolationCode.rule, extensions?: Record<string, unknown>) =>
  ApiError.validation([extensions ? { propertyPath, message, code, extensions } : { propertyPath, message, code }]);

/** What to credit: nothing (the whole balance), `lines`, or `amount`. */
export const CreditInput = Type.Object(
  {
    lines: Type.Optional(
      Type.Array(
        Type.Object(
          {
            line: Type.String({ maxLength: 200, description: "One of this invoice's lines: its IRI (`@id`) or its id" }),
            quantity: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { description: "How much of it to credit, a decimal like the line's quantity (\"1.5\"), above 0 and at most the line's; the whole line when omitted" })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 500, description: "Credit these lines of the invoice (their description, unit price and tax), each at its quantity; not with `amount`" },
      ),
    ),
    amount: Type.Optional(Type.Integer({ minimum: 1, description: "Credit this amount (minor units, at most the invoice's balance), split over the invoice's tax groups as the whole balance is; not with `lines`" })),
  },
  { additionalProperties: false, description: "What to credit: the invoice's whole balance when neither `lines` nor `amount` is given" },
);

interface Input {
  lines?: { line: string; quantity?: string | number }[];
  amount?: number;
}

/** A decimal quantity as text ("1.5") of at most SCALE places, scaled; null when it is not one. */
function quantityOf(v: string | number): bigint | null {
  const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v.trim();
  if (!new RegExp(`^\\d{1,12}(\\.\\d{1,${SCALE}})?$`).test(text)) return null;
  return scaled(text);
}
const decimalText = (n: bigint) => {
  const s = n.toString().padStart(SCALE + 1, '0');
  return `${s.slice(0, -SCALE)}.${s.slice(-SCALE)}`.replace(/\.?0+$/, '');
};

/**
 * Drafts the credit note for `invoiceId` (CONTRACT §14): the whole balance with no input — its
 * lines and discount when nothing was paid or credited yet, else the balance over its tax groups —,
 * the chosen `lines`, or an `amount` over the tax groups. The draft's total is at most the balance.
 */
export async function creditInvoice(api: HookApi, invoiceId: string, input: Input = {}, lineIri?: (id: string) => string): Promise<FieldValues> {
  const invoice = await api.lock('Invoice', invoiceId);
  if (!invoice) throw ApiError.notFound();
  if (!CREDITABLE.includes(String(invoice.status))) {
    throw violation('status', `Only a pending or overdue invoice can be credited; this invoice is "${String(invoice.status)}".`, ViolationCode.state);
  }
  if (input.lines !== undefined && input.amount !== undefined) {
    throw ApiError.validation(['lines', 'amount'].map((p) => ({ propertyPath: p, message: 'Give either lines or an amount to credit, not both.', code: ViolationCode.rule })));
  }
  const full = (await api.read('Invoice', invoiceId))!;
  const balance = Number(invoice.balance);
  const currency = String(invoice.currency);
  const base = { client: invoice.client, invoice: invoiceId, reason: `Credit for invoice ${String(invoice.number)}` };
  const invoiceLines = (full.lines as FieldValues[]) ?? [];
  if (input.amount !== undefined) {
    if (input.amount > balance) {
      throw violation('amount', "The amount to credit, {amount}, exceeds the invoice's balance, {balance}.", ViolationCode.range, { amount: money(input.amount, currency), balance: money(balance, currency) });
    }
    return api.create('CreditNote', { ...base, lines: overGroups(full, input.amount) });
  }
  if (input.lines !== undefined) {
    const { lines, discountType, discountValue } = chosenLines(invoiceLines, input.lines, full, lineIri);
    const note = await api.create('CreditNote', { ...base, discountType, discountValue, lines });
    if (Number(note.total) > balance) {
      throw violation('lines', "The credit's total, {total}, exceeds the invoice's balance, {balance}.", ViolationCode.range, { total: money(Number(note.total), currency), balance: money(balance, currency) });
    }
    return note;
  }
  if (Number(invoice.amountPaid) === 0 && Number(invoice.amountCredited ?? 0) === 0) {
    const lines = invoiceLines.map((l, i) => ({ description: l.description, qty: l.qty, price: l.price, tax: l.tax, position: i }));
    return api.create('CreditNote', { ...base, discountType: invoice.discountType, discountValue: invoice.discountValue, lines });
  }
  // Part of it is settled: the balance over the tax groups.
  return api.create('CreditNote', { ...base, lines: overGroups(full, balance) });
}

/**
 * The chosen lines as credit note lines (description, unit price, tax; the quantity asked for, or
 * the line's), with the invoice's discount: its percentage, or the share of its fixed amount that
 * the credited lines' net bears of the invoice's subtotal. Refuses, naming the member, a line that
 * is not one of the invoice's (or named twice) and a quantity that is not above 0 and at most the line's.
 */
function chosenLines(invoiceLines: FieldValues[], chosen: NonNullable<Input['lines']>, invoice: FieldValues, lineIri?: (id: string) => string) {
  if (!chosen.length) throw violation('lines', 'Choose at least one line to credit.', ViolationCode.blank);
  const problems: Violation[] = [];
  const seen = new Set<string>();
  const lines: FieldValues[] = [];
  const inputs: LineInput[] = [];
  chosen.forEach((c, i) => {
    const line = invoiceLines.find((l) => c.line === String(l.id) || c.line === lineIri?.(String(l.id)));
    if (!line) return void problems.push({ propertyPath: `lines[${i}].line`, message: 'This is not a line of this invoice.', code: ViolationCode.rule });
    if (seen.has(String(line.id))) return void problems.push({ propertyPath: `lines[${i}].line`, message: 'This line is chosen twice: name it once, with the quantity to credit.', code: ViolationCode.rule });
    seen.add(String(line.id));
    const whole = scaled(line.qty as string | number);
    let qty = whole;
    if (c.quantity !== undefined) {
      const q = quantityOf(c.quantity);
      if (q === null) return void problems.push({ propertyPath: `lines[${i}].quantity`, message: `This should be a decimal number with at most ${SCALE} decimals, such as "1.5".`, code: ViolationCode.format });
      if (q <= 0n) return void problems.push({ propertyPath: `lines[${i}].quantity`, message: 'The quantity to credit should be above 0.', code: ViolationCode.range });
      if (q > whole) return void problems.push({ propertyPath: `lines[${i}].quantity`, message: `The quantity to credit, ${decimalText(q)}, exceeds the line's, ${decimalText(whole)}.`, code: ViolationCode.range, extensions: { quantity: decimalText(q), lineQuantity: decimalText(whole) } });
      qty = q;
    }
    lines.push({ description: line.description, qty: Number(decimalText(qty)), price: line.price, tax: line.tax ?? null, position: lines.length });
    inputs.push({ price: Number(line.price), qty: decimalText(qty), tax: line.taxRate === null || line.taxRate === undefined || !line.tax ? null : { rate: line.taxRate as string, type: (line.taxType ?? 'exclusive') as 'exclusive' } });
  });
  if (problems.length) throw ApiError.validation(problems);
  const d = partDiscount({ type: String(invoice.discountType ?? 'none') as DiscountType, value: invoice.discountValue as number }, inputs, Number(invoice.subtotal));
  return { lines, discountType: d.type, discountValue: d.value };
}

/**
 * `amount` over the invoice's tax groups in proportion to their taxable + tax (the fixed-discount
 * split of §6): one line per group with the largest net n whose n + round(n × rate / 100) fits its
 * share, and a line without tax for the units left.
 */
function overGroups(full: FieldValues, amount: number): FieldValues[] {
  const groups = ((full.taxGroups as FieldValues[]) ?? []).map((g) => ({ rate: scaled(g.rate as number), weight: BigInt(Number(g.taxable) + Number(g.tax)) }));
  const shares = splitFixed(BigInt(amount), groups.map((g) => (g.weight > 0n ? g.weight : 0n)), groups.map((g) => g.rate));
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
  const left = BigInt(amount) - covered;
  if (left > 0n) lines.push({ description: 'Credit (rounding)', qty: 1, price: Number(left), tax: null, position: lines.length });
  return lines;
}

/**
 * The invoice's `credit` operation (CONTRACT §14): `POST /api/invoices/<id>/credit` and GraphQL
 * `creditInvoice(input: {id, lines, amount})`, answering 201 with the draft credit note, made in
 * the operation's transaction through the engine (validation, numbering, events).
 */
export const creditOperation: OperationDescriptor = {
  method: 'POST',
  path: 'credit',
  summary: "Drafts a credit note for a pending or overdue invoice: its whole balance (its lines and discount when nothing was paid or credited yet), chosen lines and quantities, or an amount",
  description:
    "With no body (or `{}`), the whole balance. `lines`: those lines of the invoice (`{line, quantity?}`), with the invoice's discount (a percentage as is, a fixed amount in proportion). `amount`: that many minor units, split over the invoice's tax groups. Both, a line not of this invoice, a quantity not above 0 or above the line's, an amount or a total above the balance: 422 naming the member, nothing written.",
  operationId: 'api_invoices_credit',
  status: 201,
  input: CreditInput,
  output: { record: 'CreditNote' },
  graphql: 'creditInvoice',
  when: { status: { in: CREDITABLE }, balance: { gt: 0 } },
  present: { label: 'Credit', view: 'credit', whole: 'balance', confirm: 'A draft credit note is made; issuing it then reduces the invoice’s balance.' },
  run: async (ctx) => {
    const lineResource = ctx.model.find('InvoiceLine');
    const note = await creditInvoice(ctx.api!, String(ctx.record!.id), (ctx.input ?? {}) as Input, lineResource ? (id) => `${lineResource.iri}/${id}` : undefined);
    return (await ctx.api!.read('CreditNote', String(note.id)))!;
  },
};
