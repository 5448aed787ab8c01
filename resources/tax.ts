import { decimal, defineResource, oneOf, text } from '../engine/descriptor.ts';
import { taxRules } from './rules/tax.ts';
import { TAX_CATEGORIES } from './rules/totals.ts';

export default defineResource({
  name: 'Tax',
  plural: 'taxes',
  description: 'A tax rate applied to lines, exclusive (added) or inclusive (contained in the price).',
  fields: {
    name: text({ required: true, max: 32, unique: 'company', filter: 'partial', order: true }),
    rate: decimal({ required: true, scale: 4, min: 0, max: 100, description: 'Percentage, at most 4 decimals' }),
    type: oneOf(['exclusive', 'inclusive'], { default: 'exclusive', filter: 'exact' }),
    category: oneOf(TAX_CATEGORIES, {
      filter: 'exact',
      description: 'VAT category (EN 16931): S standard (rate above 0), Z zero rated, E exempt, AE reverse charge, K intra-community supply, G export outside the EU, O not subject to VAT (Z…O have rate 0). Default: S above 0 %, else Z',
    }),
    exemptionReasonCode: text({ max: 30, description: 'VATEX code of the exemption, e.g. VATEX-EU-AE, VATEX-EU-IC, VATEX-EU-G, VATEX-EU-O, VATEX-EU-132; E, AE, K, G and O need it or exemptionReason' }),
    exemptionReason: text({ max: 300, description: 'Why no VAT is charged, printed on documents, e.g. "Reverse charge: VAT to be accounted for by the recipient"' }),
  },
  operations: { rest: 'all', graphql: 'all' },
  hooks: taxRules,
});
