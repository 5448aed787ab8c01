import { documentLine } from './fragments.ts';

export default documentLine({
  name: 'QuoteLine',
  plural: 'quoteLines',
  description: 'One line of a quote; every change recomputes the quote.',
  owner: 'Quote',
  via: 'quote',
});
