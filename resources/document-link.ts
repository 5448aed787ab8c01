import { defineResource, integer, ref, text, timestamp } from '../engine/descriptor.ts';
import { documentLinkRules } from './rules/document-link.ts';

export default defineResource({
  name: 'DocumentLink',
  plural: 'documentLinks',
  description: 'A link for the client to an invoice, quote or credit note (view, download, accept a quote, pay), without signing in. It expires; deleting it revokes it.',
  fields: {
    document: text({ refersTo: ['Invoice', 'Quote', 'CreditNote'], required: true, writeOnce: true, max: 200, filter: 'exact', description: 'The IRI of the invoice, quote or credit note (/api/invoices/<id>, /api/quotes/<id>, /api/credit-notes/<id>)' }),
    invoice: ref('Invoice', { readOnly: true, onDelete: 'cascade', filter: 'exact', description: 'The document, when it is an invoice' }),
    quote: ref('Quote', { readOnly: true, onDelete: 'cascade', filter: 'exact', description: 'The document, when it is a quote' }),
    creditNote: ref('CreditNote', { readOnly: true, onDelete: 'cascade', filter: 'exact', description: 'The document, when it is a credit note' }),
    contact: ref('Contact', { writeOnce: true, onDelete: 'set null', filter: 'exact', description: "Whom the link is for: a contact of the document's client (optional)" }),
    expiresAt: timestamp({
      writeOnce: true, filter: 'date', order: true,
      description: 'Default: the end of the UTC day 30 days after the due or validity date, but no earlier than 30 and no later than 120 days from now; a value given must be in the future and at most 120 days ahead',
    }),
    views: integer({ readOnly: true, default: 0, description: 'Page views (downloads are not counted)' }),
    lastViewedAt: timestamp({ readOnly: true }),
    url: text({ shownOnce: true, description: 'The link, <PUBLIC_URL>/d/<token>: whole only in the response to the create (only a hash of the token is stored).' }),
  },
  operations: { rest: ['list', 'read', 'create', 'delete'], graphql: ['query', 'create', 'delete'] },
  present: { title: 'document', columns: ['document', 'invoice', 'quote', 'creditNote', 'contact', 'expiresAt'], order: { field: 'createdAt', dir: 'desc' }, group: 'settings' },
  hooks: documentLinkRules,
});
