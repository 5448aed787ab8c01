import { defineResource, integer, oneOf, text, textList, timestamp } from '../engine/descriptor.ts';
import { emailRules, MAX_RECIPIENTS } from './rules/email.ts';
import { emailPreview } from './rules/email-preview.ts';

// An e-mail sending an invoice, quote or credit note (CONTRACT §15): list, read and create only.
// Creating one moves a draft document on in the same transaction; the mail worker sends it after
// commit (server/email/), at least once, with the same Message-ID on every attempt.
export default defineResource({
  name: 'Email',
  plural: 'emails',
  description: 'A message sending an invoice, quote or credit note to the client, with its PDF (and UBL) attached. Creating one for a draft issues it (invoice → pending, quote → sent, credit note → issued) in the same transaction. Sent after commit, retried after 1 min, 10 min, 1 h and 6 h on a connection error or an SMTP 4xx; an SMTP 5xx fails at once. Without SMTP_URL e-mails are `held`.',
  fields: {
    document: text({ refersTo: ['Invoice', 'Quote', 'CreditNote'], required: true, writeOnce: true, max: 200, filter: 'exact', description: 'The invoice, quote or credit note sent (its IRI, e.g. /api/invoices/<id>; a bare id is accepted)' }),
    to: textList({ maxItems: MAX_RECIPIENTS, itemMax: 320, writeOnce: true, description: "Recipients (RFC 5322 mailboxes, returned as bare addresses); default: every contact of the document's client", present: { label: 'To', help: "E-mail addresses, one per line. Left empty: every contact of the client." } }),
    cc: textList({ maxItems: MAX_RECIPIENTS, itemMax: 320, writeOnce: true }),
    bcc: textList({ maxItems: MAX_RECIPIENTS, itemMax: 320, writeOnce: true }),
    subject: text({ max: 500, writeOnce: true, description: "Literal text when given; otherwise the company's template filled in", present: { help: "Left empty: the company's template for this document." } }),
    body: text({ max: 100_000, trim: false, writeOnce: true, description: "Plain text, literal when given; otherwise the company's template filled in. Sent as a text part and an HTML part (escaped)", present: { label: 'Message', help: "Left empty: the company's template for this document." } }),
    attach: textList({ maxItems: 2, itemMax: 3, writeOnce: true, choices: () => ['pdf', 'ubl'], description: "Attachments: `pdf` (<number>.pdf; for a client whose eInvoiceFormat is `facturx`, the Factur-X PDF/A-3 with the CII inside), `ubl` (<number>.xml, invoices and credit notes: Peppol BIS 3, or XRechnung for an `xrechnung` client); default [\"pdf\"], and [\"pdf\", \"ubl\"] for an `xrechnung` client's invoice or credit note", present: { label: 'Attach', help: 'None chosen: the PDF.' } }),
    kind: oneOf(['document', 'reminder'], { readOnly: true, filter: 'exact', description: '`reminder`: sent by the daily run from the company profile\'s `reminders`' }),
    reminder: text({ readOnly: true, description: 'For a reminder: the offset in days from the due date it was sent for ("-3", "7"); null otherwise' }),
    status: oneOf(['held', 'queued', 'sent', 'failed'], { readOnly: true, filter: 'exact', description: '`held`: the server has no SMTP_URL, it is never sent' }),
    attempts: integer({ readOnly: true }),
    lastError: text({ readOnly: true, description: 'The last SMTP reply (code and text) or connection error' }),
    messageId: text({ readOnly: true, description: 'The Message-ID header, the same on every attempt' }),
    sentAt: timestamp({ readOnly: true }),
  },
  operations: { rest: ['list', 'read', 'create'], graphql: ['query', 'create'], collection: { preview: emailPreview } },
  // One reminder per invoice and offset, whatever runs the daily job at the same time.
  unique: [{ fields: ['document', 'reminder'], path: 'reminder', message: 'This reminder was sent already.' }],
  events: { emitted: ['email.sent', 'email.failed'] },
  present: { title: 'document', columns: ['document', 'kind', 'status', 'attempts'], order: { field: 'createdAt', dir: 'desc' }, group: 'settings' },
  hooks: emailRules,
});
