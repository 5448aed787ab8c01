// A record's values as the write statements take them: stored values (decimals as exact text),
// bound as `v0`, `v1`, …; embedded children as the rows to insert (defaults, id, company, owner,
// timestamps, position).
import type { TextField } from '../descriptor.ts';
import type { Model, ModelField, ModelResource } from '../model.ts';
import type { FieldValues, Principal } from '../types.ts';
import { uuidv7 } from '../uuid.ts';
import { decimalString, sameValue, wellFormed } from '../validate.ts';

/** The values of `data` that go into the record's own columns (decimals as exact text). */
export function storable(r: ModelResource, data: FieldValues): FieldValues {
  const out: FieldValues = {};
  for (const f of r.stored) {
    if (!(f.name in data)) continue;
    const v = data[f.name];
    out[f.name] = f.kind === 'decimal' && typeof v === 'number' ? decimalString(v, (f.def as { scale: number }).scale) : v;
  }
  return out;
}

/**
 * Binds the stored values of a record (those not undefined, nor left to `except`) as `v0`,
 * `v1`, … in `values`, as the compiled statements take them; returns their fields.
 */
export function bindColumns(r: ModelResource, stored: FieldValues, values: Record<string, unknown>, except: readonly ModelField[] = []): ModelField[] {
  const columns: ModelField[] = [];
  for (const f of r.stored) {
    const v = stored[f.name];
    if (v === undefined || except.includes(f)) continue;
    values[`v${columns.length}`] = f.kind === 'list' || f.kind === 'textList' ? JSON.stringify(v, wellFormedJson) : v instanceof Date ? v.toISOString() : v;
    columns.push(f);
  }
  return columns;
}

/** A text field numbered from a per-company sequence when left empty. */
export const isNumbered = (f: ModelField): boolean => f.def.kind === 'text' && Boolean(f.def.sequence);

/** The sequence fields of `r` that `data` leaves empty: they take their counter's next number. */
export const unnumbered = (r: ModelResource, data: FieldValues): ModelField[] =>
  r.stored.filter((f) => isNumbered(f) && (data[f.name] === undefined || data[f.name] === null) && numberedNow(f, data));

/** A sequence with `when` numbers only records in one of its states. */
function numberedNow(f: ModelField, data: FieldValues): boolean {
  const when = (f.def as TextField).sequence!.when;
  return !when || when.in.includes(String(data[when.field]));
}

/** Rows of embedded children as the write statements insert them. */
export interface ChildRows {
  /**
   * The rows of embedded children as they are inserted (defaults, id, company, owner, timestamps
   * as RFC 3339 text, position), keyed by field name.
   */
  rows(p: Principal, f: ModelField, ownerId: string, now: string, items: readonly FieldValues[]): FieldValues[];
}

export function childRows(model: Model): ChildRows {
  const childDefaults = new Map<string, FieldValues>();
  /** The descriptor defaults a child row starts from (those the validator does not fill in). */
  const defaultsOf = (r: ModelResource): FieldValues => {
    let d = childDefaults.get(r.name);
    if (!d) {
      d = {};
      for (const f of r.stored) if ('default' in f.def && f.def.default !== undefined && typeof f.def.default !== 'string') d[f.name] = f.def.default;
      childDefaults.set(r.name, (d = storable(r, d)));
    }
    return d;
  };
  return {
    rows(p, f, ownerId, now, items) {
      const def = f.def as { target: string; via: string };
      const child = model.get(def.target);
      const defaults = defaultsOf(child);
      return items.map((item, i) => {
        const row: FieldValues = { id: uuidv7(), companyId: p.company.id, createdAt: now, updatedAt: now };
        for (const cf of child.stored) {
          const v = cf.name in item ? item[cf.name] : defaults[cf.name];
          if (typeof v === 'string') row[cf.name] = wellFormed(v);
          else row[cf.name] = cf.kind === 'decimal' && typeof v === 'number' ? decimalString(v, (cf.def as { scale: number }).scale) : v;
        }
        row[def.via] = ownerId;
        Object.assign(row, positionOf(child, item, i));
        return row;
      });
    },
  };
}

/** Whether normalised children carry the same writable values, in the same order, as stored ones. */
export function sameChildren(child: ModelResource, sent: readonly FieldValues[], stored: readonly FieldValues[]): boolean {
  if (sent.length !== stored.length) return false;
  const fields = child.creatable.filter((f) => f !== child.owner?.field);
  return sent.every((item, i) => {
    const placed: FieldValues = { ...item, ...positionOf(child, item, i) };
    return fields.every((f) => !(f.name in placed) || sameValue(placed[f.name], stored[i]![f.name]));
  });
}

/** An embedded child sent without a `position` takes its index in the array. */
function positionOf(child: ModelResource, item: FieldValues, index: number): FieldValues {
  return child.byName.has('position') && item.position == null ? { position: index } : {};
}

/** JSON.stringify's replacer for a list column: its strings well-formed (see `wellFormed`). */
const wellFormedJson = (_key: string, v: unknown): unknown => (typeof v === 'string' ? wellFormed(v) : v);
