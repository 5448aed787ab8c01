// What a read selects, and how its rows become records: every column aliased by its field name
// and cast so that it decodes the same on every driver (numbers as float8, timestamps as RFC 3339
// text, dates as text), embedded children as one JSON array each.
import { sql, type SQL } from 'drizzle-orm';
import type { Model, ModelField, ModelResource } from '../model.ts';
import { iso, masked } from '../sql-text.ts';
import type { Tables } from '../tables.ts';
import type { FieldValues } from '../types.ts';

export interface SelectLists {
  /** The select list of `r`; with `embedded`, its embedded children as JSON arrays too. */
  of(r: ModelResource, embedded: boolean): SQL;
  /** Turns a row of that select list into a record, in place (timestamps become Dates). */
  decode(r: ModelResource, row: Record<string, unknown>): FieldValues;
}

export function createSelectLists(model: Model, tables: Tables): SelectLists {
  /** The embedded children of a row of `r` as one JSON array, in their order. */
  function childrenJson(r: ModelResource, f: ModelField): SQL {
    const def = f.def as { target: string; via: string; orderBy?: string };
    const child = model.get(def.target);
    // Qualified names throughout: inside the subquery, a bare "id" would be the child's.
    const c = (column: string) => sql`${sql.identifier('c')}.${sql.identifier(column)}`;
    const pairs: SQL[] = [sql`'id', ${c('id')}`];
    for (const cf of child.stored) pairs.push(sql`${sql.raw(`'${cf.name}'`)}, ${c(cf.column)}`);
    pairs.push(sql`'createdAt', ${c('created_at')}`, sql`'updatedAt', ${c('updated_at')}`);
    const orderCol = def.orderBy ? c(child.byName.get(def.orderBy)!.column) : c('created_at');
    const via = child.byName.get(def.via)!.column;
    return sql`(select coalesce(json_agg(json_build_object(${sql.join(pairs, sql`, `)}) order by ${orderCol}, ${c('id')}), '[]'::json) from ${sql.identifier(child.table)} as ${sql.identifier('c')} where ${c(via)} = ${sql.identifier(r.table)}.${sql.identifier('id')})`;
  }

  function build(r: ModelResource, embedded: boolean): SQL {
    const t = tables.get(r);
    const q = (name: string) => sql.identifier(name);
    const cols: SQL[] = [sql`${t.id} as ${q('id')}`, sql`${t.companyId} as ${q('companyId')}`];
    for (const f of r.stored) {
      const c = t[f.name]!;
      if (f.kind === 'integer' || f.kind === 'decimal') cols.push(sql`${c}::float8 as ${q(f.name)}`);
      else if (f.kind === 'timestamp') cols.push(sql`${iso(c)} as ${q(f.name)}`);
      else if (f.kind === 'date') cols.push(sql`${c}::text as ${q(f.name)}`);
      // A secret (a text field's `mask`) is read masked everywhere; only its create shows it whole.
      else if (f.def.kind === 'text' && f.def.mask) cols.push(sql`${masked(c, f.def.mask)} as ${q(f.name)}`);
      else cols.push(sql`${c} as ${q(f.name)}`);
    }
    cols.push(sql`${iso(t.createdAt)} as ${q('createdAt')}`, sql`${iso(t.updatedAt)} as ${q('updatedAt')}`, sql`${t.version} as ${q('version')}`);
    if (embedded) for (const f of r.embedded) cols.push(sql`${childrenJson(r, f)} as ${q(f.name)}`);
    return sql.join(cols, sql`, `);
  }

  const lists = new Map<string, SQL>();
  return {
    of(r, embedded) {
      const key = `${r.name}|${embedded}`;
      let c = lists.get(key);
      if (!c) lists.set(key, (c = build(r, embedded)));
      return c;
    },
    decode(r, row) {
      // Rows are fresh objects from the driver: converted in place, not copied.
      for (const f of r.stored) if (f.kind === 'timestamp' && typeof row[f.name] === 'string') row[f.name] = new Date(row[f.name] as string);
      row.createdAt = new Date(row.createdAt as string);
      row.updatedAt = new Date(row.updatedAt as string);
      for (const f of r.embedded) {
        const child = model.get(f.target!);
        const items = jsonArray(row[f.name]);
        for (const c of items) {
          c.companyId = row.companyId;
          for (const cf of child.stored) if (cf.kind === 'decimal' || cf.kind === 'timestamp') c[cf.name] = jsonFieldValue(cf, c[cf.name]);
          c.createdAt = new Date(c.createdAt as string);
          c.updatedAt = new Date(c.updatedAt as string);
        }
        row[f.name] = items;
      }
      return row;
    },
  };
}

/** A JSON array column as the drivers return it (parsed, or as text). */
export const jsonArray = (v: unknown): Record<string, unknown>[] => ((typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>[] | null) ?? [];

const jsonFieldValue = (f: ModelField, v: unknown): unknown => (f.kind === 'timestamp' && typeof v === 'string' ? new Date(v) : f.kind === 'decimal' && typeof v === 'string' ? Number(v) : v);
