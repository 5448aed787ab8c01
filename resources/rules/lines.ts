// Lines of invoices and quotes. Their totals, their owner's totals, the owner's lock (a line of a
// document that has left draft cannot change) are declared on the owner (`computed`,
// `states.editable`) and applied by the engine; what is left here is the line's place.
import { and, eq, sql } from 'drizzle-orm';
import type { HookSet } from '../../engine/hooks.ts';

export const lineRules: HookSet = {
  async beforeWrite(api, e) {
    // A line created on its own (GraphQL's line mutations) without a position goes last.
    if (e.op !== 'create' || (e.data.position !== undefined && e.data.position !== null) || !api.resource.owner) return;
    const via = api.resource.owner.field.name;
    const t = api.table(api.resource.name);
    const [row] = await api.tx
      .select({ next: sql<number>`coalesce(max(${t.position}) + 1, 0)::int` })
      .from(t)
      .where(and(eq(t.companyId, api.principal.company.id), eq(t[via], String(e.data[via]))));
    e.data.position = Number(row?.next ?? 0);
  },
};
