// CSV (CONTRACT §21): RFC 4180 text, UTF-8, CRLF line ends, a header row of field names. Money in
// major units with `.` (its record's `currency` column says which), references by their number or
// name (engine/titles.ts) rather than IRIs, and a text cell that a spreadsheet would read as a
// formula (starting with =, +, -, @, a tab or a carriage return) prefixed with `'`. Collections
// are written window by window as the engine reads them (http/rest.ts streams them); a declared
// operation's document list (a report) is written from its schema. Names no resource.
import type { TSchema } from '@sinclair/typebox';
import type { Model, ModelField, ModelResource } from '../engine/model.ts';
import type { FieldValues } from '../engine/types.ts';
import { shownFields } from '../engine/projection.ts';

export const CSV_TYPE = 'text/csv';
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

const RISKY = /^[=+\-@\t\r]/;
const QUOTED = /[",\r\n]/;

/** A text cell: neutralised when a spreadsheet would take it for a formula, quoted when it must be. */
export function textCell(s: string): string {
  if (RISKY.test(s)) s = `'${s}`;
  return QUOTED.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A cell of any value: numbers and booleans as they are, text through textCell, null empty. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  return textCell(String(v));
}

export const row = (cells: readonly string[]): string => `${cells.join(',')}\r\n`;

const digitsCache = new Map<string, number>();
/** The currency's minor-unit decimals (ISO 4217, as ICU knows them); 2 for an unknown code. */
export function currencyDigits(currency: unknown): number {
  const c = typeof currency === 'string' ? currency : '';
  let d = digitsCache.get(c);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    if (digitsCache.size < 1000) digitsCache.set(c, d);
  }
  return d;
}

/** Minor units as a decimal in major units, `.` before the decimals: 123456 EUR → 1234.56, -5 → -0.05. */
export function major(minor: unknown, currency: unknown): string {
  if (minor === null || minor === undefined) return '';
  const n = BigInt(minor as number);
  const d = currencyDigits(currency);
  if (d === 0) return n.toString();
  const neg = n < 0n;
  const s = (neg ? -n : n).toString().padStart(d + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, -d)}.${s.slice(-d)}`;
}

/** How one column of a resource's CSV is written. */
interface Column {
  readonly name: string;
  readonly write: (rec: FieldValues, titles: Titles) => string;
  /** A reference: the resource whose titles the column shows. */
  readonly ref?: { field: string; target: ModelResource };
}

/** Titles of referenced records, by resource name, then id. */
export type Titles = ReadonlyMap<string, ReadonlyMap<string, string>>;

const columnsCache = new WeakMap<ModelResource, readonly Column[]>();

/** The columns of a resource: its id, its shown scalar fields, createdAt and updatedAt (lists and children left out). */
export function columnsOf(model: Model, r: ModelResource): readonly Column[] {
  let cols = columnsCache.get(r);
  if (cols) return cols;
  const hasCurrency = r.byName.get('currency')?.stored === true;
  const scalar = (f: ModelField) => !['children', 'list', 'json', 'textList'].includes(f.kind);
  cols = [
    { name: 'id', write: (rec) => cell(rec.id) },
    ...shownFields(r).filter(scalar).map((f): Column => {
      const n = f.name;
      if (f.kind === 'ref') {
        const target = model.get(f.target!);
        return { name: n, ref: { field: n, target }, write: (rec, titles) => (rec[n] == null ? '' : cell(titles.get(target.name)?.get(String(rec[n])) ?? String(rec[n]))) };
      }
      if (f.def.kind === 'integer' && f.def.money && hasCurrency) return { name: n, write: (rec) => major(rec[n], rec.currency) };
      if (f.kind === 'decimal') return { name: n, write: (rec) => (rec[n] == null ? '' : String(Number(rec[n]))) };
      return { name: n, write: (rec) => cell(rec[n]) };
    }),
    { name: 'createdAt', write: (rec) => cell(rec.createdAt) },
    { name: 'updatedAt', write: (rec) => cell(rec.updatedAt) },
  ];
  columnsCache.set(r, cols);
  return cols;
}

/** The references a window of records needs titles for: by target resource, the ids. */
export function referencesOf(model: Model, r: ModelResource, records: readonly FieldValues[]): Map<ModelResource, string[]> {
  const out = new Map<ModelResource, string[]>();
  for (const c of columnsOf(model, r)) {
    if (!c.ref) continue;
    const ids = out.get(c.ref.target) ?? [];
    for (const rec of records) if (rec[c.ref.field] != null) ids.push(String(rec[c.ref.field]));
    out.set(c.ref.target, ids);
  }
  return out;
}

export const headerOf = (model: Model, r: ModelResource): string => row(columnsOf(model, r).map((c) => textCell(c.name)));

/** A window of records as CSV rows. */
export function rowsOf(model: Model, r: ModelResource, records: readonly FieldValues[], titles: Titles): string {
  const cols = columnsOf(model, r);
  let out = '';
  for (const rec of records) out += row(cols.map((c) => c.write(rec, titles)));
  return out;
}

type Member = TSchema & { type?: string; 'x-money'?: boolean; 'x-refers'?: string; properties?: Record<string, Member> };

/**
 * The references in a list of documents (a report): members whose schema says `'x-refers':
 * '<Resource>'` hold that resource's IRIs, by target, the ids.
 */
export function documentReferences(model: Model, schema: TSchema, items: readonly Record<string, unknown>[]): Map<ModelResource, string[]> {
  const out = new Map<ModelResource, string[]>();
  for (const [k, p] of Object.entries((schema as Member).properties ?? {})) {
    if (!p['x-refers']) continue;
    const target = model.get(p['x-refers']);
    const ids = out.get(target) ?? [];
    for (const it of items) if (typeof it[k] === 'string') ids.push(String(it[k]).slice(target.iri.length + 1));
    out.set(target, ids);
  }
  return out;
}

/**
 * A list of documents as CSV: one column per member of the item schema, in its order; members
 * marked `'x-money': true` in major units of the item's `currency`, members marked `'x-refers'`
 * by their record's title.
 */
export function documentsCsv(model: Model, schema: TSchema, items: readonly Record<string, unknown>[], titles: Titles): string {
  const props = Object.entries((schema as Member).properties ?? {});
  let out = row(props.map(([k]) => textCell(k)));
  for (const it of items) {
    out += row(props.map(([k, p]) => {
      const v = it[k];
      if (p['x-money']) return major(v, it.currency);
      if (p['x-refers'] && typeof v === 'string') {
        const target = model.get(p['x-refers']);
        return cell(titles.get(target.name)?.get(v.slice(target.iri.length + 1)) ?? v);
      }
      return cell(v);
    }));
  }
  return out;
}
