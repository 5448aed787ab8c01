// Children written with their record (descriptor `nested`: a client's contacts and addresses),
// in the record's transaction, through the engine's own create, update and delete of the child
// (its validation, rules, events and references): an item with the `id` of one of the record's
// children changes it, one without creates it; on update, the children the body leaves out are
// deleted. A violation of an item names it (`contacts[1].email`); any refusal undoes the whole
// write, the record's included, since it is all one transaction.
import { sql } from 'drizzle-orm';
import { ApiError, violation, ViolationCode } from '../errors.ts';
import type { EngineParts } from '../engine-parts.ts';
import type { ModelResource } from '../model.ts';
import { rowsOf, type FieldValues, type Principal, type Tx } from '../types.ts';
import { refId } from '../validate.ts';

export interface NestedDeps {
  create(tx: Tx, p: Principal, r: ModelResource, input: FieldValues): Promise<FieldValues>;
  update(tx: Tx, p: Principal, r: ModelResource, id: string, input: FieldValues): Promise<FieldValues>;
  remove(tx: Tx, p: Principal, r: ModelResource, id: string): Promise<FieldValues>;
}

/** Writes the nested children of record `ownerId` that `children` (the normalised body's) names. */
export type WriteNested = (tx: Tx, p: Principal, r: ModelResource, ownerId: string, children: ReadonlyMap<string, FieldValues[]>, isNew: boolean) => Promise<void>;

/** The children of `children` that are nested (not embedded): written by WriteNested, not with the record's rows. */
export const nestedOnly = (r: ModelResource, children: ReadonlyMap<string, FieldValues[]>): Map<string, FieldValues[]> =>
  new Map([...children].filter(([name]) => r.nested.some((f) => f.name === name)));

export const embeddedOnly = (r: ModelResource, children: ReadonlyMap<string, FieldValues[]>): Map<string, FieldValues[]> =>
  new Map([...children].filter(([name]) => !r.nested.some((f) => f.name === name)));

export function nestedWrites(parts: EngineParts, deps: NestedDeps): WriteNested {
  const { model, tables } = parts;

  /** Runs one child's write; its violations are re-stated under the item's path. */
  async function item<T>(at: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ApiError && e.violations?.length) {
        throw ApiError.validation(e.violations.map((v) => ({ ...v, propertyPath: v.propertyPath ? `${at}.${v.propertyPath}` : at })));
      }
      throw e;
    }
  }

  return async (tx, p, r, ownerId, children, isNew) => {
    for (const f of r.nested) {
      const items = children.get(f.name);
      if (!items) continue;
      const child = model.get(f.target!);
      const via = (f.def as { via: string }).via;
      const t = tables.get(child);
      const viaColumn = child.byName.get(via)!.column;
      const existing = isNew
        ? new Set<string>()
        : new Set(rowsOf<{ id: string }>(await tx.execute(sql`select id from ${t} where company_id = ${p.company.id} and ${sql.identifier(viaColumn)} = ${ownerId} for update`)).map((x) => String(x.id)));
      const kept = new Set<string>();
      const bad = items.flatMap((it, i) => {
        const id = it.id === undefined || it.id === null ? null : refId(model, child.name, it.id);
        if (id && !existing.has(id)) return [violation(`${f.name}[${i}].id`, `Not one of this ${r.name.toLowerCase()}'s ${f.name}.`, ViolationCode.notFound)];
        if (id) kept.add(id);
        return [];
      });
      if (bad.length) throw ApiError.validation(bad);
      // Deleted first: a unique value may move from a removed child to a new one.
      for (const id of existing) if (!kept.has(id)) await deps.remove(tx, p, child, id);
      for (const [i, it] of items.entries()) {
        const { id: raw, ...values } = it;
        const id = raw === undefined || raw === null ? null : refId(model, child.name, raw)!;
        const input = { ...values, [via]: ownerId };
        await item(`${f.name}[${i}]`, () => (id ? deps.update(tx, p, child, id, input) : deps.create(tx, p, child, input)));
      }
    }
  };
}
