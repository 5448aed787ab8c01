// The UBL 2.1 Invoice of an invoice, and CreditNote of a credit note (CONTRACT §13, §14): EN 16931
// as Peppol BIS Billing 3.0 uses it. Amounts are the document's integers written with the
// currency's decimals; tax categories come from the lines' taxes (a positive rate is S, a zero
// rate or no tax is Z). The VAT breakdown is the document's tax groups (§6): one TaxSubtotal per
// group with its taxable amount and tax, and one document-level allowance per group with a
// discount, so the totals' equalities (BR-CO-10…17, BR-S-08/09) hold exactly because every figure
// is the document's own. What EN 16931 requires and the data lacks is a 422 naming the field,
// never a document that would be refused downstream.
import { ApiError, ViolationCode, type Violation } from '../../engine/errors.ts';
import { scaled, SCALE } from '../../resources/rules/totals.ts';
import type { DocumentData, DocumentLine } from './data.ts';
import type { UblProfile } from '../../resources/rules/document-files.ts';
import { currencyDigits, decimalOf, plainDecimal } from './money.ts';
import { splitPeppolId } from '../../resources/rules/peppol.ts';

export const CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
export const PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
/** XRechnung 3.0 (CONTRACT §19); its ProfileID is Peppol's billing process, as KoSIT's examples write it. */
export const XRECHNUNG_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
  // Characters XML 1.0 cannot carry at all.
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');

type Node = string | null | undefined | false | Node[];

/** One element: `el('cbc:ID', { schemeID: '0088' }, '123')`; null, undefined and false children are left out. */
export function el(name: string, attrs: Record<string, string> | null, ...children: Node[]): string {
  const a = attrs ? Object.entries(attrs).map(([k, v]) => ` ${k}="${esc(v)}"`).join('') : '';
  const body = children.flat(Infinity as 1).filter((c): c is string => typeof c === 'string').join('');
  return `<${name}${a}>${body}</${name}>`;
}
/** A text element, or nothing for an empty value (Peppol refuses empty elements). */
export const txt = (name: string, value: unknown, attrs: Record<string, string> | null = null): string | null =>
  value === null || value === undefined || String(value).trim() === '' ? null : el(name, attrs, esc(String(value).trim()));

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export type Category = { id: string; percent: string | null; reasonCode?: string | null; reason?: string | null };

/** The tax category of a line (CONTRACT §18): its stored category; O has no rate (BR-O-05). */
export function categoryOf(line: Pick<DocumentLine, 'taxRate' | 'taxCategory'>): Category {
  const id = line.taxCategory;
  if (id === 'O') return { id, percent: null };
  return { id, percent: id === 'S' && line.taxRate !== null ? plainDecimal(line.taxRate) : '0' };
}

export function need(violations: Violation[], value: unknown, path: string, what: string): void {
  if (str(value) === null) violations.push({ propertyPath: path, message: `An EN 16931 e-invoice needs ${what}.`, code: ViolationCode.blank });
}

/**
 * What EN 16931 itself requires (in UBL and CII alike) that this document, its client or the
 * company profile lacks: the violations (none: []), or at once a 422 for amounts it cannot express.
 */
export function en16931Violations(d: DocumentData): ApiError | Violation[] {
  if (d.legacyAmounts) {
    return ApiError.validation([{
      propertyPath: 'discountType',
      message: 'This invoice has a discount on its amount after tax, which an EN 16931 e-invoice cannot express (its allowances reduce the taxed amount). Remove the discount or reduce the lines instead.',
      code: ViolationCode.rule,
    }]);
  }
  const v: Violation[] = [];
  const s = d.seller;
  // EN 16931 allows amounts with two decimals at most (BR-DEC-*): a currency with three cannot be written.
  if (currencyDigits(d.currency) > 2) {
    v.push({ propertyPath: 'currency', message: `An EN 16931 e-invoice writes amounts with at most two decimals; ${d.currency} has ${currencyDigits(d.currency)}, so this document cannot be one.`, code: ViolationCode.rule });
  }
  need(v, s.legalName ?? s.name, 'company.legalName', "the seller's name (BT-27): set it in the company profile");
  const categories = new Set(d.groups.map((g) => g.category));
  if (categories.has('O') && categories.size > 1) {
    v.push({ propertyPath: 'lines', message: `An EN 16931 e-invoice with lines not subject to VAT (O) cannot have lines of other categories (${[...categories].filter((c) => c !== 'O').join(', ')}) (BR-O-11…14): invoice them separately.`, code: ViolationCode.rule });
  }
  if (categories.has('O')) {
    need(v, s.registrationNumber, 'company.registrationNumber', "the seller's legal registration identifier (BT-30), since a document not subject to VAT carries no VAT number (BR-CO-26): set it in the company profile");
  } else {
    need(v, s.vatNumber, 'company.vatNumber', "the seller's VAT identifier (BT-31): set it in the company profile");
  }
  if (categories.has('AE') || categories.has('K')) {
    need(v, d.buyer.vatNumber, 'client.vatNumber', "the buyer's VAT identifier (BT-48) for reverse charge (AE) or an intra-community supply (K): set the client's vatNumber");
  }
  need(v, s.country, 'company.country', "the seller's country (BT-40): set it in the company profile");
  need(v, d.buyer.address?.country, 'client.addresses', "the buyer's country (BT-55): give the client an address with a country");
  if (!d.lines.length) v.push({ propertyPath: 'lines', message: 'An EN 16931 e-invoice needs at least one line (BG-25).', code: ViolationCode.blank });
  return v;
}

/** What the standard, as Peppol BIS Billing 3 uses it, requires that this invoice, its client or the company profile lacks. */
export function ublProblems(d: DocumentData): ApiError | null {
  const v = en16931Violations(d);
  if (v instanceof ApiError) return v;
  const s = d.seller;
  need(v, s.peppolId, 'company.peppolId', "the seller's electronic address (BT-34): set the peppolId of the company profile, e.g. 0208:0123456749");
  need(v, d.buyer.peppolId, 'client.peppolId', "the buyer's electronic address (BT-49): set the client's peppolId, e.g. 9930:DE123456789");
  // Peppol's Dutch rules (NL-R-001…008), for a Dutch seller.
  if (String(s.country ?? '').toUpperCase() === 'NL') {
    need(v, s.street1, 'company.street1', "the seller's street (NL-R-002)");
    need(v, s.city, 'company.city', "the seller's city (NL-R-002)");
    need(v, s.zip, 'company.zip', "the seller's post code (NL-R-002)");
    if (d.kind === 'creditNote' && !d.invoiceNumber) v.push({ propertyPath: 'invoice', message: 'A Dutch seller\'s credit note must name the invoice it corrects (NL-R-001): link it to the invoice.', code: ViolationCode.blank });
    if (d.kind === 'invoice') need(v, s.iban, 'company.iban', 'payment by transfer (NL-R-008: a Dutch seller\'s invoice names its means of payment): set the IBAN of the company profile');
    if (String(d.buyer.address?.country ?? '').toUpperCase() === 'NL') {
      need(v, d.buyer.address?.street1, 'client.addresses', "the buyer's street (NL-R-004)");
      need(v, d.buyer.address?.city, 'client.addresses', "the buyer's city (NL-R-004)");
      need(v, d.buyer.address?.zip, 'client.addresses', "the buyer's post code (NL-R-004)");
    }
  }
  // Peppol's German rules (DE-R-002…009), for a German seller invoicing a German buyer.
  if (germanPair(d)) {
    need(v, s.contactName, 'company.contactName', "the seller's contact point (BT-41, German rule DE-R-005): set contactName in the company profile");
    need(v, s.phone, 'company.phone', "the seller's contact telephone (BT-42, DE-R-006): set the phone of the company profile");
    need(v, s.email, 'company.email', "the seller's contact e-mail (BT-43, DE-R-007): set the email of the company profile");
    need(v, s.city, 'company.city', "the seller's city (BT-37, DE-R-003)");
    need(v, s.zip, 'company.zip', "the seller's post code (BT-38, DE-R-004)");
    need(v, d.buyer.address?.city, 'client.addresses', "the buyer's city (BT-52, DE-R-008): give the client's address a city");
    need(v, d.buyer.address?.zip, 'client.addresses', "the buyer's post code (BT-53, DE-R-009): give the client's address a post code");
  }
  return v.length ? ApiError.validation(v) : null;
}

/** Seller and buyer are both in Germany: Peppol's German rules apply (DE-R-*). */
const germanPair = (d: DocumentData) => String(d.seller.country ?? '').toUpperCase() === 'DE' && String(d.buyer.address?.country ?? '').toUpperCase() === 'DE';

function party(o: { peppolId: string; name: string; legalName: string; address: Record<string, unknown> | null | undefined; vat: string | null; registration?: string | null; contactName?: string | null; phone?: string | null; email?: string | null }): string {
  const a = o.address ?? {};
  const endpoint = splitPeppolId(o.peppolId);
  return el('cac:Party', null,
    txt('cbc:EndpointID', endpoint.id, { schemeID: endpoint.scheme }),
    el('cac:PartyName', null, txt('cbc:Name', o.name)),
    el('cac:PostalAddress', null,
      txt('cbc:StreetName', a.street1),
      txt('cbc:AdditionalStreetName', a.street2),
      txt('cbc:CityName', a.city),
      txt('cbc:PostalZone', a.zip),
      txt('cbc:CountrySubentity', a.state),
      el('cac:Country', null, txt('cbc:IdentificationCode', String(a.country ?? '').toUpperCase()))),
    o.vat ? el('cac:PartyTaxScheme', null, txt('cbc:CompanyID', o.vat), el('cac:TaxScheme', null, el('cbc:ID', null, 'VAT'))) : null,
    // A Dutch registration number is a KvK number (scheme 0106, NL-R-003).
    el('cac:PartyLegalEntity', null, txt('cbc:RegistrationName', o.legalName), txt('cbc:CompanyID', o.registration, String(a.country ?? '').toUpperCase() === 'NL' ? { schemeID: '0106' } : null)),
    o.contactName || o.phone || o.email ? el('cac:Contact', null, txt('cbc:Name', o.contactName), txt('cbc:Telephone', o.phone), txt('cbc:ElectronicMail', o.email)) : null);
}

/** The category of a tax group, with its exemption reason when `reasons` (the VAT breakdown only). */
export const groupCategory = (g: DocumentData['groups'][number], reasons = false): Category => ({
  id: g.category,
  percent: g.category === 'O' ? null : g.category === 'S' ? plainDecimal(g.rate) : '0',
  ...(reasons ? { reasonCode: g.exemptionReasonCode, reason: g.exemptionReason } : {}),
});

const contactName = (c: Record<string, unknown>): string | null => str([c.firstName, c.lastName].filter((x) => typeof x === 'string' && x.trim()).join(' '));

/**
 * Payment instructions (BG-16): every invoice carries them — a credit transfer (30) to the
 * profile's IBAN, or "instrument not defined" (1) without one; a credit note where the rules ask
 * (German seller: DE-R-001, BR-DE-1), as "instrument not defined".
 */
function paymentMeans(d: DocumentData, sellerName: string, profile: UblProfile): string | null {
  const s = d.seller;
  if (d.kind === 'creditNote') {
    // XRechnung asks for them on every document (BR-DE-1), whoever the seller.
    return String(s.country ?? '').toUpperCase() === 'DE' || profile === 'xrechnung' ? el('cac:PaymentMeans', null, el('cbc:PaymentMeansCode', null, '1')) : null;
  }
  if (!str(s.iban)) return el('cac:PaymentMeans', null, el('cbc:PaymentMeansCode', null, '1'), txt('cbc:PaymentID', d.number));
  return el('cac:PaymentMeans', null,
    el('cbc:PaymentMeansCode', null, '30'),
    txt('cbc:PaymentID', d.number),
    el('cac:PayeeFinancialAccount', null, txt('cbc:ID', s.iban), txt('cbc:Name', sellerName), str(s.bic) ? el('cac:FinancialInstitutionBranch', null, txt('cbc:ID', s.bic)) : null));
}

/** The UBL document (an Invoice, or a CreditNote for a credit note); call ublProblems first. */
export function renderUbl(d: DocumentData, profile: UblProfile = 'peppol'): string {
  const credit = d.kind === 'creditNote';
  const digits = currencyDigits(d.currency);
  const cur = { currencyID: d.currency };
  const amount = (name: string, minor: number) => el(name, cur, decimalOf(minor, digits));
  const s = d.seller;
  const contact = d.buyer.contact ?? {};
  const taxCategory = (name: string, c: Category) =>
    el(name, null, el('cbc:ID', null, c.id), c.percent !== null ? el('cbc:Percent', null, c.percent) : null,
      txt('cbc:TaxExemptionReasonCode', c.reasonCode), txt('cbc:TaxExemptionReason', c.reason), el('cac:TaxScheme', null, el('cbc:ID', null, 'VAT')));
  // Not subject to VAT (O): no VAT identifiers at all (BR-O-02…04).
  const notSubject = d.groups.some((g) => g.category === 'O');
  const intraCommunity = d.groups.some((g) => g.category === 'K');

  // One allowance per group with a discount (reason code 95: discount), in the group's category.
  const percentage = d.discountType === 'percentage' && digits >= 2;
  const allowances = d.groups.filter((g) => g.discount !== 0).map((g) => el('cac:AllowanceCharge', null,
    el('cbc:ChargeIndicator', null, 'false'),
    el('cbc:AllowanceChargeReasonCode', null, '95'),
    el('cbc:AllowanceChargeReason', null, 'Discount'),
    // Percentage and base only where the rounded amount stays within PEPPOL-EN16931-R040's 0.02:
    // not in a currency without decimals, where rounding to the unit can miss by up to 0.5.
    percentage ? el('cbc:MultiplierFactorNumeric', null, plainDecimal(d.discountValue)) : null,
    amount('cbc:Amount', g.discount),
    percentage ? amount('cbc:BaseAmount', g.base) : null,
    taxCategory('cac:TaxCategory', groupCategory(g))));

  const lineName = credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine';
  const lines = d.lines.map((line, i) => {
    const qty = plainDecimal(line.qty);
    // The item net price (BT-146) times the quantity must give the line's net amount: when the
    // unit price does not (rounding, a tax included in the price), the net amount is the price
    // of the whole quantity, stated as the price's base quantity (BT-149).
    const exact = scaled(line.qty) * BigInt(line.price) === BigInt(line.net) * 10n ** BigInt(SCALE);
    return el(lineName, null,
      el('cbc:ID', null, String(i + 1)),
      el(credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', { unitCode: 'C62' }, qty),
      amount('cbc:LineExtensionAmount', line.net),
      el('cac:Item', null, txt('cbc:Name', line.description.replace(/\s+/g, ' ')), taxCategory('cac:ClassifiedTaxCategory', categoryOf(line))),
      el('cac:Price', null, exact ? amount('cbc:PriceAmount', line.price) : [amount('cbc:PriceAmount', line.net), el('cbc:BaseQuantity', { unitCode: 'C62' }, qty)]));
  });

  const root = credit ? 'CreditNote' : 'Invoice';
  const taxExclusive = d.subtotal - d.discountTotal;
  const prepaid = d.amountPaid ?? 0;
  const sellerName = str(s.legalName) ?? String(s.name);
  const xml = el(root, {
    xmlns: `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
    'xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
    'xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  },
  el('cbc:CustomizationID', null, profile === 'xrechnung' ? XRECHNUNG_CUSTOMIZATION_ID : CUSTOMIZATION_ID),
  el('cbc:ProfileID', null, PROFILE_ID),
  txt('cbc:ID', d.number),
  el('cbc:IssueDate', null, d.issueDate),
  !credit && d.dueDate ? el('cbc:DueDate', null, d.dueDate) : null,
  credit ? el('cbc:CreditNoteTypeCode', null, '381') : el('cbc:InvoiceTypeCode', null, '380'),
  txt('cbc:Note', d.notes),
  el('cbc:DocumentCurrencyCode', null, d.currency),
  // BT-10: the document's or its client's buyer reference; Peppol asks for a buyer reference or
  // an order reference, and without one the document's number serves (XRechnung needs a real one).
  txt('cbc:BuyerReference', d.buyerReference ?? d.number),
  credit && d.invoiceNumber ? el('cac:BillingReference', null, el('cac:InvoiceDocumentReference', null, txt('cbc:ID', d.invoiceNumber))) : null,
  el('cac:AccountingSupplierParty', null, party({
    peppolId: String(s.peppolId), name: String(s.name), legalName: sellerName, address: s, vat: notSubject ? null : str(s.vatNumber),
    registration: str(s.registrationNumber), contactName: str(s.contactName), phone: str(s.phone), email: str(s.email),
  })),
  el('cac:AccountingCustomerParty', null, party({
    peppolId: String(d.buyer.peppolId), name: d.buyer.name, legalName: d.buyer.name, address: d.buyer.address, vat: notSubject ? null : d.buyer.vatNumber,
    contactName: contactName(contact), email: str(contact.email),
  })),
  // Intra-community supply: the delivery date and the deliver-to country (BR-IC-11, BR-IC-12).
  intraCommunity ? el('cac:Delivery', null,
    el('cbc:ActualDeliveryDate', null, d.deliveryDate ?? d.issueDate),
    el('cac:DeliveryLocation', null, el('cac:Address', null,
      txt('cbc:CityName', d.buyer.address?.city), txt('cbc:PostalZone', d.buyer.address?.zip),
      el('cac:Country', null, txt('cbc:IdentificationCode', String(d.buyer.address?.country ?? '').toUpperCase()))))) : null,
  paymentMeans(d, sellerName, profile),
  d.terms ? el('cac:PaymentTerms', null, txt('cbc:Note', d.terms)) : null,
  allowances,
  el('cac:TaxTotal', null,
    amount('cbc:TaxAmount', d.taxTotal),
    d.groups.map((g) => el('cac:TaxSubtotal', null, amount('cbc:TaxableAmount', g.taxable), amount('cbc:TaxAmount', g.tax), taxCategory('cac:TaxCategory', groupCategory(g, true))))),
  el('cac:LegalMonetaryTotal', null,
    amount('cbc:LineExtensionAmount', d.subtotal),
    amount('cbc:TaxExclusiveAmount', taxExclusive),
    amount('cbc:TaxInclusiveAmount', taxExclusive + d.taxTotal),
    amount('cbc:AllowanceTotalAmount', d.discountTotal),
    amount('cbc:ChargeTotalAmount', 0),
    amount('cbc:PrepaidAmount', prepaid),
    amount('cbc:PayableRoundingAmount', 0),
    amount('cbc:PayableAmount', taxExclusive + d.taxTotal - prepaid)),
  lines);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml}\n`;
}
