import { defineResource, ref, text } from '../engine/descriptor.ts';

export default defineResource({
  name: 'Contact',
  plural: 'contacts',
  description: 'A person at a client.',
  fields: {
    client: ref('Client', { required: true, onDelete: 'cascade', filter: 'exact' }),
    firstName: text({ required: true, max: 100, filter: 'partial' }),
    lastName: text({ max: 100, filter: 'partial' }),
    email: text({ required: true, format: 'email', max: 255, filter: 'partial' }),
    phone: text({ max: 50 }),
  },
  operations: { rest: 'all', graphql: 'all' },
  present: { title: 'email', columns: ['email', 'client', 'firstName', 'lastName'] },
});
