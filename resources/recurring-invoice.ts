import { date, decimal, defineResource, integer, list, money, oneOf, ref, text } from '../engine/descriptor.ts';
import { recomputeTemplate } from './rules/documents.ts';
import { recurringRules } from './rules/recurring.ts';

export default defineResource({
  name: 'RecurringInvoice',
  plural: 'recurringInvoices',
  description: 'A template that issues a pending invoice every `interval` × `frequency`.',
  fields: {
    client: ref('Client', { required: true, onDelete: 'restrict', filter: 'exact' }),
    status: oneOf(['draft', 'active', 'paused', 'cancelled', 'completed'], { default: 'draft', filter: 'exact', description: 'completed is set by schedule:run after endDate' }),
    frequency: oneOf(['daily', 'weekly', 'monthly', 'yearly'], { required: true, filter: 'exact' }),
    interval: integer({ min: 1, max: 1000, default: 1 }),
    startDate: date({ required: true, filter: 'date', order: true }),
    endDate: date({ notBefore: 'startDate', filter: 'date' }),
    nextRunDate: date({ readOnly: true, filter: 'date', order: true, description: 'startDate + n × interval × frequency; null once completed' }),
    lastRunDate: date({ readOnly: true }),
    dueInDays: integer({ min: 0, max: 3650, default: 14 }),
    currency: text({ readOnly: true }),
    discountType: oneOf(['none', 'percentage', 'fixed'], { default: 'none' }),
    discountValue: decimal({ scale: 4, min: 0, default: 0, description: 'A percentage (0–100) or a fixed amount in minor units' }),
    subtotal: money({ readOnly: true }),
    taxTotal: money({ readOnly: true }),
    discountTotal: money({ readOnly: true }),
    total: money({ readOnly: true, order: true }),
    terms: text(),
    notes: text(),
    lines: list({
      description: text({ required: true, max: 1000 }),
      qty: decimal({ scale: 4, above: 0, default: 1 }),
      price: money({ required: true }),
      tax: ref('Tax'),
    }),
  },
  operations: { rest: 'all', graphql: 'all' },
  states: {
    field: 'status',
    initial: 'draft',
    transitions: {
      draft: ['active', 'cancelled'],
      active: ['paused', 'cancelled'],
      paused: ['active', 'cancelled'],
    },
  },
  computed: {
    fields: ['subtotal', 'taxTotal', 'discountTotal', 'total'],
    on: ['lines', 'discountType', 'discountValue'],
    compute: (api, id) => recomputeTemplate(api, id),
  },
  events: { emitted: ['recurring_invoice.issued'] }, // by schedule:run (rules/schedule.ts)
  hooks: recurringRules,
});
