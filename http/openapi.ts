// The OpenAPI description of each REST route, derived from the same model as the routes. Each
// route carries its description in `config.openapi`; @fastify/swagger turns them into the
// document (http/docs.ts). Fastify itself never sees these schemas, so they validate nothing:
// the engine validates input (engine/validate.ts) and parses queries (engine/query.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import type { RestOperation } from '../engine/descriptor.ts';
import { binaryOutput, documentOutput, emptyOutput, recordOutput, type Model, type ModelOperation, type ModelResource } from '../engine/model.ts';
import { lowerFirst } from '../engine/names.ts';
import { EDGE_CURSOR } from '../engine/keyset.ts';
import { DATE_OPS, MAX_COUNTED_MATCHES, MAX_PAGE_OFFSET } from '../engine/query.ts';
import { baseComponents, documentedResources, ref, schemaNames, type WriteMode } from '../engine/json-schemas.ts';
import type { Formats } from '../formats/negotiate.ts';
import { TOTAL_NOTE } from '../formats/links.ts';
import { documentShape } from '../formats/types.ts';

export type DocOperation = RestOperation | 'entrypoint';

/** The OpenAPI-relevant part of a fastify route schema, as @fastify/swagger reads it. */
export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  operationId: string;
  security?: Record<string, string[]>[];
  params?: TSchema;
  /** Request headers the operation reads (becomes `in: header` parameters). */
  headers?: TSchema;
  querystring?: TSchema;
  body?: { content: Record<string, { schema: TSchema }> };
  response: Record<string, unknown>;
}

export const SECURITY_SCHEME = 'apiKey';

const problem = (description: string, schema = 'Error') => ({ description, content: { 'application/problem+json': { schema: ref(schema) } } });

const PROBLEMS = {
  400: problem('Invalid input: malformed body or query, or unknown fields.'),
  401: problem('No API token provided, or an invalid one.'),
  403: problem('Forbidden: a viewer writing, or a record of another company.'),
  404: problem('Not found.'),
  406: problem('Not acceptable: no supported media type in Accept.'),
  409: problem('Conflict: the record is still in use, or a request with the same Idempotency-Key is still being processed.'),
  412: problem('Precondition failed: the record has changed since the If-Match tag was read; nothing was changed.'),
  413: problem('The request body is larger than 1 MiB.'),
  415: problem('Unsupported Content-Type.'),
  422: problem('Unprocessable entity: validation failed, or the Idempotency-Key was used for another request.', 'ConstraintViolation'),
  429: { ...problem('Too many requests: the sliding-window rate limit (per token, or per caller IP without one) is used up; wait Retry-After seconds.'), headers: { 'retry-after': { type: 'integer', minimum: 1, description: 'Seconds to wait.' } } },
} as const;
// Every token-guarded operation can be rate limited.
export const problems = (...codes: (keyof typeof PROBLEMS)[]) => Object.fromEntries([...codes, 429 as const].map((c) => [c, PROBLEMS[c]]));

const BODY_TYPES: Record<WriteMode, string[]> = {
  create: ['application/ld+json', 'application/json'],
  replace: ['application/ld+json', 'application/json'],
  update: ['application/merge-patch+json', 'application/json'],
};

const snakePath = (r: ModelResource) => r.path.replace(/-/g, '_');

// Conditional requests and retries (CONTRACT §12): the headers each operation reads and sends.
const ETAG = { etag: { type: 'string', description: 'Strong entity-tag of this representation of the record; changes with the record and its embedded lines. Documents (PDF, UBL) have none.' } };
const REPLAYED = { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this is the response kept for the Idempotency-Key, sent again.' } };
const IDEMPOTENCY_KEY = Type.Optional(Type.String({
  minLength: 1,
  maxLength: 257,
  description: 'A key (1–255 visible ASCII characters, optionally in double quotes) naming this request: a retry with the same key, method, path and body within 24 hours gets the first response again (Idempotent-Replayed: true) instead of running twice; another request under the key is a 422, one while the first runs a 409. Per token.',
}));
const IF_MATCH = Type.Optional(Type.String({ description: 'Entity-tags (from ETag) or "*": the write happens only when the record is still at one of them; otherwise 412 and nothing changes.' }));
const IF_NONE_MATCH = Type.Optional(Type.String({ description: 'Entity-tags (from ETag) or "*": 304 with no body when the record is still at one of them.' }));
const requestHeaders = (h: Record<string, TSchema>) => Type.Object(h);

const idParams = (r: ModelResource) => Type.Object({ id: Type.String({ format: 'uuid', description: `The ${r.name} id.` }) });

/** One parameter per page option, filter and order of the collection. */
function collectionQuery(r: ModelResource): TSchema {
  const cursors = !r.provider;
  const p: Record<string, TSchema> = {
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: 1,
        description: cursors
          ? `The page (JSON:API: also page[page]), while (page − 1) × itemsPerPage is at most ${MAX_PAGE_OFFSET} (400 beyond: follow the cursor links, which use after and before). Not with after or before.`
          : 'The page (JSON:API: also page[page]).',
      }),
    ),
    itemsPerPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 30, description: 'Items per page; larger values are capped at 100 (JSON:API: also page[itemsPerPage]).' })),
  };
  if (cursors) {
    const cursor = (side: 'after' | 'before', what: string) =>
      Type.Optional(
        Type.String({
          pattern: '^[A-Za-z0-9_-]+$',
          maxLength: 4096,
          description: `Cursor mode: the page of records ${what} this cursor, in the collection's order (JSON:API: also page[${side}]). Cursors are opaque: take them from the collection's links (first, previous, next, last). The edge cursor ${EDGE_CURSOR} names the ends of every collection: after it is the first page, before it the last. A cursor of another order, or not one of this API's, is a 400. Not with page, nor with ${side === 'after' ? 'before' : 'after'}.`,
        }),
      );
    p.after = cursor('after', 'following');
    p.before = cursor('before', 'preceding');
  }
  for (const f of r.filters) {
    const target = f.kind === 'ref' ? ` (IRI or id of a ${f.target})` : '';
    if (f.filter === 'date') {
      for (const op of DATE_OPS) p[`${f.name}[${op}]`] = Type.Optional(Type.String({ format: 'date', description: `${f.name} ${op.replace('_', ' ')} this date.` }));
      continue;
    }
    const how = f.filter === 'partial' ? `contains, ignoring case; the total counts at most ${MAX_COUNTED_MATCHES.toLocaleString('en-US')} matches` : 'equals';
    const value = f.def.kind === 'enum' ? Type.Unsafe({ type: 'string', enum: [...f.def.values] }) : Type.String();
    p[f.name] = Type.Optional(Type.Unsafe({ ...value, description: `${f.name} ${how}${target} (JSON:API: filter[${f.name}]).` }));
    p[`${f.name}[]`] = Type.Optional(Type.Array(value, { description: `${f.name} is any of these${target}.` }));
  }
  for (const o of r.orders) p[`order[${o}]`] = Type.Optional(Type.Unsafe({ type: 'string', enum: ['asc', 'desc'], description: `Order by ${o}.` }));
  p.sort = Type.Optional(Type.String({ description: `JSON:API ordering, e.g. "${r.orders[0]},-createdAt": fields among ${r.orders.join(', ')}, "-" for descending.` }));
  return Type.Object(p);
}

export function content(formats: Formats, schema: (f: Formats['all'][number]) => TSchema): Record<string, { schema: TSchema }> {
  const out: Record<string, { schema: TSchema }> = {};
  for (const f of formats.all) for (const t of f.accepts) out[t] = { schema: schema(f) };
  return out;
}

function requestBody(formats: Formats, r: ModelResource, mode: WriteMode) {
  const names = schemaNames(r);
  const out: Record<string, { schema: TSchema }> = {};
  for (const t of BODY_TYPES[mode]) out[t] = { schema: ref(mode === 'update' ? names.update : names.create) };
  for (const f of formats.all) if (f.readBody && f.docs.body) for (const t of f.accepts) out[t] = { schema: f.docs.body(r, mode) };
  return { content: out };
}

const SUMMARIES: Record<RestOperation, (n: string) => string> = {
  list: (n) => `Retrieves the collection of ${n} resources.`,
  read: (n) => `Retrieves a ${n} resource.`,
  create: (n) => `Creates a ${n} resource.`,
  replace: (n) => `Replaces the ${n} resource.`,
  update: (n) => `Updates the ${n} resource.`,
  delete: (n) => `Removes the ${n} resource.`,
};

/** The description of one REST operation of a resource. */
export function operationDoc(model: Model, r: ModelResource, op: RestOperation, formats: Formats): RouteDoc {
  const base = `api_${snakePath(r)}`;
  const doc: RouteDoc = { summary: SUMMARIES[op](r.name), tags: [r.name], operationId: '', response: {} };
  const itemContent = () => content(formats, (f) => f.docs.item(r));
  if (r.singleton) return singletonDoc(r, op, doc, itemContent, formats);
  switch (op) {
    case 'list':
      doc.operationId = `${base}_get_collection`;
      doc.querystring = collectionQuery(r);
      doc.response = {
        200: {
          description: `${r.name} collection`,
          headers: {
            link: { type: 'string', description: 'RFC 8288 first/prev/next/last links (plain JSON and XML): page numbers, or cursor links (after/before) in cursor mode and where a page number would pass the bound.' },
            'x-total-count': { type: 'integer', description: `${TOTAL_NOTE} (Plain JSON and XML.)` },
          },
          content: content(formats, (f) => f.docs.collection(r)),
        },
        ...problems(400, 401, 403, 406),
      };
      break;
    case 'read':
      doc.operationId = `${base}_id_get`;
      doc.params = idParams(r);
      doc.headers = requestHeaders({ 'if-none-match': IF_NONE_MATCH });
      doc.response = {
        200: { description: `${r.name} resource`, headers: ETAG, content: itemContent() },
        304: { description: 'Not modified: the record is still at the If-None-Match tag (no body).', headers: ETAG },
        ...problems(400, 401, 403, 404, 406),
      };
      break;
    case 'create':
      doc.operationId = `${base}_post`;
      doc.body = requestBody(formats, r, 'create');
      doc.headers = requestHeaders({ 'idempotency-key': IDEMPOTENCY_KEY });
      doc.response = {
        201: { description: `${r.name} resource created`, headers: { location: { type: 'string', description: 'The IRI of the new resource.' }, ...ETAG, ...REPLAYED }, content: itemContent() },
        ...problems(400, 401, 403, 406, 409, 413, 415, 422),
      };
      break;
    case 'update':
    case 'replace':
      doc.operationId = `${base}_id_${op === 'update' ? 'patch' : 'put'}`;
      doc.params = idParams(r);
      doc.body = requestBody(formats, r, op);
      doc.headers = requestHeaders(op === 'update' ? { 'if-match': IF_MATCH, 'idempotency-key': IDEMPOTENCY_KEY } : { 'if-match': IF_MATCH });
      doc.response = {
        200: { description: `${r.name} resource updated`, headers: op === 'update' ? { ...ETAG, ...REPLAYED } : ETAG, content: itemContent() },
        ...problems(400, 401, 403, 404, 406, 409, 412, 413, 415, 422),
      };
      break;
    case 'delete':
      doc.operationId = `${base}_id_delete`;
      doc.params = idParams(r);
      doc.headers = requestHeaders({ 'if-match': IF_MATCH });
      doc.response = { 204: { description: `${r.name} resource deleted`, type: 'null' }, ...problems(400, 401, 403, 404, 409, 412) };
      break;
  }
  const notes = [r.description];
  if (op === 'list') notes.push(`Filters: ${r.filters.map((f) => f.name).join(', ') || 'none'}. Order: ${r.orders.join(', ')}. Plain JSON and XML carry the pagination in the Link and X-Total-Count headers.`);
  if (r.states && (op === 'update' || op === 'replace')) {
    const s = r.states;
    const moves = Object.entries(s.transitions).map(([from, to]) => `${from} → ${(to as string[]).join(', ')}`).join('; ');
    notes.push(`Changing \`${String(s.field)}\` moves its state machine: ${moves}. Other changes are a 422.`);
  }
  if (op === 'create') for (const f of r.shownOnce) notes.push(`The response also carries \`${f.name}\`: ${lowerFirst(f.def.description ?? 'shown here only.')}`);
  if (op === 'update' || op === 'replace') {
    const fixed = r.creatable.filter((f) => !r.updatable.includes(f)).map((f) => f.name);
    if (fixed.length) notes.push(`Cannot change: ${fixed.join(', ')}.`);
  }
  doc.description = notes.join('\n\n');
  return doc;
}

/** A singleton's GET and PATCH, at its resource's path: the caller's company's record. */
function singletonDoc(r: ModelResource, op: RestOperation, doc: RouteDoc, itemContent: () => Record<string, { schema: TSchema }>, formats: Formats): RouteDoc {
  const base = `api_${snakePath(r)}`;
  if (op === 'update') {
    doc.summary = `Updates the calling token's company's ${r.name}.`;
    doc.operationId = `${base}_patch`;
    doc.body = requestBody(formats, r, 'update');
    doc.headers = requestHeaders({ 'idempotency-key': IDEMPOTENCY_KEY });
    doc.response = { 200: { description: `${r.name} updated`, content: itemContent() }, ...problems(400, 401, 403, 406, 413, 415, 422) };
    doc.description = `${r.description}\n\nRoles: ${r.writers.join(', ')}.`;
  } else {
    doc.summary = `Retrieves the calling token's company's ${r.name}.`;
    doc.operationId = `${base}_get`;
    doc.response = { 200: { description: r.name, content: itemContent() }, ...problems(401, 406) };
    doc.description = r.description;
  }
  return doc;
}

/** The description of a declared operation (engine/declared.ts). */
export function declaredDoc(model: Model, r: ModelResource, op: ModelOperation, formats: Formats): RouteDoc {
  const d = op.def;
  const files = binaryOutput(op);
  const empty = emptyOutput(op);
  const status = empty ? 204 : (d.status ?? 200);
  const params: Record<string, TSchema> = {};
  if (op.on === 'item') params.id = Type.String({ format: 'uuid', description: `The ${r.name} id.` });
  for (const p of op.params) params[p] = Type.String();
  const target = recordOutput(model, r, op);
  const output = documentOutput(op);
  const file = Type.String({ format: 'binary' });
  const body = empty
    ? undefined
    : files
      ? Object.fromEntries(files.map((t) => [t, { schema: file }]))
      : target
        ? content(formats, (f) => f.docs.item(target))
        : content(formats.forDocuments(true), (f) => f.document!.schema(documentShape(r, op)!));
  const headers: Record<string, unknown> = target ? { ...ETAG, ...(status === 201 ? { location: { type: 'string', description: `The IRI of the new ${target.name}.` } } : {}) } : {};
  if (output?.many) {
    headers['x-total-count'] = { type: 'integer', description: 'The number of items, when it is known.' };
    headers.link = { type: 'string', description: 'rel="next": the next page, by a cursor in "after", while there is one.' };
  }
  const codes: (keyof typeof PROBLEMS)[] = [401, 403];
  if (!empty) codes.push(406);
  if (op.on === 'item' || op.params.length || files) codes.push(404);
  if (d.query || d.input) codes.push(400);
  if (d.input) codes.push(413, 415, 422);
  if (d.body) codes.push(413, 422);
  else if (d.query) codes.push(422); // declared query parameters are checked
  if (d.method === 'POST') codes.push(409);
  const doc: RouteDoc = {
    summary: d.summary,
    description: [d.description ?? r.description, d.roles ? `Roles: ${op.roles.join(', ')}.` : '', d.events?.length ? `Emits: ${d.events.join(', ')}.` : ''].filter(Boolean).join('\n\n'),
    tags: [r.name],
    operationId: op.operationId,
    response: { [status]: { description: d.summary, ...(Object.keys(headers).length ? { headers } : {}), ...(body ? { content: body } : {}) }, ...problems(...[...new Set(codes)].sort()) },
  };
  if (Object.keys(params).length) doc.params = Type.Object(params);
  if (d.query) doc.querystring = d.query;
  if (d.method === 'POST') doc.headers = requestHeaders({ 'idempotency-key': IDEMPOTENCY_KEY });
  const text = d.body?.text;
  if (text) doc.body = { content: { [d.body!.mediaTypes[0]!]: { schema: Type.String({ description: (d.input as { properties?: Record<string, { description?: string }> } | undefined)?.properties?.[text]?.description }) } } };
  else if (d.body) doc.body = { content: Object.fromEntries(d.body.mediaTypes.map((t) => [t, { schema: Type.String({ format: 'binary', maxLength: d.body!.maxBytes }) }])) };
  else if (d.input) doc.body = { content: { 'application/json': { schema: d.input }, 'application/ld+json': { schema: d.input } } };
  return doc;
}

export function entrypointDoc(formats: Formats): RouteDoc {
  return {
    summary: 'The API entrypoint: a link to every collection.',
    description: 'In each format: JSON-LD (Entrypoint), JSON, HAL (_links), JSON:API (links) and XML. No token needed.',
    tags: ['Entrypoint'],
    operationId: 'api_entrypoint_get',
    security: [],
    response: { 200: { description: 'Entrypoint', content: content(formats, () => Type.Object({}, { additionalProperties: true })) }, ...problems(406) },
  };
}

export function contextDoc(): RouteDoc {
  return {
    summary: 'A JSON-LD @context document (a resource type, Entrypoint, Error or ConstraintViolation).',
    description: 'Maps the terms of JSON-LD responses to full IRIs, Hydra terms to the Hydra vocabulary. No token needed.',
    tags: ['Entrypoint'],
    operationId: 'api_contexts_get',
    security: [],
    params: Type.Object({ name: Type.String({ description: 'The type name, e.g. the @type of a record.' }) }),
    response: {
      200: { description: 'The @context', content: { 'application/ld+json': { schema: Type.Object({ '@context': Type.Object({}, { additionalProperties: true }) }) } } },
      ...problems(404, 406),
    },
  };
}

/** Every component schema: shared records, write bodies and problems, then each format's own. */
export function openapiComponents(model: Model, formats: Formats, resources: readonly ModelResource[] = documentedResources(model)): Record<string, TSchema> {
  const out = baseComponents(model, resources);
  for (const f of formats.all) for (const r of resources) if (f.docs.components) Object.assign(out, f.docs.components(model, r));
  return out;
}

/** Tags with each resource's description, in model order. */
export function openapiTags(model: Model): { name: string; description: string }[] {
  return [{ name: 'Entrypoint', description: 'The entrypoint and JSON-LD contexts.' }, ...model.resources.filter((r) => r.rest.size || (r.provider && r.operations.length)).map((r) => ({ name: r.name, description: r.description }))];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's OpenAPI description, read by @fastify/swagger's transform (http/docs.ts). */
    openapi?: RouteDoc;
  }
}
