import { date, defineResource, integer, list, oneOf, ref } from '../engine/descriptor.ts';
import { billedClient, currencyAndDiscount, documentTotals, lineInput, remarks } from './fragments.ts';
import { recomputeTemplate } from './rules/documents.ts';
import { recurringRules } from './rules/recurring.ts';

export default defineResource({
  name: 'RecurringInvoice',
  plural: 'recurringInvoices',
  description: 'A template that issues a pending invoice every `interval` × `frequency`.',
  fields: {
    ...billedClient,
    status: oneOf(['draft', 'active', 'paused', 'cancelled', 'completed'], { default: 'draft', filter: 'exact', description: 'completed is set by schedule:run after endDate' }),
    frequency: oneOf(['daily', 'weekly', 'monthly', 'yearly'], { required: true, filter: 'exact' }),
    interval: integer({ min: 1, max: 1000, default: 1 }),
    startDate: date({ required: true, filter: 'date', order: true }),
    endDate: date({ notBefore: 'startDate', filter: 'date' }),
    nextRunDate: date({ readOnly: true, filter: 'date', order: true, description: 'startDate + n × interval × frequency; null once completed' }),
    lastRunDate: date({ readOnly: true }),
    dueInDays: integer({ min: 0, max: 3650, default: 14 }),
    ...currencyAndDiscount,
    ...documentTotals,
    ...remarks,
    lines: list({ ...lineInput, tax: ref('Tax') }),
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
    actions: {
      active: { label: 'Activate' },
      paused: { label: 'Pause' },
      cancelled: { label: 'Cancel', confirm: 'The recurring invoice is cancelled for good: it makes no more invoices.' },
    },
  },
  computed: {
    fields: ['subtotal', 'taxTotal', 'discountTotal', 'total', 'taxGroups'],
    on: ['lines', 'discountType', 'discountValue'],
    compute: (api, id) => recomputeTemplate(api, id),
  },
  events: { emitted: ['recurring_invoice.issued'] }, // by schedule:run (rules/schedule.ts)
  present: {
    columns: ['client', 'status', 'frequency', 'startDate', 'endDate', 'nextRunDate', 'total'],
    order: { field: 'createdAt', dir: 'desc' },
    currency: { field: 'currency', from: 'client' },
  },
  hooks: recurringRules,
});
