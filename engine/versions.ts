// Record versions, behind ETags and preconditions (CONTRACT §12). Every resource table has a
// `version` column that starts at 1 and moves on every change of the record and of its embedded
// children. The database keeps it, with triggers derived from the model: rules update records
// directly (a payment settles its invoice, a tax edit recomputes drafts, schedule:run marks
// invoices overdue), and a version kept by the engine's own statements alone would miss them.
//
// The version counts the transactions that changed the record:
// - an UPDATE of a record's row moves its version, unless the same transaction wrote the row
//   already (its version has moved, or it was inserted at 1) or the statement sets it itself;
// - a statement that inserts, updates or deletes embedded children moves each owner's version,
//   under the same rule (so a create, in one statement or in a transaction, returns version 1,
//   which is what is stored).
import { integer } from 'drizzle-orm/pg-core';
import { ApiError } from './errors.ts';
import type { Model } from './model.ts';

/** The column every resource table carries. */
export const versionColumn = () => integer('version').notNull().default(1);

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * The DDL of the version triggers, one statement per element, safe to run again (functions are
 * replaced, triggers dropped and created). drizzle/generate.ts appends it to a migration when it
 * changes (a resource or an embedded relation added).
 */
export function versionTriggers(model: Model): string[] {
  const out: string[] = [];
  for (const r of model.resources) {
    if (r.provider) continue; // no table (engine/custom.ts)
    // Once per transaction: a row this transaction wrote already (inserted, or updated and
    // bumped) keeps its version, so a create's later updates (totals, numbers) leave it at 1.
    const fn = ident(`${r.table}_version`);
    out.push(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version = OLD.version AND NOT EXISTS (SELECT 1 FROM ${ident(r.table)} WHERE id = OLD.id AND xmin = pg_current_xact_id()::xid) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;`);
    out.push(`DROP TRIGGER IF EXISTS ${fn} ON ${ident(r.table)};`);
    out.push(`CREATE TRIGGER ${fn} BEFORE UPDATE ON ${ident(r.table)} FOR EACH ROW EXECUTE FUNCTION ${fn}();`);
  }
  for (const owner of model.resources) {
    for (const f of owner.embedded) {
      const child = model.get(f.target!);
      const via = child.byName.get((f.def as { via: string }).via)!.column;
      const fn = `${child.table}_bumps_${owner.table}`;
      // Owner by owner, each found by its key: PL/pgSQL keeps a statement's plan for the session,
      // and a join of the transition table with the owners' table, planned while that table was
      // small, read the whole of it on every later write (on PGlite, which never analyses, for
      // good). An update by primary key has no cheaper plan to get stuck on.
      const bump = (rows: string) =>
        `FOR owner_id IN SELECT DISTINCT ${ident(via)} FROM ${rows} WHERE ${ident(via)} IS NOT NULL LOOP
      UPDATE ${ident(owner.table)} SET version = version + 1 WHERE id = owner_id AND xmin <> pg_current_xact_id()::xid;
    END LOOP;`;
      out.push(`CREATE OR REPLACE FUNCTION ${ident(fn)}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE owner_id uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN
    ${bump('old_rows')}
  ELSE
    ${bump('new_rows')}
  END IF;
  RETURN NULL;
END $$;`);
      for (const [op, ref] of [['insert', 'NEW TABLE AS new_rows'], ['update', 'NEW TABLE AS new_rows'], ['delete', 'OLD TABLE AS old_rows']] as const) {
        const name = ident(`${fn}_on_${op}`);
        out.push(`DROP TRIGGER IF EXISTS ${name} ON ${ident(child.table)};`);
        out.push(`CREATE TRIGGER ${name} AFTER ${op.toUpperCase()} ON ${ident(child.table)} REFERENCING ${ref} FOR EACH STATEMENT EXECUTE FUNCTION ${ident(fn)}();`);
      }
    }
  }
  return out;
}

/**
 * What a write requires of the record's version (If-Match, or GraphQL's `version` argument): one
 * of `versions`. The record must exist either way (a missing one is a 404 before any version).
 */
export interface Precondition {
  readonly versions: readonly number[];
}

/** 412 unless the record's current version is one the caller named. */
export function checkPrecondition(pre: Precondition | undefined, version: unknown): void {
  if (!pre || pre.versions.includes(Number(version))) return;
  throw new ApiError(412, `The record has changed since you read it (it is at version ${Number(version)}): read it again, then retry with its current ETag or version.`);
}

// ---- ETags ---------------------------------------------------------------------------------

/**
 * A strong ETag for version `version` of a record in format `format` (a short name): each
 * representation has its own tag, and every tag names the version it was made from.
 */
export const etagOf = (version: unknown, format: string): string => `"${Number(version)}-${format}"`;

/** An entity-tag list (If-Match, If-None-Match): `*`, or the tags, each weak or not. */
export type TagList = '*' | { readonly tags: readonly { readonly weak: boolean; readonly opaque: string }[] };

const TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*$/;

/** Parses an If-Match or If-None-Match value; 400 when it is not `*` or a list of entity-tags. */
export function parseTagList(header: string, value: string): TagList {
  if (value.trim() === '*') return '*';
  const tags: { weak: boolean; opaque: string }[] = [];
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    const m = TAG.exec(part);
    if (!m) throw ApiError.badRequest(`${header} must be "*" or a list of entity-tags such as "3-jsonld" (quotation marks included), as given by the ETag header.`);
    tags.push({ weak: Boolean(m[1]), opaque: m[2]! });
  }
  if (!tags.length) throw ApiError.badRequest(`${header} is empty: send "*" or entity-tags as given by the ETag header.`);
  return { tags };
}

/** The versions an If-Match list names (strong tags of ours only; anything else matches nothing). */
export function versionsOf(list: Exclude<TagList, '*'>): number[] {
  const out: number[] = [];
  for (const t of list.tags) {
    const m = /^(\d{1,15})-[a-z0-9]+$/.exec(t.opaque);
    if (!t.weak && m) out.push(Number(m[1]));
  }
  return out;
}

/** Whether If-None-Match matches the current tag (weak comparison, as RFC 9110 asks for GET). */
export function noneMatchHits(list: TagList, current: string): boolean {
  if (list === '*') return true;
  const opaque = current.slice(1, -1);
  return list.tags.some((t) => t.opaque === opaque);
}

/** The precondition an If-Match header sets (none for `*`: the record only has to exist). */
export function ifMatch(value: string | string[] | undefined): Precondition | undefined {
  if (value === undefined) return undefined;
  const list = parseTagList('If-Match', Array.isArray(value) ? value.join(',') : value);
  return list === '*' ? undefined : { versions: versionsOf(list) };
}

/** The If-None-Match list of a request, if any. */
export const ifNoneMatch = (value: string | string[] | undefined): TagList | undefined =>
  value === undefined ? undefined : parseTagList('If-None-Match', Array.isArray(value) ? value.join(',') : value);
