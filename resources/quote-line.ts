import { decimal, defineResource, integer, money, ref, text } from '../engine/descriptor.ts';
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
    position: integer({ min: 0, default: 0, order: true }),
    total: money({ readOnly: true }),
  },
  operations: { rest: 'none', graphql: 'all' },
  hooks: lineRules,
});
