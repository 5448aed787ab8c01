// Updating a record (merge or replace), in a transaction: the record is locked (after its owner,
// for an embedded child written on its own), the input validated against it, the state rules and
// hooks applied, then one statement writes its columns and the sequence numbers it lacks, one per
// children field replaces its embedded children, and its computed fields follow.
import type { EngineParts } from '../engine-parts.ts';
import type { ModelResource } from '../model.ts';
import type { FieldValues, Principal, Tx } from '../types.ts';
import { sameValue, type WriteMode } from '../validate.ts';
import { checkPrecondition, type Precondition } from '../versions.ts';
import type { HookApis } from './hook-api.ts';
import type { Owners } from './owners.ts';
import type { CheckReferences, LoadedRecords } from './references.ts';
import { checkCrossField, checkEditable, checkStates, derive } from './state-rules.ts';
import { bindColumns, sameChildren, storable, unnumbered, type ChildRows } from './values.ts';
import { embeddedOnly, nestedOnly, type WriteNested } from './nested.ts';

export interface UpdateDeps {
  parts: EngineParts;
  checkReferences: CheckReferences;
  hooks: HookApis;
  owners: Owners;
  children: ChildRows;
  nested: WriteNested;
}

export type Update = (tx: Tx, p: Principal, r: ModelResource, id: string, input: FieldValues, mode: WriteMode, pre?: Precondition) => Promise<FieldValues>;

export function update({ parts, checkReferences, hooks, owners, children, nested }: UpdateDeps): Update {
  const { model, statements, writeSql, reads } = parts;

  /** Replaces the embedded children of record `id`: one statement per children field. */
  async function replaceChildren(tx: Tx, p: Principal, r: ModelResource, id: string, embedded: Map<string, FieldValues[]>): Promise<void> {
    for (const [name, items] of embedded) {
      const f = r.byName.get(name)!;
      const values: Record<string, unknown> = { owner: id };
      if (items.length) values.rows = JSON.stringify(children.rows(p, f, id, new Date().toISOString(), items));
      const build = () => writeSql.children(model.get(f.target!), (f.def as { via: string }).via, true, items.length > 0);
      await statements.run(tx, { key: `children|${r.name}|${name}|true|${items.length > 0}`, build }, values);
    }
  }

  return async (tx, p, r, id, input, mode, pre) => {
    const ownerId = r.owner ? await owners.lock(tx, p, r, (await reads.readIn(tx, p, r, id))[r.owner.field.name]) : undefined;
    const existing = await reads.readIn(tx, p, r, id, true);
    checkPrecondition(pre, existing.version);
    const n = parts.validator(r).normalise(input, mode, existing);
    const loaded: LoadedRecords = new Map();
    await checkReferences(tx, p, n, loaded);
    const data: FieldValues = { ...existing, ...n.data };
    checkStates(r, data, existing);
    await checkEditable(r, existing, n, async (names) => {
      const current = (await reads.fetch(tx, r, existing.id as string))!;
      return new Set(names.filter((name) => sameChildren(model.get(r.byName.get(name)!.target!), n.children.get(name)!, (current[name] as FieldValues[]) ?? [])));
    });
    checkCrossField(r, data);
    derive(r, data);
    const api = hooks.inTransaction(tx, p, r, loaded);
    await r.hooks.beforeWrite?.(api, { op: 'update', data, existing, input: n.data });
    const values: Record<string, unknown> = { id: existing.id, company: p.company.id, now: new Date().toISOString() };
    const numbered = unnumbered(r, data);
    // Secrets are read masked: never written back (engine-parts.ts).
    const columns = bindColumns(r, storable(r, data), values, [...numbered, ...parts.secrets(r)]);
    const key = `update|${r.name}|${columns.map((f) => f.name).join(',')}|${numbered.map((f) => f.name).join(',')}`;
    await statements.run(tx, { key, build: () => writeSql.update(r, columns, numbered) }, values);
    await replaceChildren(tx, p, r, existing.id as string, embeddedOnly(r, n.children));
    await nested(tx, p, r, existing.id as string, nestedOnly(r, n.children), false);
    if (r.computed?.on.some((name) => n.children.has(name) || (name in n.data && !sameValue(n.data[name], existing[name])))) {
      await r.computed.compute(api, existing.id as string);
    }
    await owners.recompute(tx, p, r, ownerId);
    await r.hooks.afterWrite?.(api, { op: 'update', id: existing.id as string, data, existing, input: n.data });
    await parts.events.write(tx, r, existing.id as string, 'updated', existing, data);
    return (await reads.fetch(tx, r, existing.id as string))!;
  };
}
