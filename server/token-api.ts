// /api/api-tokens: the calling user's tokens in the calling token's company (CONTRACT §4).
// The tokens are a resource with its own provider and processor (resources/api-token.ts) over
// token-service.ts, which holds the rules for this API and the /profile/api page alike: the REST
// adapter serves them like any resource (negotiation, formats, validation, errors, OpenAPI). Their
// history and the summary are documents rather than records: routes of their own, in JSON-LD or
// plain JSON.
import { Type } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ilike, or } from 'drizzle-orm';
import type { Db, Principal } from '../engine/types.ts';
import { customEngine, type Processor, type Provider } from '../engine/custom.ts';
import { ApiError } from '../engine/errors.ts';
import { buildModel } from '../engine/model.ts';
import { content, openapiComponents, problems, type RouteDoc } from '../http/openapi.ts';
import type { TSchema } from '@sinclair/typebox';
import { registerRest } from '../http/rest.ts';
import { json } from '../formats/json.ts';
import { jsonld } from '../formats/jsonld.ts';
import { Formats } from '../formats/negotiate.ts';
import { contentTypeOf, type Format } from '../formats/types.ts';
import { apiToken } from '../resources/api-token.ts';
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
  tokenDocuments,
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

/**
 * The token resource's storage: reads see this instance's requests so far (its queued history
 * is written first); a revocation is told to every instance (`revoked`).
 */
export function tokenStorage(o: { settle(): Promise<void>; revoked(tokenId: string): Promise<void> }): { provider: Provider; processor: Processor } {
  const columns = { name: apiTokens.name, description: apiTokens.description };
  return {
    provider: {
      async list({ db, principal }, q) {
        // The declared filters (name, description) are partial matches ignoring case.
        const conditions = q.where.map((c) => or(...c.values.filter((v): v is string => v !== null).map((v) => ilike(columns[c.field.name as keyof typeof columns], `%${escapeLike(v)}%`))));
        await o.settle();
        const { rows, total } = await listTokens(db, ownerOf(principal), {
          conditions,
          order: q.order.map((x) => ({ field: x.field as TokenColumn, dir: x.dir === 'desc' ? 'desc' : 'asc' })),
          limit: q.limit,
          offset: q.offset,
        });
        return { items: rows.map(recOf), total };
      },
      async read({ db, principal, operation }, id) {
        if (operation === 'read') await o.settle();
        return recOf(await ownToken(db, ownerOf(principal), id));
      },
    },
    processor: {
      async create({ db, principal }, data) {
        const { row, value } = await createToken(db, ownerOf(principal), data);
        // The value is shown in this response and never again: only its hash is stored.
        return { ...recOf(row), token: value };
      },
      async update({ db, principal }, existing, changes) {
        return recOf(await updateToken(db, ownerOf(principal), existing.id as string, changes));
      },
      async remove({ db, principal }, existing) {
        for (const id of await revokeTokens(db, ownerOf(principal), [existing.id as string])) await o.revoked(id);
      },
    },
  };
}

export function registerTokenApi(app: FastifyInstance, o: TokenApiOptions): void {
  const { db } = o;
  const storage = tokenStorage({ settle: () => settleHistory(o.history, app), revoked: o.revoked });
  const model = buildModel([apiToken(storage), ...tokenDocuments]);
  registerRest(app, { engine: customEngine(db, model), formats: o.formats, principal: o.principal, resources: [model.get(TOKEN.name)] });

  // History and summary are not records: JSON-LD or plain JSON.
  const documentFormats = new Formats([jsonld, json]);
  const docs = tokenDocs(documentFormats);

  function send(reply: FastifyReply, format: Format, status: number, rendered: { body: unknown; headers?: Record<string, string> }) {
    reply.code(status).header('content-type', contentTypeOf(format.mediaType));
    if (rendered.headers) reply.headers(rendered.headers);
    return reply.send(format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body));
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

/** The OpenAPI descriptions of the summary and the history, by hand: they are documents rather than records. */
function tokenDocs(documentFormats: Formats): Record<'summary' | 'history', RouteDoc> {
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
export async function settleHistory(history: HistoryRecorder, logged: { log: FastifyBaseLogger }): Promise<void> {
  try {
    await history.flush();
  } catch (err) {
    logged.log.warn({ err }, 'Request history not written yet; answering with what is stored');
  }
}
