// REST routes derived from the model: one route per allowed operation at `/api/<path>` and
// `/api/<path>/<id>`; 405 with Allow for the others. Handlers only translate HTTP to an
// operation call and the result to the negotiated format.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Principal, FieldValues } from './types.ts';
import { ApiError } from './errors.ts';
import type { ModelResource } from './model.ts';
import type { Engine } from './operations.ts';
import { parseRestFilters } from './query.ts';
import { negotiateType, type Formats } from '../formats/negotiate.ts';
import type { Format, ItemDocument, Rendered } from '../formats/types.ts';
import { operationDoc, entrypointDoc, problems, type DocOperation } from './openapi.ts';
import { etagOf, ifMatch, ifNoneMatch, noneMatchHits } from './versions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The response format negotiated from Accept before any other work (406 otherwise). */
    apiFormat: Format | null;
    /** A document representation (RestOptions.documents) chosen instead of a format. */
    apiDocument: ItemDocument | null;
  }
}

export interface RestOptions {
  engine: Engine;
  formats: Formats;
  principal(req: FastifyRequest): Principal;
  /** Default and maximum page sizes. */
  itemsPerPage?: number;
  maxItemsPerPage?: number;
  /** Document representations of a resource's items (PDF, e-invoice), offered on its read route. */
  documents?(r: ModelResource): readonly ItemDocument[];
}

const BODY_TYPES = {
  POST: ['application/json', 'application/ld+json', 'application/vnd.api+json'],
  PUT: ['application/json', 'application/ld+json', 'application/vnd.api+json'],
  PATCH: ['application/merge-patch+json', 'application/json', 'application/vnd.api+json'],
} as const;

function mediaTypeOf(req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A non-negative integer query parameter (`page`, `itemsPerPage`); 400 when malformed or below `min`. */
export function parseIntParam(name: string, raw: string | null, min: number): number | undefined {
  if (raw === null) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw ApiError.badRequest(`${name} must be an integer.`);
  const n = Number(raw);
  if (n < min) throw ApiError.badRequest(name === 'page' ? 'Page should not be less than 1' : `${name} should not be less than ${min}.`);
  return n;
}

export function registerRest(app: FastifyInstance, o: RestOptions): void {
  const { engine, formats } = o;
  const model = engine.model;
  const perPage = o.itemsPerPage ?? 30;
  const maxPerPage = o.maxItemsPerPage ?? 100;

  // Negotiation runs as the route's first hook: a 406 comes before body parsing and any query.
  app.decorateRequest('apiFormat', null);
  app.decorateRequest('apiDocument', null);
  const negotiate: onRequestAsyncHookHandler = async (req) => {
    req.apiFormat = formats.negotiate(req.headers.accept);
  };
  const formatOf = (req: FastifyRequest): Format => req.apiFormat ?? formats.negotiate(req.headers.accept);
  const route = (r: ModelResource | null, op: DocOperation) => ({
    onRequest: negotiate,
    config: {
      openapi: r && op !== 'entrypoint' ? operationDoc(model, r, op, formats) : entrypointDoc(formats),
      ...(op === 'create' || op === 'update' ? { idempotency: 'rest' as const } : {}),
    },
  });
  // Conditional requests and kept results (CONTRACT §12, engine/versions.ts, server/idempotency.ts).
  const tagged = (reply: FastifyReply, format: Format, rec: FieldValues) => reply.header('etag', etagOf(rec.version, format.name));
  const writeOptions = (req: FastifyRequest, status: number, format: Format) => ({
    precondition: ifMatch(req.headers['if-match']),
    keep: req.idempotency?.keep(status, format.mediaType),
  });

  /** The read route of a resource with documents: Accept chooses among the formats and them. */
  function documentRoute(r: ModelResource, documents: readonly ItemDocument[]) {
    const types = [...formats.mediaTypes, ...documents.map((d) => d.mediaType)];
    const base = route(r, 'read');
    const doc = base.config.openapi;
    const ok = doc.response[200] as { content: Record<string, unknown> };
    for (const d of documents) ok.content[d.mediaType] = { schema: { type: 'string', format: 'binary', description: d.description } };
    Object.assign(doc.response, problems(422));
    doc.description += `\n\nAlso as a document: ${documents.map((d) => `\`${d.mediaType}\` (${d.description})`).join('; ')}.`;
    const onRequest: onRequestAsyncHookHandler = async (req) => {
      const type = negotiateType(req.headers.accept, types);
      req.apiDocument = documents.find((d) => d.mediaType === type) ?? null;
      if (!req.apiDocument) req.apiFormat = formats.negotiate(req.headers.accept);
    };
    return { ...base, onRequest };
  }

  function send(reply: FastifyReply, format: Format, status: number, rendered: Rendered) {
    reply.code(status).header('content-type', `${format.mediaType}; charset=utf-8`).header('vary', 'Accept');
    if (rendered.headers) reply.headers(rendered.headers);
    if (rendered.text !== undefined) return reply.send(rendered.text);
    return reply.send(format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body));
  }

  function readBody(req: FastifyRequest, r: ModelResource, method: keyof typeof BODY_TYPES): FieldValues {
    const type = mediaTypeOf(req);
    const allowed: readonly string[] = BODY_TYPES[method];
    if (!allowed.includes(type)) {
      throw new ApiError(415, `The content-type "${type || '(none)'}" is not supported. Supported MIME types are "${allowed.join('", "')}".`);
    }
    const body = req.body;
    const reader = formats.forContentType(type)?.readBody;
    const plain = reader ? reader(model, r, body) : body;
    if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) throw ApiError.badRequest('The request body must be a JSON object.');
    return plain as FieldValues;
  }

  app.get('/api', route(null, 'entrypoint'), async (req, reply) => {
    const format = formatOf(req);
    return send(reply, format, 200, format.entrypoint(model));
  });

  for (const r of model.resources) {
    if (!r.rest.size) continue;
    const collectionUrl = r.iri;
    const itemUrl = `${r.iri}/:id`;
    const collectionMethods: string[] = [];
    const itemMethods: string[] = [];

    if (r.rest.has('list')) {
      collectionMethods.push('GET', 'HEAD');
      app.get(collectionUrl, route(r, 'list'), async (req, reply) => {
        const format = formatOf(req);
        const url = new URL(req.url, 'http://x');
        const q = format.readQuery ? format.readQuery(url.searchParams) : url.searchParams;
        const page = parseIntParam('page', q.get('page'), 1) ?? 1;
        const ipp = Math.min(parseIntParam('itemsPerPage', q.get('itemsPerPage'), 1) ?? perPage, maxPerPage);
        if ((page - 1) * ipp > 1e9) throw ApiError.badRequest('Page parameter is too large.');
        const { where, order } = parseRestFilters(model, r, q);
        const query = { where, order, offset: (page - 1) * ipp, limit: ipp };
        const view = { resource: r, page, itemsPerPage: ipp, path: url.pathname, query: q };
        // Formats with a projection get the page as JSON text from the database.
        if (format.projection && engine.json) {
          const { members, total } = await engine.json.list(o.principal(req), r, query, format.projection);
          return send(reply, format, 200, format.collection(model, { ...view, items: [], membersText: members, total }));
        }
        const result = await engine.list(o.principal(req), r, query);
        return send(reply, format, 200, format.collection(model, { ...view, items: result.items, total: result.total }));
      });
    }
    if (r.rest.has('create')) {
      collectionMethods.push('POST');
      app.post(collectionUrl, route(r, 'create'), async (req, reply) => {
        const format = formatOf(req);
        const rec = await engine.create(o.principal(req), r, readBody(req, r, 'POST'), { keep: req.idempotency?.keep(201, format.mediaType) });
        reply.header('location', `${r.iri}/${String(rec.id)}`);
        return send(tagged(reply, format, rec), format, 201, format.item(model, r, rec));
      });
    }
    if (r.rest.has('read')) {
      itemMethods.push('GET', 'HEAD');
      const documents = o.documents?.(r) ?? [];
      app.get<{ Params: { id: string } }>(itemUrl, documents.length ? documentRoute(r, documents) : route(r, 'read'), async (req, reply) => {
        const document = req.apiDocument;
        if (document) {
          // Documents (PDF, UBL) carry no ETag: they also show the company profile and other
          // records (client, taxes), which the record's version does not follow. So If-None-Match
          // can only match with "*" (the record exists).
          if (ifNoneMatch(req.headers['if-none-match']) === '*') {
            await engine.version(o.principal(req), r, req.params.id);
            return reply.code(304).header('vary', 'Accept').send();
          }
          const out = await document.render(o.principal(req), req.params.id);
          reply.code(200).header('content-type', out.contentType ?? document.mediaType).header('vary', 'Accept');
          if (out.headers) reply.headers(out.headers);
          return reply.send(out.body);
        }
        const format = formatOf(req);
        const noneMatch = ifNoneMatch(req.headers['if-none-match']);
        if (noneMatch) {
          const etag = etagOf(await engine.version(o.principal(req), r, req.params.id), format.name);
          if (noneMatchHits(noneMatch, etag)) return reply.code(304).header('etag', etag).header('vary', 'Accept').send();
        }
        if (format.projection && engine.json) {
          const { text, version } = await engine.json.readVersioned(o.principal(req), r, req.params.id, format.projection);
          return send(reply.header('etag', etagOf(version, format.name)), format, 200, { body: null, text });
        }
        const rec = await engine.read(o.principal(req), r, req.params.id);
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    if (r.rest.has('update')) {
      itemMethods.push('PATCH');
      app.patch<{ Params: { id: string } }>(itemUrl, route(r, 'update'), async (req, reply) => {
        const format = formatOf(req);
        const rec = await engine.update(o.principal(req), r, req.params.id, readBody(req, r, 'PATCH'), 'update', writeOptions(req, 200, format));
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    if (r.rest.has('replace')) {
      itemMethods.push('PUT');
      app.put<{ Params: { id: string } }>(itemUrl, route(r, 'replace'), async (req, reply) => {
        const format = formatOf(req);
        const rec = await engine.update(o.principal(req), r, req.params.id, readBody(req, r, 'PUT'), 'replace', { precondition: ifMatch(req.headers['if-match']) });
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    if (r.rest.has('delete')) {
      itemMethods.push('DELETE');
      app.delete<{ Params: { id: string } }>(itemUrl, { config: { openapi: operationDoc(model, r, 'delete', formats) } }, async (req, reply) => {
        await engine.remove(o.principal(req), r, req.params.id, { precondition: ifMatch(req.headers['if-match']) });
        return reply.code(204).send();
      });
    }
    // Every other method on these paths is a 405 naming the allowed ones.
    for (const [url, allowed] of [[collectionUrl, collectionMethods], [itemUrl, itemMethods]] as const) {
      const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !allowed.includes(m));
      if (!others.length) continue;
      app.route({
        method: others as ('GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE')[],
        url,
        handler: async (req) => {
          const allow = allowed.filter((m) => m !== 'HEAD').join(', ');
          throw new ApiError(405, `No route found for "${req.method} ${req.url.split('?')[0]}": Method Not Allowed (Allow: ${allow})`, { headers: { allow } });
        },
      });
    }
  }
}
