// The company profile (CONTRACT §13): the seller data an invoice legally needs, one record per
// company (a singleton: GET and PATCH /api/company, the `company` query and `updateCompany`
// mutation). Read by any member of the company, changed by its admins. Its row is the company's
// own (server/schema.ts), so the server brings its storage as the service `companyStorage`
// (server/company.ts); the engine validates every field, the IBAN, BIC and VAT number by their
// own rules.
import { storedBy, type ResourceStorage } from '../engine/custom.ts';
import { Type } from '@sinclair/typebox';
import { boolean, defineResource, integer, json, oneOf, text, type OperationDescriptor, type RawBody } from '../engine/descriptor.ts';
import { ApiError } from '../engine/errors.ts';
import type { Db } from '../engine/types.ts';
import { checkLogo, LOGO_MAX_BYTES, LOGO_MAX_SIDE, LOGO_TYPES, type Logo } from './rules/logo.ts';
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

/** A number's prefix: letters, digits and - _ / . # (the number is at most 32 characters). */
const prefixProblem = (s: string): string | null => (/^[\p{L}\p{N}\-_/.#]+$/u.test(s) ? null : 'Use letters, digits and - _ / . # only.');

/**
 * The company's documents' numbering (CONTRACT §20): for each numbered resource, the profile's
 * fields holding its sequence's prefix and next number. Their values live in the engine's
 * sequences (engine/sequences.ts), read and written by the profile's storage (server/company.ts).
 */
export const NUMBERING = [
  { resource: 'Invoice', field: 'number', prefix: 'invoiceNumberPrefix', next: 'nextInvoiceNumber', example: 'INV-', words: 'invoice' },
  { resource: 'Quote', field: 'number', prefix: 'quoteNumberPrefix', next: 'nextQuoteNumber', example: 'QUO-', words: 'quote' },
  { resource: 'CreditNote', field: 'number', prefix: 'creditNoteNumberPrefix', next: 'nextCreditNoteNumber', example: 'CN-', words: 'credit note' },
] as const;

/** Languages of the documents, PDFs, client pages and e-mail templates. */
export const LOCALES = ['en', 'de', 'fr'] as const;

// Settings (CONTRACT §20, issue #49): a new document's defaults, the documents' language and
// numbering. `defaultTax` names a Tax of the company by IRI (checked by the storage: this model
// has no Tax).
const SETTINGS = {
  defaultDueDays: integer({ min: 0, max: 365, default: 14, description: 'Days from the invoice date to the due date of a new invoice', present: { label: 'Days until due', help: 'From the invoice date to the due date of a new invoice (0–365).' } }),
  defaultTerms: text({ max: 5000, description: 'The terms a new invoice or quote starts with', present: { label: 'Terms', help: 'The terms a new invoice or quote starts with.' } }),
  defaultTax: text({ refersTo: ['Tax'], description: "The tax a new line starts with: a Tax's IRI, or null", present: { label: 'Default tax', help: 'The tax a new line starts with.' } }),
  locale: oneOf(LOCALES, {
    default: 'en',
    description: 'The language of PDFs, client pages and the default e-mail templates: en, de or fr',
    // Each language named in itself, whatever the reader's.
    present: { label: 'Language of documents', help: 'PDFs, client pages and the default e-mails.', valueLabels: { en: 'English', de: 'Deutsch', fr: 'Français' } },
  }),
  ...Object.fromEntries(
    NUMBERING.flatMap((n) => [
      [n.prefix, text({ max: 20, default: n.example, check: prefixProblem, description: `The prefix of new ${n.resource} numbers (default ${n.example}); six digits, zero-padded, follow it`, present: { label: `${n.words.charAt(0).toUpperCase()}${n.words.slice(1)} prefix` } })],
      [n.next, integer({ required: true, min: 1, max: 2_000_000_000, description: `The number the next ${n.resource} takes after the prefix; below a number already given with that prefix: 422`, present: { label: `Next ${n.words} number` } })],
    ]),
  ),
};

/** Where the logo is kept: the server's storage (server/company-logo.ts), passed as a service. */
export interface LogoStorage {
  read(db: Db, companyId: string): Promise<{ body: Buffer; contentType: string } | null>;
  write(db: Db, companyId: string, logo: Logo): Promise<void>;
  /** False when there was none. */
  remove(db: Db, companyId: string): Promise<boolean>;
}

declare module '../engine/descriptor.ts' {
  interface OperationServices {
    companyLogo: LogoStorage;
    /** The profile's storage: the company's row and its sequences (server/company.ts). */
    companyStorage: ResourceStorage;
  }
}

// The logo (CONTRACT §20): PUT, GET and DELETE /api/company/logo, a file rather than a field.
const LOGO_OPERATIONS: Record<string, OperationDescriptor> = {
  putLogo: {
    method: 'PUT',
    path: 'logo',
    summary: "Sets the company's logo",
    description: `A PNG or JPEG image (Content-Type image/png or image/jpeg) of at most 1 MB and ${LOGO_MAX_SIDE}×${LOGO_MAX_SIDE} pixels, shown on PDFs and client pages. Anything else (another type, an SVG, a body that is not such an image): 422; larger: 413; nothing is stored. Admins only.`,
    body: { mediaTypes: LOGO_TYPES, maxBytes: LOGO_MAX_BYTES },
    output: { empty: true },
    graphql: false,
    operationId: 'api_company_logo_put',
    run: async (ctx) => {
      const { mediaType, bytes } = ctx.input as RawBody;
      await ctx.services.companyLogo.write(ctx.db, ctx.principal.company.id, checkLogo(mediaType, bytes));
    },
  },
  logo: {
    method: 'GET',
    path: 'logo',
    summary: "The company's logo",
    description: 'The image as it was put (image/png or image/jpeg); 404 when there is none.',
    output: { binary: LOGO_TYPES },
    graphql: false,
    operationId: 'api_company_logo_get',
    run: (ctx) => ctx.services.companyLogo.read(ctx.db, ctx.principal.company.id),
  },
  deleteLogo: {
    method: 'DELETE',
    path: 'logo',
    summary: "Removes the company's logo",
    description: '404 when there is none. Admins only.',
    output: { empty: true },
    graphql: false,
    operationId: 'api_company_logo_delete',
    run: async (ctx) => {
      if (!(await ctx.services.companyLogo.remove(ctx.db, ctx.principal.company.id))) throw ApiError.notFound('The company has no logo.');
    },
  },
};

export default defineResource({
  name: 'Company',
  plural: 'companies',
  path: 'company',
  description: 'The company profile: the seller named on invoices, quotes and e-invoices. Read by any role; changed by admins. VAT number, IBAN (mod-97 check digits) and BIC are checked; spaces in them are removed.',
  singleton: true,
  fields: {
    name: text({ required: true, min: 1, max: 125, description: 'Trading name', present: { label: 'Trading name', autocomplete: 'organization' } }),
    legalName: text({ max: 200, description: 'Registered legal name (EN 16931 BT-27); the name when empty', present: { label: 'Legal name', help: 'As registered; printed as the seller. The trading name when empty.' } }),
    email: text({ format: 'email', max: 254, present: { label: 'Billing email', autocomplete: 'email' } }),
    phone: text({ max: 50, present: { autocomplete: 'tel' } }),
    website: text({ format: 'url', max: 255, present: { autocomplete: 'url' } }),
    vatNumber: text({ max: 20, normalise: compact, check: vatProblem, description: 'VAT identifier with its country prefix, e.g. DE123456789 (BT-31)', present: { help: 'With its country prefix, e.g. DE123456789.' } }),
    registrationNumber: text({ max: 64, description: 'Company registration number (BT-30)', present: { label: 'Registration number' } }),
    street1: text({ max: 255, present: { label: 'Street', autocomplete: 'address-line1' } }),
    street2: text({ max: 255, present: { label: 'Street (line 2)', autocomplete: 'address-line2' } }),
    city: text({ max: 100, present: { autocomplete: 'address-level2' } }),
    state: text({ max: 100, present: { label: 'State or region', autocomplete: 'address-level1' } }),
    zip: text({ max: 20, present: { label: 'Postal code', autocomplete: 'postal-code' } }),
    country: text({ format: 'country', description: 'ISO 3166-1 alpha-2 code', present: { label: 'Country' } }),
    iban: text({ max: 42, normalise: compact, check: ibanProblem, description: 'IBAN for payments by transfer (checked with its mod-97 check digits)', present: { label: 'IBAN', help: 'Printed on invoices for payment by bank transfer.' } }),
    bic: text({ max: 11, normalise: compact, check: bicProblem, description: 'BIC (SWIFT code) of the bank: 8 or 11 characters', present: { label: 'BIC', help: '8 or 11 characters, e.g. COBADEFFXXX.' } }),
    invoiceFooter: text({ max: 2000, description: 'Printed at the foot of every invoice and quote', present: { label: 'Footer', help: 'Printed at the foot of every page of invoices and quotes.' } }),
    currency: text({ readOnly: true, description: "The company's default currency (ISO 4217)" }),
    emailTemplates: json(EMAIL_TEMPLATES, {
      present: { label: 'E-mail templates' },
      check: (v) => templateProblems(v, CLIENT_LINKS_AVAILABLE),
      description: `The e-mails' subjects and bodies (plain text) by document; a missing one uses the service's default. Placeholders: ${PLACEHOLDERS.filter((p) => CLIENT_LINKS_AVAILABLE || p !== 'link').map((p) => `{{${p}}}`).join(', ')}; another is a 422.`,
    }),
    reminders: json(Type.Array(Type.Integer({ minimum: -365, maximum: 365 }), { maxItems: 20, uniqueItems: true }), {
      default: [],
      present: { label: 'Reminders', help: 'Reminders of unpaid invoices: days before (−3) or after (7) the due date, separated by commas. Empty sends none.' },
      description: 'Reminders of pending and overdue invoices: day offsets from the due date (e.g. [-3, 1, 7, 14]); [] sends none',
    }),
    ...SETTINGS,
    // E-invoices the networks accept (CONTRACT §18).
    peppolId: text({ max: 110, normalise: normalisePeppolId, check: peppolIdProblem, description: "The seller's electronic address (BT-34): <scheme>:<id> with a scheme of Peppol's EAS code list, e.g. 0208:0123456749, 9930:DE123456789, 0088:4035811991014", present: { label: 'Electronic address (Peppol)', help: 'A scheme and an identifier, e.g. 0088:4035811991014 or 9930:DE123456789.' } }),
    contactName: text({ max: 100, description: "The seller's contact point (BT-41), written with the profile's phone and e-mail", present: { label: 'Contact person', help: 'Named on e-invoices with the phone and e-mail.' } }),
    vatRegistered: boolean({ default: true, description: 'False for a business not registered for VAT (below a national threshold): every line is then category O, not subject to VAT', present: { label: 'Registered for VAT' } }),
    vatExemptionNote: text({ max: 300, description: 'Why no VAT is charged when not VAT-registered, shown on every document, e.g. "TVA non applicable, art. 293 B du CGI"', present: { label: 'VAT exemption note', help: 'Why no VAT is charged when not registered, shown on every document.' } }),
  },
  operations: { rest: ['read', 'update'], graphql: ['query', 'update'], collection: LOGO_OPERATIONS },
  writers: ['admin'],
  // Its page is Settings › Company in /app (web/app/settings/company.js), built from these sections.
  present: {
    group: 'none',
    sections: [
      { label: 'Company', fields: ['name', 'legalName', 'vatNumber', 'registrationNumber'] },
      { label: 'Contact', fields: ['email', 'phone', 'website', 'contactName'] },
      { label: 'Address', fields: ['street1', 'street2', 'zip', 'city', 'state', 'country'] },
      { label: 'Payment details', fields: ['iban', 'bic'] },
      {
        label: 'Numbering',
        help: 'New numbers are the prefix followed by six digits. A next number below one already given with that prefix is refused.',
        fields: NUMBERING.flatMap((n) => [n.prefix, n.next]),
      },
      { label: 'Defaults for new documents', fields: ['defaultDueDays', 'defaultTax', 'locale', 'defaultTerms'] },
      { label: 'Documents', fields: ['invoiceFooter', 'peppolId', 'vatRegistered', 'vatExemptionNote'] },
    ],
  },
  ...storedBy('companyStorage'),
});
