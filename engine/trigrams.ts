// Partial-match text filters per company (CONTRACT §10). A value's index keys are its company and
// each piece of one, two and three characters of its lower-cased text (`<company>a`, `<company>ab`,
// `<company>abc`), in a GIN index over that array: a company's search looks up its own keys only,
// whose posting lists hold its own records, so another company's records cost it nothing, however
// many. A GIN index over (company, pg_trgm's trigrams) (btree_gin) does not do that: its trigram
// keys are shared by every company, and the company's key holds each of a big company's records,
// which the scan steps through.
//
// `value ILIKE '%part%'` is `lower(value) LIKE '%lower(part)%'` (how PostgreSQL compares without
// case), so every piece of lower(part) is a piece of lower(value): the containment of the keys
// finds every match. A part of three characters or more is looked up by its three-character
// pieces, and the ILIKE beside it removes the records that hold the pieces apart; a part of one or
// two characters is one key, whose records are exactly its matches. Only the empty part has no key.
//
// The keys' statistics (ANALYZE gathers the most common elements of an expression index) are per
// company: how many records hold a key is how many of the asking company's records hold the piece
// (engine/read/density.ts reads them).
import { sql, type SQL } from 'drizzle-orm';

/** The keys of a stored value (the index's expression). */
export const KEYS_FUNCTION = 'engine_text_keys';
/** The keys a search looks up: a part's longest pieces (three characters, or the part when shorter). */
export const QUERY_FUNCTION = 'engine_text_query';
/** The functions of the previous key scheme (three-character pieces only), dropped by the migration that replaced them. */
export const FORMER_FUNCTIONS = ['engine_trigrams(uuid, text)'];

/** DDL for the key functions (idempotent; the migration carries it before the indexes). */
export const trigramsDdl = (): string[] => [
  // A loop in PL/pgSQL: three to four times cheaper than the same in SQL (generate_series and
  // array_agg), which every insert and update of a searched field pays. The pieces that run past
  // the end are the shorter ones again, and GIN keeps each key of a value once.
  `CREATE OR REPLACE FUNCTION ${KEYS_FUNCTION}(company uuid, value text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
declare
  v text := lower(value);
  c text := company::text;
  keys text[] := '{}';
begin
  for i in 1..coalesce(length(v), 0) loop
    keys := array_append(keys, c || substr(v, i, 1));
    keys := array_append(keys, c || substr(v, i, 2));
    keys := array_append(keys, c || substr(v, i, 3));
  end loop;
  return keys;
end
$$`,
  `CREATE OR REPLACE FUNCTION ${QUERY_FUNCTION}(company uuid, part text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select coalesce(array_agg(distinct company::text || substr(v, i, least(3, length(v)))), '{}') from (select lower(part) as v) as l, generate_series(1, length(v) - least(3, length(v)) + 1) as i where length(v) > 0
$$`,
];

/** The keys of a stored `value` in `company` (SQL): the index's expression. */
export const valueKeys = (company: unknown, value: unknown): SQL => sql`${sql.identifier(KEYS_FUNCTION)}(${company}, ${value})`;

/** The keys a search for `part` in `company` looks up (SQL). */
export const partKeys = (company: unknown, part: unknown): SQL => sql`${sql.identifier(QUERY_FUNCTION)}(${company}, ${part})`;

/** The name of the keys' index of a table's column. */
export const keysIndexName = (table: string, column: string): string => `${table}_company_${column}_keys_idx`;

/** Whether a part has keys to look up (every part but the empty one). */
export const hasKeys = (part: string): boolean => part.length > 0;
