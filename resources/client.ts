import { children, defineResource, oneOf, text } from '../engine/descriptor.ts';
import { importClients } from './rules/client-import.ts';
import { clientRules } from './rules/client.ts';
import { clientBalances } from './rules/client-balances.ts';
import { normalisePeppolId, peppolIdProblem } from './rules/peppol.ts';

export default defineResource({
  name: 'Client',
  plural: 'clients',
  description: 'A customer that invoices, quotes and payments belong to.',
  fields: {
    name: text({ required: true, min: 1, max: 125, unique: 'company-ci', filter: 'partial', order: true }),
    currency: text({ format: 'currency', filter: 'exact', description: "ISO 4217 code; defaults to the company's currency" }),
    website: text({ format: 'url', max: 255 }),
    vatNumber: text({ max: 64 }),
    peppolId: text({ max: 110, normalise: normalisePeppolId, check: peppolIdProblem, description: "The buyer's electronic address (BT-49): <scheme>:<id> with a scheme of Peppol's EAS code list, e.g. 0208:0123456749" }),
    eInvoiceFormat: oneOf(['peppol', 'xrechnung', 'facturx'], {
      default: 'peppol', filter: 'exact',
      description: "The e-invoice this client's invoices and credit notes are made as (CONTRACT §19): `peppol` (Peppol BIS Billing 3 UBL), `xrechnung` (XRechnung 3.0 UBL, needs a buyerReference) or `facturx` (Factur-X / ZUGFeRD: the PDF is a PDF/A-3 carrying the CII invoice)",
    }),
    buyerReference: text({ max: 200, description: "BT-10, the buyer's reference (for German public buyers the Leitweg-ID) written on this client's e-invoices; an invoice's own buyerReference overrides it" }),
    status: oneOf(['active', 'archived'], { default: 'active', filter: 'exact' }),
    notes: text(),
    // Edited inside the client's form, saved with it in one transaction (CONTRACT §20).
    contacts: children('Contact', 'client', { nested: true }),
    addresses: children('Address', 'client', { nested: true }),
    invoices: children('Invoice', 'client'),
    quotes: children('Quote', 'client'),
    recurringInvoices: children('RecurringInvoice', 'client'),
    payments: children('Payment', 'client'),
  },
  // Clients from a CSV file (CONTRACT §21): rules/client-import.ts.
  operations: { rest: 'all', graphql: 'all', collection: { import: importClients }, item: { balances: clientBalances } },
  present: { title: 'name', columns: ['name', 'currency', 'status', 'website'], currency: { field: 'currency' }, search: true },
  hooks: clientRules,
});
