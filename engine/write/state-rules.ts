// The rules a descriptor declares about its records' states (`states`) and values: allowed
// transitions, fields a state locks, states that may be deleted, cross-field date order and
// derived values. Pure checks on the values at hand; they raise the API errors.
import { ApiError, Violations, ViolationCode as C } from '../errors.ts';
import type { ModelResource } from '../model.ts';
import type { FieldValues } from '../types.ts';
import { sameValue, type Normalised } from '../validate.ts';

export function checkStates(r: ModelResource, data: FieldValues, existing: FieldValues | null): void {
  const sm = r.states;
  if (!sm) return;
  const field = String(sm.field);
  const from = existing ? String(existing[field]) : null;
  const to = data[field] as string | undefined;
  if (to === undefined || to === from) return;
  const transitions = sm.transitions as Record<string, readonly string[] | undefined>;
  const allowed = from === null ? [String(sm.initial), ...(transitions[String(sm.initial)] ?? [])] : transitions[from] ?? [];
  if (!allowed.includes(to)) {
    const list = allowed.filter((x) => x !== from).map((x) => `"${x}"`).join(', ');
    const msg = from === null
      ? `A new ${r.name} cannot start as "${to}". Allowed: ${list}.`
      : list
        ? `The transition from "${from}" to "${to}" is not allowed. Allowed: ${list}.`
        : `The transition from "${from}" to "${to}" is not allowed: no change of ${field} is allowed from "${from}".`;
    throw ApiError.validation([{ propertyPath: field, message: msg, code: C.state }]);
  }
}

/** The field list a record's state allows to change, or undefined when every field may change. */
export function editableIn(r: ModelResource, rec: FieldValues): { state: string; fields: readonly string[] } | undefined {
  const sm = r.states;
  if (!sm?.editable) return undefined;
  const state = String(rec[String(sm.field)]);
  const fields = (sm.editable as Record<string, readonly string[] | undefined>)[state];
  return fields ? { state, fields } : undefined;
}

/**
 * Refuses changes to fields the record's current state does not allow. Embedded children sent
 * unchanged (`sameAsStored`) are dropped from the write, so an identical PUT of a locked record
 * changes nothing.
 */
export async function checkEditable(r: ModelResource, existing: FieldValues, n: Normalised, sameAsStored: (names: readonly string[]) => Promise<Set<string>>): Promise<void> {
  const lock = editableIn(r, existing);
  if (!lock) return;
  const v = new Violations();
  const stateField = String(r.states!.field);
  const message = `This value cannot be changed while the ${r.states!.field} is "${lock.state}".`;
  for (const [name, value] of Object.entries(n.data)) {
    if (name === stateField || lock.fields.includes(name) || sameValue(value, existing[name])) continue;
    v.add(name, message, C.rule);
  }
  const locked = [...n.children.keys()].filter((name) => !lock.fields.includes(name));
  if (locked.length) {
    const same = await sameAsStored(locked);
    for (const name of locked) {
      if (same.has(name)) n.children.delete(name);
      else v.add(name, message, C.rule);
    }
  }
  v.throwIfAny();
}

export function checkDeletable(r: ModelResource, existing: FieldValues): void {
  const sm = r.states;
  if (!sm?.deletable) return;
  const state = String(existing[String(sm.field)]);
  if (!(sm.deletable as readonly string[]).includes(state)) {
    const allowed = sm.deletable.map((x) => `"${x}"`).join(', ');
    throw ApiError.conflict(`This ${r.name} cannot be deleted: its ${sm.field} is "${state}" (deletable: ${allowed}).`);
  }
}

/** Dates declared `notBefore` another field. */
export function checkCrossField(r: ModelResource, data: FieldValues): void {
  const v = new Violations();
  for (const f of r.stored) {
    if (f.def.kind === 'date' && f.def.notBefore) {
      const a = data[f.name];
      const b = data[f.def.notBefore];
      if (typeof a === 'string' && typeof b === 'string' && a < b) v.add(f.name, `This value should be greater than or equal to ${f.def.notBefore} (${b}).`, C.range);
    }
  }
  v.throwIfAny();
}

/** Text fields derived from another field (`derive`). */
export function derive(r: ModelResource, data: FieldValues): void {
  for (const f of r.stored) {
    if (f.def.kind === 'text' && f.def.derive && f.def.derive.from in data) data[f.name] = f.def.derive.fn(data[f.def.derive.from]);
  }
}

/** A new record's own rules: its initial state, the allowed ones, cross-field checks, derived values. */
export function checkNew(r: ModelResource, data: FieldValues): void {
  if (r.states && data[String(r.states.field)] === undefined) data[String(r.states.field)] = r.states.initial;
  checkStates(r, data, null);
  checkCrossField(r, data);
  derive(r, data);
}

