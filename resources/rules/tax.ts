// Tax rules: a tax in use cannot be deleted, and editing a tax changes the amounts of drafts only
// (invoices, quotes and credit notes that have left draft keep the rate and type each line was computed with).
import { and, eq, sql } from 'drizzle-orm';
import { ApiError } from '../../engine/errors.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { ViolationCode, type Violation } from '../../engine/errors.ts';
import { recomputeDocument, recomputeTemplate } from './documents.ts';
import { defaultCategory, scaled } from './totals.ts';

/**
 * A tax's category rules (CONTRACT §18): S has a rate above 0, the others 0; E, AE, K, G and O
 * need a VATEX code or a reason. The category defaults from the rate: S above 0 %, else Z.
 */
function categoryProblems(data: Record<string, unknown>): Violation[] {
  const v: Violation[] = [];
  const positive = scaled(data.rate as string | number) > 0n;
  const category = data.category as string;
  if (category === 'S' && !positive) v.push({ propertyPath: 'rate', message: 'Category S (standard rate) needs a rate above 0.', code: ViolationCode.rule });
  if (category !== 'S' && positive) v.push({ propertyPath: 'rate', message: `Category ${category} has rate 0: only S (standard rate) charges VAT.`, code: ViolationCode.rule });
  const code = typeof data.exemptionReasonCode === 'string' ? data.exemptionReasonCode.trim() : '';
  const reason = typeof data.exemptionReason === 'string' ? data.exemptionReason.trim() : '';
  if (['E', 'AE', 'K', 'G', 'O'].includes(category) && !code && !reason) {
    v.push({ propertyPath: 'exemptionReasonCode', message: `Category ${category} needs the reason no VAT is charged: a VATEX code (exemptionReasonCode, e.g. VATEX-EU-AE) or a text (exemptionReason).`, code: ViolationCode.blank });
  }
  if (code && !/^VATEX-[A-Z]{2}(-[A-Z0-9]+)+$/i.test(code)) v.push({ propertyPath: 'exemptionReasonCode', message: 'A VATEX code looks like VATEX-EU-AE, VATEX-EU-IC or VATEX-EU-132.', code: ViolationCode.rule });
  if ((category === 'S' || category === 'Z') && (code || reason)) {
    v.push({ propertyPath: code ? 'exemptionReasonCode' : 'exemptionReason', message: `Category ${category} has no exemption reason.`, code: ViolationCode.rule });
  }
  return v;
}

/** Recurring invoices whose embedded lines use the tax. */
async function templatesUsing(api: HookApi, taxId: string): Promise<string[]> {
  const t = api.table('RecurringInvoice');
  const rows = await api.tx
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.companyId, api.principal.company.id), sql`${t.lines} @> ${JSON.stringify([{ tax: taxId }])}::jsonb`))
    .orderBy(t.id);
  return rows.map((r) => r.id as string);
}

/** Draft invoices, quotes or credit notes with a line using the tax. */
async function draftsUsing(api: HookApi, doc: string, line: string, via: string, taxId: string): Promise<string[]> {
  const d = api.table(doc);
  const l = api.table(line);
  const rows = await api.tx
    .selectDistinct({ id: d.id })
    .from(l)
    .innerJoin(d, eq(d.id, l[via]))
    .where(and(eq(l.tax, taxId), eq(d.status, 'draft')))
    .orderBy(d.id); // one lock order for every writer, so two tax edits cannot deadlock
  return rows.map((r) => r.id as string);
}

export const taxRules: HookSet = {
  // Nothing but the category's rules runs on create.
  create: 'references',
  beforeWrite(_api, e) {
    const data = e.data as Record<string, unknown>;
    // A category left out follows the rate (also when only the rate changes).
    if (data.category === null || data.category === undefined || (e.op === 'update' && e.existing!.category === null && data.category === e.existing!.category)) {
      data.category = defaultCategory(data.rate as string | number);
    }
    if (typeof data.exemptionReasonCode === 'string') data.exemptionReasonCode = data.exemptionReasonCode.trim().toUpperCase() || null;
    const v = categoryProblems(data);
    if (v.length) throw ApiError.validation(v);
  },
  async afterWrite(api, e) {
    const same = (k: string) => String(e.data[k] ?? '') === String(e.existing![k] ?? '');
    if (e.op !== 'update' || (e.data.rate === e.existing!.rate && e.data.type === e.existing!.type && same('category') && same('exemptionReason') && same('exemptionReasonCode'))) return;
    const id = e.id;
    // A tax edit may lower a draft's amount below its fixed discount: the discount is capped then.
    for (const inv of await draftsUsing(api, 'Invoice', 'InvoiceLine', 'invoice', id)) await recomputeDocument(api, 'Invoice', inv, { strict: false });
    for (const quote of await draftsUsing(api, 'Quote', 'QuoteLine', 'quote', id)) await recomputeDocument(api, 'Quote', quote, { strict: false });
    for (const note of await draftsUsing(api, 'CreditNote', 'CreditNoteLine', 'creditNote', id)) await recomputeDocument(api, 'CreditNote', note, { strict: false });
    for (const tpl of await templatesUsing(api, id)) await recomputeTemplate(api, tpl, { strict: false });
  },
  async beforeDelete(api, existing) {
    const id = String(existing.id);
    const users: string[] = [];
    for (const [line, label] of [['InvoiceLine', 'invoice lines'], ['QuoteLine', 'quote lines'], ['CreditNoteLine', 'credit note lines']] as const) {
      const l = api.table(line);
      const [row] = await api.tx.select({ id: l.id }).from(l).where(eq(l.tax, id)).limit(1);
      if (row) users.push(label);
    }
    if ((await templatesUsing(api, id)).length) users.push('recurring invoices');
    if (users.length) throw ApiError.conflict(`This tax cannot be deleted: it is used by ${users.join(', ')}.`);
  },
};
