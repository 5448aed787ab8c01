// A webhook event's payload (CONTRACT §11): `{"type": …, "timestamp": …, "data": <the record's
// plain JSON>}`. One definition, written out by the database (the write's own statement, and the
// claim-time fallback for a delivery whose body was never saved) and by the server (after the
// commit, from the record the write returned; a ping): both give the same bytes.

import { sql, type SQL } from 'drizzle-orm';
import { literal } from './sql-text.ts';

/** The envelope's text around its three values. */
const ENVELOPE = ['{"type":', ',"timestamp":', ',"data":', '}'] as const;

/** The payload as text: event `type` at `at` (a Date, or a time as text), its record `data` (JSON text). */
export const payloadText = (type: string, at: Date | string, data: string): string =>
  `${ENVELOPE[0]}${JSON.stringify(type)}${ENVELOPE[1]}${JSON.stringify((at instanceof Date ? at : new Date(at)).toISOString())}${ENVELOPE[2]}${data}${ENVELOPE[3]}`;

/** The same payload as a SQL text expression: `type` and `timestamp` text, `data` JSON. */
export const payloadSql = (type: SQL, timestamp: SQL, data: SQL): SQL =>
  sql`(${literal(ENVELOPE[0])} || to_json((${type})::text)::text || ${literal(ENVELOPE[1])} || to_json((${timestamp})::text)::text || ${literal(ENVELOPE[2])} || (${data})::text || ${literal(ENVELOPE[3])})`;
