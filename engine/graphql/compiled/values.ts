// Scalar values as the compiled statement writes them, exactly as the resolvers serialise them
// (engine/graphql/types.ts). Which values the resolvers may be unable to serialise is decided
// here, statically, from the field's declaration: an integer column whose declared range does
// not fit the GraphQL scalar, a timestamp (JavaScript's Date writes years outside 1–9999
// differently), an entry of an embedded list (jsonb, of any type). For those the statement checks
// the value and writes UNSERVABLE in its place when the resolvers would fail on it; the compiler
// then leaves the request to the normal path, which answers with their errors.
import { sql, type SQL } from 'drizzle-orm';
import type { IntegerField, ScalarField, TextField } from '../../descriptor.ts';
import type { Model, ModelField } from '../../model.ts';
import { iso, literal, masked } from '../../sql-text.ts';

/** A value read from a row, as SQL over the row's alias. */
export type Value = (row: SQL) => SQL;

/** Something the compiler does not handle: the operation takes the normal path. */
export class Unsupported extends Error {}

/**
 * Written in place of a value the resolvers cannot serialise. Its key cannot occur anywhere else
 * in the statement's JSON text: every other key is a GraphQL response key (a name), and a quote
 * inside a string is always escaped, so the text below appears only where a marker was written.
 */
export const UNSERVABLE_TEXT = '{"!":0}';
const UNSERVABLE = sql`${literal(UNSERVABLE_TEXT)}::json`;

/** A SQL text literal (names and IRI prefixes: no quotes, but escaped all the same). */
export const text = (s: string): SQL => sql`${literal(s)}::text`;

/** The range of the GraphQL scalar an integer is served as (Int, or Money for money). */
const integerRange = (d: IntegerField): [number, number] => (d.money ? [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] : [-(2 ** 31), 2 ** 31 - 1]);

/** `value` as JSON, or UNSERVABLE where `unservable` holds. */
const checked = (unservable: SQL, value: SQL): SQL => sql`(case when ${unservable} then ${UNSERVABLE} else to_json(${value}) end)`;

/** A stored scalar field as the resolvers serialise it. */
export function scalar(model: Model, f: ModelField): Value {
  const column = (a: SQL) => sql`${a}.${sql.identifier(f.column)}`;
  switch (f.kind) {
    case 'integer': {
      const d = f.def as IntegerField;
      const [lo, hi] = integerRange(d);
      // A declared range inside the scalar's: every stored value is served as it is.
      if (!d.money && d.min !== undefined && d.max !== undefined && d.min >= lo && d.max <= hi) return column;
      return (a) => checked(sql`(${column(a)} < ${sql.raw(String(lo))} or ${column(a)} > ${sql.raw(String(hi))})`, column(a));
    }
    case 'decimal':
      return (a) => sql`${column(a)}::float8`;
    case 'date':
      return (a) => sql`${column(a)}::text`;
    case 'timestamp':
      return (a) => checked(sql`(${column(a)} < '0001-01-01T00:00:00Z'::timestamptz or ${column(a)} >= '10000-01-01T00:00:00Z'::timestamptz)`, iso(column(a)));
    case 'ref': {
      const target = model.get(f.target!);
      return (a) => sql`(${text(`${target.iri}/`)} || ${column(a)})`;
    }
    case 'text': {
      const mask = (f.def as TextField).mask;
      return mask ? (a) => masked(column(a), mask) : column;
    }
    case 'enum':
    case 'boolean':
    case 'textList':
      return column;
    default:
      throw new Unsupported(f.kind);
  }
}

/**
 * Member `name` of an embedded list's entry (`v`, jsonb) as the resolvers serialise it. The
 * stored values passed validation, so they have the JSON type of their kind; anything else (or a
 * missing required value: non-null in the schema) is unservable.
 */
export function listEntryScalar(d: ScalarField, name: string): Value {
  const required = Boolean(d.required) || ('default' in d && d.default !== undefined);
  const json = (v: SQL) => sql`(${v} -> ${text(name)})`;
  const str = (v: SQL) => sql`(${v} ->> ${text(name)})`;
  let type: string;
  let value: Value;
  let bad: ((v: SQL) => SQL) | undefined;
  switch (d.kind) {
    case 'text':
    case 'enum':
    case 'date':
    case 'ref': // a reference to a resource without a GraphQL type is its bare id there
      [type, value] = ['string', str];
      break;
    case 'decimal':
      [type, value] = ['number', (v) => sql`${str(v)}::float8`];
      break;
    case 'integer': {
      const [lo, hi] = integerRange(d);
      const n = (v: SQL) => sql`${str(v)}::numeric`;
      [type, value] = ['number', (v) => sql`${n(v)}::int8`];
      bad = (v) => sql`(${n(v)} <> trunc(${n(v)}) or ${n(v)} < ${sql.raw(String(lo))} or ${n(v)} > ${sql.raw(String(hi))})`;
      break;
    }
    default:
      throw new Unsupported(d.kind);
  }
  const missing = (v: SQL) => sql`coalesce(jsonb_typeof(${json(v)}), 'null') = 'null'`;
  const wrong = (v: SQL) => sql`(${required ? missing(v) : sql`false`} or (not ${missing(v)} and (jsonb_typeof(${json(v)}) <> ${text(type)}${bad ? sql` or ${bad(v)}` : sql``})))`;
  return (v) => checked(wrong(v), value(v));
}
