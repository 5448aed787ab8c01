// The company profile (CONTRACT §13): the seller data an invoice legally needs, one record per
// company (a singleton: GET and PATCH /api/company, the `company` query and `updateCompany`
// mutation). Read by any member of the company, changed by its admins. Its row is the company's
// own (server/schema.ts), so the server brings the provider and processor (server/company.ts);
// the engine validates every field, the IBAN, BIC and VAT number by their own rules. Not listed
// in index.ts: /api serves it from a model of its own.
import type { Processor, Provider } from '../engine/custom.ts';
import { Type } from '@sinclair/typebox';
import { boolean, defineResource, json, text } from '../engine/descriptor.ts';
import { CLIENT_LINKS_AVAILABLE, PLACEHOLDERS, templateProblems } from './rules/email-templates.ts';
import { bicProblem, compact, ibanProblem, vatProblem } from './rules/company.ts';
import { normalisePeppolId, peppolIdProblem } from './rules/peppol.ts';

const template = Type.Object(
  { subject: Type.Optional(Type.String({ maxLength: 500 })), body: Type.Optional(Type.String({ maxLength: 20_000 })) },
  { title: 'EmailTemplate', additionalProperties: false },
);
const EMAIL_TEMPLATES = Type.Object(
  { invoice: Type.Optional(template), quote: Type.Optional(template), creditNote: Type.Optional(template), reminder: Type.Optional(template) },
  { title: 'EmailTemplates', additionalProperties: false },
);

export const company = (storage?: { provider: Provider; processor: Processor }) =>
  defineResource({
    name: 'Company',
    plural: 'companies',
    path: 'company',
    description: 'The company profile: the seller named on invoices, quotes and e-invoices. Read by any role; changed by admins. VAT number, IBAN (mod-97 check digits) and BIC are checked; spaces in them are removed.',
    singleton: true,
    fields: {
      name: text({ required: true, min: 1, max: 125, description: 'Trading name' }),
      legalName: text({ max: 200, description: 'Registered legal name (EN 16931 BT-27); the name when empty' }),
      email: text({ format: 'email', max: 254 }),
      phone: text({ max: 50 }),
      website: text({ format: 'url', max: 255 }),
      vatNumber: text({ max: 20, normalise: compact, check: vatProblem, description: 'VAT identifier with its country prefix, e.g. DE123456789 (BT-31)' }),
      registrationNumber: text({ max: 64, description: 'Company registration number (BT-30)' }),
      street1: text({ max: 255 }),
      street2: text({ max: 255 }),
      city: text({ max: 100 }),
      state: text({ max: 100 }),
      zip: text({ max: 20 }),
      country: text({ format: 'country', description: 'ISO 3166-1 alpha-2 code' }),
      iban: text({ max: 42, normalise: compact, check: ibanProblem, description: 'IBAN for payments by transfer (checked with its mod-97 check digits)' }),
      bic: text({ max: 11, normalise: compact, check: bicProblem, description: 'BIC (SWIFT code) of the bank: 8 or 11 characters' }),
      invoiceFooter: text({ max: 2000, description: 'Printed at the foot of every invoice and quote' }),
      currency: text({ readOnly: true, description: "The company's default currency (ISO 4217)" }),
      emailTemplates: json(EMAIL_TEMPLATES, {
        check: (v) => templateProblems(v, CLIENT_LINKS_AVAILABLE),
        description: `The e-mails' subjects and bodies (plain text) by document; a missing one uses the service's default. Placeholders: ${PLACEHOLDERS.filter((p) => CLIENT_LINKS_AVAILABLE || p !== 'link').map((p) => `{{${p}}}`).join(', ')}; another is a 422.`,
      }),
      reminders: json(Type.Array(Type.Integer({ minimum: -365, maximum: 365 }), { maxItems: 20, uniqueItems: true }), {
        default: [],
        description: 'Reminders of pending and overdue invoices: day offsets from the due date (e.g. [-3, 1, 7, 14]); [] sends none',
      }),
      // E-invoices the networks accept (CONTRACT §18).
      peppolId: text({ max: 110, normalise: normalisePeppolId, check: peppolIdProblem, description: "The seller's electronic address (BT-34): <scheme>:<id> with a scheme of Peppol's EAS code list, e.g. 0208:0123456749, 9930:DE123456789, 0088:4035811991014" }),
      contactName: text({ max: 100, description: "The seller's contact point (BT-41), written with the profile's phone and e-mail" }),
      vatRegistered: boolean({ default: true, description: 'False for a business not registered for VAT (below a national threshold): every line is then category O, not subject to VAT' }),
      vatExemptionNote: text({ max: 300, description: 'Why no VAT is charged when not VAT-registered, shown on every document, e.g. "TVA non applicable, art. 293 B du CGI"' }),
    },
    operations: { rest: ['read', 'update'], graphql: ['query', 'update'] },
    writers: ['admin'],
    ...storage,
  });
