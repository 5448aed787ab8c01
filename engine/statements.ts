// The one way the engine runs SQL: a statement is built with drizzle's template once per shape
// (its key), compiled to text, and then run with named values, in a transaction or on the
// database itself. Building statements on every request (and mapping every value and row) was
// most of a request's CPU; one path also means that a read inside a transaction is the same
// statement as outside.
import type { SQL } from 'drizzle-orm';
import { compileStatement, parametersOf, runOnSession, type CompiledStatement } from './drizzle-internals.ts';
import type { Db, RawQuery, Tx } from './types.ts';
import { plannedPerValue } from './read/conditions.ts';

/** A statement of one shape: `build` writes it with named placeholders, binding values as it goes. */
export interface StatementShape {
  readonly key: string;
  build(): SQL;
  /**
   * Binds the values into the call's value map without building (when the text is cached); for
   * statements whose values are bound while they are built.
   */
  bind?(): void;
}

export interface Statements {
  /** Runs the statement of `shape` with `values` (by placeholder name) in `tx`; plain rows. */
  run(tx: Tx, shape: StatementShape, values: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  /** Plain rows for a SQL text with positional parameters, on the database (outside transactions). */
  readonly query: RawQuery;
}

// Statement texts kept per engine: shapes are bounded by the model and the requests' filters.
const MAX_CACHED = 2000;

/**
 * `raw`, when given, runs statements outside transactions (the server passes the driver's own
 * prepared query); otherwise, and inside transactions, they go through drizzle's session.
 */
export function createStatements(db: Db, raw?: RawQuery): Statements {
  const compiled = new Map<string, CompiledStatement & { fresh: boolean }>();
  const query: RawQuery = raw ?? ((text, params) => runOnSession(db, text, params));
  return {
    query,
    run(tx, shape, values) {
      let c = compiled.get(shape.key);
      if (c) shape.bind?.();
      else {
        if (compiled.size >= MAX_CACHED) compiled.clear();
        const made = compileStatement(shape.build());
        compiled.set(shape.key, (c = { ...made, fresh: plannedPerValue(made.sql) }));
      }
      // Dates travel as RFC 3339 text: the drivers' own serialisers for them are set up by drizzle.
      const params = parametersOf(c, values).map((v) => (v instanceof Date ? v.toISOString() : v));
      return tx === db ? query(c.sql, params, c.fresh) : runOnSession(tx, c.sql, params);
    },
  };
}
