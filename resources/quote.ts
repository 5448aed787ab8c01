import { children, date, defineResource, oneOf, ref } from '../engine/descriptor.ts';
import { pdfDocument } from './rules/document-files.ts';
import { billedClient, currencyAndDiscount, documentTotalsPresent, documentComputed, documentNumber, documentTotals, remarks, issuedParties } from './fragments.ts';
import { quoteRules } from './rules/quote.ts';

export default defineResource({
  name: 'Quote',
  plural: 'quotes',
  description: 'An offer to a client; accepting it creates a draft invoice.',
  fields: {
    ...documentNumber('QUO-'),
    ...billedClient,
    status: oneOf(['draft', 'sent', 'accepted', 'declined', 'cancelled'], { default: 'draft', filter: 'exact' }),
    invoiceDate: date({ default: 'today', filter: 'date', order: true, description: 'Date of the quote' }),
    validUntil: date({ notBefore: 'invoiceDate', filter: 'date', order: true }),
    ...currencyAndDiscount,
    ...documentTotals,
    ...issuedParties,
    ...remarks,
    lines: children('QuoteLine', 'quote', { embedded: true, orderBy: 'position' }),
    invoice: ref('Invoice', { readOnly: true, onDelete: 'set null' }),
  },
  operations: { rest: 'all', graphql: 'all' },
  documents: pdfDocument('quote'),
  states: {
    field: 'status',
    initial: 'draft',
    transitions: {
      draft: ['sent', 'cancelled'],
      sent: ['accepted', 'declined', 'cancelled', 'draft'], // accepted creates the invoice (rules/quote.ts)
      declined: ['draft'],
      cancelled: ['draft'],
    },
    // As an invoice: only a draft may change client, lines, discount, number or dates.
    editable: {
      sent: ['validUntil', 'terms', 'notes'],
      accepted: [],
      declined: [],
      cancelled: [],
    },
    deletable: ['draft', 'declined', 'cancelled'],
    actions: {
      sent: { label: 'Mark as sent' },
      accepted: { label: 'Accept', confirm: 'The quote is accepted: a draft invoice is made from it, and the quote can no longer change.' },
      declined: { label: 'Decline' },
      cancelled: { label: 'Cancel quote', confirm: 'The quote is cancelled: it can no longer be accepted unless it goes back to draft.' },
      draft: { label: 'Back to draft' },
    },
  },
  present: {
    title: 'number',
    columns: ['number', 'client', 'status', 'invoiceDate', 'validUntil', 'total'],
    order: { field: 'createdAt', dir: 'desc' },
    currency: { field: 'currency', from: 'client' },
    search: true,
    totals: documentTotalsPresent,
    sections: [
      { label: 'Quote', fields: ['client', 'number', 'invoiceDate', 'validUntil'] },
      { label: 'Discount', fields: ['discountType', 'discountValue'] },
      { label: 'Terms and notes', fields: ['terms', 'notes'] },
    ],
  },
  computed: documentComputed('Quote'),
  events: {
    states: [
      { to: 'sent', from: ['draft'], type: 'quote.sent' },
      { to: 'accepted', type: 'quote.accepted' },
      { to: 'declined', type: 'quote.declined' },
    ],
    // A client link's page was viewed (server/links/; at most once per link and hour).
    emitted: ['quote.viewed'],
  },
  hooks: quoteRules,
});
