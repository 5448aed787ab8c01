// Rules shared by the documents addressed to a client (invoices, quotes, recurring invoices, credit notes):
// their currency, their discount and their totals (CONTRACT §6, arithmetic in totals.ts).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FieldValues } from '../../engine/types.ts';
import { amount, ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookApi, WriteEvent } from '../../engine/hooks.ts';
import { AmountTooLarge, computeTotals, discountProblems, type DiscountType, type LineInput, type TaxCategory, type TaxClass, type TaxType, type Totals } from './totals.ts';

/**
 * The company's VAT registration (CONTRACT §18), read with the document: a company not registered
 * for VAT makes every line category O, without tax, with the profile's note as the reason. The
 * profile's row is the company's own (server/schema.ts `companies`), read here as SQL.
 */
export interface Registration {
  registered: boolean;
  note: string | null;
}
declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    /**
     * The company's VAT registration, read outside the transaction (a new document's totals are
     * computed before it opens); absent (a command's engine): registered.
     */
    vatRegistration?: (companyId: string) => Promise<Registration>;
    /** The company profile as GET /api/company shows it, read in `tx` (server/company.ts). */
    companyProfile?: (tx: HookApi['tx'], companyId: string) => Promise<FieldValues>;
    /** Keeps the company's current logo for a document being issued, in `tx`: its sha256, or null (server/company-logo.ts). */
    keepLogo?: (tx: HookApi['tx'], companyId: string) => Promise<string | null>;
  }
}

/**
 * Keeps the seller's and the buyer's details with a document when it leaves draft (`issued`: the
 * states that count as issued), and lets them go when it returns to draft (CONTRACT §18). A
 * document created in an issued state (an invoice POSTed `pending`, a recurring invoice's run)
 * keeps them at once: such a create runs in a transaction (engine/write/create.ts).
 */
export async function keepParties(api: HookApi, e: WriteEvent, issued: readonly string[]): Promise<void> {
  const to = String(e.data.status);
  if (to === 'draft') {
    e.data.parties = null;
    return;
  }
  if (e.existing?.parties || !issued.includes(to) || !api.services.companyProfile) return;
  const clientId = String(e.data.client);
  const client = await api.read('Client', clientId);
  const first = async (resource: string) => {
    const t = api.table(resource);
    const [row] = await api.tx.select().from(t).where(eq(t.client, clientId)).orderBy(t.createdAt, t.id).limit(1);
    return row ? api.read(resource, String(row.id)) : null;
  };
  const seller = await api.services.companyProfile(api.tx, api.principal.company.id);
  // The logo too, by the hash of the bytes kept with it: a new logo leaves the document as it was.
  seller.logo = (await api.services.keepLogo?.(api.tx, api.principal.company.id)) ?? null;
  const buyer = {
    name: String(client?.name ?? ''), vatNumber: client?.vatNumber ?? null, peppolId: client?.peppolId ?? null,
    // What its e-invoice is (CONTRACT §19) and the reference it states: kept too, so that the
    // same document keeps making the same bytes.
    eInvoiceFormat: client?.eInvoiceFormat ?? null, buyerReference: client?.buyerReference ?? null,
    address: await first('Address'), contact: await first('Contact'),
  };
  e.data.parties = JSON.stringify({ seller, buyer });
}

/**
 * The parties a document was issued with (kept in `parties` by the rule above: the seller's
 * profile and the buyer's details), null for a draft; `K` as the reader types them.
 */
export function keptParties<K extends { seller: unknown; buyer: unknown } = { seller: FieldValues; buyer: FieldValues }>(doc: FieldValues): K | null {
  return typeof doc.parties === 'string' && doc.parties ? (JSON.parse(doc.parties) as K) : null;
}

const registrationSql = (companyId: unknown) =>
  sql<string>`(select json_build_array(vat_registered, vat_exemption_note)::text from companies where id = ${companyId})`;
const registrationOf = (v: unknown): Registration => {
  const [registered, note] = (typeof v === 'string' ? JSON.parse(v) : v ?? [true, null]) as [boolean | null, string | null];
  return { registered: registered !== false, note: note ?? null };
};
/**
 * The registration for a new document: the principal's, read with its token or session (kept with
 * it in the token cache, which a change of the registration empties: server/access); else read in
 * the operation's transaction when it has one (a quote's acceptance creating its invoice; on PGlite
 * the only connection), else through the service.
 */
async function newRegistration(api: HookApi): Promise<Registration> {
  if (api.principal.company.vat) return api.principal.company.vat;
  let tx: HookApi['tx'] | undefined;
  try {
    tx = api.tx;
  } catch {
    tx = undefined; // a create that runs before its transaction (create: 'references')
  }
  if (tx) {
    const res = (await tx.execute(sql`select ${registrationSql(api.principal.company.id)} as registration`)) as unknown;
    // postgres.js gives the rows, PGlite an object holding them.
    const rows = (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as { registration: unknown }[];
    return registrationOf(rows[0]?.registration);
  }
  return (await api.services.vatRegistration?.(api.principal.company.id)) ?? { registered: true, note: null };
}

/** The class of lines without a tax, and a line's tax as the registration has it. */
const notSubject = (r: Registration): TaxClass => ({ category: 'O', exemptionReason: r.note, exemptionReasonCode: r.note ? null : 'VATEX-EU-O' });
type AppliedTax = { rate: string | number; type: TaxType } & TaxClass;
function underRegistration(tax: AppliedTax | null, r: Registration): AppliedTax | null {
  if (r.registered || !tax) return tax;
  return { rate: '0', type: 'exclusive', ...notSubject(r) };
}

/** A document's currency is its client's. */
export async function copyClientCurrency(api: HookApi, e: WriteEvent): Promise<void> {
  if (e.existing && e.data.client === e.existing.client) return;
  const client = await api.read('Client', String(e.data.client));
  if (client) e.data.currency = client.currency;
}

/** A percentage discount is at most 100; a fixed one is a whole number of minor units. */
export function checkDiscount(_api: HookApi, e: WriteEvent): void {
  const problem = discountProblems({ type: e.data.discountType as DiscountType, value: e.data.discountValue as number });
  if (problem) throw ApiError.validation([{ propertyPath: 'discountValue', message: problem, code: ViolationCode.range }]);
}

/**
 * Reverse charge (AE) and intra-community supply (K) name the buyer's VAT number (CONTRACT §18):
 * a document leaving draft with such a group needs the client's, else a 422 on `client`.
 */
export async function checkBuyerVatOnIssue(api: HookApi, e: WriteEvent): Promise<void> {
  if (e.op !== 'update' || !e.existing || e.existing.status !== 'draft' || e.data.status === 'draft' || e.data.status === 'cancelled') return;
  const groups = (e.data.taxGroups as { category?: string }[] | null | undefined) ?? [];
  const needing = [...new Set(groups.map((g) => g.category).filter((c) => c === 'AE' || c === 'K'))];
  if (!needing.length) return;
  const client = await api.read('Client', String(e.data.client));
  if (client && typeof client.vatNumber === 'string' && client.vatNumber.trim() !== '') return;
  throw ApiError.validation([{
    propertyPath: 'client',
    message: `Lines of category ${needing.join(' and ')} (${needing.map((c) => (c === 'AE' ? 'reverse charge' : 'intra-community supply')).join(', ')}) need the buyer's VAT number: set the client's vatNumber before issuing.`,
    code: ViolationCode.rule,
  }]);
}

export interface ComputeOptions {
  /**
   * Refuse (422) a fixed discount above the amount before discount. True when the document or its
   * lines are being written; false when a tax edit recomputes documents, which caps the discount.
   */
  strict?: boolean;
}

function totalsOrRefuse(lines: LineInput[], discount: { type: DiscountType; value: string | number }, strict: boolean, currency: string, reg: Registration = { registered: true, note: null }): Totals {
  let totals: Totals;
  try {
    totals = computeTotals(lines.map((l) => ({ ...l, tax: underRegistration(l.tax, reg) })), discount, reg.registered ? {} : notSubject(reg));
  } catch (e) {
    if (e instanceof AmountTooLarge) throw ApiError.validation([{ propertyPath: 'lines', message: 'The amounts of these lines are too large.', code: ViolationCode.range }]);
    throw e;
  }
  if (strict && totals.discountExceedsBase) {
    throw ApiError.validation([{
      propertyPath: 'discountValue',
      message: 'A fixed discount cannot exceed the amount before tax and discount, {subtotal}.',
      code: ViolationCode.range,
      extensions: { subtotal: amount(Math.max(totals.subtotal, 0), currency) },
    }]);
  }
  return totals;
}

const money = (totals: Totals) => ({
  subtotal: totals.subtotal,
  taxTotal: totals.taxTotal,
  discountTotal: totals.discountTotal,
  total: totals.total,
  taxGroups: totals.groups,
});

/** What an invoice still asks for: total − amountPaid − amountCredited (CONTRACT §6.5). */
const balanceOf = (total: number, d: { amountPaid?: number | string | null; amountCredited?: number | string | null }) =>
  total - Number(d.amountPaid ?? 0) - Number(d.amountCredited ?? 0);

/**
 * Recomputes an invoice or a quote from its lines: each line's `total`, and the document's
 * subtotal, taxTotal, discountTotal, total (and balance). While the document is a draft, lines
 * use their tax's current rate and type and store them (`taxRate`, `taxType`); once it has left
 * draft, each line keeps the rate and type it was computed with, so its amounts never move.
 */
export async function recomputeDocument(api: HookApi, name: string, id: string, o: ComputeOptions = {}): Promise<void> {
  const doc = api.model.get(name);
  const linesField = doc.byName.get('lines')!;
  const lineResource = api.model.get(linesField.target!);
  const via = (linesField.def as { via: string }).via;
  const t = api.table(name);
  const lt = api.table(lineResource.name);
  const tt = api.table('Tax');
  const hasBalance = doc.byName.has('balance');
  const hasCredited = doc.byName.has('amountCredited');

  const [d] = (await api.tx
    .select({
      status: t.status, discountType: t.discountType, discountValue: t.discountValue, currency: t.currency, registration: registrationSql(t.companyId),
      ...(hasBalance ? { amountPaid: t.amountPaid } : {}), ...(hasCredited ? { amountCredited: t.amountCredited } : {}),
    })
    .from(t)
    .where(eq(t.id, id))
    .for('update')) as { status: string; discountType: DiscountType; discountValue: string; currency: string; registration: unknown; amountPaid?: number; amountCredited?: number }[];
  if (!d) return;
  const reg = registrationOf(d.registration);
  const rows = (await api.tx
    .select({
      id: lt.id, price: lt.price, qty: lt.qty, total: lt.total, net: lt.net, tax: lt.tax,
      taxRate: lt.taxRate, taxType: lt.taxType, currentRate: tt.rate, currentType: tt.type,
      taxCategory: lt.taxCategory, taxExemptionReason: lt.taxExemptionReason, taxExemptionReasonCode: lt.taxExemptionReasonCode,
      currentCategory: tt.category, currentReason: tt.exemptionReason, currentCode: tt.exemptionReasonCode,
    })
    .from(lt)
    .leftJoin(tt, eq(tt.id, lt.tax))
    .where(eq(lt[via], id))) as {
      id: string; price: number; qty: string; total: number; net: number | null; tax: string | null;
      taxRate: string | null; taxType: TaxType | null; currentRate: string | null; currentType: TaxType | null;
      taxCategory: TaxCategory | null; taxExemptionReason: string | null; taxExemptionReasonCode: string | null;
      currentCategory: TaxCategory | null; currentReason: string | null; currentCode: string | null;
    }[];

  const draft = d.status === 'draft';
  const applied = rows.map((row): AppliedTax | null => {
    if (!row.tax) return null;
    // A line that has never been computed takes the current tax even outside draft.
    if (draft || row.taxRate === null) {
      return underRegistration({ rate: row.currentRate!, type: row.currentType!, category: row.currentCategory, exemptionReason: row.currentReason, exemptionReasonCode: row.currentCode }, reg);
    }
    return { rate: row.taxRate, type: row.taxType!, category: row.taxCategory, exemptionReason: row.taxExemptionReason, exemptionReasonCode: row.taxExemptionReasonCode };
  });
  // Outside draft the stored classes stand: the registration applied when the lines were computed
  // (a line without a tax keeps O there when its company was not registered).
  const untaxedO = rows.find((row) => !row.tax && row.taxCategory === 'O');
  const kept: Registration = untaxedO ? { registered: false, note: untaxedO.taxExemptionReason } : { registered: true, note: null };
  const effective = draft ? reg : kept;
  const totals = totalsOrRefuse(
    rows.map((row, i) => ({ price: row.price, qty: row.qty, tax: applied[i]! })),
    { type: d.discountType, value: d.discountValue },
    o.strict ?? true,
    d.currency,
    effective,
  );
  const untaxed = effective.registered ? null : notSubject(effective);
  const classOf = (t: AppliedTax | null | undefined) => {
    const c = t ?? untaxed;
    return c ? { category: c.category ?? null, reason: c.exemptionReason ?? null, code: c.exemptionReasonCode ?? null } : { category: null, reason: null, code: null };
  };

  const changed = rows
    .map((row, i) => ({ row, tax: applied[i], cls: classOf(applied[i]), total: totals.lines[i]!.total, net: totals.lines[i]!.net }))
    .filter(({ row, tax, cls, total, net }) => Number(row.total) !== total || row.net === null || Number(row.net) !== net || row.taxRate !== (tax?.rate ?? null) || row.taxType !== (tax?.type ?? null)
      || row.taxCategory !== cls.category || row.taxExemptionReason !== cls.reason || row.taxExemptionReasonCode !== cls.code);
  if (changed.length) {
    const col = (field: string) => sql.identifier(lineResource.byName.get(field)!.column);
    const values = sql.join(
      changed.map((c) => sql`(${c.row.id}::uuid, ${c.total}::bigint, ${c.net}::bigint, ${c.tax?.rate ?? null}::numeric, ${c.tax?.type ?? null}::text, ${c.cls.category}::text, ${c.cls.reason}::text, ${c.cls.code}::text)`),
      sql`, `,
    );
    await api.tx.execute(sql`update ${lt} set ${col('total')} = v.total, ${col('net')} = v.net, ${col('taxRate')} = v.rate, ${col('taxType')} = v.type,
      ${col('taxCategory')} = v.category, ${col('taxExemptionReason')} = v.reason, ${col('taxExemptionReasonCode')} = v.code, "updated_at" = now()
      from (values ${values}) as v(id, total, net, rate, type, category, reason, code) where ${lt.id} = v.id`);
  }
  const set: FieldValues = { ...money(totals), updatedAt: new Date() };
  if (hasBalance) set.balance = balanceOf(totals.total, d);
  await api.tx.update(t).set(set).where(eq(t.id, id));
}

/** Recomputes a recurring invoice's totals from its embedded list of lines and current taxes. */
export async function recomputeTemplate(api: HookApi, id: string, o: ComputeOptions = {}): Promise<void> {
  const t = api.table('RecurringInvoice');
  const tt = api.table('Tax');
  const [d] = (await api.tx
    .select({ lines: t.lines, discountType: t.discountType, discountValue: t.discountValue, currency: t.currency, registration: registrationSql(t.companyId) })
    .from(t)
    .where(eq(t.id, id))
    .for('update')) as { lines: FieldValues[] | null; discountType: DiscountType; discountValue: string; currency: string; registration: unknown }[];
  if (!d) return;
  const lines = d.lines ?? [];
  const taxIds = [...new Set(lines.map((l) => l.tax).filter((x): x is string => typeof x === 'string'))];
  const taxes = new Map<string, AppliedTax>();
  if (taxIds.length) {
    const rows = (await api.tx
      .select({ id: tt.id, rate: tt.rate, type: tt.type, category: tt.category, exemptionReason: tt.exemptionReason, exemptionReasonCode: tt.exemptionReasonCode })
      .from(tt)
      .where(and(eq(tt.companyId, api.principal.company.id), inArray(tt.id, taxIds)))) as ({ id: string } & AppliedTax)[];
    for (const r of rows) taxes.set(r.id, r);
  }
  const totals = totalsOrRefuse(
    lines.map((l) => ({ price: Number(l.price), qty: (l.qty as number | undefined) ?? 1, tax: typeof l.tax === 'string' ? taxes.get(l.tax) ?? null : null })),
    { type: d.discountType, value: d.discountValue },
    o.strict ?? true,
    d.currency,
    registrationOf(d.registration),
  );
  await api.tx.update(t).set(money(totals)).where(eq(t.id, id));
}

/**
 * The totals of a new invoice or quote, computed from the lines in the request before anything
 * is written (the same arithmetic as recomputeDocument, with each line's current tax): the
 * document and its lines are then inserted once, complete. Taxes were loaded when the lines'
 * references were checked, so this reads nothing more.
 */
export async function computeNewDocument(api: HookApi, data: FieldValues, children: ReadonlyMap<string, FieldValues[]>): Promise<void> {
  const lines = children.get('lines') ?? [];
  const taxes: (AppliedTax | null)[] = [];
  for (const line of lines) {
    if (line.tax === null || line.tax === undefined) {
      taxes.push(null);
      continue;
    }
    const tax = await api.read('Tax', String(line.tax));
    // Checked as a reference before: gone only if another request deleted it meanwhile.
    if (!tax) throw ApiError.validation([{ propertyPath: 'lines', message: 'Item not found: it was deleted meanwhile.', code: ViolationCode.notFound }]);
    taxes.push({ rate: tax.rate as number, type: tax.type as TaxType, category: tax.category as TaxCategory | null, exemptionReason: tax.exemptionReason as string | null, exemptionReasonCode: tax.exemptionReasonCode as string | null });
  }
  const reg = await newRegistration(api);
  const applied = taxes.map((t) => underRegistration(t, reg));
  const totals = totalsOrRefuse(
    lines.map((line, i) => ({ price: line.price as number, qty: (line.qty as number | undefined) ?? 1, tax: applied[i]! })),
    { type: data.discountType as DiscountType, value: data.discountValue as number },
    true,
    String(data.currency),
    reg,
  );
  lines.forEach((line, i) => {
    const t = applied[i];
    line.total = totals.lines[i]!.total;
    line.net = totals.lines[i]!.net;
    line.taxRate = t?.rate ?? null;
    line.taxType = t?.type ?? null;
    const c = t ?? (reg.registered ? null : notSubject(reg));
    line.taxCategory = c?.category ?? null;
    line.taxExemptionReason = c?.exemptionReason ?? null;
    line.taxExemptionReasonCode = c?.exemptionReasonCode ?? null;
  });
  Object.assign(data, money(totals));
  if (api.resource.byName.has('balance')) data.balance = totals.total;
}
