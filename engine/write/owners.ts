// Embedded children written through the engine on their own (GraphQL's line mutations): their
// owner is locked first, so writes to one owner's children are serialised, its state decides
// whether its children may change, and its computed fields follow every change.
import type { EngineParts } from '../engine-parts.ts';
import { ApiError, ViolationCode as C } from '../errors.ts';
import type { HookApi } from '../hooks.ts';
import type { ModelResource } from '../model.ts';
import type { Principal, Tx } from '../types.ts';
import { editableIn } from './state-rules.ts';

export interface Owners {
  /**
   * Before a write to a child of `r`: locks its owner and refuses the write when the owner's
   * state does not allow its children to change. Returns the owner's id (undefined when `r` has
   * no owner, or the owner is not the caller's: the reference check refuses that).
   */
  lock(tx: Tx, p: Principal, r: ModelResource, ownerId: unknown): Promise<string | undefined>;
  /** After the write: recomputes the owner's computed fields. */
  recompute(tx: Tx, p: Principal, r: ModelResource, ownerId: string | undefined): Promise<void>;
}

export function owners(parts: EngineParts, hookApi: (tx: Tx, p: Principal, r: ModelResource) => HookApi): Owners {
  const { model, reads } = parts;
  return {
    async lock(tx, p, r, ownerId) {
      if (!r.owner || typeof ownerId !== 'string') return undefined;
      const owner = model.get(r.owner.resource);
      const rec = await reads.fetch(tx, owner, ownerId, true);
      if (!rec || rec.companyId !== p.company.id) return undefined;
      const lock = editableIn(owner, rec);
      if (lock && !lock.fields.includes(r.owner.children)) {
        throw ApiError.validation([{
          propertyPath: r.owner.field.name,
          message: `The ${r.owner.field.name}'s ${r.owner.children} cannot change while its ${owner.states!.field} is "${lock.state}".`,
          code: C.rule,
        }]);
      }
      return rec.id as string;
    },
    async recompute(tx, p, r, ownerId) {
      if (!r.owner || !ownerId) return;
      const owner = model.get(r.owner.resource);
      await owner.computed?.compute(hookApi(tx, p, owner), ownerId);
    },
  };
}
