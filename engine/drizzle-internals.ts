// Every use of drizzle-orm beyond its documented query-builder API, in one module. The engine
// compiles its statements once per shape and runs them as text (drizzle's per-call building and
// per-row mapping were most of a request's CPU), which needs a few of drizzle's inner parts.
// test/drizzle-internals.test.ts holds one test per function here, so a drizzle upgrade that
// changes one of them fails a test instead of a request.
import { fillPlaceholders, is, Placeholder, SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgColumn } from 'drizzle-orm/pg-core';
import type { Tx } from './types.ts';

/** A statement as text with `$1`, `$2`, … and its parameters (values, or named placeholders). */
export interface CompiledStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

// The dialect renders SQL the same for every connection (no casing option is used): one for all.
const dialect = new PgDialect();

/** The text and parameters of a SQL template (`PgDialect.sqlToQuery`). */
export const compileStatement = (q: SQL): CompiledStatement => dialect.sqlToQuery(q);

/**
 * The names of a compiled statement's placeholders, in parameter order; undefined when a value
 * was written into the template instead (it would then be reused by every later execution).
 */
export function placeholderNames(c: CompiledStatement): string[] | undefined {
  const names: string[] = [];
  for (const p of c.params) {
    if (!(p instanceof Placeholder)) return undefined;
    names.push(p.name as string);
  }
  return names;
}

/** The parameters of a compiled statement with its placeholders filled from `values`. */
export const parametersOf = (c: CompiledStatement, values: Record<string, unknown>): unknown[] => fillPlaceholders(c.params as unknown[], values);

/**
 * Runs a SQL text with positional parameters on the connection of `tx` (a transaction, or the
 * database itself) through drizzle's session, so that it is counted by the logger and runs on
 * the transaction's connection; rows come as plain objects keyed by column alias, with no mapping.
 */
export async function runOnSession(tx: Tx, text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const res = (await tx._.session.prepareQuery({ sql: text, params }, undefined, undefined, false).execute()) as unknown;
  return (Array.isArray(res) ? res : (res as { rows: Record<string, unknown>[] }).rows) as Record<string, unknown>[];
}

/** A column's SQL type as a table definition writes it (`numeric(18, 4)`, `timestamp (3) with time zone`). */
export const columnSqlType = (c: PgColumn): string => c.getSQLType();

/** A column's default as SQL (`defaultNow()`, `.default(…)`), or undefined when it has none. */
export function columnDefault(c: PgColumn): SQL | undefined {
  if (!c.hasDefault || c.default === undefined) return undefined;
  return is(c.default, SQL) ? c.default : sql`${c.default}`;
}

/**
 * A common table expression that takes the name of `table`: drizzle writes a table's columns
 * qualified by the table's name (`"invoices"."id"`), so a select list built from the table's
 * columns, placed after it, reads the CTE's rows (those a `returning *` gave) instead.
 */
export const shadowingCte = (table: string, body: SQL): SQL => sql`${sql.identifier(table)} as (${body})`;
