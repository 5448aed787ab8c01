// The check that every record a write refers to exists in the caller's company, in one statement
// whatever the number of references and of target resources.
import type { EngineParts } from '../engine-parts.ts';
import { Violations, ViolationCode as C } from '../errors.ts';
import { jsonArray } from '../read/select-lists.ts';
import type { FieldValues, Principal, Tx } from '../types.ts';
import type { Normalised, PendingRef } from '../validate.ts';

/**
 * Records a write's reference check loaded, by `<resource>:<id>`: the hooks of that write read
 * them from here instead of the database.
 */
export type LoadedRecords = Map<string, FieldValues>;

export type CheckReferences = (tx: Tx, p: Principal, n: Normalised, loaded: LoadedRecords) => Promise<void>;

export function referenceCheck(parts: EngineParts): CheckReferences {
  const { model, statements, writeSql, columns } = parts;
  return async (tx, p, n, loaded) => {
    if (!n.refs.length) return;
    const byTarget = new Map<string, PendingRef[]>();
    for (const ref of n.refs) {
      const refs = byTarget.get(ref.target);
      if (refs) refs.push(ref);
      else byTarget.set(ref.target, [ref]);
    }
    // Targets in name order, and each one's ids in a list whose size is rounded up to a power of
    // two (the last id repeated): few shapes, so few statements to prepare.
    const targets = [...byTarget.keys()].sort();
    const values: Record<string, unknown> = { company: p.company.id };
    const sizes = targets.map((target, i) => {
      const ids = [...new Set(byTarget.get(target)!.map((x) => x.id))];
      const size = 2 ** Math.ceil(Math.log2(ids.length));
      for (let k = 0; k < size; k++) values[`ids${i}_${k}`] = ids[Math.min(k, ids.length - 1)];
      return size;
    });
    const key = `refs|${targets.map((target, i) => `${target}:${sizes[i]}`).join(',')}`;
    const [row] = await statements.run(tx, { key, build: () => writeSql.refs(targets.map((target, i) => ({ resource: model.get(target), size: sizes[i]! }))) }, values);
    const v = new Violations();
    for (const [target, refs] of byTarget) {
      const tr = model.get(target);
      const found = new Set<string>();
      for (const rec of jsonArray(row?.[String(targets.indexOf(target))])) {
        found.add(rec.id as string);
        // Loaded without embedded children: only records that have none stand for a read.
        if (!tr.embedded.length) loaded.set(`${target}:${rec.id as string}`, columns.decode(tr, rec));
      }
      for (const ref of refs) if (!found.has(ref.id)) v.add(ref.path, `Item not found for "${ref.raw.slice(0, 200)}".`, C.notFound);
    }
    v.throwIfAny();
  };
}
