import { children, date, defineResource, money, oneOf, ref, text, timestamp } from '../engine/descriptor.ts';
import { pdfDocument, ublDocument } from './rules/document-files.ts';
import { billedClient, currencyAndDiscount, documentTotalsPresent, documentComputed, documentNumber, documentTotals, remarks, issuedParties } from './fragments.ts';
import { invoiceRules } from './rules/invoice.ts';
import { dashboard } from './rules/dashboard.ts';
import { creditOperation } from './rules/credit-invoice.ts';

export default defineResource({
  name: 'Invoice',
  plural: 'invoices',
  description: 'A bill sent to a client. Amounts are integers in the smallest currency unit.',
  fields: {
    ...documentNumber('INV-'),
    ...billedClient,
    status: oneOf(['draft', 'pending', 'overdue', 'paid', 'cancelled'], { default: 'draft', filter: 'exact' }),
    invoiceDate: date({ default: 'today', filter: 'date', order: true }),
    dueDate: date({ notBefore: 'invoiceDate', filter: 'date', order: true, present: { defaultFrom: { company: 'defaultDueDays', addDaysTo: 'invoiceDate' } } }),
    paidAt: timestamp({ readOnly: true }),
    ...currencyAndDiscount,
    ...documentTotals,
    amountPaid: money({ readOnly: true }),
    amountCredited: money({ readOnly: true, description: 'Σ total of the issued credit notes linked to this invoice' }),
    balance: money({ readOnly: true, description: 'total − amountPaid − amountCredited' }),
    ...issuedParties,
    ...remarks,
    buyerReference: text({ max: 200, description: "BT-10, the buyer's reference (a Leitweg-ID for German public buyers) on this invoice's e-invoice; when empty, the client's" }),
    lines: children('InvoiceLine', 'invoice', { embedded: true, orderBy: 'position' }),
    // Payments and credit notes are made from an issued invoice only (rules/payment.ts, credit-note.ts).
    payments: children('Payment', 'invoice', { present: { addWhen: { status: { in: ['pending', 'overdue'] } } } }),
    creditNotes: children('CreditNote', 'invoice', { present: { addWhen: { status: { in: ['pending', 'overdue'] } } } }),
    quote: ref('Quote', { readOnly: true, onDelete: 'set null' }),
    recurringInvoice: ref('RecurringInvoice', { readOnly: true, onDelete: 'set null' }),
  },
  // The web application's dashboard (CONTRACT §17) is a collection operation like any other.
  operations: { rest: 'all', graphql: 'all', collection: { dashboard: { ...dashboard, present: { view: 'dashboard' } } }, item: { credit: creditOperation } },
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
    deleteWhen: { amountPaid: { eq: 0 }, amountCredited: { eq: 0 } }, // payments and credit notes refer to it (restrict)
    // rules/invoice.ts: back to draft only without payments or issued credit notes.
    guards: [{ to: 'draft', when: { amountPaid: { eq: 0 }, amountCredited: { eq: 0 } }, because: 'An invoice with payments or issued credit notes cannot go back to draft.' }],
    actions: {
      pending: { label: 'Issue', confirm: 'The invoice is issued: it is owed from now on, and its client, lines and amounts can no longer change.' },
      cancelled: { label: 'Cancel invoice', confirm: 'The invoice is cancelled: it is no longer owed, and nothing can be paid on it.' },
      draft: { label: 'Back to draft' },
    },
  },
  present: {
    title: 'number',
    columns: ['number', 'client', 'status', 'invoiceDate', 'dueDate', 'total', 'balance'],
    order: { field: 'createdAt', dir: 'desc' },
    currency: { field: 'currency', from: 'client' },
    search: true,
    totals: documentTotalsPresent,
    sections: [
      { label: 'Invoice', fields: ['client', 'number', 'invoiceDate', 'dueDate'] },
      { label: 'Discount', fields: ['discountType', 'discountValue'] },
      { label: 'Terms and notes', fields: ['terms', 'notes'] },
    ],
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
