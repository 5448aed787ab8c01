// Collection arguments (paging, filters, order) → the engine's query. One function for the
// resolvers and for the compiled reads, so both read exactly the same records.
import { ApiError } from '../errors.ts';
import type { Model, ModelField, ModelResource } from '../model.ts';
import { condition, DATE_OPS, type Condition, type ConditionOp, type Order, type SliceQuery } from '../query.ts';
import { windowOf, type PageArgs } from './connection.ts';

export type Args = Record<string, unknown>;

/** The order a children field falls back on (its `orderBy`), after the requested one. */
export function childrenOrder(f: ModelField): Order[] {
  const orderBy = (f.def as { orderBy?: string }).orderBy;
  return orderBy ? [{ field: orderBy, dir: 'asc' }] : [];
}

export function sliceQuery(model: Model, r: ModelResource, args: Args, fallback: readonly Order[] = []): SliceQuery {
  const where: Condition[] = [];
  for (const f of r.filters) {
    if (f.filter === 'date') {
      const bounds = args[f.name];
      if (!Array.isArray(bounds)) continue;
      for (const b of bounds as (Record<string, unknown> | null)[]) {
        if (!b) continue;
        for (const op of DATE_OPS) if (b[op] !== undefined && b[op] !== null) where.push(condition(model, f, op, [b[op]]));
      }
    } else {
      const values: unknown[] = [];
      if (args[f.name] !== undefined && args[f.name] !== null) values.push(args[f.name]);
      const list = args[`${f.name}_list`];
      if (Array.isArray(list)) values.push(...list.filter((v) => v !== null && v !== undefined));
      const asked = args[f.name] != null || Array.isArray(list);
      if (asked) where.push(condition(model, f, (f.filter === 'partial' ? 'partial' : 'eq') as ConditionOp, values));
    }
  }
  const order: Order[] = [];
  const orderArg = args.order;
  if (Array.isArray(orderArg)) {
    for (const item of orderArg as (Record<string, unknown> | null)[]) {
      if (!item) continue;
      for (const [field, dir] of Object.entries(item)) {
        if (dir === null || dir === undefined) continue;
        const d = String(dir).toLowerCase();
        if (d !== 'asc' && d !== 'desc') throw ApiError.badRequest(`Invalid direction "${String(dir).slice(0, 20)}" for order "${field}": use ASC or DESC.`);
        order.push({ field, dir: d });
      }
    }
  }
  for (const o of fallback) if (!order.some((x) => x.field === o.field)) order.push(o);
  return { where, order, window: windowOf(r, order, args as PageArgs) };
}
