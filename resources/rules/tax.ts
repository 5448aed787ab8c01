// Tax rules: a tax in use cannot be deleted, and editing a tax changes the amounts of drafts only
// (invoices, quotes and credit notes that have left draft keep the rate and type each line was computed with).
import { and, eq, sql } from 'drizzle-orm';
import { ApiError } from '../../engine/errors.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { recomputeDocument, recomputeTemplate } from './documents.ts';

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
  // Nothing runs on create.
  create: 'references',
  async afterWrite(api, e) {
    if (e.op !== 'update' || (e.data.rate === e.existing!.rate && e.data.type === e.existing!.type)) return;
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
