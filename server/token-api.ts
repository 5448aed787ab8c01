// /api/api-tokens: the calling user's tokens in the calling token's company (CONTRACT §4).
// API tokens are not a descriptor resource (they are system rows in schema.ts, REST only), but
// they are presented through the same formats: a small model of their own gives the formats,
// the JSON-LD contexts and the input validator what they need.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { and, asc, desc, eq, gt, gte, ilike, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Principal, Rec } from '../engine/context.ts';
import { defineResource, integer, ref, text, timestamp } from '../engine/descriptor.ts';
import { ApiError, ViolationCode } from '../engine/errors.ts';
import { buildModel } from '../engine/model.ts';
import { driverError } from '../engine/operations.ts';
import { parseRestFilters } from '../engine/query.ts';
import { uuidv7 } from '../engine/uuid.ts';
import { compileValidator, isDate, isUuid } from '../engine/validate.ts';
import { json } from '../formats/json.ts';
import { contextDocument, jsonld } from '../formats/jsonld.ts';
import { Formats } from '../formats/negotiate.ts';
import type { Format } from '../formats/types.ts';
import { rowsOf } from './db.ts';
import type { HistoryRecorder } from './history.ts';
import { apiTokenHistory, apiTokenMonthly, apiTokens } from './schema.ts';
import { hashToken, newTokenValue } from './tokens.ts';

export const tokenModel = buildModel([
  defineResource({
    name: 'ApiToken',
    plural: 'apiTokens',
    description: "An API token of the calling user in the calling token's company. Its value is shown once, when it is created.",
    fields: {
      name: text({ required: true, max: 100, filter: 'partial', order: true }),
      description: text({ filter: 'partial' }),
      usageCount: integer({ readOnly: true, order: true, description: 'Requests made with the token' }),
      lastUsedAt: timestamp({ readOnly: true, order: true, description: 'Time of the last request; null if never used' }),
    },
    operations: { rest: ['list', 'read', 'create', 'update', 'delete'], graphql: 'none' },
  }),
  defineResource({
    name: 'ApiTokenHistoryEntry',
    plural: 'apiTokenHistoryEntries',
    path: 'api-tokens/{id}/history',
    description: 'A request made with a token: the 100 most recent, newest first.',
    fields: {
      date: timestamp({ readOnly: true, filter: 'date' }),
      method: text({ readOnly: true, filter: 'exact' }),
      endpoint: text({ readOnly: true }),
      status: integer({ readOnly: true }),
      ipAddress: text({ readOnly: true }),
      userAgent: text({ readOnly: true }),
    },
    operations: { rest: ['list'], graphql: 'none' },
  }),
  defineResource({
    name: 'ApiTokenSummary',
    plural: 'apiTokenSummaries',
    path: 'api-tokens/summary',
    description: "The calling user's token activity in the calling token's company; months are UTC.",
    fields: {
      activeTokens: integer({ readOnly: true }),
      apiCallsThisMonth: integer({ readOnly: true }),
      lastActivity: timestamp({ readOnly: true }),
      mostUsedToken: ref('ApiToken', { readOnly: true }),
    },
    operations: { rest: ['read'], graphql: 'none' },
  }),
]);

const TOKEN = tokenModel.get('ApiToken');
const ROOT = TOKEN.iri;
const HISTORY_LIMIT = 100;

export interface TokenApiOptions {
  db: Db;
  formats: Formats;
  principal(req: FastifyRequest): Principal;
  history: HistoryRecorder;
  /** Called after a token was deleted, so every instance stops accepting it. */
  revoked(tokenId: string): Promise<void>;
  clock?: () => number;
}

const BODY_TYPES = {
  POST: ['application/json', 'application/ld+json', 'application/vnd.api+json'],
  PATCH: ['application/merge-patch+json', 'application/json', 'application/vnd.api+json'],
} as const;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function intParam(name: string, raw: string | null, min: number): number | undefined {
  if (raw === null) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw ApiError.badRequest(`${name} must be an integer.`);
  const n = Number(raw);
  if (n < min) throw ApiError.badRequest(name === 'page' ? 'Page should not be less than 1' : `${name} should not be less than ${min}.`);
  return n;
}

type TokenRow = typeof apiTokens.$inferSelect;

const recOf = (t: TokenRow): Rec => ({
  id: t.id,
  name: t.name,
  description: t.description,
  usageCount: Number(t.usageCount),
  lastUsedAt: t.lastUsedAt,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

const tokenColumns = { name: apiTokens.name, usageCount: apiTokens.usageCount, lastUsedAt: apiTokens.lastUsedAt, createdAt: apiTokens.createdAt } as const;

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

export function registerTokenApi(app: FastifyInstance, o: TokenApiOptions): void {
  const { db } = o;
  const validator = compileValidator(tokenModel, TOKEN);
  // History and summary are not records: JSON-LD or plain JSON.
  const documentFormats = new Formats([jsonld, json]);

  function send(reply: FastifyReply, format: Format, status: number, rendered: { body: unknown; headers?: Record<string, string> }) {
    reply.code(status).header('content-type', `${format.mediaType}; charset=utf-8`);
    if (rendered.headers) reply.headers(rendered.headers);
    return reply.send(format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body));
  }

  function readBody(req: FastifyRequest, method: keyof typeof BODY_TYPES): Rec {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const allowed: readonly string[] = BODY_TYPES[method];
    if (!allowed.includes(type)) {
      throw new ApiError(415, `The content-type "${type || '(none)'}" is not supported. Supported MIME types are "${allowed.join('", "')}".`);
    }
    const reader = o.formats.forContentType(type)?.readBody;
    const plain = reader ? reader(tokenModel, TOKEN, req.body) : req.body;
    if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) throw ApiError.badRequest('The request body must be a JSON object.');
    return plain as Rec;
  }

  /** Reads see this instance's requests so far: queued history is written first. */
  async function settle(req: FastifyRequest): Promise<void> {
    try {
      await o.history.flush();
    } catch (err) {
      req.log.warn({ err }, 'Request history not written yet; answering with what is stored');
    }
  }

  /** The token, when it is the caller's: 404 when unknown, 403 when someone else's. */
  async function own(p: Principal, id: string): Promise<TokenRow> {
    if (!isUuid(id)) throw ApiError.notFound();
    const [row] = await db.select().from(apiTokens).where(eq(apiTokens.id, id.toLowerCase()));
    if (!row) throw ApiError.notFound();
    if (row.userId !== p.userId || row.companyId !== p.company.id) throw ApiError.forbidden();
    return row;
  }

  const mine = (p: Principal) => and(eq(apiTokens.userId, p.userId), eq(apiTokens.companyId, p.company.id));

  function uniqueName(e: unknown): unknown {
    const d = driverError(e);
    if (d?.code === '23505' && (!d.constraint || d.constraint === 'api_tokens_name_unique')) {
      return ApiError.validation([{ propertyPath: 'name', message: 'This value is already used.', code: ViolationCode.unique }]);
    }
    return e;
  }

  function methodNotAllowed(url: string, allowed: string[]) {
    const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => !allowed.includes(m));
    app.route({
      method: [...others],
      url,
      handler: async (req) => {
        const allow = allowed.join(', ');
        throw new ApiError(405, `No route found for "${req.method} ${req.url.split('?')[0]}": Method Not Allowed (Allow: ${allow})`, { headers: { allow } });
      },
    });
  }

  // The @context documents these responses name (static routes win over /api/contexts/:name).
  for (const r of tokenModel.resources) {
    app.get(`/api/contexts/${r.name}`, async (req, reply) =>
      reply.type('application/ld+json; charset=utf-8').send(JSON.stringify(contextDocument(tokenModel, r.name, `${req.protocol}://${req.host}`))),
    );
  }

  app.get(ROOT, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const url = new URL(req.url, 'http://x');
    const q = url.searchParams;
    const page = intParam('page', q.get('page'), 1) ?? 1;
    const itemsPerPage = Math.min(intParam('itemsPerPage', q.get('itemsPerPage'), 1) ?? 30, 100);
    if ((page - 1) * itemsPerPage > 1e9) throw ApiError.badRequest('Page parameter is too large.');
    const { where, order } = parseRestFilters(tokenModel, TOKEN, q);
    const conditions = where.map((c) => or(...c.values.filter((v): v is string => v !== null).map((v) => ilike(c.field.name === 'name' ? apiTokens.name : apiTokens.description, `%${escapeLike(v)}%`))));
    await settle(req);
    const rows = await db
      .select({ t: apiTokens, total: sql<number>`count(*) over ()` })
      .from(apiTokens)
      .where(and(mine(p), ...conditions))
      .orderBy(...order.map((x) => (x.dir === 'desc' ? desc : asc)(tokenColumns[x.field as keyof typeof tokenColumns])), asc(apiTokens.id))
      .limit(itemsPerPage)
      .offset((page - 1) * itemsPerPage);
    let total = rows.length ? Number(rows[0]!.total) : 0;
    if (!rows.length && page > 1) total = Number((await db.select({ n: sql<number>`count(*)` }).from(apiTokens).where(and(mine(p), ...conditions)))[0]!.n);
    return send(reply, format, 200, format.collection(tokenModel, { resource: TOKEN, items: rows.map((r) => recOf(r.t)), total, page, itemsPerPage, path: url.pathname, query: q }));
  });

  app.post(ROOT, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const { data } = validator.normalise(readBody(req, 'POST'), 'create', null);
    const value = newTokenValue();
    const [row] = await db
      .insert(apiTokens)
      .values({ id: uuidv7(), userId: p.userId, companyId: p.company.id, name: data.name as string, description: (data.description as string | null) ?? null, tokenHash: hashToken(value) })
      .returning()
      .catch((e) => Promise.reject(uniqueName(e)));
    const rendered = format.item(tokenModel, TOKEN, recOf(row!));
    reply.header('location', `${ROOT}/${row!.id}`);
    // The value is shown here and never again: only its hash is stored.
    return send(reply, format, 201, { ...rendered, body: { ...(rendered.body as Rec), token: value } });
  });
  methodNotAllowed(ROOT, ['GET', 'POST']);

  app.get(`${ROOT}/summary`, async (req, reply) => {
    const format = documentFormats.negotiate(req.headers.accept);
    const p = o.principal(req);
    await settle(req);
    const thisMonth = new Date((o.clock ?? Date.now)()).toISOString().slice(0, 7);
    const [stats] = rowsOf<{ active: string | number; last: string | null; calls: string | number }>(
      await db.execute(sql`
        select count(*) as active, to_char(max(t.last_used_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last,
               coalesce((select sum(m.count) from ${apiTokenMonthly} m where m.month = ${thisMonth} and m.token_id in (select id from ${apiTokens} where user_id = ${p.userId} and company_id = ${p.company.id})), 0) as calls
        from ${apiTokens} t where t.user_id = ${p.userId} and t.company_id = ${p.company.id}`),
    );
    const [top] = await db
      .select({ id: apiTokens.id, name: apiTokens.name, usageCount: apiTokens.usageCount })
      .from(apiTokens)
      .where(and(mine(p), gt(apiTokens.usageCount, 0)))
      .orderBy(desc(apiTokens.usageCount), asc(apiTokens.id))
      .limit(1);
    const ld = format === jsonld;
    const mostUsedToken = top ? { ...(ld ? { '@id': `${ROOT}/${top.id}`, '@type': TOKEN.name } : {}), id: top.id, name: top.name, usageCount: Number(top.usageCount) } : null;
    const fields = {
      activeTokens: Number(stats!.active),
      apiCallsThisMonth: Number(stats!.calls),
      lastActivity: stats!.last,
      mostUsedToken,
    };
    const body = ld ? { '@context': '/api/contexts/ApiTokenSummary', '@id': `${ROOT}/summary`, '@type': 'ApiTokenSummary', ...fields } : fields;
    return send(reply, format, 200, { body });
  });
  methodNotAllowed(`${ROOT}/summary`, ['GET']);

  app.get<{ Params: { id: string } }>(`${ROOT}/:id`, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    await settle(req);
    return send(reply, format, 200, format.item(tokenModel, TOKEN, recOf(await own(p, req.params.id))));
  });

  app.patch<{ Params: { id: string } }>(`${ROOT}/:id`, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const body = readBody(req, 'PATCH');
    const existing = await own(p, req.params.id);
    const { data } = validator.normalise(body, 'update', recOf(existing));
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
    return send(reply, format, 200, format.item(tokenModel, TOKEN, recOf(row)));
  });

  app.delete<{ Params: { id: string } }>(`${ROOT}/:id`, async (req, reply) => {
    const p = o.principal(req);
    const existing = await own(p, req.params.id);
    // The token's history and monthly counters go with it (foreign keys cascade).
    await db.delete(apiTokens).where(eq(apiTokens.id, existing.id));
    await o.revoked(existing.id);
    return reply.code(204).send();
  });
  methodNotAllowed(`${ROOT}/:id`, ['GET', 'PATCH', 'DELETE']);

  app.get<{ Params: { id: string } }>(`${ROOT}/:id/history`, async (req, reply) => {
    const format = documentFormats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const token = await own(p, req.params.id);
    const q = new URL(req.url, 'http://x').searchParams;
    const conditions: SQL[] = [eq(apiTokenHistory.tokenId, token.id)];
    const methods: string[] = [];
    const statuses: SQL[] = [];
    for (const [key, value] of q) {
      const d = /^date\[(after|before|strictly_after|strictly_before)\]$/.exec(key);
      if (d) conditions.push(dateCondition(d[1]!, value));
      else if (key === 'method' || key === 'method[]') {
        if (!/^[A-Za-z]{1,16}$/.test(value)) throw ApiError.badRequest(`Invalid value "${value.slice(0, 20)}" for filter "method".`);
        methods.push(value.toUpperCase());
      } else if (key === 'status' || key === 'status[]') statuses.push(statusCondition(value));
    }
    if (methods.length) conditions.push(inArray(apiTokenHistory.method, methods));
    if (statuses.length) conditions.push(or(...statuses)!);
    await settle(req);
    const rows = await db
      .select()
      .from(apiTokenHistory)
      .where(and(...conditions))
      .orderBy(desc(apiTokenHistory.date), desc(apiTokenHistory.id))
      .limit(HISTORY_LIMIT);
    const ld = format === jsonld;
    const entries = rows.map((r) => ({
      ...(ld ? { '@type': 'ApiTokenHistoryEntry' } : {}),
      date: r.date.toISOString(),
      method: r.method,
      endpoint: r.endpoint,
      status: r.status,
      ipAddress: r.ipAddress,
      userAgent: r.userAgent,
    }));
    const path = `${ROOT}/${token.id}/history`;
    const body = ld ? { '@context': '/api/contexts/ApiTokenHistoryEntry', '@id': path, '@type': 'Collection', totalItems: entries.length, member: entries } : entries;
    return send(reply, format, 200, { body });
  });
  methodNotAllowed(`${ROOT}/:id/history`, ['GET']);
}
