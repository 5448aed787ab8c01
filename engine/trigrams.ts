// Partial-match text filters per company (CONTRACT §10). A value's index keys are its company and
// each three-character piece of its lower-cased text (`<company>abc`), in a GIN index over that
// array: a company's search looks up its own keys only, whose posting lists hold its own records,
// so another company's records cost it nothing, however many. A GIN index over (company,
// pg_trgm's trigrams) (btree_gin) does not do that: its trigram keys are shared by every company,
// and the company's key holds each of a big company's records, which the scan steps through.
//
// `value ILIKE '%part%'` is `lower(value) LIKE '%lower(part)%'` (how PostgreSQL compares without
// case), so every piece of lower(part) is a piece of lower(value): the containment of the keys
// finds every match, and the ILIKE beside it removes the records that hold the pieces apart.
// A part shorter than three characters has no piece: it is served by the ILIKE alone.
//
// The keys' statistics (ANALYZE gathers the most common elements of an expression index) are per
// company: the planner estimates a part's frequency in the company asking, not in the table.
import { sql, type SQL } from 'drizzle-orm';

export const TRIGRAMS_FUNCTION = 'engine_trigrams';

/** DDL for the key function (idempotent; the migration carries it before the indexes). */
export const trigramsDdl = (): string[] => [
  `CREATE OR REPLACE FUNCTION ${TRIGRAMS_FUNCTION}(company uuid, value text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select coalesce(array_agg(distinct company::text || substr(v, i, 3)), '{}') from (select lower(value) as v) as l, generate_series(1, length(v) - 2) as i
$$`,
];

/** The keys of `value` in `company` (SQL): the index's expression, and what a search looks up. */
export const trigramKeys = (company: unknown, value: unknown): SQL => sql`${sql.identifier(TRIGRAMS_FUNCTION)}(${company}, ${value})`;

/** Whether a part has pieces to look up (otherwise the index cannot serve it). */
export const hasTrigrams = (part: string): boolean => [...part].length >= 3;
