import { children, date, defineResource, oneOf, ref, text } from '../engine/descriptor.ts';
import { billedClient, currencyAndDiscount, documentTotalsPresent, documentComputed, documentTotals, remarks, issuedParties } from './fragments.ts';
import { creditNoteRules } from './rules/credit-note.ts';
import { pdfDocument, ublDocument } from './rules/document-files.ts';

export default defineResource({
  name: 'CreditNote',
  plural: 'creditNotes',
  description: 'A correction of invoiced amounts (EN 16931 document type 381). Issuing one linked to an invoice reduces its balance.',
  fields: {
    number: text({
      max: 32, readOnly: true, unique: 'company', filter: 'partial', order: true,
      sequence: { prefix: 'CN-', pad: 6, when: { field: 'status', in: ['issued'] } },
      description: 'The next of the company\'s credit note sequence (CN-000001), given when the credit note is issued',
    }),
    ...billedClient,
    invoice: ref('Invoice', { onDelete: 'restrict', filter: 'exact', description: 'The invoice this credit note corrects (same client)' }),
    status: oneOf(['draft', 'issued', 'cancelled'], { default: 'draft', filter: 'exact' }),
    issueDate: date({ default: 'today', filter: 'date', order: true }),
    reason: text({ max: 1000 }),
    ...currencyAndDiscount,
    ...documentTotals,
    ...issuedParties,
    ...remarks,
    lines: children('CreditNoteLine', 'creditNote', { embedded: true, orderBy: 'position' }),
  },
  operations: { rest: 'all', graphql: 'all' },
  documents: { ...pdfDocument('creditNote'), ...ublDocument('creditNote') },
  states: {
    field: 'status',
    initial: 'draft',
    transitions: {
      draft: ['issued', 'cancelled'],
      cancelled: ['draft'],
    },
    // An issued credit note never changes; a cancelled one only goes back to draft.
    editable: { issued: [], cancelled: [] },
    deletable: ['draft', 'cancelled'],
    actions: {
      issued: { label: 'Issue', confirm: 'The credit note is issued: it gets its number, reduces its invoice’s balance, and can never change or be deleted.' },
      cancelled: { label: 'Cancel credit note', confirm: 'The credit note is cancelled: it credits nothing unless it goes back to draft.' },
      draft: { label: 'Back to draft' },
    },
  },
  present: {
    title: 'number',
    columns: ['number', 'client', 'invoice', 'status', 'issueDate', 'total'],
    order: { field: 'createdAt', dir: 'desc' },
    currency: { field: 'currency', from: 'client' },
    search: true,
    totals: documentTotalsPresent,
    sections: [
      { label: 'Credit note', fields: ['client', 'invoice', 'issueDate', 'reason'] },
      { label: 'Discount', fields: ['discountType', 'discountValue'] },
      { label: 'Terms and notes', fields: ['terms', 'notes'] },
    ],
  },
  computed: documentComputed('CreditNote'),
  events: { states: [{ to: 'issued', from: ['draft'], type: 'credit_note.issued' }] },
  hooks: creditNoteRules,
});
