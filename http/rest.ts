// The REST adapter: routes derived from the model, one per allowed operation at `/<path>` and
// `/<path>/<id>` under the plugin's prefix (`/api`, the prefix of the model's IRIs); 405 with
// Allow for the others. Handlers only translate HTTP to an operation call and the result to the
// negotiated format. Also the public entrypoint and JSON-LD @context documents.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { FieldValues, Principal } from '../engine/types.ts';
import type { RestOperation } from '../engine/descriptor.ts';
import { ApiError, ViolationCode } from '../engine/errors.ts';
import { binaryOutput, documentOutput, emptyOutput, recordOutput, type Model, type ModelOperation, type ModelResource } from '../engine/model.ts';
import type { RunOperation } from '../engine/declared.ts';
import type { OperationServices } from '../engine/descriptor.ts';
import type { Engine } from '../engine/operations.ts';
import { EDGE_CURSOR } from '../engine/keyset.ts';
import { MAX_PAGE_OFFSET, parseRestFilters, type ListQuery, type PageCursors } from '../engine/query.ts';
import { contextDocument } from '../formats/jsonld.ts';
import { apiDocumentationLink } from '../formats/hydra.ts';
import { negotiateType, type Formats } from '../formats/negotiate.ts';
import { contentTypeOf, documentShape, type CursorView, type Format, type ItemDocument, type Rendered } from '../formats/types.ts';
import { contextDoc, declaredDoc, entrypointDoc, operationDoc, problems } from './openapi.ts';
import { CSV_CONTENT_TYPE, CSV_TYPE, documentReferences, documentsCsv, headerOf, referencesOf, rowsOf as csvRows, type Titles } from '../formats/csv.ts';
import { Readable } from 'node:stream';
import { etagOf, ifMatch, ifNoneMatch, noneMatchHits } from '../engine/versions.ts';
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

declare module 'fastify' {
  interface FastifyRequest {
    /** The response format negotiated from Accept before any other work (406 otherwise). */
    apiFormat: Format | null;
    /** A document representation (RestOptions.documents) chosen instead of a format. */
    apiDocument: ItemDocument | null;
    /** `Accept: text/csv` on a collection or a list of documents (RestOptions.csv). */
    apiCsv: boolean;
    /** The document variant the query asked for (DocumentDescriptor.variants). */
    apiVariant: Readonly<Record<string, string>> | null;
  }
}

/** What the adapter uses of an engine (engine/custom.ts's engine for provider-only models has just this). */
export type RestEngine = Pick<Engine, 'model' | 'json' | 'list' | 'read' | 'create' | 'update' | 'remove'> & Partial<Pick<Engine, 'version'>>;

export interface RestOptions {
  engine: RestEngine;
  formats: Formats;
  principal(req: FastifyRequest): Principal;
  /** The resources to route; every one with REST operations when omitted. */
  resources?: readonly ModelResource[];
  /** Default and maximum page sizes. */
  itemsPerPage?: number;
  maxItemsPerPage?: number;
  /** Runs the resources' declared operations (engine/declared.ts); they are not routed without it. */
  run?: RunOperation;
  /** What declared documents (PDF, e-invoice) use of the layer above; they are not offered without it. */
  services?: OperationServices;
  /**
   * CSV of collections and of declared document lists (CONTRACT §21), offered when given: the
   * titles of referenced records (engine/titles.ts), and the size of the windows read.
   */
  csv?: { titles(p: Principal, r: ModelResource, ids: readonly string[]): Promise<ReadonlyMap<string, string>>; window?: number };
}

/** Whether Accept asks for CSV rather than one of `types` (only looked at when it names csv at all). */
function wantsCsv(accept: string | undefined, types: readonly string[]): boolean {
  if (accept === undefined || !accept.includes('csv')) return false;
  return negotiateType(accept, csvTypes(types)) === CSV_TYPE;
}
const csvTypeLists = new WeakMap<readonly string[], readonly string[]>();
const csvTypes = (types: readonly string[]) => {
  let t = csvTypeLists.get(types);
  if (!t) csvTypeLists.set(types, (t = [...types, CSV_TYPE]));
  return t;
};

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

/**
 * `after`/`before` (cursor mode) against `page` (CONTRACT §10): at most one of them, and a page
 * number only while it names an offset within MAX_PAGE_OFFSET. Collections served by a provider
 * page by number alone.
 */
function cursorParams(r: ModelResource, q: URLSearchParams, page: number, ipp: number): { after?: string; before?: string; side?: 'after' | 'before' } {
  const after = q.get('after') ?? undefined;
  const before = q.get('before') ?? undefined;
  const side = after !== undefined ? 'after' : before !== undefined ? 'before' : undefined;
  if (after !== undefined && before !== undefined) throw ApiError.badRequest('"after" and "before" cannot be used together: follow the collection\'s next and previous links.');
  if (side && q.has('page')) throw ApiError.badRequest(`"page" and "${side}" cannot be used together: a cursor names the page.`);
  if (side && r.provider) throw ApiError.badRequest(`This collection is paged with "page" only: "${side}" is not supported.`);
  if (r.provider) {
    if ((page - 1) * ipp > 1e9) throw ApiError.badRequest('Page parameter is too large.');
  } else if ((page - 1) * ipp > MAX_PAGE_OFFSET) {
    throw ApiError.badRequest(
      `Page parameter is too large: page numbers reach offsets ((page - 1) × itemsPerPage) up to ${MAX_PAGE_OFFSET.toLocaleString('en-US')}. Follow the cursor links (next, last) of the collection's responses, which use "after" and "before", to read further.`,
    );
  }
  return { after, before, side };
}

/**
 * The query parameters a record's documents declare (DocumentDescriptor.variants) as one
 * schema (the OpenAPI parameters, each value with what it gives), and the reading of a request's
 * query against it: the parameters named, or a 400.
 */
function variantQuery(documents: readonly ItemDocument[]): { schema: TSchema; read(query: unknown): Record<string, string> } | null {
  const params = new Map<string, Map<string, string[]>>();
  for (const d of documents) {
    for (const [name, values] of Object.entries(d.variants ?? {})) {
      if (!params.has(name)) params.set(name, new Map());
      for (const [value, what] of Object.entries(values)) params.get(name)!.set(value, [...(params.get(name)!.get(value) ?? []), `${what} (${d.mediaType})`]);
    }
  }
  if (!params.size) return null;
  // Documented as one string enum; checked as the union of its literals.
  const schema = Type.Object(Object.fromEntries([...params].map(([name, values]) => [name, Type.Optional(Type.Unsafe<string>({
    type: 'string',
    enum: [...values.keys()],
    description: `Chooses the document, whatever the record's own choice, among: ${[...values].map(([v, what]) => `\`${v}\`: ${what.join(', or ')}`).join('; ')}. Accept chooses among the media types of the value's documents.`,
  }))])));
  const check = TypeCompiler.Compile(Type.Object(Object.fromEntries([...params].map(([name, values]) => [name, Type.Optional(Type.Union([...values.keys()].map((v) => Type.Literal(v))))]))));
  return {
    schema,
    read(query) {
      const q = Object.fromEntries(Object.entries((query ?? {}) as Record<string, unknown>).filter(([k]) => params.has(k)));
      if (!check.Check(q)) {
        const [name] = Object.keys(q).filter((k) => !check.Check({ [k]: q[k] }));
        throw ApiError.badRequest(`${name}: expected one of ${[...params.get(name!)!.keys()].join(', ')}.`);
      }
      return q as Record<string, string>;
    },
  };
}

/** Negotiation as a route's first hook: a 406 comes before body parsing and any query. */
function negotiation(app: FastifyInstance, formats: Formats): onRequestHookHandler {
  if (!app.hasRequestDecorator('apiFormat')) app.decorateRequest('apiFormat', null);
  return (req, _reply, done) => {
    try {
      req.apiFormat = formats.negotiate(req.headers.accept);
    } catch (e) {
      return done(e as Error);
    }
    done();
  };
}

const formatOf = (formats: Formats, req: FastifyRequest): Format => req.apiFormat ?? formats.negotiate(req.headers.accept);

function send(reply: FastifyReply, format: Format, status: number, rendered: Rendered) {
  reply.code(status).header('content-type', contentTypeOf(format.mediaType)).header('vary', 'Accept');
  if (rendered.headers) {
    const { link, ...others } = rendered.headers;
    reply.headers(others);
    if (link) addLink(reply, link);
  }
  if (rendered.text !== undefined) return reply.send(rendered.text);
  return reply.send(format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body));
}

/** The scheme and host a request reached the server at (`https://host`): the base of absolute IRIs. */
export const baseOf = (req: FastifyRequest): string => `${req.protocol}://${req.host}`;

/** Adds `value` to the response's Link header, after the links already there (the documentation's). */
export function addLink(reply: FastifyReply, value: string): void {
  const before = reply.getHeader('link');
  reply.header('link', before ? `${String(before)}, ${value}` : value);
}

/**
 * The hook that gives every /api response the Link to the Hydra documentation (CONTRACT §22). The
 * link is absolute, as API Platform's (the JSON-LD contexts' @vocab is): one string per base URL,
 * made the first time, so a request costs a map look-up and a header.
 */
export function documentationLink(): onRequestHookHandler {
  // By protocol, then by the Host header as it comes: no string is built for a known host.
  const http = new Map<string, string>();
  const https = new Map<string, string>();
  return (req, reply, done) => {
    const links = req.protocol === 'https' ? https : http;
    const host = req.host;
    let link = links.get(host);
    if (link === undefined) {
      link = apiDocumentationLink(baseOf(req));
      if (links.size < 50) links.set(host, link);
    }
    reply.header('link', link);
    done();
  };
}

/** Every method but `allowed` on `url`: a 405 naming the allowed ones. */
export function methodNotAllowed(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => !allowed.includes(m));
  if (!others.length) return;
  const allow = allowed.filter((m) => m !== 'HEAD').join(', ');
  app.route({
    method: [...others],
    url,
    handler: async (req) => {
      throw new ApiError(405, `No route found for "${req.method} ${req.url.split('?')[0]}": Method Not Allowed (Allow: ${allow})`, { headers: { allow } });
    },
  });
}

/** `GET /` under the prefix: the API entrypoint, in every format. */
export function registerEntrypoint(app: FastifyInstance, o: { model: Model; formats: Formats }): void {
  const negotiate = negotiation(app, o.formats);
  app.get('/', { onRequest: negotiate, config: { openapi: entrypointDoc(o.formats) } }, async (req, reply) => {
    const format = formatOf(o.formats, req);
    return send(reply, format, 200, format.entrypoint(o.model));
  });
}

/** `GET /contexts/<Type>`: the JSON-LD @context of a type of any of `models` (the first that has it). */
export function registerContexts(app: FastifyInstance, o: { models: readonly Model[] }): void {
  const types = ['application/ld+json', 'application/json'];
  app.get<{ Params: { name: string } }>(
    '/contexts/:name',
    { onRequest: async (req) => void negotiateType(req.headers.accept, types), config: { openapi: contextDoc() } },
    async (req, reply) => {
      const base = baseOf(req);
      let doc: Record<string, unknown> | null = null;
      for (const m of o.models) if ((doc = contextDocument(m, req.params.name, base))) break;
      if (!doc) throw ApiError.notFound();
      return reply.type(contentTypeOf(negotiateType(req.headers.accept, types))).send(JSON.stringify(doc));
    },
  );
}

export function registerRest(app: FastifyInstance, o: RestOptions): void {
  const { engine, formats } = o;
  const model = engine.model;
  const perPage = o.itemsPerPage ?? 30;
  const maxPerPage = o.maxItemsPerPage ?? 100;
  const negotiate = negotiation(app, formats);
  if (!app.hasRequestDecorator('apiDocument')) app.decorateRequest('apiDocument', null);
  if (!app.hasRequestDecorator('apiCsv')) app.decorateRequest('apiCsv', false);
  const csv = o.csv;
  /** A route's negotiation, CSV first when asked for (RestOptions.csv): the JSON path pays one `includes`. */
  const orCsv = (types: readonly string[], base: onRequestHookHandler): onRequestHookHandler =>
    !csv
      ? base
      : function (req, reply, done) {
          try {
            if (wantsCsv(req.headers.accept, types)) {
              req.apiCsv = true;
              return done();
            }
          } catch (e) {
            return done(e as Error);
          }
          return base.call(this, req, reply, done);
        };
  /** The titles of the records a window refers to, by resource. */
  const titlesOf = async (p: Principal, refs: Map<ModelResource, string[]>): Promise<Titles> => {
    const out = new Map<string, ReadonlyMap<string, string>>();
    for (const [target, ids] of refs) if (ids.length) out.set(target.name, await csv!.titles(p, target, ids));
    return out;
  };
  /**
   * Every record of the collection matching the filters, in its order, as CSV: read window by
   * window by keyset cursor (a provider's collection page by page), each window written to the
   * reply as it comes, so that memory holds one window whatever the collection's size.
   */
  async function sendCsv(req: FastifyRequest, reply: FastifyReply, r: ModelResource) {
    const q = new URL(req.url, 'http://x').searchParams;
    const { where, order } = parseRestFilters(model, r, q);
    const p = o.principal(req);
    const size = csv!.window ?? 500;
    let after: string | undefined = EDGE_CURSOR;
    let offset = 0;
    const next = async () => {
      if (after === undefined) return null;
      const page = r.provider
        ? await engine.list(p, r, { where, order, offset, limit: size, count: false })
        : await engine.list(p, r, { where, order, offset: 0, limit: size, after, cursors: true, count: false }, { embedded: false }); // CSV shows no children
      offset += page.items.length;
      after = r.provider ? (page.items.length === size ? '' : undefined) : page.more && page.last ? page.last : undefined;
      if (!page.items.length) return null;
      return csvRows(model, r, page.items, await titlesOf(p, referencesOf(model, r, page.items)));
    };
    // The first window before the answer starts, so that its errors are answered as such.
    const first = await next();
    async function* body() {
      yield headerOf(model, r);
      if (first) yield first;
      for (let chunk = await next(); chunk !== null; chunk = await next()) yield chunk;
    }
    reply.code(200).header('content-type', CSV_CONTENT_TYPE).header('vary', 'Accept');
    return reply.send(Readable.from(body()));
  }
  /** The OpenAPI answer of a route that also offers CSV. */
  const withCsv = <T extends { config: { openapi: { response: Record<string | number, unknown> } } }>(route: T, what: string): T => {
    if (!csv) return route;
    const ok = route.config.openapi.response[200] as { content: Record<string, unknown> } | undefined;
    if (ok) ok.content[CSV_TYPE] = { schema: { type: 'string', description: `${what} as CSV (RFC 4180, UTF-8, CRLF; money in major units with its currency column, references by number or name): every record matching the filters, not one page.` } };
    return route;
  };
  if (!app.hasRequestDecorator('apiVariant')) app.decorateRequest('apiVariant', null);
  const route = (r: ModelResource, op: RestOperation) => ({
    onRequest: negotiate,
    // A provider's writes keep no result with their change: their whole response is kept instead.
    config: { openapi: operationDoc(model, r, op, formats), ...(op === 'create' || op === 'update' ? { idempotency: r.provider ? ('response' as const) : ('rest' as const) } : {}) },
  });
  // Conditional requests and kept results (CONTRACT §12, engine/versions.ts, server/idempotency.ts).
  // Records of a resource with its own provider carry no version, and get no tag.
  const tagged = (reply: FastifyReply, format: Format, rec: FieldValues) => (typeof rec.version === 'number' ? reply.header('etag', etagOf(rec.version, format.name)) : reply);
  const writeOptions = (req: FastifyRequest, status: number, format: Format) => ({
    precondition: ifMatch(req.headers['if-match']),
    keep: req.idempotency?.keep(status, format.mediaType),
  });

  /**
   * The read route of a resource with documents: Accept chooses among the formats and them. The
   * query parameters the documents declare (`variants`) choose among the documents that take
   * their value, checked against their declared schema (400).
   */
  function documentRoute(r: ModelResource, documents: readonly ItemDocument[]) {
    const types = [...formats.mediaTypes, ...documents.map((d) => d.mediaType)];
    const base = route(r, 'read');
    const doc = base.config.openapi;
    const ok = doc.response[200] as { content: Record<string, unknown> };
    for (const d of documents) ok.content[d.mediaType] = { schema: { type: 'string', format: 'binary', description: d.description } };
    Object.assign(doc.response, problems(422));
    doc.description += `\n\nAlso as a document: ${documents.map((d) => `\`${d.mediaType}\` (${d.description})`).join('; ')}.`;
    const variants = variantQuery(documents);
    if (variants) doc.querystring = variants.schema;
    const onRequest: onRequestHookHandler = (req, _reply, done) => {
      try {
        const asked = variants ? variants.read(req.query) : {};
        const names = Object.keys(asked);
        // A variant asked for: the documents that take it, whatever the formats.
        const candidates = names.length ? documents.filter((d) => names.every((n) => d.variants?.[n]?.[asked[n]!] !== undefined)) : documents;
        const type = negotiateType(req.headers.accept, names.length ? candidates.map((d) => d.mediaType) : types);
        req.apiDocument = candidates.find((d) => d.mediaType === type) ?? null;
        req.apiVariant = asked;
        if (!req.apiDocument) req.apiFormat = formats.negotiate(req.headers.accept);
      } catch (e) {
        return done(e as Error);
      }
      done();
    };
    return { ...base, onRequest };
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

  /** A singleton: GET and PATCH on `/<path>` itself, the record being the caller's company's. */
  function registerSingleton(r: ModelResource) {
    const url = `/${r.path}`;
    const allowed: string[] = [];
    if (r.rest.has('read')) {
      allowed.push('GET', 'HEAD');
      app.get(url, route(r, 'read'), async (req, reply) => {
        const format = formatOf(formats, req);
        const p = o.principal(req);
        const rec = await engine.read(p, r, p.company.id);
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    if (r.rest.has('update')) {
      allowed.push('PATCH');
      app.patch(url, route(r, 'update'), async (req, reply) => {
        const format = formatOf(formats, req);
        const p = o.principal(req);
        const rec = await engine.update(p, r, p.company.id, readBody(req, r, 'PATCH'), 'update', writeOptions(req, 200, format));
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    methodNotAllowed(app, url, allowed);
    if (o.run) registerDeclared(r, o.run);
  }

  for (const r of o.resources ?? model.resources) {
    // A resource of declared operations only (reports): their routes, no CRUD (issue 46).
    if (!r.rest.size && r.provider && r.operations.length && o.run) registerDeclared(r, o.run);
    if (!r.rest.size) continue;
    if (r.singleton) {
      registerSingleton(r);
      continue;
    }
    // Records built as JSON by the database, for resources the engine stores itself.
    const json = r.provider ? undefined : engine.json;
    // Relative to the plugin's prefix, which is the IRIs' (`/api`).
    const collectionUrl = `/${r.path}`;
    const itemUrl = `/${r.path}/:id`;
    const collectionMethods: string[] = [];
    const itemMethods: string[] = [];

    if (r.rest.has('list')) {
      collectionMethods.push('GET', 'HEAD');
      const listRoute = withCsv(route(r, 'list'), `The ${r.plural}`);
      app.get(collectionUrl, { ...listRoute, onRequest: orCsv(formats.mediaTypes, listRoute.onRequest) }, async (req, reply) => {
        if (req.apiCsv) return sendCsv(req, reply, r);
        const format = formatOf(formats, req);
        const url = new URL(req.url, 'http://x');
        const q = format.readQuery ? format.readQuery(url.searchParams) : url.searchParams;
        const page = parseIntParam('page', q.get('page'), 1) ?? 1;
        const ipp = Math.min(parseIntParam('itemsPerPage', q.get('itemsPerPage'), 1) ?? perPage, maxPerPage);
        const { where, order } = parseRestFilters(model, r, q);
        const { after, before, side } = cursorParams(r, q, page, ipp);
        // In page mode, a next page past the bound is linked by the cursor of this page's last record.
        const nearBound = !r.provider && !side && page * ipp > MAX_PAGE_OFFSET;
        const query: ListQuery = { where, order, offset: side ? 0 : (page - 1) * ipp, limit: ipp, after, before, cursors: side !== undefined || nearBound };
        const view = { resource: r, page, itemsPerPage: ipp, path: url.pathname, query: q };
        const cursors = (got: PageCursors): CursorView | undefined => {
          if (r.provider) return undefined;
          return { side, fromEdge: (after ?? before) === EDGE_CURSOR, edge: EDGE_CURSOR, first: got.first, last: got.last, more: got.more ?? false, behind: got.behind ?? false, maxOffset: MAX_PAGE_OFFSET };
        };
        // Formats with a projection get the page as JSON text from the database.
        if (format.projection && json) {
          const got = await json.list(o.principal(req), r, query, format.projection);
          return send(reply, format, 200, format.collection(model, { ...view, items: [], membersText: got.members, total: got.total, cursors: cursors(got) }));
        }
        const result = await engine.list(o.principal(req), r, query);
        return send(reply, format, 200, format.collection(model, { ...view, items: result.items, total: result.total, cursors: cursors(result) }));
      });
    }
    if (r.rest.has('create')) {
      collectionMethods.push('POST');
      app.post(collectionUrl, route(r, 'create'), async (req, reply) => {
        const format = formatOf(formats, req);
        const rec = await engine.create(o.principal(req), r, readBody(req, r, 'POST'), { keep: req.idempotency?.keep(201, format.mediaType) });
        reply.header('location', `${r.iri}/${String(rec.id)}`);
        // A value shown once (a token, a secret) is in this response only: no cache keeps it.
        if (r.shownOnce.length) reply.header('cache-control', 'no-store');
        return send(tagged(reply, format, rec), format, 201, format.item(model, r, rec));
      });
    }
    if (r.rest.has('read')) {
      itemMethods.push('GET', 'HEAD');
      const services = o.services;
      // The documents the descriptor declares (PDF, e-invoice), next to the formats.
      const documents: ItemDocument[] = services
        ? r.documents.map((d) => ({ mediaType: d.mediaType, description: d.def.description, variants: d.def.variants, render: (principal, id, variant) => d.def.render({ principal, resource: r, id, services, variant }) }))
        : [];
      app.get<{ Params: { id: string } }>(itemUrl, documents.length ? documentRoute(r, documents) : route(r, 'read'), async (req, reply) => {
        const document = req.apiDocument;
        if (document) {
          // Documents (PDF, UBL) carry no ETag: they also show the company profile and other
          // records (client, taxes), which the record's version does not follow. So If-None-Match
          // can only match with "*" (the record exists).
          if (engine.version && ifNoneMatch(req.headers['if-none-match']) === '*') {
            await engine.version(o.principal(req), r, req.params.id);
            return reply.code(304).header('vary', 'Accept').send();
          }
          const out = await document.render(o.principal(req), req.params.id, req.apiVariant ?? {});
          reply.code(200).header('content-type', out.contentType ?? document.mediaType).header('vary', 'Accept');
          if (out.headers) reply.headers(out.headers);
          return reply.send(out.body);
        }
        const format = formatOf(formats, req);
        const noneMatch = r.provider || !engine.version ? undefined : ifNoneMatch(req.headers['if-none-match']);
        if (noneMatch && engine.version) {
          const etag = etagOf(await engine.version(o.principal(req), r, req.params.id), format.name);
          if (noneMatchHits(noneMatch, etag)) return reply.code(304).header('etag', etag).header('vary', 'Accept').send();
        }
        if (format.projection && json) {
          const { text, version } = await json.readVersioned(o.principal(req), r, req.params.id, format.projection);
          return send(reply.header('etag', etagOf(version, format.name)), format, 200, { body: null, text });
        }
        const rec = await engine.read(o.principal(req), r, req.params.id);
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    if (r.rest.has('update')) {
      itemMethods.push('PATCH');
      app.patch<{ Params: { id: string } }>(itemUrl, route(r, 'update'), async (req, reply) => {
        const format = formatOf(formats, req);
        const rec = await engine.update(o.principal(req), r, req.params.id, readBody(req, r, 'PATCH'), 'update', writeOptions(req, 200, format));
        return send(tagged(reply, format, rec), format, 200, format.item(model, r, rec));
      });
    }
    if (r.rest.has('replace')) {
      itemMethods.push('PUT');
      app.put<{ Params: { id: string } }>(itemUrl, route(r, 'replace'), async (req, reply) => {
        const format = formatOf(formats, req);
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
    for (const [url, allowed] of [[collectionUrl, collectionMethods], [itemUrl, itemMethods]] as const) methodNotAllowed(app, url, allowed);
    if (o.run) registerDeclared(r, o.run);
  }

  /** The declared operations of `r` (engine/declared.ts): one route each, 405 for other methods. */
  function registerDeclared(r: ModelResource, run: RunOperation) {
    const byUrl = new Map<string, string[]>();
    for (const op of r.operations) {
      // A text body (a CSV file) read as bytes, checked as UTF-8 in the handler.
      const text = op.def.body?.text ? { mediaType: op.def.body.mediaTypes[0]!, member: op.def.body.text, maxBytes: op.def.body.maxBytes } : undefined;
      if (text && !app.hasContentTypeParser(text.mediaType)) app.addContentTypeParser(text.mediaType, { parseAs: 'buffer', bodyLimit: text.maxBytes }, (_req, body, done) => done(null, body));
      byUrl.set(op.url, [...(byUrl.get(op.url) ?? []), op.method, ...(op.method === 'GET' ? ['HEAD'] : [])]);
      const output = documentOutput(op);
      const files = binaryOutput(op);
      // Records and documents alike, in every format that writes them (CONTRACT §22).
      const offered = output ? formats.forDocuments(true) : formats;
      const onRequest: onRequestHookHandler = (req, _reply, done) => {
        try {
          if (files) negotiateType(req.headers.accept, files);
          else if (!emptyOutput(op)) req.apiFormat = offered.negotiate(req.headers.accept);
        } catch (e) {
          return done(e as Error);
        }
        done();
      };
      const config = { openapi: declaredDoc(model, r, op, formats), ...(op.method === 'POST' ? { idempotency: 'response' as const } : {}) };
      const raw = text ? undefined : op.def.body;
      // A GET answering a list of documents (a report) is offered as CSV too.
      const listed = op.method === 'GET' && output?.many ? output : undefined;
      if (listed) withCsv({ config }, op.def.summary);
      const handler = async (req: FastifyRequest<{ Params: Record<string, string> }>, reply: FastifyReply) => {
        const url = new URL(req.url, 'http://x');
        const input = raw
          ? { mediaType: mediaTypeOf(req), bytes: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) }
          : op.method === 'POST' && op.def.input
            ? text ? readText(req, text) : readJson(req, op.def.input as { required?: readonly string[] })
            : undefined;
        if (req.apiCsv && listed) {
          const p = o.principal(req);
          const { items } = (await run(p, r, op, { id: req.params.id, params: req.params, query: url.searchParams, input })) as { items: Record<string, unknown>[] };
          const text = documentsCsv(model, listed.schema, items, await titlesOf(p, documentReferences(model, listed.schema, items)));
          return reply.code(op.def.status ?? 200).header('content-type', CSV_CONTENT_TYPE).header('vary', 'Accept').send(text);
        }
        const result = await run(o.principal(req), r, op, { id: req.params.id, params: req.params, query: url.searchParams, input });
        if (emptyOutput(op)) return reply.code(204).header('cache-control', 'no-store').send();
        if (files) {
          const file = result as { body: Buffer; contentType: string } | null;
          if (!file) throw ApiError.notFound();
          return reply.code(op.def.status ?? 200).header('content-type', file.contentType).header('vary', 'Accept').header('cache-control', 'private, no-cache').send(file.body);
        }
        const format = req.apiFormat ?? offered.negotiate(req.headers.accept);
        return sendDeclared(reply, format, op, r, url, result);
      };
      if (!raw) {
        app.route<{ Params: Record<string, string> }>({ method: op.method, url: op.url, onRequest: listed ? orCsv(offered.mediaTypes, onRequest) : onRequest, config, handler });
        continue;
      }
      // A raw body: every media type reaches the operation as bytes (it answers for those it
      // refuses), at most `maxBytes` (413), in a scope of its own so that other routes keep theirs.
      app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: raw.maxBytes }, (_req, body, done) => done(null, body));
        scope.route<{ Params: Record<string, string> }>({ method: op.method, url: op.url, onRequest, config, bodyLimit: raw.maxBytes, handler });
      });
    }
    for (const [url, allowed] of byUrl) methodNotAllowed(app, url, allowed);
  }

  function sendDeclared(reply: FastifyReply, format: Format, op: ModelOperation, r: ModelResource, url: URL, result: unknown) {
    const status = op.def.status ?? 200;
    reply.header('vary', 'Accept');
    // A write's answer is not for caches (a secret may be shown once).
    if (op.method === 'POST') reply.header('cache-control', 'no-store');
    const target = recordOutput(model, r, op);
    const output = documentOutput(op);
    if (target || !output) {
      const rec = result as FieldValues;
      const of = target ?? r;
      if (status === 201) reply.header('location', `${of.iri}/${String(rec.id)}`);
      return send(tagged(reply, format, rec), format, status, format.item(model, of, rec));
    }
    const shape = documentShape(r, op)!;
    let body = result;
    let total: number | null | undefined;
    if (!output.many && shape.many) total = (result as unknown[]).length;
    if (output.many) {
      const page = result as { items: unknown[]; total?: number | null; next?: string | null };
      body = page.items;
      total = page.total;
      if (typeof total === 'number') reply.header('x-total-count', String(total));
      if (page.next) {
        const q = new URLSearchParams(url.searchParams);
        q.delete('page');
        q.set('after', page.next);
        addLink(reply, `<${url.pathname}?${q}>; rel="next"`);
      }
    }
    return send(reply, format, status, format.document!.render(model, { type: shape.type, path: url.pathname, schema: shape.schema, body, many: shape.many, objects: shape.objects, total }));
  }

  /** A declared operation's text body (`body.text`): 415 for another media type, 422 for bytes that are not UTF-8. */
  function readText(req: FastifyRequest, t: { mediaType: string; member: string }): unknown {
    const type = mediaTypeOf(req);
    if (type !== t.mediaType) throw new ApiError(415, `The content-type "${type || '(none)'}" is not supported. Supported MIME types are "${t.mediaType}".`);
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(String(req.body ?? ''));
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw ApiError.validation([{ propertyPath: t.member, message: 'The file is not UTF-8 text.', code: ViolationCode.format }]);
    }
    return { [t.member]: text };
  }

  /** A declared operation's JSON body: 415 for another media type, 400 for one that is not an object. */
  /** A JSON body; none at all (no content-type, no bytes) reads as `{}` for an input that requires no member. */
  function readJson(req: FastifyRequest, schema?: { required?: readonly string[] }): unknown {
    const type = mediaTypeOf(req);
    if (!type && (req.body === undefined || req.body === null) && !schema?.required?.length && !Number(req.headers['content-length'] ?? 0)) return {};
    const allowed = ['application/json', 'application/ld+json'];
    if (!allowed.includes(type)) throw new ApiError(415, `The content-type "${type || '(none)'}" is not supported. Supported MIME types are "${allowed.join('", "')}".`);
    return req.body;
  }
}
