// engine/drizzle-internals.ts holds every use of drizzle-orm beyond its documented query builder.
// One test per function, on the real database: a drizzle upgrade that changes any of them fails
// here, not in a request.
import { Placeholder, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnDefault, columnSqlType, compileStatement, parametersOf, placeholderNames, runOnSession, shadowingCte } from '../engine/drizzle-internals.ts';
import { model, tables } from '../server/model.ts';
import { freshDatabase, type TestDatabase } from './helpers.ts';

let t: TestDatabase;
const invoices = tables.get('Invoice');
const lines = tables.get('InvoiceLine');
const column = (table: typeof invoices, name: string) => table[name] as unknown as PgColumn;

beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(() => t.drop());

describe('drizzle internals', () => {
  it('compileStatement: text with $n parameters, columns qualified by their table, placeholders kept as such', () => {
    const c = compileStatement(sql`select ${invoices.id} from ${invoices} where ${invoices.companyId} = ${sql.placeholder('company')} and ${invoices.number} = ${'INV-1'}`);
    expect(c.sql).toBe('select "invoices"."id" from "invoices" where "invoices"."company_id" = $1 and "invoices"."number" = $2');
    expect(c.params).toHaveLength(2);
    expect(c.params[0]).toBeInstanceOf(Placeholder);
    expect(c.params[1]).toBe('INV-1');
  });

  it('placeholderNames: the names in parameter order, or undefined when a value was written in', () => {
    expect(placeholderNames(compileStatement(sql`select ${sql.placeholder('b')}::int + ${sql.placeholder('a')}::int`))).toEqual(['b', 'a']);
    expect(placeholderNames(compileStatement(sql`select ${sql.placeholder('a')}::int + ${1}::int`))).toBeUndefined();
  });

  it('parametersOf: placeholders filled from named values, other parameters as they are', () => {
    const c = compileStatement(sql`select ${sql.placeholder('x')}::text, ${'fixed'}::text, ${sql.placeholder('y')}::int`);
    expect(parametersOf(c, { x: 'a', y: 2 })).toEqual(['a', 'fixed', 2]);
  });

  it("runOnSession: plain rows keyed by alias, counted, on the database and on a transaction's own connection", async () => {
    const db = t.database.db;
    const before = t.database.statements();
    const rows = await runOnSession(db, 'select $1::int + 1 as "next", $2::text as "word"', [41, 'hi']);
    expect(rows).toEqual([{ next: 42, word: 'hi' }]);
    expect(t.database.statements() - before).toBe(1);
    const id = '0190a0a0-0000-7000-8000-000000000001';
    await expect(
      db.transaction(async (tx) => {
        await runOnSession(tx, 'insert into companies (id, name) values ($1, $2)', [id, 'Internals Co']);
        // The row is visible inside the transaction only: the statement ran on its connection.
        expect(await runOnSession(tx, 'select name from companies where id = $1', [id])).toEqual([{ name: 'Internals Co' }]);
        tx.rollback();
      }),
    ).rejects.toThrow();
    expect(await runOnSession(db, 'select name from companies where id = $1', [id])).toEqual([]);
  });

  it('columnSqlType: the types the children insert declares for json_to_recordset', async () => {
    expect(columnSqlType(column(invoices, 'total'))).toBe('bigint');
    expect(columnSqlType(column(lines, 'qty'))).toBe('numeric(18, 4)');
    expect(columnSqlType(column(invoices, 'invoiceDate'))).toBe('date');
    expect(columnSqlType(column(invoices, 'createdAt'))).toBe('timestamp (3) with time zone');
    expect(columnSqlType(column(invoices, 'id'))).toBe('uuid');
    // Each is a type PostgreSQL takes in a record definition.
    const defs = ['total', 'invoiceDate', 'createdAt'].map((n) => `"${n}" ${columnSqlType(column(invoices, n))}`).join(', ');
    const rows = await runOnSession(t.database.db, `select "total"::text as total from json_to_recordset($1::text::json) as x(${defs})`, [JSON.stringify([{ total: 5, invoiceDate: '2026-01-02', createdAt: '2026-01-02T03:04:05.678Z' }])]);
    expect(rows).toEqual([{ total: '5' }]);
  });

  it('columnDefault: SQL defaults, plain values as parameters, undefined without a default', () => {
    const now = columnDefault(column(invoices, 'createdAt'));
    expect(now && compileStatement(now).sql).toBe('now()');
    const zero = columnDefault(column(invoices, 'total'));
    expect(zero && compileStatement(zero).params).toEqual([0]);
    expect(columnDefault(column(invoices, 'notes'))).toBeUndefined();
  });

  it("shadowingCte: a select list built from a table's columns reads the CTE named like the table", async () => {
    const t2 = tables.get('Tax');
    const statement = sql`with ${shadowingCte('taxes', sql`select 'b7a2a2a2-0000-7000-8000-000000000001'::uuid as "id", 'Shadow'::text as "name"`)} select ${t2.id} as "id", ${t2.name} as "name" from "taxes"`;
    const c = compileStatement(statement);
    const rows = await runOnSession(t.database.db, c.sql, parametersOf(c, {}));
    expect(rows).toEqual([{ id: 'b7a2a2a2-0000-7000-8000-000000000001', name: 'Shadow' }]);
    expect(model.get('Tax').table).toBe('taxes');
  });
});
