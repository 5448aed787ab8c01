import { children, date, decimal, defineResource, money, oneOf, ref, text, timestamp } from '../engine/descriptor.ts';
import { computeNewDocument, recomputeDocument } from './rules/documents.ts';
import { invoiceRules } from './rules/invoice.ts';

export default defineResource({
  name: 'Invoice',
  plural: 'invoices',
  description: 'A bill sent to a client. Amounts are integers in the smallest currency unit.',
  fields: {
    number: text({ max: 32, sequence: { prefix: 'INV-', pad: 6 }, unique: 'company', filter: 'partial', order: true }),
    client: ref('Client', { required: true, onDelete: 'restrict', filter: 'exact' }),
    status: oneOf(['draft', 'pending', 'overdue', 'paid', 'cancelled'], { default: 'draft', filter: 'exact' }),
    invoiceDate: date({ default: 'today', filter: 'date', order: true }),
    dueDate: date({ notBefore: 'invoiceDate', filter: 'date', order: true }),
    paidAt: timestamp({ readOnly: true }),
    currency: text({ readOnly: true }),
    discountType: oneOf(['none', 'percentage', 'fixed'], { default: 'none' }),
    discountValue: decimal({ scale: 4, min: 0, default: 0, description: 'A percentage (0–100) or a fixed amount in minor units' }),
    subtotal: money({ readOnly: true }),
    taxTotal: money({ readOnly: true }),
    discountTotal: money({ readOnly: true }),
    total: money({ readOnly: true, order: true }),
    amountPaid: money({ readOnly: true }),
    balance: money({ readOnly: true }),
    terms: text(),
    notes: text(),
    lines: children('InvoiceLine', 'invoice', { embedded: true, orderBy: 'position' }),
    payments: children('Payment', 'invoice'),
    quote: ref('Quote', { readOnly: true, onDelete: 'set null' }),
    recurringInvoice: ref('RecurringInvoice', { readOnly: true, onDelete: 'set null' }),
  },
  operations: { rest: 'all', graphql: 'all' },
  // paid and overdue are reached automatically: by payments (payment.ts) and by schedule:run.
  states: {
    field: 'status',
    initial: 'draft',
    transitions: {
      draft: ['pending', 'cancelled'],
      pending: ['draft', 'cancelled'], // back to draft only without payments (rules/invoice.ts)
      overdue: ['cancelled'],
      cancelled: ['draft'],
    },
    // Only a draft may change client, lines, discount, number or dates.
    editable: {
      pending: ['dueDate', 'terms', 'notes'],
      overdue: ['dueDate', 'terms', 'notes'],
      paid: [],
      cancelled: [],
    },
    deletable: ['draft', 'cancelled'], // and only without payments (the payments' reference)
  },
  computed: {
    fields: ['subtotal', 'taxTotal', 'discountTotal', 'total', 'balance'],
    on: ['lines', 'discountType', 'discountValue', 'client', 'status'],
    compute: (api, id) => recomputeDocument(api, 'Invoice', id),
    computeNew: computeNewDocument,
  },
  // One invoice per recurring invoice and run date, whatever runs schedule:run at the same time.
  unique: [{ fields: ['recurringInvoice', 'invoiceDate'], message: 'This recurring invoice already has an invoice for this date.' }],
  // invoice.paid comes from payments (rules/payment.ts), invoice.overdue from schedule:run.
  events: {
    states: [{ to: 'pending', from: ['draft'], type: 'invoice.sent' }, { to: 'cancelled', type: 'invoice.cancelled' }],
    emitted: ['invoice.paid', 'invoice.overdue'],
  },
  hooks: invoiceRules,
});
