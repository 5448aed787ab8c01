// `POST /api/emails/preview` (CONTRACT §20, "Send" with a preview): the same input as creating an
// e-mail, answered with the e-mail as it would be sent — recipients, subject and body rendered by
// the same code as the create (resources/rules/email.ts) and the attachments' file names — and
// nothing written: the draft is not issued, no e-mail queued, and `{{link}}` (a client link, a
// write) shown as a placeholder. A draft without a number yet (a credit note) shows one likewise.
import { Type } from '@sinclair/typebox';
import type { OperationDescriptor } from '../../engine/descriptor.ts';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { FieldValues } from '../../engine/types.ts';
import { attachmentsOf, checkedAddresses, contactsOf, filledTemplate, findDocument, MAX_RECIPIENTS, refuseCancelled } from './email.ts';

/** What `{{link}}` reads in a preview: the link itself is made when the e-mail is sent. */
export const LINK_PLACEHOLDER = '[a link for the client, made when the e-mail is sent]';
/** A number the draft is given when it is sent. */
export const NUMBER_PLACEHOLDER = '[number given when sent]';

const Addresses = Type.Array(Type.String({ maxLength: 320 }), { maxItems: MAX_RECIPIENTS });
const Input = Type.Object(
  {
    document: Type.String({ maxLength: 200, description: 'The invoice, quote or credit note (its IRI)' }),
    to: Type.Optional(Type.Union([Addresses, Type.Null()])),
    cc: Type.Optional(Type.Union([Addresses, Type.Null()])),
    bcc: Type.Optional(Type.Union([Addresses, Type.Null()])),
    subject: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    body: Type.Optional(Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()])),
    attach: Type.Optional(Type.Union([Type.Array(Type.Union([Type.Literal('pdf'), Type.Literal('ubl')]), { maxItems: 2 }), Type.Null()])),
  },
  { additionalProperties: false },
);
const Attachment = Type.Object({ kind: Type.String({ description: '`pdf` or `ubl`' }), filename: Type.String() });
const Preview = Type.Object({
  document: Type.String({ format: 'iri-reference' }),
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  bcc: Type.Array(Type.String()),
  subject: Type.String(),
  body: Type.String(),
  attachments: Type.Array(Attachment, { description: 'What is attached, by the file name it is sent with' }),
  offered: Type.Array(Type.String(), { description: 'What may be attached to this document (`pdf`, `ubl`)' }),
});

export const emailPreview: OperationDescriptor = {
  method: 'POST',
  path: 'preview',
  summary: 'The e-mail that creating one with this input would send (recipients, rendered subject and body, attachments), writing nothing',
  description: 'Takes the same input as `POST /api/emails` and answers the e-mail as it would be sent, by the same rules, without issuing the draft, queueing the e-mail or making a client link (`{{link}}` reads as a placeholder). The same 422s as the create.',
  input: Input,
  output: { schema: Preview, type: 'EmailPreview' },
  graphql: 'previewEmail',
  // Sending can succeed for a document that is not cancelled (the rules' refuseCancelled): a
  // client offers "Send" for such a document only.
  when: { status: { in: ['draft', 'pending', 'overdue', 'paid', 'sent', 'accepted', 'declined', 'issued'] } },
  present: { label: 'Send', view: 'send' },
  run: async (ctx) => {
    const api = ctx.api!;
    const d = { ...(ctx.input as FieldValues) };
    const { to, cc, bcc } = checkedAddresses(d);
    const { type, record: doc } = await findDocument(api, d.document);
    refuseCancelled(type, doc);
    const attach = await attachmentsOf(api, type, doc, d.attach);
    if (!to.length) to.push(...(await contactsOf(api, String(doc.client))));
    if (!to.length) throw ApiError.validation([{ propertyPath: 'to', message: "No recipient: give addresses, or add a contact with an e-mail to the document's client.", code: ViolationCode.blank }]);
    if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) throw ApiError.validation([{ propertyPath: 'to', message: `At most ${MAX_RECIPIENTS} recipients in to, cc and bcc together.`, code: ViolationCode.length }]);
    const given = { subject: typeof d.subject === 'string' && d.subject !== '' ? d.subject : null, body: typeof d.body === 'string' && d.body !== '' ? d.body : null };
    const { subject, body } = await filledTemplate(api, type, doc, 'document', given, async () => LINK_PLACEHOLDER, NUMBER_PLACEHOLDER);
    const number = String(doc.number ?? NUMBER_PLACEHOLDER);
    return {
      document: `/api/${type.path}/${String(doc.id)}`,
      to,
      cc,
      bcc,
      subject,
      body,
      attachments: attach.map((kind) => ({ kind, filename: `${number}.${kind === 'ubl' ? 'xml' : 'pdf'}` })),
      offered: type.ubl ? ['pdf', 'ubl'] : ['pdf'],
    };
  },
};
