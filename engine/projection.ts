// Records as their REST representation, built by PostgreSQL as JSON text: the technique of
// PostgREST and Hasura. A page of records with their embedded children leaves the database as one
// string that goes into the response as it is, instead of rows decoded into objects, converted
// and serialised again. The representation is the same as the formats build from records in memory
// (the wire values: IRIs for relations, numbers for decimals, RFC 3339 for timestamps), in the
// same member order; a differential test holds the two together.
import { sql, type SQL } from 'drizzle-orm';
import type { ScalarField } from './descriptor.ts';
import type { Model, ModelField, ModelResource } from './model.ts';
import { iso, literal, masked } from './sql-text.ts';

/** Fields shown in REST bodies: stored fields and embedded children (other to-many relations are filters). */
export const shownFields = (r: ModelResource): readonly ModelField[] => r.fields.filter((f) => f.stored || r.embedded.includes(f));

/** A member a format puts before a record's fields: a constant, or the record's IRI. */
export type LeadingMember = readonly [key: string, value: { readonly text: string } | 'iri'];

/**
 * What a format asks of records built in SQL: its `name` keys compiled statements,
 * `leadingMembers` gives the members before the fields of a record (`top`: the response's own
 * object, not an embedded one).
 */
export interface Projection {
  readonly name: string;
  leadingMembers(r: ModelResource, top: boolean): readonly LeadingMember[];
}


/** A scalar's wire value in SQL, from a column (or a jsonb member's text, for list entries). */
function wireScalar(model: Model, kind: ScalarField['kind'], target: string | undefined, col: SQL): SQL {
  switch (kind) {
    case 'ref':
      return sql`${literal(`${model.get(target!).iri}/`)} || ${col}`;
    case 'timestamp':
      return iso(col);
    case 'decimal':
      return sql`trim_scale(${col})`;
    default:
      return col;
  }
}

/** A list field (jsonb array of small objects) as its wire value: declared members, in order. */
function wireList(model: Model, f: ModelField, col: SQL): SQL {
  const of = Object.entries((f.def as { of: Record<string, ScalarField> }).of);
  const member = (name: string, d: ScalarField): SQL => {
    const key = literal(name);
    // Entries written by the engine hold bare ids for refs and numbers (or numeric text) for decimals.
    if (d.kind === 'ref') return sql`${literal(`${model.get(d.target).iri}/`)} || (e.v ->> ${key})`;
    if (d.kind === 'decimal') return sql`case jsonb_typeof(e.v -> ${key}) when 'string' then to_jsonb((e.v ->> ${key})::numeric) else e.v -> ${key} end`;
    return sql`e.v -> ${key}`;
  };
  const pairs = of.map(([name, d]) => sql`${member(name, d)} as ${sql.identifier(name)}`);
  return sql`coalesce((select json_agg((select row_to_json(m) from (select ${sql.join(pairs, sql`, `)}) as m) order by e.n) from jsonb_array_elements(${col}) with ordinality as e(v, n)), '[]'::json)`;
}

/**
 * The JSON object of one record of `r`, whose row is visible as `alias` (a correlated subquery).
 * row_to_json over a select list keeps the members in order and the text compact, and has no
 * limit on the number of members.
 */
export function recordJson(model: Model, r: ModelResource, alias: string, projection: Projection, top: boolean): SQL {
  const col = (column: string) => sql`${sql.identifier(alias)}.${sql.identifier(column)}`;
  const members: SQL[] = [];
  // `column`: the value is that bare column; named like the member, it needs no `as` (the
  // statement's text stays shorter).
  const add = (key: string, value: SQL, column?: string) => members.push(key === column ? value : sql`${value} as ${sql.identifier(key)}`);
  for (const [key, value] of projection.leadingMembers(r, top)) add(key, value === 'iri' ? sql`${literal(`${r.iri}/`)} || ${col('id')}` : literal(value.text));
  add('id', col('id'), 'id');
  for (const f of shownFields(r)) {
    if (f.kind === 'children') add(f.name, childrenJson(model, r, f, alias, projection));
    else if (f.kind === 'list') add(f.name, wireList(model, f, col(f.column)));
    else if (f.def.kind === 'textList') add(f.name, col(f.column));
    else if (f.def.kind === 'text' && f.def.mask) add(f.name, masked(col(f.column), f.def.mask));
    else {
      const column = col(f.column);
      const value = wireScalar(model, f.kind as ScalarField['kind'], f.target, column);
      add(f.name, value, value === column ? f.column : undefined);
    }
  }
  add('createdAt', iso(col('created_at')));
  add('updatedAt', iso(col('updated_at')));
  return sql`(select row_to_json(x) from (select ${sql.join(members, sql`, `)}) as x)`;
}

/** An embedded children field: a JSON array of the child records, in the field's order. */
function childrenJson(model: Model, r: ModelResource, f: ModelField, alias: string, projection: Projection): SQL {
  const def = f.def as { target: string; via: string; orderBy?: string };
  const child = model.get(def.target);
  const c = `${alias}_${f.name}`;
  const col = (column: string) => sql`${sql.identifier(c)}.${sql.identifier(column)}`;
  const order = def.orderBy ? col(child.byName.get(def.orderBy)!.column) : col('created_at');
  const via = child.byName.get(def.via)!.column;
  return sql`coalesce((select json_agg(${recordJson(model, child, c, projection, false)} order by ${order}, ${col('id')}) from ${sql.identifier(child.table)} as ${sql.identifier(c)} where ${col(via)} = ${sql.identifier(alias)}.${sql.identifier('id')}), '[]'::json)`;
}
