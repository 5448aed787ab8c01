import { defineResource, money, oneOf, ref, text, timestamp } from '../engine/descriptor.ts';
import { paymentRules } from './rules/payment.ts';

export default defineResource({
  name: 'Payment',
  plural: 'payments',
  description: 'Money received against a pending or overdue invoice. Deleting a payment voids it.',
  fields: {
    invoice: ref('Invoice', { required: true, writeOnce: true, onDelete: 'restrict', filter: 'exact' }),
    client: ref('Client', { readOnly: true, onDelete: 'restrict', filter: 'exact' }),
    amount: money({ required: true, writeOnce: true, min: 1 }),
    currency: text({ readOnly: true }),
    method: oneOf(['cash', 'bank_transfer', 'card', 'check', 'other'], { default: 'other', filter: 'exact' }),
    reference: text({ max: 255 }),
    notes: text(),
    paidAt: timestamp({ default: 'now', writeOnce: true, filter: 'date', order: true }),
  },
  updatable: ['method', 'reference', 'notes'],
  operations: { rest: ['list', 'read', 'create', 'update', 'delete'], graphql: ['query', 'create'] },
  events: { deleted: ['payment.voided'] },
  present: {
    title: 'reference',
    columns: ['reference', 'invoice', 'client', 'method', 'paidAt', 'amount'],
    order: { field: 'createdAt', dir: 'desc' },
    currency: { field: 'currency', from: 'invoice' },
  },
  hooks: paymentRules,
});
