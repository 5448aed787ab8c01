// Deleting a record, in a transaction: locked (after its owner, for an embedded child), checked
// against its state's `deletable` and beforeDelete, deleted (its embedded children with it, by
// their foreign keys), then its owner recomputed and afterDelete run.
import { sql } from 'drizzle-orm';
import type { EngineParts } from '../engine-parts.ts';
import type { ModelResource } from '../model.ts';
import type { FieldValues, Principal, Tx } from '../types.ts';
import type { HookApis } from './hook-api.ts';
import type { Owners } from './owners.ts';
import { checkDeletable } from './state-rules.ts';
import { checkPrecondition, type Precondition } from '../versions.ts';

export type Remove = (tx: Tx, p: Principal, r: ModelResource, id: string, pre?: Precondition) => Promise<FieldValues>;

export function remove(parts: EngineParts, hooks: HookApis, owners: Owners): Remove {
  const { statements, tables, reads } = parts;
  return async (tx, p, r, id, pre) => {
    const ownerId = r.owner ? await owners.lock(tx, p, r, (await reads.readIn(tx, p, r, id))[r.owner.field.name]) : undefined;
    const existing = await reads.readIn(tx, p, r, id, true);
    checkPrecondition(pre, existing.version);
    checkDeletable(r, existing);
    const api = hooks.inTransaction(tx, p, r);
    await r.hooks.beforeDelete?.(api, existing);
    // The payload of a delete is the record as it was: written before the row goes.
    await parts.events.write(tx, r, existing.id as string, 'deleted', existing, existing);
    const t = tables.get(r);
    await statements.run(tx, { key: `delete|${r.name}`, build: () => sql`delete from ${t} where ${t.id} = ${sql.placeholder('id')}` }, { id: existing.id });
    await owners.recompute(tx, p, r, ownerId);
    await r.hooks.afterDelete?.(api, existing);
    return existing;
  };
}
