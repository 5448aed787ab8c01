// Drizzle tables derived from the model: company scoping, foreign keys, indexes for filter and
// order fields, unique constraints. drizzle-kit generates the migrations from these.
import { sql } from 'drizzle-orm';
import {
  bigint, boolean as pgBoolean, date, index, integer as pgInteger, jsonb, numeric, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid,
  type AnyPgColumn, type PgColumnBuilderBase, type PgTableWithColumns,
} from 'drizzle-orm/pg-core';
import type { Model, ModelField, ModelResource } from './model.ts';
import { snake } from './names.ts';
import { versionColumn } from './versions.ts';
import { keysIndexName, valueKeys } from './trigrams.ts';
import { buildIdempotencyTable, type IdempotencyTable } from './idempotency.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTable = PgTableWithColumns<any>;

export interface Tables {
  readonly byResource: ReadonlyMap<string, AnyTable>;
  get(resource: ModelResource | string): AnyTable;
  /** Per-company counters behind `sequence` text fields. */
  readonly sequences: AnyTable;
  /** Collection sizes kept by triggers (engine/counts.ts). */
  readonly counts: AnyTable;
  /** Kept write results behind Idempotency-Key (engine/idempotency.ts). */
  readonly idempotency: IdempotencyTable;
}

function column(f: ModelField, tableOf: (name: string) => AnyTable): PgColumnBuilderBase | null {
  const d = f.def;
  const notNull = f.required || ('default' in d && d.default !== undefined) || (f.readOnly && (d.kind === 'integer'));
  let c;
  switch (d.kind) {
    case 'text':
      c = text(f.column);
      break;
    case 'enum':
      c = text(f.column);
      break;
    case 'boolean':
      c = pgBoolean(f.column);
      break;
    case 'integer':
      c = bigint(f.column, { mode: 'number' });
      if (f.readOnly) c = c.default(0);
      break;
    case 'decimal':
      c = numeric(f.column, { precision: 18, scale: d.scale });
      break;
    case 'date':
      c = date(f.column, { mode: 'string' });
      break;
    case 'timestamp':
      c = timestamp(f.column, { withTimezone: true, mode: 'date', precision: 3 });
      break;
    case 'ref': {
      const target = d.target;
      c = uuid(f.column).references((): AnyPgColumn => tableOf(target).id, { onDelete: d.onDelete ?? 'restrict' });
      break;
    }
    case 'list':
    case 'textList':
      c = jsonb(f.column).default(sql`'[]'::jsonb`);
      break;
    default:
      return null;
  }
  return notNull ? c.notNull() : c;
}

/** The table that scopes every record (the company) and its key column. */
export interface Scope {
  readonly table: AnyTable;
  readonly column: AnyPgColumn;
}

export function buildTables(model: Model, scope: Scope): Tables {
  const byResource = new Map<string, AnyTable>();
  const tableOf = (name: string): AnyTable => byResource.get(name)!;
  for (const r of model.resources) {
    // A resource with its own provider (engine/custom.ts) keeps its records elsewhere.
    if (r.provider) continue;
    for (const f of r.stored) {
      if (f.kind === 'ref' && model.get(f.target!).provider) throw new Error(`${r.name}.${f.name}: ${f.target} has its own provider, so no table to reference`);
    }
    const cols: Record<string, PgColumnBuilderBase> = {
      id: uuid('id').primaryKey(),
      companyId: uuid('company_id').notNull().references((): AnyPgColumn => scope.column, { onDelete: 'cascade' }),
    };
    for (const f of r.stored) {
      const c = column(f, tableOf);
      if (c) cols[f.name] = c;
    }
    cols.createdAt = timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow();
    cols.updatedAt = timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow();
    cols.version = versionColumn();
    const table = pgTable(r.table, cols, (t) => {
      const extras = [];
      const indexed = new Set<string>();
      for (const f of r.stored) {
        const d = f.def;
        if (d.kind === 'text' && d.unique) {
          extras.push(
            uniqueIndex(`${r.table}_${f.column}_unique`).on(t.companyId!, d.unique === 'company-ci' ? sql`lower(${t[f.name]})` : t[f.name]!),
          );
          indexed.add(f.name);
        }
      }
      for (const u of r.unique) extras.push(uniqueIndex(u.constraint).on(t.companyId!, ...u.fields.map((f) => t[f.name]!)));
      for (const f of r.stored) {
        if (f.filter === 'partial' && f.kind === 'text') {
          // Partial matches (ILIKE '%part%') through keys (pieces of one to three characters) that
          // begin with the company, so a company's search reads only its own keys (engine/trigrams.ts, CONTRACT §10).
          extras.push(index(keysIndexName(r.table, f.column)).using('gin', valueKeys(t.companyId, t[f.name])));
        }
        // A unique (company, field) index already serves a seek on a field that is never null (its
        // values do not tie); nulls tie, and are read in id order, so a nullable one needs the id too.
        const notNull = f.required || ('default' in f.def && f.def.default !== undefined);
        if (indexed.has(f.name) && (!f.order || ((f.def as { unique?: string }).unique === 'company' && notNull))) continue;
        if (f.kind === 'ref') extras.push(index(`${r.table}_${f.column}_idx`).on(t[f.name]!));
        // Order fields end with the id, the order's tie-break, so a keyset seek is one index range.
        if (f.order) extras.push(index(`${r.table}_company_${f.column}_idx`).on(t.companyId!, t[f.name]!, t.id!));
        // A filtered collection's first page is read in the default order (the id) from the same index.
        else if (f.filter) extras.push(index(`${r.table}_company_${f.column}_idx`).on(t.companyId!, t[f.name]!, t.id!));
      }
      extras.push(index(`${r.table}_company_created_idx`).on(t.companyId!, t.createdAt!, t.id!));
      // The default order (the id) within a company, without walking other companies' ids.
      extras.push(index(`${r.table}_company_id_idx`).on(t.companyId!, t.id!));
      return extras;
    });
    byResource.set(r.name, table);
  }
  const sequences = pgTable(
    'engine_sequences',
    {
      companyId: uuid('company_id').notNull().references((): AnyPgColumn => scope.column, { onDelete: 'cascade' }),
      name: text('name').notNull(),
      value: pgInteger('value').notNull().default(0),
      /** The company's own prefix for the sequence's numbers; null: the descriptor's. */
      prefix: text('prefix'),
    },
    (t) => [primaryKey({ columns: [t.companyId, t.name] })],
  );
  const counts = pgTable(
    'engine_counts',
    {
      companyId: uuid('company_id').notNull().references((): AnyPgColumn => scope.column, { onDelete: 'cascade' }),
      resource: text('resource').notNull(),
      key: text('key').notNull(),
      slot: smallint('slot').notNull(),
      n: bigint('n', { mode: 'number' }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.companyId, t.resource, t.key, t.slot] })],
  );
  return {
    byResource,
    sequences,
    counts,
    idempotency: buildIdempotencyTable(scope.column),
    get(resource) {
      const t = byResource.get(typeof resource === 'string' ? resource : resource.name);
      if (!t) throw new Error(`No table for ${typeof resource === 'string' ? resource : resource.name}`);
      return t;
    },
  };
}

export { snake };
