import { defineResource, ref, text } from '../engine/descriptor.ts';
import { countryName } from './rules/countries.ts';

export default defineResource({
  name: 'Address',
  plural: 'addresses',
  description: 'A postal address of a client.',
  fields: {
    client: ref('Client', { required: true, onDelete: 'cascade', filter: 'exact' }),
    street1: text({ max: 255 }),
    street2: text({ max: 255 }),
    city: text({ max: 100 }),
    state: text({ max: 100 }),
    zip: text({ max: 20 }),
    country: text({ format: 'country', filter: 'exact', description: 'ISO 3166-1 alpha-2 code' }),
    countryName: text({ derive: { from: 'country', fn: countryName } }),
  },
  operations: { rest: 'all', graphql: 'all' },
  present: { title: 'street1', columns: ['street1', 'client', 'country', 'street2'] },
});
