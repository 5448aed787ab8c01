// Rules shared by the documents addressed to a client (invoices, quotes, recurring invoices, credit notes):
// their currency, their discount and their totals (CONTRACT §6, arithmetic in totals.ts).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FieldValues } from '../../engine/types.ts';
import { amount, ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookApi, WriteEvent } from '../../engine/hooks.ts';
import { AmountTooLarge, computeTotals, discountProblems, type DiscountType, type LineInput, type TaxType, type Totals } from './totals.ts';

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

export interface ComputeOptions {
  /**
   * Refuse (422) a fixed discount above the amount before discount. True when the document or its
   * lines are being written; false when a tax edit recomputes documents, which caps the discount.
   */
  strict?: boolean;
}

function totalsOrRefuse(lines: LineInput[], discount: { type: DiscountType; value: string | number }, strict: boolean, currency: string): Totals {
  let totals: Totals;
  try {
    totals = computeTotals(lines, discount);
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
      status: t.status, discountType: t.discountType, discountValue: t.discountValue, currency: t.currency,
      ...(hasBalance ? { amountPaid: t.amountPaid } : {}), ...(hasCredited ? { amountCredited: t.amountCredited } : {}),
    })
    .from(t)
    .where(eq(t.id, id))
    .for('update')) as { status: string; discountType: DiscountType; discountValue: string; currency: string; amountPaid?: number; amountCredited?: number }[];
  if (!d) return;
  const rows = (await api.tx
    .select({
      id: lt.id, price: lt.price, qty: lt.qty, total: lt.total, net: lt.net, tax: lt.tax,
      taxRate: lt.taxRate, taxType: lt.taxType, currentRate: tt.rate, currentType: tt.type,
    })
    .from(lt)
    .leftJoin(tt, eq(tt.id, lt.tax))
    .where(eq(lt[via], id))) as {
      id: string; price: number; qty: string; total: number; net: number | null; tax: string | null;
      taxRate: string | null; taxType: TaxType | null; currentRate: string | null; currentType: TaxType | null;
    }[];

  const draft = d.status === 'draft';
  const applied = rows.map((row) => {
    if (!row.tax) return null;
    // A line that has never been computed takes the current tax even outside draft.
    if (draft || row.taxRate === null) return { rate: row.currentRate!, type: row.currentType! };
    return { rate: row.taxRate, type: row.taxType! };
  });
  const totals = totalsOrRefuse(
    rows.map((row, i) => ({ price: row.price, qty: row.qty, tax: applied[i]! })),
    { type: d.discountType, value: d.discountValue },
    o.strict ?? true,
    d.currency,
  );

  const changed = rows
    .map((row, i) => ({ row, tax: applied[i], total: totals.lines[i]!.total, net: totals.lines[i]!.net }))
    .filter(({ row, tax, total, net }) => Number(row.total) !== total || row.net === null || Number(row.net) !== net || row.taxRate !== (tax?.rate ?? null) || row.taxType !== (tax?.type ?? null));
  if (changed.length) {
    const col = (field: string) => sql.identifier(lineResource.byName.get(field)!.column);
    const values = sql.join(
      changed.map((c) => sql`(${c.row.id}::uuid, ${c.total}::bigint, ${c.net}::bigint, ${c.tax?.rate ?? null}::numeric, ${c.tax?.type ?? null}::text)`),
      sql`, `,
    );
    await api.tx.execute(sql`update ${lt} set ${col('total')} = v.total, ${col('net')} = v.net, ${col('taxRate')} = v.rate, ${col('taxType')} = v.type, "updated_at" = now()
      from (values ${values}) as v(id, total, net, rate, type) where ${lt.id} = v.id`);
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
    .select({ lines: t.lines, discountType: t.discountType, discountValue: t.discountValue, currency: t.currency })
    .from(t)
    .where(eq(t.id, id))
    .for('update')) as { lines: FieldValues[] | null; discountType: DiscountType; discountValue: string; currency: string }[];
  if (!d) return;
  const lines = d.lines ?? [];
  const taxIds = [...new Set(lines.map((l) => l.tax).filter((x): x is string => typeof x === 'string'))];
  const taxes = new Map<string, { rate: string; type: TaxType }>();
  if (taxIds.length) {
    const rows = (await api.tx.select({ id: tt.id, rate: tt.rate, type: tt.type }).from(tt).where(and(eq(tt.companyId, api.principal.company.id), inArray(tt.id, taxIds)))) as { id: string; rate: string; type: TaxType }[];
    for (const r of rows) taxes.set(r.id, r);
  }
  const totals = totalsOrRefuse(
    lines.map((l) => ({ price: Number(l.price), qty: (l.qty as number | undefined) ?? 1, tax: typeof l.tax === 'string' ? taxes.get(l.tax) ?? null : null })),
    { type: d.discountType, value: d.discountValue },
    o.strict ?? true,
    d.currency,
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
  const taxes: ({ rate: number; type: TaxType } | null)[] = [];
  for (const line of lines) {
    if (line.tax === null || line.tax === undefined) {
      taxes.push(null);
      continue;
    }
    const tax = await api.read('Tax', String(line.tax));
    // Checked as a reference before: gone only if another request deleted it meanwhile.
    if (!tax) throw ApiError.validation([{ propertyPath: 'lines', message: 'Item not found: it was deleted meanwhile.', code: ViolationCode.notFound }]);
    taxes.push({ rate: tax.rate as number, type: tax.type as TaxType });
  }
  const totals = totalsOrRefuse(
    lines.map((line, i) => ({ price: line.price as number, qty: (line.qty as number | undefined) ?? 1, tax: taxes[i]! })),
    { type: data.discountType as DiscountType, value: data.discountValue as number },
    true,
    String(data.currency),
  );
  lines.forEach((line, i) => {
    line.total = totals.lines[i]!.total;
    line.net = totals.lines[i]!.net;
    line.taxRate = taxes[i]?.rate ?? null;
    line.taxType = taxes[i]?.type ?? null;
  });
  Object.assign(data, money(totals));
  if (api.resource.byName.has('balance')) data.balance = totals.total;
}
