import { decimal, defineResource, oneOf, text } from '../engine/descriptor.ts';
import { taxRules } from './rules/tax.ts';

export default defineResource({
  name: 'Tax',
  plural: 'taxes',
  description: 'A tax rate applied to lines, exclusive (added) or inclusive (contained in the price).',
  fields: {
    name: text({ required: true, max: 32, unique: 'company', filter: 'partial', order: true }),
    rate: decimal({ required: true, scale: 4, min: 0, max: 100, description: 'Percentage, at most 4 decimals', present: { unit: 'percent', help: 'A percentage, such as 19 or 7,5.' } }),
    type: oneOf(['exclusive', 'inclusive'], { default: 'exclusive', filter: 'exact' }),
  },
  operations: { rest: 'all', graphql: 'all' },
  present: { title: 'name', columns: ['name', 'type', 'rate'] },
  hooks: taxRules,
});
