// Reports (CONTRACT §21): revenue, tax and aging, as declared collection operations of a resource
// that stores nothing, so that each is a part of /api like any other (REST `/api/reports/<name>`,
// GraphQL `revenueReport`, `taxReport`, `agingReport`, OpenAPI, roles, every format). Their figures
// are computed in SQL over the company's records (rules/reports.ts).
import type { Provider } from '../engine/custom.ts';
import { defineResource } from '../engine/descriptor.ts';
import { ApiError } from '../engine/errors.ts';
import { aging, revenue, taxes } from './rules/reports.ts';

// No records: the reports are operations, never a collection or an item.
const none: Provider = {
  list: async () => {
    throw new ApiError(405, 'Reports are read through their operations: /api/reports/revenue, /api/reports/tax, /api/reports/aging.');
  },
  read: async () => null,
};

export default defineResource({
  name: 'Report',
  plural: 'reports',
  description: "Reports over the company's records, per currency: revenue per period, the tax return's figures, receivables by age (CONTRACT §21).",
  fields: {},
  operations: { rest: 'none', graphql: 'none', collection: { revenue, tax: taxes, aging } },
  provider: none,
});
