// The types every part of the engine shares: who calls, a record's values, the database handles.
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';

export type Role = 'admin' | 'member' | 'viewer';

/** Whether the company is registered for VAT, and why it charges none when not (CONTRACT §18). */
export interface VatRegistration {
  readonly registered: boolean;
  readonly note: string | null;
}

/** Who is calling: the user, the company the token is bound to, and the role there. */
export interface Principal {
  readonly userId: string;
  readonly role: Role;
  /**
   * The company, with what the rules of every write read of it: its currency, and its VAT
   * registration (CONTRACT §18) when the server read it with the token or session (and keeps it
   * with it in its cache, dropped when the company changes it); without `vat`, the rules read it.
   */
  readonly company: { readonly id: string; readonly currency: string; readonly vat?: VatRegistration };
  readonly tokenId?: string;
}

/**
 * The values of a record as the engine passes them around: field name → value (refs are bare
 * ids, timestamps Dates, decimals numbers), plus `id`, `companyId`, `createdAt`, `updatedAt`.
 */
export type FieldValues = Record<string, unknown>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = PgDatabase<PgQueryResultHKT, any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Tx = PgTransaction<PgQueryResultHKT, any, any> | Db;

/** Runs one SQL text with positional parameters and returns plain rows (keys are column aliases). */
/**
 * Runs a SQL text with positional parameters. `fresh`: planned with these values at every
 * execution (never a prepared statement's generic plan), for statements whose best plan depends on
 * them (engine/read/conditions.ts `plannedPerValue`).
 */
export type RawQuery = (text: string, params: unknown[], fresh?: boolean) => Promise<Record<string, unknown>[]>;

/** Rows of a raw `execute` result, whichever driver produced it (postgres.js: an array; PGlite: `{ rows }`). */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
