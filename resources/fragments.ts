// Descriptor fragments: the fields and declarations several resources share, as plain objects and
// functions spread into their descriptors (the engine sees ordinary descriptors). Invoices, quotes
// and recurring invoices are documents addressed to a client with a discount and totals; invoice
// and quote lines are one kind of resource, owned by a different document.
import { decimal, defineResource, integer, list, money, oneOf, ref, text, type Computed, type Field, type RefField, type RulePresentation } from '../engine/descriptor.ts';
import type { HookApi } from '../engine/hooks.ts';
import { computeNewDocument, recomputeDocument } from './rules/documents.ts';
import { lineRules } from './rules/lines.ts';
import { TAX_CATEGORIES } from './rules/totals.ts';

/** `number`: unique per company; when omitted, the next of the company's sequence (prefix + 6 digits). */
export const documentNumber = (prefix: string) => ({
  number: text({ max: 32, sequence: { prefix, pad: 6 }, unique: 'company', filter: 'partial', order: true }),
});

/** `client`: whom the document is addressed to; a client with documents cannot be deleted. */
export const billedClient = {
  client: ref('Client', { required: true, onDelete: 'restrict', filter: 'exact' }),
};

/** `currency` (the client's, copied by the rules) and the discount a document's total is reduced by. */
export const currencyAndDiscount = {
  currency: text({ readOnly: true }),
  discountType: oneOf(['none', 'percentage', 'fixed'], { default: 'none' }),
  discountValue: decimal({
    scale: 4, min: 0, default: 0, description: 'A percentage (0–100) or a fixed amount in minor units',
    present: { label: 'Discount', unit: { field: 'discountType', values: { percentage: 'percent', fixed: 'money' } } },
  }),
};

/** The totals of CONTRACT §6, read-only, kept by the document's `computed`. */
export const documentTotals = {
  subtotal: money({ readOnly: true, description: 'Σ base of the tax groups' }),
  taxTotal: money({ readOnly: true, description: 'Σ tax of the tax groups' }),
  discountTotal: money({ readOnly: true, description: 'Σ discount of the tax groups' }),
  total: money({ readOnly: true, order: true, description: 'subtotal − discountTotal + taxTotal' }),
  taxGroups: list({
    rate: decimal({ scale: 4, required: true, description: 'The tax rate (a percentage); lines without a tax are the 0 % group', present: { unit: 'percent' } }),
    category: oneOf(TAX_CATEGORIES, { description: 'The VAT category (EN 16931 BT-118): S, Z, E, AE, K, G or O' }),
    exemptionReason: text({ description: 'Why no VAT is charged (BT-120), for E, AE, K, G and O' }),
    exemptionReasonCode: text({ description: 'The VATEX code of the exemption (BT-121), when the tax has one' }),
    base: money({ required: true, description: 'Σ net of the lines at this rate' }),
    discount: money({ required: true, description: "This group's share of the discount" }),
    taxable: money({ required: true, description: 'base − discount' }),
    tax: money({ required: true, description: 'round(taxable × rate / 100); for lines all tax-inclusive without discount, what their prices contain' }),
  }, { readOnly: true, typeName: 'TaxGroup', description: 'One entry per tax category and rate, ascending by rate then category (EN 16931 VAT breakdown)' }),
};

/**
 * The seller's and the buyer's details as the document was issued with (CONTRACT §18): set when it
 * leaves draft (a quote: when sent; a credit note: when issued), cleared when it goes back; its PDF,
 * UBL and CII read them from here, so later changes to the profile or the client never move it.
 */
export const issuedParties = {
  parties: text({ readOnly: true, present: { hidden: true }, description: "The seller's and the buyer's details the document was issued with, as JSON (company profile; client name, VAT number, electronic address, e-invoice format, buyer reference, first address and contact); null while a draft" }),
};

/** Free text printed on the document; a new one starts with the company's terms. */
export const remarks = {
  terms: text({ present: { defaultFrom: { company: 'defaultTerms' } } }),
  notes: text(),
};

/** A document's form totals as it is typed, by the same arithmetic as its `computed` (rules/totals.ts). */
/**
 * The parameters of the shared totals rule in a form (`documentTotals`: rules/totals.ts's
 * computeTotals, served to the browser as web/app/rules/totals.js): the fields it reads, and
 * `fields` the record's fields that hold its results (named as the rule's results: subtotal,
 * discountTotal, taxTotal, total).
 */
interface DocumentTotalsPresentation extends RulePresentation {
  rule: 'documentTotals';
  lines: string;
  line: { price: string; qty: string; tax: string };
  /** The tax a line refers to: its rate and type fields. */
  tax: { rate: string; type: string };
  discount: { type: string; value: string };
  fields: readonly string[];
  /** The record's field holding the tax groups. */
  groups: string;
}

export const documentTotalsPresent: DocumentTotalsPresentation = {
  rule: 'documentTotals',
  lines: 'lines',
  line: { price: 'price', qty: 'qty', tax: 'tax' },
  tax: { rate: 'rate', type: 'type' },
  discount: { type: 'discountType', value: 'discountValue' },
  fields: ['subtotal', 'discountTotal', 'taxTotal', 'total'],
  groups: 'taxGroups',
};

const totalFields = ['subtotal', 'taxTotal', 'discountTotal', 'total', 'taxGroups'] as const;
type TotalsNames = (typeof totalFields)[number] | 'lines' | 'discountType' | 'discountValue' | 'client' | 'status';

/**
 * `computed` of an invoice or a quote: its totals (and `extra` read-only fields, such as an
 * invoice's balance) follow its lines, discount, client and status (rules/documents.ts).
 */
export function documentComputed<const E extends string = never>(name: string, ...extra: E[]): Computed<Record<TotalsNames | E, Field>> {
  return {
    fields: [...totalFields, ...extra],
    on: ['lines', 'discountType', 'discountValue', 'client', 'status'],
    compute: (api: HookApi, id: string) => recomputeDocument(api, name, id),
    computeNew: computeNewDocument,
  };
}

/** What a line says and costs as entered: a document's line, or a recurring invoice's template line. */
export const lineInput = {
  description: text({ required: true, max: 1000 }),
  qty: decimal({ scale: 4, above: 0, default: 1 }),
  price: money({ required: true }),
};

/**
 * A line of a document (`owner`), embedded in its `lines` and changed on its own through GraphQL's
 * line mutations. `via` is the field pointing at the owner, fixed once the line exists.
 */
export function documentLine<const V extends string>(o: { name: string; plural: string; description: string; owner: string; via: V }) {
  const owner = { [o.via]: ref(o.owner, { required: true, writeOnce: true, onDelete: 'cascade', filter: 'exact' }) } as Record<V, RefField>;
  return defineResource({
    name: o.name,
    plural: o.plural,
    description: o.description,
    fields: {
      ...owner,
      ...lineInput,
      tax: ref('Tax', { onDelete: 'restrict', present: { defaultFrom: { company: 'defaultTax' } } }),
      position: integer({ min: 0, order: true, description: 'Order within the document; appended at the end when omitted' }),
      total: money({ readOnly: true, description: 'round(price × qty)' }),
      net: money({ readOnly: true, description: 'total, less the tax an inclusive price contains: round(total × 100 / (100 + rate))' }),
      taxRate: decimal({ scale: 4, readOnly: true, description: 'The tax rate this line was computed with; kept once the document leaves draft', present: { unit: 'percent' } }),
      taxType: oneOf(['exclusive', 'inclusive'], { readOnly: true, description: 'The tax type this line was computed with; kept once the document leaves draft' }),
      taxCategory: oneOf(TAX_CATEGORIES, { readOnly: true, description: 'The VAT category this line was computed with (CONTRACT §18); kept once the document leaves draft' }),
      taxExemptionReason: text({ readOnly: true, description: "The tax's exemption reason when the line was computed; kept once the document leaves draft" }),
      taxExemptionReasonCode: text({ readOnly: true, description: "The tax's VATEX code when the line was computed; kept once the document leaves draft" }),
    },
    operations: { rest: 'none', graphql: 'all' },
    present: { title: 'description' },
    hooks: lineRules,
  });
}
