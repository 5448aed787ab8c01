import { decimal, defineResource, integer, money, oneOf, ref, text } from '../engine/descriptor.ts';
import { lineRules } from './rules/lines.ts';

export default defineResource({
  name: 'InvoiceLine',
  plural: 'invoiceLines',
  description: 'One line of an invoice; every change recomputes the invoice.',
  fields: {
    invoice: ref('Invoice', { required: true, writeOnce: true, onDelete: 'cascade', filter: 'exact' }),
    description: text({ required: true, max: 1000 }),
    qty: decimal({ scale: 4, above: 0, default: 1 }),
    price: money({ required: true }),
    tax: ref('Tax', { onDelete: 'restrict' }),
    position: integer({ min: 0, order: true, description: 'Order within the document; appended at the end when omitted' }),
    total: money({ readOnly: true, description: 'round(price × qty)' }),
    taxRate: decimal({ scale: 4, readOnly: true, description: 'The tax rate this line was computed with; kept once the document leaves draft' }),
    taxType: oneOf(['exclusive', 'inclusive'], { readOnly: true, description: 'The tax type this line was computed with; kept once the document leaves draft' }),
  },
  operations: { rest: 'none', graphql: 'all' },
  hooks: lineRules,
});
