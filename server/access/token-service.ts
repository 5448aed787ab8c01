// API token management as functions of a database and an owner (a user in a company), shared by
// the REST API (/api/api-tokens: resources/api-token.ts over token-storage.ts) and the /profile/api page's session endpoints
// (web/routes.ts), so that both apply the same rules: name required (≤100, unique per user and
// company), the value shown once, at most the 100 most recent history entries, one summary.
import { and, asc, desc, eq, gt, gte, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Principal, FieldValues } from '../../engine/types.ts';
import type { HistoryQuery } from '../../resources/api-token.ts';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import { driverError } from '../../engine/operations.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { compileValidator, isDate, isUuid } from '../../engine/validate.ts';
import { rowsOf } from '../db.ts';
import { model } from '../model.ts';
import { apiTokenHistory, apiTokenMonthly, apiTokens } from '../schema.ts';
import { hashToken, newTokenValue } from './tokens.ts';

/** History entries shown per token (spec §8). */
export const HISTORY_LIMIT = 100;

/** Whose tokens: one user in one company. */
export interface Owner {
  userId: string;
  companyId: string;
}

export const ownerOf = (p: Principal): Owner => ({ userId: p.userId, companyId: p.company.id });

export type TokenRow = typeof apiTokens.$inferSelect;

export const recOf = (t: TokenRow): FieldValues => ({
  id: t.id,
  name: t.name,
  description: t.description,
  usageCount: Number(t.usageCount),
  lastUsedAt: t.lastUsedAt,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});


/** The columns a token list may be ordered by. */
export const tokenColumns = {
  name: apiTokens.name,
  description: apiTokens.description,
  usageCount: apiTokens.usageCount,
  lastUsedAt: apiTokens.lastUsedAt,
  createdAt: apiTokens.createdAt,
} as const;
export type TokenColumn = keyof typeof tokenColumns;

export const mine = (o: Owner): SQL => and(eq(apiTokens.userId, o.userId), eq(apiTokens.companyId, o.companyId))!;

const validator = compileValidator(model, model.get('ApiToken'));

function uniqueName(e: unknown): unknown {
  const d = driverError(e);
  if (d?.code === '23505' && (!d.constraint || d.constraint === 'api_tokens_name_unique')) {
    return ApiError.validation([{ propertyPath: 'name', message: 'This value is already used.', code: ViolationCode.unique }]);
  }
  return e;
}

/** The token, when it is the owner's: 404 when unknown, 403 when someone else's. */
export async function ownToken(db: Db, o: Owner, id: string): Promise<TokenRow> {
  if (!isUuid(id)) throw ApiError.notFound();
  const [row] = await db.select().from(apiTokens).where(eq(apiTokens.id, id.toLowerCase()));
  if (!row) throw ApiError.notFound();
  if (row.userId !== o.userId || row.companyId !== o.companyId) throw ApiError.forbidden();
  return row;
}

export interface TokenPage {
  rows: TokenRow[];
  total: number;
}

/** A page of the owner's tokens matching every condition, in `order`, then by id. */
export async function listTokens(
  db: Db,
  o: Owner,
  q: { conditions?: (SQL | undefined)[]; order?: { field: TokenColumn; dir: 'asc' | 'desc' }[]; limit: number; offset: number },
): Promise<TokenPage> {
  const where = and(mine(o), ...(q.conditions ?? []));
  // As a person reads a table: text ignores case whatever the database's collation, and empty
  // values go last in both directions ("Last Used": never-used tokens at the end).
  const orderOf = (x: { field: TokenColumn; dir: 'asc' | 'desc' }) => {
    const col = tokenColumns[x.field];
    const key = x.field === 'name' || x.field === 'description' ? sql`lower(${col})` : sql`${col}`;
    return sql`${key} ${sql.raw(x.dir === 'desc' ? 'desc' : 'asc')} nulls last`;
  };
  const rows = await db
    .select({ t: apiTokens, total: sql<number>`count(*) over ()` })
    .from(apiTokens)
    .where(where)
    .orderBy(...(q.order ?? []).map(orderOf), asc(apiTokens.id))
    .limit(q.limit)
    .offset(q.offset);
  let total = rows.length ? Number(rows[0]!.total) : 0;
  if (!rows.length && q.offset > 0) total = Number((await db.select({ n: sql<number>`count(*)` }).from(apiTokens).where(where))[0]!.n);
  return { rows: rows.map((r) => r.t), total };
}

/** Creates a token from `{name, description}` (422 on bad input); the value is returned here and never again. */
export async function createToken(db: Db, o: Owner, input: FieldValues): Promise<{ row: TokenRow; value: string }> {
  const { data } = validator.normalise(input, 'create', null);
  const value = newTokenValue();
  const [row] = await db
    .insert(apiTokens)
    .values({ id: uuidv7(), userId: o.userId, companyId: o.companyId, name: data.name as string, description: (data.description as string | null) ?? null, tokenHash: hashToken(value) })
    .returning()
    .catch((e) => Promise.reject(uniqueName(e)));
  return { row: row!, value };
}

/** Changes `name` and/or `description` of one of the owner's tokens. */
export async function updateToken(db: Db, o: Owner, id: string, input: FieldValues): Promise<TokenRow> {
  const existing = await ownToken(db, o, id);
  const { data } = validator.normalise(input, 'update', recOf(existing));
  const set: Partial<TokenRow> = { updatedAt: new Date() };
  if ('name' in data) set.name = data.name as string;
  if ('description' in data) set.description = data.description as string | null;
  const [row] = await db
    .update(apiTokens)
    .set(set)
    .where(eq(apiTokens.id, existing.id))
    .returning()
    .catch((e) => Promise.reject(uniqueName(e)));
  if (!row) throw ApiError.notFound();
  return row;
}

/**
 * Revokes those of `ids` that are the owner's tokens, in one statement; others are left alone.
 * Their history and monthly counters go with them (foreign keys cascade). Returns the ids deleted;
 * the caller tells every instance (Gate.revoked).
 */
export async function revokeTokens(db: Db, o: Owner, ids: readonly string[]): Promise<string[]> {
  const valid = ids.filter(isUuid).map((id) => id.toLowerCase());
  if (!valid.length) return [];
  const rows = await db.delete(apiTokens).where(and(mine(o), inArray(apiTokens.id, valid))).returning({ id: apiTokens.id });
  return rows.map((r) => r.id);
}

/** `2xx` … `5xx`, or an exact code. */
function statusCondition(raw: string): SQL {
  const range = /^([1-5])xx$/i.exec(raw);
  if (range) {
    const lo = Number(range[1]) * 100;
    return and(gte(apiTokenHistory.status, lo), lt(apiTokenHistory.status, lo + 100))!;
  }
  if (/^[1-5]\d\d$/.test(raw)) return eq(apiTokenHistory.status, Number(raw));
  throw ApiError.badRequest(`Invalid value "${raw.slice(0, 20)}" for filter "status": use 2xx, 3xx, 4xx, 5xx or a status code.`);
}

/** A date (whole day, UTC) or an RFC 3339 time; `op` as the date filters of other collections. */
function dateCondition(op: string, raw: string): SQL {
  const col = apiTokenHistory.date;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  if (day ? !isDate(raw) : !/^\d{4}-\d{2}-\d{2}[T ]/.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw ApiError.badRequest(`Invalid date "${raw.slice(0, 40)}" for filter "date".`);
  }
  const at = day ? new Date(`${raw}T00:00:00Z`) : new Date(raw);
  const nextDay = new Date(at.getTime() + 86_400_000);
  switch (op) {
    case 'after':
      return gte(col, at);
    case 'strictly_after':
      return day ? gte(col, nextDay) : gt(col, at);
    case 'before':
      return day ? lt(col, nextDay) : lte(col, at);
    default:
      return lt(col, at);
  }
}

/**
 * The SQL conditions of a token history's filters (HistoryQuery, already checked by the operation
 * runner): `date[after|before|strictly_after|strictly_before]`, `method` and `status` (`2xx`…`5xx`
 * or a code), the last two also as lists (`method[]`, `status[]`). A date that does not exist is a 400.
 */
export function historyFilters(q: HistoryQuery): SQL[] {
  const conditions: SQL[] = [];
  for (const op of ['after', 'before', 'strictly_after', 'strictly_before'] as const) {
    const v = q[`date[${op}]`];
    if (v !== undefined) conditions.push(dateCondition(op, v));
  }
  const methods = [...(q.method ? [q.method] : []), ...(q['method[]'] ?? [])].map((m) => m.toUpperCase());
  const statuses = [...(q.status ? [q.status] : []), ...(q['status[]'] ?? [])].map(statusCondition);
  if (methods.length) conditions.push(inArray(apiTokenHistory.method, methods));
  if (statuses.length) conditions.push(or(...statuses)!);
  return conditions;
}

export interface HistoryEntryOut {
  date: string;
  method: string;
  endpoint: string;
  status: number;
  ipAddress: string | null;
  userAgent: string | null;
}

/** The token's most recent requests matching the filters, newest first, at most HISTORY_LIMIT. */
export async function tokenHistory(db: Db, tokenId: string, filters: SQL[]): Promise<HistoryEntryOut[]> {
  const rows = await db
    .select()
    .from(apiTokenHistory)
    .where(and(eq(apiTokenHistory.tokenId, tokenId), ...filters))
    .orderBy(desc(apiTokenHistory.date), desc(apiTokenHistory.id))
    .limit(HISTORY_LIMIT);
  return rows.map((r) => ({ date: r.date.toISOString(), method: r.method, endpoint: r.endpoint, status: r.status, ipAddress: r.ipAddress, userAgent: r.userAgent }));
}

export interface Summary {
  activeTokens: number;
  apiCallsThisMonth: number;
  lastActivity: string | null;
  mostUsedToken: { id: string; name: string; usageCount: number } | null;
}

/** The owner's token activity; `now` picks the (UTC) month. */
export async function tokenSummary(db: Db, o: Owner, now: number): Promise<Summary> {
  const thisMonth = new Date(now).toISOString().slice(0, 7);
  const [stats] = rowsOf<{ active: string | number; last: string | null; calls: string | number }>(
    await db.execute(sql`
      select count(*) as active, to_char(max(t.last_used_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last,
             coalesce((select sum(m.count) from ${apiTokenMonthly} m where m.month = ${thisMonth} and m.token_id in (select id from ${apiTokens} where user_id = ${o.userId} and company_id = ${o.companyId})), 0) as calls
      from ${apiTokens} t where t.user_id = ${o.userId} and t.company_id = ${o.companyId}`),
  );
  const [top] = await db
    .select({ id: apiTokens.id, name: apiTokens.name, usageCount: apiTokens.usageCount })
    .from(apiTokens)
    .where(and(mine(o), gt(apiTokens.usageCount, 0)))
    .orderBy(desc(apiTokens.usageCount), asc(apiTokens.id))
    .limit(1);
  return {
    activeTokens: Number(stats!.active),
    apiCallsThisMonth: Number(stats!.calls),
    lastActivity: stats!.last,
    mostUsedToken: top ? { id: top.id, name: top.name, usageCount: Number(top.usageCount) } : null,
  };
}

export interface DailyUsage {
  /** One entry per UTC day, oldest first, the last one being today; days without requests count 0. */
  days: { day: string; count: number }[];
  /**
   * Storage per token is bounded (history.ts keeps the newest entries): when older entries were
   * trimmed, the days before the oldest stored entry may be undercounted. Null when nothing was.
   */
  completeSince: string | null;
}

/** Requests per UTC day over the last `days` days, counted in SQL from the stored history. */
export async function dailyUsage(db: Db, token: TokenRow, now: number, days = 30): Promise<DailyUsage> {
  const today = new Date(new Date(now).toISOString().slice(0, 10) + 'T00:00:00Z').getTime();
  const from = new Date(today - (days - 1) * 86_400_000);
  const rows = rowsOf<{ day: string; n: string | number }>(
    await db.execute(sql`
      select to_char(${apiTokenHistory.date} at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n
      from ${apiTokenHistory}
      where ${apiTokenHistory.tokenId} = ${token.id} and ${apiTokenHistory.date} >= ${from.toISOString()}
      group by 1`),
  );
  const counts = new Map(rows.map((r) => [r.day, Number(r.n)]));
  const out: DailyUsage['days'] = [];
  for (let i = 0; i < days; i++) {
    const day = new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    out.push({ day, count: counts.get(day) ?? 0 });
  }
  // Every request is counted in usage_count; fewer stored rows means some were trimmed.
  const [stored] = rowsOf<{ n: string | number; oldest: string | null }>(
    await db.execute(sql`select count(*) as n, to_char(min(${apiTokenHistory.date}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as oldest from ${apiTokenHistory} where ${apiTokenHistory.tokenId} = ${token.id}`),
  );
  const trimmed = Number(stored!.n) < Number(token.usageCount);
  return { days: out, completeSince: trimmed ? stored!.oldest : null };
}
