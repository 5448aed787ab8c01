import { documentLine } from './fragments.ts';

export default documentLine({
  name: 'CreditNoteLine',
  plural: 'creditNoteLines',
  description: 'One line of a credit note; every change recomputes the credit note.',
  owner: 'CreditNote',
  via: 'creditNote',
});
