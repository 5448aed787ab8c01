import { decimal, defineResource, integer, money, oneOf, ref, text } from '../engine/descriptor.ts';
import { lineRules } from './rules/lines.ts';

export default defineResource({
  name: 'QuoteLine',
  plural: 'quoteLines',
  description: 'One line of a quote; every change recomputes the quote.',
  fields: {
    quote: ref('Quote', { required: true, writeOnce: true, onDelete: 'cascade', filter: 'exact' }),
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
