// Small SQL expressions shared by the statements that build values in PostgreSQL (the engine's
// raw reads, the REST projection, the GraphQL compiler), so that all of them write a value alike.
import { sql, type SQL } from 'drizzle-orm';

/** A constant text written into the statement (names, IRI prefixes), quotes escaped. */
export const literal = (s: string): SQL => sql.raw(`'${s.replace(/'/g, "''")}'`);

/** A secret text field as every read shows it: its prefix, an ellipsis and its last characters. */
export const masked = (col: SQL, mask: { prefix: string; last: number }): SQL =>
  sql`case when ${col} is null then null else ${literal(`${mask.prefix}…`)} || right(${col}, ${sql.raw(String(Math.trunc(mask.last)))}) end`;

/** A timestamp as RFC 3339 in UTC with milliseconds, as JavaScript's toISOString writes it. */
export const iso = (col: SQL): SQL => sql`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
