// Input normalisation and field validation, compiled once per resource from the model. Both APIs
// send their input through here, so a value is accepted or refused the same way everywhere.
import type { FieldValues } from './types.ts';
import type { JsonField, ScalarField, TextListField } from './descriptor.ts';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ApiError, Violations, ViolationCode as C } from './errors.ts';
import type { Model, ModelField, ModelResource } from './model.ts';

export type WriteMode = 'create' | 'update' | 'replace';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);

export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

function isUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && Boolean(u.hostname);
  } catch {
    return false;
  }
}

const isCountry = (s: string): boolean => /^[A-Z]{2}$/.test(s) && ![undefined, 'Unknown Region'].includes(regions.of(s));

/** Resolves an IRI (`/api/<path>/<id>`) or a bare id of `target` to the id, or undefined. */
export function refId(model: Model, target: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (UUID.test(value)) return value.toLowerCase();
  const r = model.get(target);
  const prefix = `${r.iri}/`;
  if (value.startsWith(prefix) && UUID.test(value.slice(prefix.length))) return value.slice(prefix.length).toLowerCase();
  return undefined;
}

/** Converts a decimal to its exact string at `scale` places, or undefined when it has more. */
export function decimalString(v: number, scale: number): string | undefined {
  if (!Number.isFinite(v)) return undefined;
  const s = v.toFixed(scale);
  return Number(s) === v ? s : undefined;
}

/** A reference found in the input, to be checked against the database. */
export interface PendingRef {
  path: string;
  target: string;
  id: string;
  raw: string;
}

export interface Normalised {
  data: FieldValues;
  /** Embedded children, per field name, already normalised. */
  children: Map<string, FieldValues[]>;
  refs: PendingRef[];
}

/** A list of texts: each trimmed, non-blank, at most `itemMax` long; duplicates dropped. */
function textListChecker(model: Model, f: TextListField): Checker {
  const choices = f.choices ? new Set(f.choices(model)) : undefined;
  return (value, path, v) => {
    if (value === null || value === undefined) value = [];
    if (!Array.isArray(value)) return v.add(path, 'This value should be of type array.', C.type);
    if (f.required && !value.length) return v.add(path, 'This collection should contain 1 element or more.', C.blank);
    if (f.maxItems !== undefined && value.length > f.maxItems) return v.add(path, `This collection should contain ${f.maxItems} elements or less.`, C.length);
    const out: string[] = [];
    value.forEach((item, i) => {
      const at = `${path}[${i}]`;
      if (typeof item !== 'string') return v.add(at, 'This value should be of type string.', C.type);
      const s = item.trim();
      if (!s || s.includes('\u0000')) return v.add(at, 'This value should not be blank.', C.blank);
      if (f.itemMax !== undefined && s.length > f.itemMax) return v.add(at, `This value is too long. It should have ${f.itemMax} characters or less.`, C.length);
      if (choices && !choices.has(s)) return v.add(at, `The value you selected is not a valid choice: "${s.slice(0, 100)}".`, C.choice);
      if (!out.includes(s)) out.push(s);
    });
    return out;
  };
}

type Checker = (value: unknown, path: string, v: Violations, refs: PendingRef[]) => unknown;

/** A json field: its schema (TypeBox), then its own rules; problems name the member (`field.a.b`). */
function jsonChecker(f: JsonField, required: boolean): Checker {
  const compiled = TypeCompiler.Compile(f.schema);
  return (value, path, v) => {
    if (value === null || value === undefined) {
      if (required) v.add(path, 'This value should not be blank.', C.blank);
      return null;
    }
    const errors = [...compiled.Errors(value)];
    if (errors.length) {
      const seen = new Set<string>();
      for (const e of errors) {
        const at = path + e.path.split('/').filter(Boolean).map((x) => (/^\d+$/.test(x) ? `[${x}]` : `.${x}`)).join('');
        if (seen.has(at)) continue;
        seen.add(at);
        v.add(at, e.message, C.type);
      }
      return value;
    }
    for (const p of f.check?.(value) ?? []) v.add(p.path ? `${path}.${p.path}` : path, p.message, C.rule);
    return wellFormedDeep(value);
  };
}

/**
 * A string whose lone surrogates are replaced (U+FFFD), as the drivers encode a text parameter:
 * in JSON (a jsonb column) they would be `\ud800` escapes, which PostgreSQL refuses.
 */
export const wellFormed = (s: string): string => (s as string & { toWellFormed(): string }).toWellFormed();

/** A JSON value whose strings (and keys) are well-formed. */
function wellFormedDeep(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedDeep);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, x]) => [wellFormedDeep(k) as string, wellFormedDeep(x)]));
  return value;
}

function scalarChecker(model: Model, f: ScalarField, name: string): Checker {
  const nullable = !f.required;
  const blank = (path: string, v: Violations) => v.add(path, 'This value should not be blank.', C.blank);
  return (value, path, v, refs) => {
    if (value === null || value === undefined) {
      if (!nullable) blank(path, v);
      return null;
    }
    switch (f.kind) {
      case 'text': {
        if (typeof value !== 'string') return v.add(path, 'This value should be of type string.', C.type);
        if (value.includes('\u0000')) return v.add(path, 'This value contains a NUL character.', C.format);
        const s = f.trim === false ? value : value.trim();
        if (s === '') {
          if (!nullable) return blank(path, v);
          return null;
        }
        if (f.min !== undefined && s.length < f.min) return v.add(path, `This value is too short. It should have ${f.min} characters or more.`, C.length);
        if (f.max !== undefined && s.length > f.max) return v.add(path, `This value is too long. It should have ${f.max} characters or less.`, C.length);
        if (f.format === 'email' && !EMAIL.test(s)) return v.add(path, 'This value is not a valid e-mail.', C.format);
        if (f.format === 'url' && !isUrl(s)) return v.add(path, 'This value is not a valid URL.', C.format);
        if (f.format === 'currency') {
          const up = s.toUpperCase();
          if (!CURRENCIES.has(up)) return v.add(path, 'This value is not a valid currency.', C.format);
          return up;
        }
        if (f.format === 'country') {
          const up = s.toUpperCase();
          if (!isCountry(up)) return v.add(path, 'This value is not a valid country.', C.format);
          return up;
        }
        if (f.normalise || f.check) {
          const n = f.normalise ? f.normalise(s) : s;
          const problem = f.check?.(n);
          if (problem) return v.add(path, problem, C.format);
          return n;
        }
        return s;
      }
      case 'integer': {
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) return v.add(path, 'This value should be of type integer.', C.type);
        if (f.min !== undefined && value < f.min) return v.add(path, `This value should be greater than or equal to ${f.min}.`, C.range);
        if (f.max !== undefined && value > f.max) return v.add(path, `This value should be less than or equal to ${f.max}.`, C.range);
        return value;
      }
      case 'decimal': {
        if (typeof value !== 'number' || !Number.isFinite(value)) return v.add(path, 'This value should be of type number.', C.type);
        if (decimalString(value, f.scale) === undefined) return v.add(path, `This value should have at most ${f.scale} decimal places.`, C.type);
        if (Math.abs(value) >= 1e13) return v.add(path, 'This value is too large.', C.range);
        if (f.min !== undefined && value < f.min) return v.add(path, `This value should be greater than or equal to ${f.min}.`, C.range);
        if (f.max !== undefined && value > f.max) return v.add(path, `This value should be less than or equal to ${f.max}.`, C.range);
        if (f.above !== undefined && !(value > f.above)) return v.add(path, `This value should be greater than ${f.above}.`, C.range);
        return value;
      }
      case 'boolean':
        if (typeof value !== 'boolean') return v.add(path, 'This value should be of type boolean.', C.type);
        return value;
      case 'enum': {
        if (typeof value !== 'string' || !f.values.includes(value)) {
          return v.add(path, `The value you selected is not a valid choice. Allowed: ${f.values.map((x) => `"${x}"`).join(', ')}.`, C.choice);
        }
        return value;
      }
      case 'date': {
        if (typeof value !== 'string' || !isDate(value)) return v.add(path, 'This value is not a valid date (YYYY-MM-DD).', C.format);
        return value;
      }
      case 'timestamp': {
        const d = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(value) ? new Date(value) : null;
        if (!d || Number.isNaN(d.getTime())) return v.add(path, 'This value is not a valid date-time (RFC 3339).', C.format);
        return d;
      }
      case 'ref': {
        const id = refId(model, f.target, value);
        if (!id) return v.add(path, `Item not found for "${(typeof value === 'string' ? value : JSON.stringify(value) ?? typeof value).slice(0, 200)}".`, C.notFound); // an object may not convert to a string
        refs.push({ path, target: f.target, id, raw: String(value) });
        return id;
      }
    }
  };
}

export interface ResourceValidator {
  /**
   * Normalises a write body. `existing` is the stored record for update/replace.
   * Unknown fields are a 400; field problems are collected as 422 violations.
   */
  normalise(input: FieldValues, mode: WriteMode, existing: FieldValues | null, prefix?: string, omit?: string): Normalised;
}

// `originId`: what API Platform Admin (react-admin) adds to a record it sends back (CONTRACT §22).
const IGNORED = new Set(['@id', '@type', '@context', 'id', '_id', 'originId', 'createdAt', 'updatedAt']);

export function compileValidator(model: Model, r: ModelResource, cache = new Map<string, ResourceValidator>()): ResourceValidator {
  const cached = cache.get(r.name);
  if (cached) return cached;
  const self: ResourceValidator = { normalise: () => ({ data: {}, children: new Map(), refs: [] }) };
  cache.set(r.name, self);

  const checkers = new Map<string, Checker>();
  for (const f of r.fields) {
    if (f.def.kind === 'children' && f.def.nested && !f.def.embedded) {
      // Children written with the record (descriptor `nested`): each item is checked as a new
      // child without its reference to the record; the item itself is kept (with its `id`, which
      // names a child to change) for the engine's own write of the child (write/nested.ts).
      const child = model.get(f.def.target);
      const childValidator = compileValidator(model, child, cache);
      const via = f.def.via;
      checkers.set(f.name, (value, path, v) => {
        if (!Array.isArray(value)) return v.add(path, 'This value should be of type array.', C.type);
        return value.map((item, i) => {
          if (item === null || typeof item !== 'object' || Array.isArray(item)) {
            v.add(`${path}[${i}]`, 'This value should be of type object.', C.type);
            return {};
          }
          const { [via]: owner, ...rest } = item as FieldValues;
          const at = `${path}[${i}].`;
          // The record it is written with is its reference: naming one (another, or one that does not exist yet) is refused.
          if (owner !== undefined) v.add(`${at}${via}`, `This value is set by the ${r.name.toLowerCase()} it is written with: leave it out.`, C.rule);
          if (rest.id !== undefined && rest.id !== null && (typeof rest.id !== 'string' || !refId(model, child.name, rest.id))) v.add(`${at}id`, `Item not found for "${String(rest.id).slice(0, 200)}".`, C.notFound);
          try {
            childValidator.normalise(rest, 'create', null, at, via);
          } catch (e) {
            if (e instanceof ApiError && e.violations) for (const x of e.violations) v.list.push(x);
            else throw e;
          }
          return rest;
        });
      });
    } else if (f.def.kind === 'children') {
      if (!f.def.embedded) continue;
      const child = model.get(f.def.target);
      const childValidator = compileValidator(model, child, cache);
      checkers.set(f.name, (value, path, v, refs) => {
        if (!Array.isArray(value)) return v.add(path, 'This value should be of type array.', C.type);
        return value.map((item, i) => {
          if (item === null || typeof item !== 'object' || Array.isArray(item)) {
            v.add(`${path}[${i}]`, 'This value should be of type object.', C.type);
            return {};
          }
          try {
            const n = childValidator.normalise(item as FieldValues, 'create', null, `${path}[${i}].`);
            refs.push(...n.refs);
            return n.data;
          } catch (e) {
            if (e instanceof ApiError && e.violations) {
              for (const x of e.violations) v.list.push(x);
              return {};
            }
            throw e;
          }
        });
      });
    } else if (f.def.kind === 'list') {
      const sub = Object.entries(f.def.of).map(([n, d]) => ({ n, d, check: scalarChecker(model, d, n) }));
      checkers.set(f.name, (value, path, v, refs) => {
        if (!Array.isArray(value)) return v.add(path, 'This value should be of type array.', C.type);
        return value.map((item, i) => {
          const at = `${path}[${i}]`;
          if (item === null || typeof item !== 'object' || Array.isArray(item)) {
            v.add(at, 'This value should be of type object.', C.type);
            return {};
          }
          const unknown = Object.keys(item).filter((k) => !sub.some((s) => s.n === k) && !IGNORED.has(k));
          if (unknown.length) v.add(at, `Unknown field(s): ${unknown.join(', ')}.`, C.type);
          const out: FieldValues = {};
          for (const s of sub) {
            let x = (item as FieldValues)[s.n];
            if ((x === undefined || x === null) && 'default' in s.d && s.d.default !== undefined) x = s.d.default;
            out[s.n] = s.check(x, `${at}.${s.n}`, v, refs);
          }
          return out;
        });
      });
    } else if (f.def.kind === 'textList') {
      checkers.set(f.name, textListChecker(model, f.def));
    } else if (f.def.kind === 'json') {
      checkers.set(f.name, jsonChecker(f.def, f.required));
    } else if (f.stored) {
      checkers.set(f.name, scalarChecker(model, f.def, f.name));
    }
  }
  const owner = r.owner?.field.name;
  const writableOn = (mode: WriteMode) => (mode === 'create' ? r.creatable : r.updatable);
  const allWritable = new Set(r.creatable.map((f) => f.name));
  // Read-only fields of the record are ignored in a body; a field only ever shown once (a
  // secret value the server makes) is not part of the record, and in a body it is unknown.
  const readOnly = new Set(r.fields.filter((f) => f.readOnly && !f.def.shownOnce).map((f) => f.name));

  self.normalise = (input, mode, existing, prefix = '', omit) => {
    // A line embedded in its owner's body does not name the owner.
    const nested = prefix !== '';
    const unknown = Object.keys(input).filter((k) => !IGNORED.has(k) && !allWritable.has(k) && !readOnly.has(k));
    if (unknown.length) throw ApiError.badRequest(`Unknown field(s) for ${r.name}: ${unknown.map((u) => `"${prefix}${u}"`).join(', ')}.`);
    const v = new Violations();
    const data: FieldValues = {};
    const children = new Map<string, FieldValues[]>();
    const refs: PendingRef[] = [];
    const writable = writableOn(mode);
    const writableNames = new Set(writable.map((f) => f.name));
    // Fields that may not change after creation: refused only when the value would change.
    if (mode !== 'create') {
      for (const f of r.creatable) {
        if (writableNames.has(f.name) || !(f.name in input)) continue;
        const check = checkers.get(f.name);
        const scratch = new Violations();
        const val = check ? check(input[f.name], f.name, scratch, []) : input[f.name];
        if (!scratch.list.length && existing && sameValue(val, existing[f.name])) continue;
        v.add(prefix + f.name, 'This value cannot be changed.', C.rule);
      }
    }
    for (const f of writable) {
      if ((nested && f.name === owner) || f.name === omit) continue;
      const present = f.name in input;
      if (mode === 'update' && !present) continue;
      // Children written with the record are left as they are when the body does not name them (a PUT too).
      if (!present && r.nested.includes(f)) continue;
      let value = present ? input[f.name] : undefined;
      if (value === undefined || value === null) {
        const dflt = 'default' in f.def ? f.def.default : undefined;
        // A field with a default is never empty (its column is NOT NULL): null means the default.
        if (dflt !== undefined && (value === null || mode !== 'update')) value = resolveDefault(dflt);
        else if (value === undefined && (f.def.kind === 'list' || f.def.kind === 'textList')) value = [];
        else if (value === undefined && f.kind === 'children') value = mode === 'create' && !present ? undefined : [];
        if (value === undefined && f.def.kind === 'text' && f.def.sequence) continue;
        if (value === undefined && f.kind === 'children') continue;
      }
      const check = checkers.get(f.name)!;
      const out = check(value, prefix + f.name, v, refs);
      if (f.kind === 'children') children.set(f.name, (out as FieldValues[] | undefined) ?? []);
      else data[f.name] = out;
    }
    v.throwIfAny();
    return { data, children, refs };
  };
  return self;
}

function resolveDefault(d: unknown): unknown {
  if (d === 'today') return new Date().toISOString().slice(0, 10);
  if (d === 'now') return new Date().toISOString();
  return d;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b || (a == null && b == null);
}
