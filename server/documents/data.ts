// What a document (PDF, UBL) shows, gathered through the engine's operations (so tenancy and
// permissions are the engine's: 404 unknown, 403 another company's): the invoice or quote with
// its lines, its client, the client's first address and first contact, the names of the taxes
// used, and the seller's company profile. Amounts are the stored integers; each tax row is
// computed from the lines with the same arithmetic as the totals (resources/rules/totals.ts).
import type { Principal, Rec } from '../../engine/context.ts';
import type { ModelResource } from '../../engine/model.ts';
import type { Engine } from '../../engine/operations.ts';
import { condition } from '../../engine/query.ts';
import { lineAmounts, scaled, type TaxType } from '../../resources/rules/totals.ts';
import type { Db } from '../../engine/context.ts';
import { readCompany, type CompanyProfile } from '../company.ts';

export type DocumentKind = 'invoice' | 'quote';

export interface DocumentLine {
  description: string;
  /** Exact decimal text or number. */
  qty: string | number;
  price: number;
  /** round(price × qty). */
  total: number;
  /** The line's tax amount and what it adds to the subtotal (total less an inclusive tax). */
  tax: number;
  net: number;
  /** The rate and type the line was computed with; null without a tax. */
  taxRate: string | null;
  taxType: TaxType | null;
  taxName: string | null;
}

export interface TaxRow {
  /** The names of the taxes at this rate and type, e.g. "VAT". */
  names: string[];
  rate: string;
  type: TaxType;
  /** Σ net of the lines at this rate, and Σ of their tax. */
  base: number;
  amount: number;
}

export interface DocumentData {
  kind: DocumentKind;
  id: string;
  number: string;
  status: string;
  issueDate: string;
  /** Due date (invoices) or validity (quotes). */
  dueDate: string | null;
  currency: string;
  lines: DocumentLine[];
  taxes: TaxRow[];
  subtotal: number;
  taxTotal: number;
  discountType: string;
  discountValue: string | number;
  discountTotal: number;
  total: number;
  /** Invoices only. */
  amountPaid: number | null;
  balance: number | null;
  terms: string | null;
  notes: string | null;
  seller: CompanyProfile;
  buyer: {
    name: string;
    vatNumber: string | null;
    address: Rec | null;
    contact: Rec | null;
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The first record of `r` whose `via` is `parent`, by creation. */
async function first(engine: Engine, p: Principal, r: ModelResource, via: string, parent: string): Promise<Rec | null> {
  const where = [condition(engine.model, r.byName.get(via)!, 'eq', [parent])];
  const page = await engine.list(p, r, { where, order: [{ field: 'createdAt', dir: 'asc' }], offset: 0, limit: 1, count: false });
  return page.items[0] ?? null;
}

/** Loads everything the documents of one invoice or quote show. */
export async function loadDocument(engine: Engine, db: Db, p: Principal, r: ModelResource, kind: DocumentKind, id: string): Promise<DocumentData> {
  const model = engine.model;
  const doc = await engine.read(p, r, id);
  const clientId = String(doc.client);
  const [client, address, contact, seller] = await Promise.all([
    engine.read(p, model.get('Client'), clientId),
    first(engine, p, model.get('Address'), 'client', clientId),
    first(engine, p, model.get('Contact'), 'client', clientId),
    readCompany(db, p.company.id),
  ]);
  const rawLines = ((doc.lines as Rec[] | undefined) ?? []).slice().sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0));
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
      total: amounts.total,
      tax: amounts.tax,
      net: amounts.net,
      taxRate,
      taxType,
      taxName: typeof l.tax === 'string' ? taxNames.get(l.tax) ?? null : null,
    };
  });

  // One row per rate and type, in the order the lines first use them.
  const rows = new Map<string, TaxRow>();
  for (const l of lines) {
    if (l.taxRate === null) continue;
    const key = `${scaled(l.taxRate)}/${l.taxType}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { names: [], rate: l.taxRate, type: l.taxType!, base: 0, amount: 0 }));
    if (l.taxName && !row.names.includes(l.taxName)) row.names.push(l.taxName);
    row.base += l.net;
    row.amount += l.tax;
  }

  const invoice = kind === 'invoice';
  return {
    kind,
    id: String(doc.id),
    number: String(doc.number ?? doc.id),
    status: String(doc.status),
    issueDate: String(doc.invoiceDate),
    dueDate: str(invoice ? doc.dueDate : doc.validUntil),
    currency: String(doc.currency ?? client.currency ?? p.company.currency),
    lines,
    taxes: [...rows.values()],
    subtotal: Number(doc.subtotal ?? 0),
    taxTotal: Number(doc.taxTotal ?? 0),
    discountType: String(doc.discountType ?? 'none'),
    discountValue: (doc.discountValue as string | number | undefined) ?? 0,
    discountTotal: Number(doc.discountTotal ?? 0),
    total: Number(doc.total ?? 0),
    amountPaid: invoice ? Number(doc.amountPaid ?? 0) : null,
    balance: invoice ? Number(doc.balance ?? 0) : null,
    terms: str(doc.terms),
    notes: str(doc.notes),
    seller,
    buyer: { name: String(client.name), vatNumber: str(client.vatNumber), address, contact },
  };
}
