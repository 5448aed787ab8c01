// The company profile (CONTRACT §13): the seller data an invoice legally needs, one record per
// company (a singleton: GET and PATCH /api/company, the `company` query and `updateCompany`
// mutation). Read by any member of the company, changed by its admins. Its row is the company's
// own (server/schema.ts), so the server brings the provider and processor (server/company.ts);
// the engine validates every field, the IBAN, BIC and VAT number by their own rules. Not listed
// in index.ts: /api serves it from a model of its own.
import type { Processor, Provider } from '../engine/custom.ts';
import { defineResource, text } from '../engine/descriptor.ts';
import { bicProblem, compact, ibanProblem, vatProblem } from './rules/company.ts';

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
    },
    operations: { rest: ['read', 'update'], graphql: ['query', 'update'] },
    writers: ['admin'],
    ...storage,
  });
