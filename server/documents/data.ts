// What a document (PDF, UBL) shows, gathered through the engine's operations (so tenancy and
// permissions are the engine's: 404 unknown, 403 another company's): the invoice or quote with
// its lines, its client, the client's first address and first contact, the names of the taxes
// used, and the seller's company profile. Amounts are the stored integers, the tax rows the
// document's stored tax groups (CONTRACT §6), so PDF, UBL and the API show the same figures.
import type { Principal, FieldValues } from '../../engine/types.ts';
import type { ModelResource } from '../../engine/model.ts';
import type { Engine } from '../../engine/operations.ts';
import { condition } from '../../engine/query.ts';
import { lineAmounts, scaled, taxClassOf, type TaxCategory, type TaxGroup, type TaxType } from '../../resources/rules/totals.ts';
import { keptParties } from '../../resources/rules/documents.ts';
import type { Db } from '../../engine/types.ts';
import { readCompany, type CompanyProfile } from '../company.ts';
import { keptLogoOf, logoOf } from '../company-logo.ts';

export type DocumentKind = 'invoice' | 'quote' | 'creditNote';
export type EInvoiceFormat = 'peppol' | 'xrechnung' | 'facturx';

export interface DocumentLine {
  description: string;
  /** Exact decimal text or number. */
  qty: string | number;
  price: number;
  /** round(price × qty). */
  total: number;
  /** What the line adds to its group's base (total less an inclusive tax). */
  net: number;
  /** The rate and type the line was computed with; null without a tax. */
  taxRate: string | null;
  taxType: TaxType | null;
  taxName: string | null;
  /** The VAT category the line was computed with (CONTRACT §18). */
  taxCategory: TaxCategory;
}

/** One tax group (§6) with the names of the taxes its lines use, e.g. "VAT". */
export interface TaxRow extends TaxGroup {
  names: string[];
  /** Every line of the group has a tax included in its price. */
  inclusive: boolean;
}

export interface DocumentData {
  kind: DocumentKind;
  id: string;
  number: string;
  status: string;
  issueDate: string;
  /** Due date (invoices) or validity (quotes). */
  dueDate: string | null;
  /** The date of delivery (BT-72) when the document has one. */
  deliveryDate: string | null;
  currency: string;
  lines: DocumentLine[];
  /** The tax groups, ascending by rate. */
  groups: TaxRow[];
  /**
   * The groups do not add up to the document's totals: amounts issued under the earlier rule
   * (a discount taken after tax), which an EN 16931 document cannot express.
   */
  legacyAmounts: boolean;
  subtotal: number;
  taxTotal: number;
  discountType: string;
  discountValue: string | number;
  discountTotal: number;
  total: number;
  /** Invoices only. */
  amountPaid: number | null;
  amountCredited: number | null;
  balance: number | null;
  terms: string | null;
  notes: string | null;
  /** Why a credit note was made. */
  reason: string | null;
  /** A credit note's invoice number, when it is linked to one. */
  invoiceNumber: string | null;
  /** The client's e-invoice format (CONTRACT §19): `peppol`, `xrechnung` or `facturx`. */
  eInvoiceFormat: EInvoiceFormat;
  /**
   * BT-10: the invoice's own, else (a credit note) its invoice's, else the client's; null when
   * none is set.
   */
  buyerReference: string | null;
  seller: CompanyProfile;
  /** The company's logo (PNG or JPEG), or null. */
  logo: { body: Buffer; contentType: string } | null;
  buyer: {
    name: string;
    vatNumber: string | null;
    /** The buyer's electronic address (`<scheme>:<id>`, CONTRACT §18). */
    peppolId: string | null;
    address: FieldValues | null;
    contact: FieldValues | null;
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The first record of `r` whose `via` is `parent`, by creation. */
async function first(engine: Engine, p: Principal, r: ModelResource, via: string, parent: string): Promise<FieldValues | null> {
  const where = [condition(engine.model, r.byName.get(via)!, 'eq', [parent])];
  const page = await engine.list(p, r, { where, order: [{ field: 'createdAt', dir: 'asc' }], offset: 0, limit: 1, count: false });
  return page.items[0] ?? null;
}

/** Loads everything the documents of one invoice or quote show. */
export async function loadDocument(engine: Engine, db: Db, p: Principal, r: ModelResource, kind: DocumentKind, id: string): Promise<DocumentData> {
  const model = engine.model;
  const doc = await engine.read(p, r, id);
  const clientId = String(doc.client);
  // An issued document reads the parties it was issued with (CONTRACT §18); a draft, today's.
  const kept = keptParties<{ seller: CompanyProfile; buyer: DocumentData['buyer'] }>(doc);
  const [[client, address, contact, seller], logo] = await Promise.all([
    kept
      ? ([{ ...kept.buyer, currency: null } as FieldValues, kept.buyer.address, kept.buyer.contact, kept.seller] as const)
      : Promise.all([
        engine.read(p, model.get('Client'), clientId),
        first(engine, p, model.get('Address'), 'client', clientId),
        first(engine, p, model.get('Contact'), 'client', clientId),
        readCompany(db, p.company.id),
      ]),
    // An issued document's logo is the one it was issued with (none, if it had none).
    kept ? (typeof kept.seller.logo === 'string' ? keptLogoOf(db, p.company.id, kept.seller.logo) : null) : logoOf(db, p.company.id),
  ]);
  const rawLines = ((doc.lines as FieldValues[] | undefined) ?? []).slice().sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0));
  const taxIds = [...new Set(rawLines.map((l) => l.tax).filter((t): t is string => typeof t === 'string'))];
  const taxNames = new Map((taxIds.length ? await engine.findMany(p, model.get('Tax'), taxIds) : []).map((t) => [String(t.id), String(t.name)]));

  const lines = rawLines.map((l): DocumentLine => {
    const taxRate = l.tax && l.taxRate !== null && l.taxRate !== undefined ? String(l.taxRate) : null;
    const taxType = taxRate !== null ? ((l.taxType as TaxType | null) ?? 'exclusive') : null;
    const amounts = lineAmounts({ price: Number(l.price), qty: l.qty as string | number, tax: taxRate !== null ? { rate: taxRate, type: taxType! } : null });
    return {
      description: String(l.description ?? ''),
      qty: (l.qty as string | number | undefined) ?? 1,
      price: Number(l.price),
      total: Number(l.total ?? amounts.total),
      net: l.net === undefined || l.net === null ? amounts.net : Number(l.net),
      taxRate,
      taxType,
      taxName: typeof l.tax === 'string' ? taxNames.get(l.tax) ?? null : null,
      // Lines computed before categories existed: the default of their rate.
      taxCategory: (l.taxCategory as TaxCategory | null) ?? (taxRate !== null ? taxClassOf({ rate: taxRate }).category : 'Z'),
    };
  });

  // The stored groups, with the names of the taxes their lines use.
  const groups = ((doc.taxGroups as TaxGroup[] | undefined) ?? []).map((g): TaxRow => {
    const rate = scaled(g.rate);
    // Groups stored before categories existed: the default of their rate.
    const category = g.category ?? taxClassOf({ rate: g.rate }).category;
    const members = lines.filter((l) => (l.taxRate === null ? 0n : scaled(l.taxRate)) === rate && l.taxCategory === category);
    const names = [...new Set(members.map((l) => l.taxName).filter((n): n is string => n !== null))];
    return {
      rate: Number(g.rate), category, exemptionReason: g.exemptionReason ?? null, exemptionReasonCode: g.exemptionReasonCode ?? null,
      base: Number(g.base), discount: Number(g.discount), taxable: Number(g.taxable), tax: Number(g.tax),
      names, inclusive: members.length > 0 && members.every((l) => l.taxType === 'inclusive'),
    };
  });
  const sum = (k: 'base' | 'discount' | 'tax') => groups.reduce((s, g) => s + g[k], 0);
  const legacyAmounts = sum('base') !== Number(doc.subtotal ?? 0) || sum('discount') !== Number(doc.discountTotal ?? 0) || sum('tax') !== Number(doc.taxTotal ?? 0);

  const invoice = kind === 'invoice';
  // A credit note's invoice: its number (BT-25) and its buyer reference.
  const credited = kind === 'creditNote' && typeof doc.invoice === 'string' ? await engine.read(p, model.get('Invoice'), doc.invoice) : null;
  const dated = (doc.invoiceDate ?? doc.issueDate) as string;
  return {
    kind,
    id: String(doc.id),
    number: String(doc.number ?? doc.id),
    status: String(doc.status),
    issueDate: String(dated),
    dueDate: str(invoice ? doc.dueDate : doc.validUntil),
    deliveryDate: str(doc.deliveryDate),
    currency: String(doc.currency ?? client.currency ?? p.company.currency),
    lines,
    groups,
    legacyAmounts,
    subtotal: Number(doc.subtotal ?? 0),
    taxTotal: Number(doc.taxTotal ?? 0),
    discountType: String(doc.discountType ?? 'none'),
    discountValue: (doc.discountValue as string | number | undefined) ?? 0,
    discountTotal: Number(doc.discountTotal ?? 0),
    total: Number(doc.total ?? 0),
    amountPaid: invoice ? Number(doc.amountPaid ?? 0) : null,
    amountCredited: invoice ? Number(doc.amountCredited ?? 0) : null,
    balance: invoice ? Number(doc.balance ?? 0) : null,
    terms: str(doc.terms),
    notes: str(doc.notes),
    reason: str(doc.reason),
    invoiceNumber: credited ? str(credited.number) : null,
    eInvoiceFormat: (str(client.eInvoiceFormat) ?? 'peppol') as EInvoiceFormat,
    buyerReference: str(doc.buyerReference) ?? str(credited?.buyerReference) ?? str(client.buyerReference),
    seller,
    logo,
    buyer: { name: String(client.name), vatNumber: str(client.vatNumber), peppolId: str(client.peppolId), address, contact },
  };
}
