// Kept results of writes, behind Idempotency-Key (CONTRACT §12). A write given a `Keep` stores
// its result in `idempotency_keys` in the same transaction as the change (for a one-statement
// create, in that statement), so a key is taken exactly when the change is committed: a crash
// before the commit leaves neither, one after it leaves both, and every instance sees them. The
// primary key (scope, key) makes a second write under a taken key fail as a whole.
//
// The HTTP side (which requests carry keys, what is replayed) is the adapters' (see
// server/idempotency.ts); this module is the storage.
import { and, eq, isNull, lte, sql, type SQL } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, text, timestamp, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from './types.ts';
import { ApiError } from './errors.ts';

/** What a write keeps with its result, under a key. */
export interface Keep {
  /** Whose key it is (a token). */
  readonly scope: string;
  readonly key: string;
  /** What the request was (method, path, body): a retry must be the same request. */
  readonly fingerprint: string;
  /** The response status and media type the result is replayed with. */
  readonly status: number;
  readonly mediaType: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** A kept response: a write's result (rendered again on replay) or a response body as sent. */
export interface Kept {
  fingerprint: string;
  status: number;
  mediaType: string | null;
  /** The resource of `result`. */
  resource: string | null;
  /** The record the write returned, as JSON of the engine's raw columns (decode with Engine.decodeKept). */
  result: string | null;
  /** A response body kept as it was sent (errors, GraphQL responses). */
  body: string | null;
}

export const IDEMPOTENCY_PKEY = 'idempotency_keys_scope_key_pk';

export function buildIdempotencyTable(company: AnyPgColumn) {
  return pgTable(
    'idempotency_keys',
    {
      scope: text('scope').notNull(),
      key: text('key').notNull(),
      companyId: uuid('company_id').notNull().references((): AnyPgColumn => company, { onDelete: 'cascade' }),
      fingerprint: text('fingerprint').notNull(),
      status: integer('status').notNull(),
      mediaType: text('media_type'),
      resource: text('resource'),
      result: text('result'),
      body: text('body'),
      createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
      expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    },
    (t) => [primaryKey({ name: IDEMPOTENCY_PKEY, columns: [t.scope, t.key] }), index('idempotency_keys_expires_idx').on(t.expiresAt)],
  );
}
export type IdempotencyTable = ReturnType<typeof buildIdempotencyTable>;

/**
 * Another request took the key first: its write committed (or is committing) while this one ran.
 * Nothing of this one was written.
 */
export const keyTaken = () => new ApiError(409, 'Another request with this Idempotency-Key is being processed; retry it in a moment to get its response.');

/** The kept responses, outside writes: look-up, responses kept after the fact, clean-up. */
export class KeptResponses {
  constructor(private readonly db: Db, private readonly t: IdempotencyTable) {}

  /** The response kept under a key, unless it has expired at `now`. */
  async find(scope: string, key: string, now: Date): Promise<Kept | null> {
    const t = this.t;
    const [row] = await this.db
      .select({ fingerprint: t.fingerprint, status: t.status, mediaType: t.mediaType, resource: t.resource, result: t.result, body: t.body, expiresAt: t.expiresAt })
      .from(t)
      .where(and(eq(t.scope, scope), eq(t.key, key)));
    if (!row) return null;
    if (row.expiresAt.getTime() > now.getTime()) return row;
    // Expired: the key is free again (a write inserting it must not meet the old row).
    await this.db.delete(t).where(and(eq(t.scope, scope), eq(t.key, key), lte(t.expiresAt, now)));
    return null;
  }

  /**
   * Keeps a response that changed nothing (an error), unless the key is taken meanwhile; returns
   * whether it was kept.
   */
  async keep(k: Keep, companyId: string, body: string): Promise<boolean> {
    const rows = await this.db
      .insert(this.t)
      .values({ scope: k.scope, key: k.key, companyId, fingerprint: k.fingerprint, status: k.status, mediaType: k.mediaType, body, createdAt: k.createdAt, expiresAt: k.expiresAt })
      .onConflictDoNothing()
      .returning({ scope: this.t.scope });
    return rows.length > 0;
  }

  /** Adds the response as sent to a kept write result (GraphQL: the whole response); false when there is none. */
  async attachBody(scope: string, key: string, body: string): Promise<boolean> {
    const rows = await this.db.update(this.t).set({ body }).where(and(eq(this.t.scope, scope), eq(this.t.key, key), isNull(this.t.body))).returning({ key: this.t.key });
    return rows.length > 0;
  }

  /** Deletes the keys expired at `now`; returns how many. */
  async purge(now: Date): Promise<number> {
    const rows = await this.db.delete(this.t).where(lte(this.t.expiresAt, now)).returning({ key: this.t.key });
    return rows.length;
  }
}

/** The values of a Keep as the statements take them (`k_…` placeholders, text). */
export function keepValues(k: Keep, resource: string): Record<string, unknown> {
  return {
    k_scope: k.scope,
    k_key: k.key,
    k_fingerprint: k.fingerprint,
    k_status: k.status,
    k_media: k.mediaType,
    k_resource: resource,
    k_created: k.createdAt.toISOString(),
    k_expires: k.expiresAt.toISOString(),
  };
}

/** Inserts a kept result whose JSON text is `result` (SQL), with `keepValues` and `company`. */
export function keepInsert(t: IdempotencyTable, result: SQL): SQL {
  const p = (name: string) => sql.placeholder(name);
  return sql`insert into ${t} (scope, key, company_id, fingerprint, status, media_type, resource, result, created_at, expires_at)
    select ${p('k_scope')}::text, ${p('k_key')}::text, ${p('company')}::uuid, ${p('k_fingerprint')}::text, ${p('k_status')}::int, ${p('k_media')}::text,
      ${p('k_resource')}::text, (${result}), ${p('k_created')}::timestamptz, ${p('k_expires')}::timestamptz`;
}
