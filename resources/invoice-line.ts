import { documentLine } from './fragments.ts';

export default documentLine({
  name: 'InvoiceLine',
  plural: 'invoiceLines',
  description: 'One line of an invoice; every change recomputes the invoice.',
  owner: 'Invoice',
  via: 'invoice',
});
