// The UN/CEFACT Cross Industry Invoice (CII D16B) of an invoice or a credit note (CONTRACT §19):
// EN 16931 as Factur-X 1.07 / ZUGFeRD 2.3 profile EN 16931 writes it (guideline
// `urn:cen.eu:en16931:2017`), the XML a Factur-X PDF embeds as `factur-x.xml`. It is made from the
// same document data as the UBL (data.ts) and states the same figures: the lines' net amounts,
// the document's tax groups (one ApplicableTradeTax each, with its taxable amount and tax), one
// document-level allowance per group with a discount, and the totals, all the document's own
// integers written with the currency's decimals. Elements follow the order of the CII D16B
// schema; what EN 16931 requires and the data lacks is a 422 naming the field (ciiProblems).
import { ApiError } from '../../engine/errors.ts';
import { scaled, SCALE } from '../../resources/rules/totals.ts';
import type { DocumentData } from './data.ts';
import { currencyDigits, decimalOf, plainDecimal } from './money.ts';
import { categoryOf, el, en16931Violations, groupCategory, txt, type Category } from './ubl.ts';
import { splitPeppolId } from '../../resources/rules/peppol.ts';

/** BT-24 of Factur-X's EN 16931 profile (also ZUGFeRD 2.3's "COMFORT"). */
export const CII_GUIDELINE = 'urn:cen.eu:en16931:2017';

const NS = {
  'xmlns:rsm': 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  'xmlns:qdt': 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  'xmlns:ram': 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  'xmlns:udt': 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** What EN 16931 requires that this document, its client or the company profile lacks (CII needs no electronic address). */
export function ciiProblems(d: DocumentData): ApiError | null {
  const v = en16931Violations(d);
  if (v instanceof ApiError) return v;
  return v.length ? ApiError.validation(v) : null;
}

/** `YYYY-MM-DD` as CII's date (format 102: `YYYYMMDD`). */
const date = (name: string, iso: string) => el(name, null, el('udt:DateTimeString', { format: '102' }, iso.replace(/-/g, '')));

function address(a: Record<string, unknown> | null | undefined): string {
  const o = a ?? {};
  return el('ram:PostalTradeAddress', null,
    txt('ram:PostcodeCode', o.zip),
    txt('ram:LineOne', o.street1),
    txt('ram:LineTwo', o.street2),
    txt('ram:CityName', o.city),
    txt('ram:CountryID', String(o.country ?? '').toUpperCase()),
    txt('ram:CountrySubDivisionName', o.state));
}

/** The electronic address (BT-34, BT-49) of a party with a peppolId (CONTRACT §18); none is invented. */
function endpoint(peppolId: unknown): string | null {
  const v = str(peppolId);
  if (!v) return null;
  const { scheme, id } = splitPeppolId(v);
  return el('ram:URIUniversalCommunication', null, txt('ram:URIID', id, { schemeID: scheme }));
}

/** BT-30 (the legal registration) and BT-28 (the trading name), when there is either. */
const legalOrganization = (id: string | null, tradingName: string | null): string | null =>
  id || tradingName ? el('ram:SpecifiedLegalOrganization', null, txt('ram:ID', id), txt('ram:TradingBusinessName', tradingName)) : null;

function contact(name: string | null, phone: string | null, email: string | null): string | null {
  if (!name && !phone && !email) return null;
  return el('ram:DefinedTradeContact', null,
    txt('ram:PersonName', name),
    phone ? el('ram:TelephoneUniversalCommunication', null, txt('ram:CompleteNumber', phone)) : null,
    email ? el('ram:EmailURIUniversalCommunication', null, txt('ram:URIID', email)) : null);
}

/**
 * Payment instructions (BG-16), as the UBL gives them (CONTRACT §18): on every invoice a credit
 * transfer (30) to the profile's IBAN, or "instrument not defined" (1) without one; on a German
 * seller's credit note "instrument not defined".
 */
function paymentMeans(d: DocumentData, sellerName: string): string | null {
  const s = d.seller;
  if (d.kind === 'creditNote') {
    return String(s.country ?? '').toUpperCase() === 'DE' ? el('ram:SpecifiedTradeSettlementPaymentMeans', null, el('ram:TypeCode', null, '1')) : null;
  }
  if (!str(s.iban)) return el('ram:SpecifiedTradeSettlementPaymentMeans', null, el('ram:TypeCode', null, '1'));
  return el('ram:SpecifiedTradeSettlementPaymentMeans', null,
    el('ram:TypeCode', null, '30'),
    el('ram:PayeePartyCreditorFinancialAccount', null, txt('ram:IBANID', String(s.iban).replace(/\s+/g, '')), txt('ram:AccountName', sellerName)),
    str(s.bic) ? el('ram:PayeeSpecifiedCreditorFinancialInstitution', null, txt('ram:BICID', s.bic)) : null);
}

/** The CII document (an invoice 380, or a credit note 381); call ciiProblems first. */
export function renderCii(d: DocumentData): string {
  const credit = d.kind === 'creditNote';
  const digits = currencyDigits(d.currency);
  const amount = (name: string, minor: number) => el(name, null, decimalOf(minor, digits));
  const s = d.seller;
  const sellerName = str(s.legalName) ?? String(s.name);
  // A category with its rate (none for O, BR-O-05).
  const tradeTax = (name: string, c: Category) =>
    el(name, null, el('ram:TypeCode', null, 'VAT'), el('ram:CategoryCode', null, c.id), c.percent !== null ? el('ram:RateApplicablePercent', null, c.percent) : null);
  // Not subject to VAT (O): no VAT identifiers (BR-O-02…04); an intra-community supply (K): the
  // delivery date and the deliver-to country (BR-IC-11, BR-IC-12).
  const notSubject = d.groups.some((g) => g.category === 'O');
  const intraCommunity = d.groups.some((g) => g.category === 'K');

  const lines = d.lines.map((line, i) => {
    const qty = plainDecimal(line.qty);
    // As in the UBL: the net price times the quantity must give the line's net amount; when the
    // unit price does not (rounding, a tax included in the price), the price is that of the
    // whole quantity, stated as its basis quantity (BT-149).
    const exact = scaled(line.qty) * BigInt(line.price) === BigInt(line.net) * 10n ** BigInt(SCALE);
    return el('ram:IncludedSupplyChainTradeLineItem', null,
      el('ram:AssociatedDocumentLineDocument', null, el('ram:LineID', null, String(i + 1))),
      el('ram:SpecifiedTradeProduct', null, txt('ram:Name', line.description.replace(/\s+/g, ' '))),
      el('ram:SpecifiedLineTradeAgreement', null,
        el('ram:NetPriceProductTradePrice', null, exact ? amount('ram:ChargeAmount', line.price) : [amount('ram:ChargeAmount', line.net), el('ram:BasisQuantity', { unitCode: 'C62' }, qty)])),
      el('ram:SpecifiedLineTradeDelivery', null, el('ram:BilledQuantity', { unitCode: 'C62' }, qty)),
      el('ram:SpecifiedLineTradeSettlement', null,
        tradeTax('ram:ApplicableTradeTax', categoryOf(line)),
        el('ram:SpecifiedTradeSettlementLineMonetarySummation', null, amount('ram:LineTotalAmount', line.net))));
  });

  const buyerContact = d.buyer.contact ?? {};
  const buyerPerson = [buyerContact.firstName, buyerContact.lastName].map(str).filter(Boolean).join(' ') || null;
  const agreement = el('ram:ApplicableHeaderTradeAgreement', null,
    txt('ram:BuyerReference', d.number),
    el('ram:SellerTradeParty', null,
      txt('ram:Name', sellerName),
      legalOrganization(str(s.registrationNumber), str(s.name) !== sellerName ? str(s.name) : null),
      contact(str(s.contactName), str(s.phone), str(s.email)),
      address(s),
      endpoint(s.peppolId),
      !notSubject && str(s.vatNumber) ? el('ram:SpecifiedTaxRegistration', null, txt('ram:ID', s.vatNumber, { schemeID: 'VA' })) : null),
    el('ram:BuyerTradeParty', null,
      txt('ram:Name', d.buyer.name),
      contact(buyerPerson, null, str(buyerContact.email)),
      address(d.buyer.address),
      endpoint(d.buyer.peppolId),
      !notSubject && d.buyer.vatNumber ? el('ram:SpecifiedTaxRegistration', null, txt('ram:ID', d.buyer.vatNumber, { schemeID: 'VA' })) : null));

  // One allowance per group with a discount (reason code 95: discount), in the group's category.
  // A percentage's rate and base are left out in a currency without decimals, where the rounded
  // amount cannot equal them exactly (CONTRACT §18: conformance wins over detail).
  const percentage = d.discountType === 'percentage' && digits > 0;
  const allowances = d.groups.filter((g) => g.discount !== 0).map((g) => {
    return el('ram:SpecifiedTradeAllowanceCharge', null,
      el('ram:ChargeIndicator', null, el('udt:Indicator', null, 'false')),
      percentage ? el('ram:CalculationPercent', null, plainDecimal(d.discountValue)) : null,
      percentage ? amount('ram:BasisAmount', g.base) : null,
      amount('ram:ActualAmount', g.discount),
      el('ram:ReasonCode', null, '95'),
      el('ram:Reason', null, 'Discount'),
      tradeTax('ram:CategoryTradeTax', groupCategory(g)));
  });

  const taxExclusive = d.subtotal - d.discountTotal;
  const grand = taxExclusive + d.taxTotal;
  const prepaid = d.amountPaid ?? 0;
  const due = grand - prepaid;
  const dueDate = !credit && d.dueDate ? d.dueDate : null;
  // BR-CO-25: an amount due needs a due date or payment terms.
  const termsText = d.terms ?? (due > 0 && !dueDate ? (credit ? 'The credited amount is refunded or set off.' : 'Payable on receipt.') : null);
  const settlement = el('ram:ApplicableHeaderTradeSettlement', null,
    credit ? null : txt('ram:PaymentReference', d.number),
    el('ram:InvoiceCurrencyCode', null, d.currency),
    paymentMeans(d, sellerName),
    d.groups.map((g) => {
      const c = groupCategory(g, true);
      return el('ram:ApplicableTradeTax', null,
        amount('ram:CalculatedAmount', g.tax),
        el('ram:TypeCode', null, 'VAT'),
        txt('ram:ExemptionReason', c.reason),
        amount('ram:BasisAmount', g.taxable),
        el('ram:CategoryCode', null, c.id),
        txt('ram:ExemptionReasonCode', c.reasonCode),
        c.percent !== null ? el('ram:RateApplicablePercent', null, c.percent) : null);
    }),
    allowances,
    termsText || dueDate ? el('ram:SpecifiedTradePaymentTerms', null, txt('ram:Description', termsText), dueDate ? date('ram:DueDateDateTime', dueDate) : null) : null,
    el('ram:SpecifiedTradeSettlementHeaderMonetarySummation', null,
      amount('ram:LineTotalAmount', d.subtotal),
      amount('ram:ChargeTotalAmount', 0),
      amount('ram:AllowanceTotalAmount', d.discountTotal),
      amount('ram:TaxBasisTotalAmount', taxExclusive),
      el('ram:TaxTotalAmount', { currencyID: d.currency }, decimalOf(d.taxTotal, digits)),
      amount('ram:GrandTotalAmount', grand),
      amount('ram:TotalPrepaidAmount', prepaid),
      amount('ram:DuePayableAmount', due)),
    credit && d.invoiceNumber ? el('ram:InvoiceReferencedDocument', null, txt('ram:IssuerAssignedID', d.invoiceNumber)) : null);

  const xml = el('rsm:CrossIndustryInvoice', NS,
    el('rsm:ExchangedDocumentContext', null,
      el('ram:GuidelineSpecifiedDocumentContextParameter', null, el('ram:ID', null, CII_GUIDELINE))),
    el('rsm:ExchangedDocument', null,
      txt('ram:ID', d.number),
      el('ram:TypeCode', null, credit ? '381' : '380'),
      date('ram:IssueDateTime', d.issueDate),
      d.notes ? el('ram:IncludedNote', null, txt('ram:Content', d.notes)) : null,
      credit && d.reason ? el('ram:IncludedNote', null, txt('ram:Content', d.reason)) : null),
    el('rsm:SupplyChainTradeTransaction', null,
      lines,
      agreement,
      el('ram:ApplicableHeaderTradeDelivery', null,
        intraCommunity ? el('ram:ShipToTradeParty', null, el('ram:PostalTradeAddress', null,
          txt('ram:PostcodeCode', d.buyer.address?.zip), txt('ram:CityName', d.buyer.address?.city), txt('ram:CountryID', String(d.buyer.address?.country ?? '').toUpperCase()))) : null,
        intraCommunity ? el('ram:ActualDeliverySupplyChainEvent', null, date('ram:OccurrenceDateTime', d.deliveryDate ?? d.issueDate)) : null),
      settlement));
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml}\n`;
}
