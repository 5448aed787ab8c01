import { children, date, decimal, defineResource, money, oneOf, ref, text } from '../engine/descriptor.ts';
import { computeNewDocument, recomputeDocument } from './rules/documents.ts';
import { quoteRules } from './rules/quote.ts';

export default defineResource({
  name: 'Quote',
  plural: 'quotes',
  description: 'An offer to a client; accepting it creates a draft invoice.',
  fields: {
    number: text({ max: 32, sequence: { prefix: 'QUO-', pad: 6 }, unique: 'company', filter: 'partial', order: true }),
    client: ref('Client', { required: true, onDelete: 'restrict', filter: 'exact' }),
    status: oneOf(['draft', 'sent', 'accepted', 'declined', 'cancelled'], { default: 'draft', filter: 'exact' }),
    invoiceDate: date({ default: 'today', filter: 'date', order: true, description: 'Date of the quote' }),
    validUntil: date({ notBefore: 'invoiceDate', filter: 'date', order: true }),
    currency: text({ readOnly: true }),
    discountType: oneOf(['none', 'percentage', 'fixed'], { default: 'none' }),
    discountValue: decimal({ scale: 4, min: 0, default: 0, description: 'A percentage (0–100) or a fixed amount in minor units' }),
    subtotal: money({ readOnly: true }),
    taxTotal: money({ readOnly: true }),
    discountTotal: money({ readOnly: true }),
    total: money({ readOnly: true, order: true }),
    terms: text(),
    notes: text(),
    lines: children('QuoteLine', 'quote', { embedded: true, orderBy: 'position' }),
    invoice: ref('Invoice', { readOnly: true, onDelete: 'set null' }),
  },
  operations: { rest: 'all', graphql: 'all' },
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
  },
  computed: {
    fields: ['subtotal', 'taxTotal', 'discountTotal', 'total'],
    on: ['lines', 'discountType', 'discountValue', 'client', 'status'],
    compute: (api, id) => recomputeDocument(api, 'Quote', id),
    computeNew: computeNewDocument,
  },
  events: {
    states: [
      { to: 'sent', from: ['draft'], type: 'quote.sent' },
      { to: 'accepted', type: 'quote.accepted' },
      { to: 'declined', type: 'quote.declined' },
    ],
  },
  hooks: quoteRules,
});
