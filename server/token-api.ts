// /api/api-tokens: the calling user's tokens in the calling token's company (CONTRACT §4).
// API tokens are not a descriptor resource (they are system rows in schema.ts, REST only), but
// they are presented through the same formats: a small model of their own (token-service.ts)
// gives the formats, the JSON-LD contexts and the input validator what they need. The rules
// themselves live in token-service.ts, shared with the /profile/api page.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ilike, or } from 'drizzle-orm';
import type { Db, Principal, Rec } from '../engine/context.ts';
import { ApiError } from '../engine/errors.ts';
import { content, openapiComponents, operationDoc, problems, type RouteDoc } from '../http/openapi.ts';
import type { TSchema } from '@sinclair/typebox';
import { parseRestFilters } from '../engine/query.ts';
import { parseIntParam } from '../http/rest.ts';
import { json } from '../formats/json.ts';
import { jsonld } from '../formats/jsonld.ts';
import { Formats } from '../formats/negotiate.ts';
import type { Format } from '../formats/types.ts';
import type { HistoryRecorder } from './history.ts';
import { apiTokens } from './schema.ts';
import {
  createToken,
  escapeLike,
  historyFilters,
  listTokens,
  ownerOf,
  ownToken,
  recOf,
  revokeTokens,
  TOKEN,
  tokenHistory,
  tokenModel,
  tokenSummary,
  updateToken,
  type TokenColumn,
} from './token-service.ts';

export { tokenModel } from './token-service.ts';

const ROOT = TOKEN.iri;
/** Route paths, relative to the /api plugin's prefix. */
const ROUTE = `/${TOKEN.path}`;

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

export function registerTokenApi(app: FastifyInstance, o: TokenApiOptions): void {
  const { db } = o;
  // History and summary are not records: JSON-LD or plain JSON.
  const documentFormats = new Formats([jsonld, json]);
  const docs = tokenDocs(o.formats, documentFormats);

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
  const settle = (req: FastifyRequest) => settleHistory(o.history, req);

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

  app.get(ROUTE, { config: { openapi: docs.list } }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const url = new URL(req.url, 'http://x');
    const q = url.searchParams;
    const page = parseIntParam('page', q.get('page'), 1) ?? 1;
    const itemsPerPage = Math.min(parseIntParam('itemsPerPage', q.get('itemsPerPage'), 1) ?? 30, 100);
    if ((page - 1) * itemsPerPage > 1e9) throw ApiError.badRequest('Page parameter is too large.');
    const { where, order } = parseRestFilters(tokenModel, TOKEN, q);
    const conditions = where.map((c) => or(...c.values.filter((v): v is string => v !== null).map((v) => ilike(c.field.name === 'name' ? apiTokens.name : apiTokens.description, `%${escapeLike(v)}%`))));
    await settle(req);
    const { rows, total } = await listTokens(db, ownerOf(p), {
      conditions,
      order: order.map((x) => ({ field: x.field as TokenColumn, dir: x.dir === 'desc' ? 'desc' : 'asc' })),
      limit: itemsPerPage,
      offset: (page - 1) * itemsPerPage,
    });
    return send(reply, format, 200, format.collection(tokenModel, { resource: TOKEN, items: rows.map(recOf), total, page, itemsPerPage, path: url.pathname, query: q }));
  });

  app.post(ROUTE, { config: { openapi: docs.create } }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const { row, value } = await createToken(db, ownerOf(p), readBody(req, 'POST'));
    const rendered = format.item(tokenModel, TOKEN, recOf(row));
    reply.header('location', `${ROOT}/${row.id}`);
    // The value is shown here and never again: only its hash is stored.
    return send(reply, format, 201, { ...rendered, body: { ...(rendered.body as Rec), token: value } });
  });
  methodNotAllowed(ROUTE, ['GET', 'POST']);

  app.get(`${ROUTE}/summary`, { config: { openapi: docs.summary } }, async (req, reply) => {
    const format = documentFormats.negotiate(req.headers.accept);
    const p = o.principal(req);
    await settle(req);
    const s = await tokenSummary(db, ownerOf(p), (o.clock ?? Date.now)());
    const ld = format === jsonld;
    const top = s.mostUsedToken;
    const fields = { ...s, mostUsedToken: top ? { ...(ld ? { '@id': `${ROOT}/${top.id}`, '@type': TOKEN.name } : {}), ...top } : null };
    const body = ld ? { '@context': '/api/contexts/ApiTokenSummary', '@id': `${ROOT}/summary`, '@type': 'ApiTokenSummary', ...fields } : fields;
    return send(reply, format, 200, { body });
  });
  methodNotAllowed(`${ROUTE}/summary`, ['GET']);

  app.get<{ Params: { id: string } }>(`${ROUTE}/:id`, { config: { openapi: docs.read } }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    await settle(req);
    return send(reply, format, 200, format.item(tokenModel, TOKEN, recOf(await ownToken(db, ownerOf(p), req.params.id))));
  });

  app.patch<{ Params: { id: string } }>(`${ROUTE}/:id`, { config: { openapi: docs.update } }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const body = readBody(req, 'PATCH');
    return send(reply, format, 200, format.item(tokenModel, TOKEN, recOf(await updateToken(db, ownerOf(p), req.params.id, body))));
  });

  app.delete<{ Params: { id: string } }>(`${ROUTE}/:id`, { config: { openapi: docs.delete } }, async (req, reply) => {
    const p = o.principal(req);
    const existing = await ownToken(db, ownerOf(p), req.params.id);
    for (const id of await revokeTokens(db, ownerOf(p), [existing.id])) await o.revoked(id);
    return reply.code(204).send();
  });
  methodNotAllowed(`${ROUTE}/:id`, ['GET', 'PATCH', 'DELETE']);

  app.get<{ Params: { id: string } }>(`${ROUTE}/:id/history`, { config: { openapi: docs.history } }, async (req, reply) => {
    const format = documentFormats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const token = await ownToken(db, ownerOf(p), req.params.id);
    const filters = historyFilters(new URL(req.url, 'http://x').searchParams);
    await settle(req);
    const ld = format === jsonld;
    const entries = (await tokenHistory(db, token.id, filters)).map((e) => (ld ? { '@type': 'ApiTokenHistoryEntry', ...e } : e));
    const path = `${ROOT}/${token.id}/history`;
    const body = ld ? { '@context': '/api/contexts/ApiTokenHistoryEntry', '@id': path, '@type': 'Collection', totalItems: entries.length, member: entries } : entries;
    return send(reply, format, 200, { body });
  });
  methodNotAllowed(`${ROUTE}/:id/history`, ['GET']);
}

/**
 * The OpenAPI descriptions of these routes: the token's own operations as every resource's
 * (http/openapi.ts, from the token model), the summary and the history by hand, since they are
 * documents rather than records.
 */
function tokenDocs(formats: Formats, documentFormats: Formats): Record<'list' | 'create' | 'read' | 'update' | 'delete' | 'summary' | 'history', RouteDoc> {
  const doc = (op: 'list' | 'create' | 'read' | 'update' | 'delete') => operationDoc(tokenModel, TOKEN, op, formats);
  const create = doc('create');
  create.description += '\n\nThe response also carries `token`: the value, shown here and never again (only its hash is stored).';
  const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
  const ld = (type: string) => ({ '@context': Type.String({ const: `/api/contexts/${type}` }), '@id': Type.String(), '@type': Type.Literal(type) });
  const summaryFields = {
    activeTokens: Type.Integer({ minimum: 0 }),
    apiCallsThisMonth: Type.Integer({ minimum: 0, description: 'Requests made with the tokens this UTC month' }),
    lastActivity: nullable(Type.String({ format: 'date-time' })),
    mostUsedToken: Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }, { additionalProperties: true }), Type.Null()], { description: 'The token used most this month (JSON-LD adds @id and @type)' }),
  };
  const entry = Type.Object({
    date: Type.String({ format: 'date-time' }),
    method: Type.String(),
    endpoint: Type.String(),
    status: Type.Integer(),
    ipAddress: nullable(Type.String()),
    userAgent: nullable(Type.String()),
  });
  const json = (f: Format) => f.name === 'json';
  const dateOps = ['after', 'before', 'strictly_after', 'strictly_before'] as const;
  const filter = (description: string) => Type.Optional(Type.String({ description }));
  return {
    list: doc('list'),
    create,
    read: doc('read'),
    update: doc('update'),
    delete: doc('delete'),
    summary: {
      summary: "The calling user's token activity",
      description: SUMMARY_DESCRIPTION,
      tags: [TOKEN.name],
      operationId: 'api_api_tokens_summary_get',
      response: {
        200: { description: 'ApiTokenSummary', content: content(documentFormats, (f) => Type.Object(json(f) ? summaryFields : { ...ld('ApiTokenSummary'), ...summaryFields })) },
        ...problems(401, 406),
      },
    },
    history: {
      summary: "A token's 100 most recent requests, newest first",
      description: 'Filters: date (whole UTC days or RFC 3339 times), method, status (a code or 2xx…5xx); repeat method[] or status[] for several.',
      tags: [TOKEN.name],
      operationId: 'api_api_tokens_id_history_get_collection',
      params: Type.Object({ id: Type.String({ format: 'uuid', description: 'The ApiToken id.' }) }),
      querystring: Type.Object({
        ...Object.fromEntries(dateOps.map((op) => [`date[${op}]`, filter(`date ${op.replace('_', ' ')} this day or time`)])),
        method: filter('HTTP method'),
        status: filter('a status code, or 2xx, 3xx, 4xx, 5xx'),
      }),
      response: {
        200: {
          description: 'ApiTokenHistoryEntry collection',
          content: content(documentFormats, (f) =>
            json(f)
              ? Type.Array(entry)
              : Type.Object({ ...ld('ApiTokenHistoryEntry'), '@type': Type.Literal('Collection'), totalItems: Type.Integer({ minimum: 0 }), member: Type.Array(Type.Object({ '@type': Type.Literal('ApiTokenHistoryEntry'), ...entry.properties })) })),
        },
        ...problems(400, 401, 403, 404, 406),
      },
    },
  };
}
const SUMMARY_DESCRIPTION = tokenModel.get('ApiTokenSummary').description;

/** The component schemas the token's own operations refer to, for the OpenAPI document. */
export function tokenComponents(formats: Formats): Record<string, TSchema> {
  return openapiComponents(tokenModel, formats, [TOKEN]);
}

/** The tag of the token routes. */
export const TOKEN_TAG = { name: TOKEN.name, description: 'API tokens of the calling user, their usage summary and request history.' };

/** Writes this instance's queued request history before a read, so the read sees it. */
export async function settleHistory(history: HistoryRecorder, req: FastifyRequest): Promise<void> {
  try {
    await history.flush();
  } catch (err) {
    req.log.warn({ err }, 'Request history not written yet; answering with what is stored');
  }
}
