import { children, date, defineResource, money, oneOf, ref, text, timestamp } from '../engine/descriptor.ts';
import { pdfDocument, ublDocument } from './rules/document-files.ts';
import { billedClient, currencyAndDiscount, documentComputed, documentNumber, documentTotals, remarks } from './fragments.ts';
import { invoiceRules } from './rules/invoice.ts';
import { dashboard } from './rules/dashboard.ts';
import { creditOperation } from './rules/credit-note.ts';

export default defineResource({
  name: 'Invoice',
  plural: 'invoices',
  description: 'A bill sent to a client. Amounts are integers in the smallest currency unit.',
  fields: {
    ...documentNumber('INV-'),
    ...billedClient,
    status: oneOf(['draft', 'pending', 'overdue', 'paid', 'cancelled'], { default: 'draft', filter: 'exact' }),
    invoiceDate: date({ default: 'today', filter: 'date', order: true }),
    dueDate: date({ notBefore: 'invoiceDate', filter: 'date', order: true }),
    paidAt: timestamp({ readOnly: true }),
    ...currencyAndDiscount,
    ...documentTotals,
    amountPaid: money({ readOnly: true }),
    amountCredited: money({ readOnly: true, description: 'Σ total of the issued credit notes linked to this invoice' }),
    balance: money({ readOnly: true, description: 'total − amountPaid − amountCredited' }),
    ...remarks,
    buyerReference: text({ max: 200, description: "BT-10, the buyer's reference (a Leitweg-ID for German public buyers) on this invoice's e-invoice; when empty, the client's" }),
    lines: children('InvoiceLine', 'invoice', { embedded: true, orderBy: 'position' }),
    payments: children('Payment', 'invoice'),
    creditNotes: children('CreditNote', 'invoice'),
    quote: ref('Quote', { readOnly: true, onDelete: 'set null' }),
    recurringInvoice: ref('RecurringInvoice', { readOnly: true, onDelete: 'set null' }),
  },
  // The web application's dashboard (CONTRACT §17) is a collection operation like any other.
  operations: { rest: 'all', graphql: 'all', collection: { dashboard }, item: { credit: creditOperation } },
  documents: { ...pdfDocument('invoice'), ...ublDocument('invoice') },
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
  computed: documentComputed('Invoice', 'balance'),
  // One invoice per recurring invoice and run date, whatever runs schedule:run at the same time.
  unique: [{ fields: ['recurringInvoice', 'invoiceDate'], message: 'This recurring invoice already has an invoice for this date.' }],
  // invoice.paid comes from payments (rules/payment.ts), invoice.overdue from schedule:run,
  // invoice.viewed from a client link's page (at most once per link and hour).
  events: {
    states: [{ to: 'pending', from: ['draft'], type: 'invoice.sent' }, { to: 'cancelled', type: 'invoice.cancelled' }],
    emitted: ['invoice.paid', 'invoice.overdue', 'invoice.viewed'], // viewed: its client link's page (server/links/)
  },
  hooks: invoiceRules,
});
