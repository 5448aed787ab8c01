// The webhook endpoints beside the REST adapter's /webhooks (under /api) (CONTRACT §11): the event types,
// secret rotation, the delivery log, retry now, and ping. Tenancy and roles as everywhere: the
// webhook is read through the engine first (404 unknown, 403 another company's).
import { Type, type TSchema } from '@sinclair/typebox';
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Principal, FieldValues } from '../../engine/types.ts';
import { ApiError } from '../../engine/errors.ts';
import { content, problems, type RouteDoc } from '../../http/openapi.ts';
import type { Engine } from '../../engine/operations.ts';
import { parseIntParam } from '../../http/rest.ts';
import { MAX_PAGE_OFFSET } from '../../engine/query.ts';
import { isUuid } from '../../engine/validate.ts';
import { json } from '../../formats/json.ts';
import type { Formats } from '../../formats/negotiate.ts';
import { contentTypeOf } from '../../formats/types.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { newSecret } from '../../resources/rules/webhook.ts';
import { rowsOf } from '../db.ts';
import { payloadText } from './outbox.ts';
import { webhookDeliveries as d } from './schema.ts';
import type { WebhookWorker } from './worker.ts';

export interface WebhookRoutesOptions {
  engine: Engine;
  formats: Formats;
  principal(req: FastifyRequest): Principal;
  ops: WebhookOps;
}

const STATUSES = ['pending', 'succeeded', 'failed'] as const;

const Delivery = Type.Object({
  id: Type.String({ description: 'The delivery id' }),
  eventId: Type.String({ description: 'The event id: the webhook-id header of every attempt' }),
  type: Type.String(),
  status: Type.Union(STATUSES.map((s) => Type.Literal(s))),
  attempts: Type.Integer(),
  responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()], { description: 'Duration of the last attempt' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

const doc = (summary: string, operationId: string, response: Record<string, unknown>, extra: Partial<RouteDoc> = {}): RouteDoc => ({
  summary,
  tags: ['Webhook'],
  operationId,
  params: Type.Object({ id: Type.String() }),
  response,
  ...extra,
});

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

function deliveryJson(row: Record<string, unknown>) {
  return {
    id: row.id,
    eventId: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.lastStatus ?? null,
    lastError: row.lastError ?? null,
    durationMs: row.lastDurationMs ?? null,
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    createdAt: iso(row.createdAt),
  };
}

/** The columns a log entry shows (not the payload: a page, a retry or a ping returns none). */
const LOG_COLUMNS = {
  id: d.id,
  eventId: d.eventId,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  lastDurationMs: d.lastDurationMs,
  nextAttemptAt: d.nextAttemptAt,
  createdAt: d.createdAt,
};

/** Deliveries counted for a list's total; past this many, the total is not given (null). */
export const MAX_COUNTED = 10_000;

/** A list position: the creation time and id of the last delivery of a page, as an opaque string. */
function cursorOf(row: Record<string, unknown>): string {
  return Buffer.from(`${new Date(row.createdAt as string).toISOString()}|${String(row.id)}`).toString('base64url');
}

function cursorPosition(cursor: string): { createdAt: string; id: string } | undefined {
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length || !createdAt || !id || !isUuid(id)) return undefined;
  // Exactly as cursorOf writes it, and a time PostgreSQL takes (it refuses year 0, for one).
  const at = Date.parse(createdAt);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(createdAt) || Number.isNaN(at) || new Date(at).toISOString() !== createdAt || at < 0) return undefined;
  return { createdAt, id: id.toLowerCase() };
}

export interface WebhookOpsOptions {
  db: Db;
  engine: Engine;
  worker: WebhookWorker;
}

export type DeliveryJson = ReturnType<typeof deliveryJson>;

/**
 * The webhook operations beside the engine's CRUD, for every adapter (the API's routes below and
 * the web page's session-authenticated endpoints): tenancy and roles are checked here.
 */
export function webhookOps(o: WebhookOpsOptions) {
  const { engine, db } = o;
  const r = engine.model.get('Webhook');
  const writer = (p: Principal) => {
    if (p.role === 'viewer') throw ApiError.forbidden('A viewer may only read.');
  };
  return {
    resource: r,
    eventTypes: (): string[] => engine.eventTypes(),
    /** Replaces the signing secret; the webhook with its new secret, shown this once. */
    async rotateSecret(p: Principal, id: string): Promise<FieldValues> {
      writer(p);
      await engine.read(p, r, id);
      const secret = newSecret();
      const t = engine.tables.get(r);
      await db.update(t).set({ secret, updatedAt: new Date() }).where(and(eq(t.id, id.toLowerCase()), eq(t.companyId, p.company.id)));
      return { ...(await engine.read(p, r, id)), secret };
    },
    /**
     * A page of the webhook's deliveries, newest first: by page number (offsets up to
     * MAX_PAGE_OFFSET) or after a cursor (`after`, from the previous page's `next`), which costs
     * what the first page costs at any depth. Each filter is served by an index in the list's order
     * (drizzle/0010). The total is exact up to MAX_COUNTED and null beyond it: counting an
     * endpoint's whole log would cost what the log holds, not what the page returns.
     */
    async deliveries(p: Principal, id: string, q: URLSearchParams): Promise<{ items: DeliveryJson[]; total: number | null; next: string | null }> {
      const hook = await engine.read(p, r, id);
      const ipp = Math.min(parseIntParam('itemsPerPage', q.get('itemsPerPage'), 1) ?? 30, 100);
      const where: SQL[] = [eq(d.webhookId, String(hook.id)), eq(d.companyId, p.company.id)];
      const statuses = [...q.getAll('status'), ...q.getAll('status[]')];
      for (const s of statuses) if (!(STATUSES as readonly string[]).includes(s)) throw ApiError.badRequest(`status must be one of ${STATUSES.join(', ')}.`);
      if (statuses.length) where.push(inArray(d.status, statuses));
      const types = [...q.getAll('type'), ...q.getAll('type[]')];
      if (types.length) where.push(inArray(d.type, types));
      const after = q.get('after');
      let offset = 0;
      let page = where;
      if (after !== null) {
        const at = cursorPosition(after);
        if (!at) throw ApiError.badRequest('"after" is not a cursor of this list: use the "next" link of a previous page.');
        page = [...where, sql`(${d.createdAt}, ${d.id}) < (${at.createdAt}::timestamptz, ${at.id}::uuid)`];
      } else {
        const n = parseIntParam('page', q.get('page'), 1) ?? 1;
        offset = (n - 1) * ipp;
        if (offset > MAX_PAGE_OFFSET) throw ApiError.badRequest(`Page parameter is too large: page numbers reach offsets ((page - 1) × itemsPerPage) up to ${MAX_PAGE_OFFSET.toLocaleString('en-US')}. Follow the "next" links (cursors in "after") to read further.`);
      }
      const rows = (await db.select(LOG_COLUMNS).from(d).where(and(...page)).orderBy(desc(d.createdAt), desc(d.id)).limit(ipp + 1).offset(offset)) as Record<string, unknown>[];
      const items = rows.slice(0, ipp);
      const last = items.at(-1);
      const next = rows.length > ipp && last ? cursorOf(last) : null;
      // A page by number that reached the end of the list has its total already (most logs fit one page).
      const ended = after === null && rows.length <= ipp && (rows.length > 0 || offset === 0);
      const n = ended ? offset + rows.length : rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from (select 1 from ${d} where ${and(...where)} limit ${MAX_COUNTED + 1}) as x`))[0]!.n;
      return { items: items.map(deliveryJson), total: n > MAX_COUNTED ? null : n, next };
    },
    /** Queues a delivery for an attempt now. */
    async retry(p: Principal, id: string, delivery: string): Promise<DeliveryJson> {
      writer(p);
      const hook = await engine.read(p, r, id);
      if (!isUuid(delivery)) throw ApiError.notFound();
      // A delivery whose attempt is running right now keeps its lease; it is retried after it.
      const [row] = (await db
        .update(d)
        .set({ status: 'pending', nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(d.id, delivery.toLowerCase()), eq(d.webhookId, String(hook.id)), eq(d.companyId, p.company.id)))
        .returning(LOG_COLUMNS)) as Record<string, unknown>[];
      if (!row) throw ApiError.notFound();
      o.worker.wake();
      return deliveryJson(row);
    },
    /** Queues a webhook.ping event to this webhook. */
    async ping(p: Principal, id: string): Promise<DeliveryJson> {
      writer(p);
      const hook = engine.json
        ? await engine.json.read(p, r, id, json.projection!)
        : JSON.stringify((await engine.read(p, r, id)));
      const hookId = JSON.parse(hook).id as string;
      const body = payloadText('webhook.ping', new Date(), hook);
      const [row] = (await db
        .insert(d)
        .values({ id: uuidv7(), companyId: p.company.id, webhookId: hookId, eventId: uuidv7(), type: 'webhook.ping', body, status: 'pending', attempts: 0, nextAttemptAt: sql`now()` as never })
        .returning(LOG_COLUMNS)) as Record<string, unknown>[];
      o.worker.wake();
      return deliveryJson(row!);
    },
  };
}

export type WebhookOps = ReturnType<typeof webhookOps>;

export function registerWebhookRoutes(app: FastifyInstance, o: WebhookRoutesOptions): void {
  const { engine } = o;
  const ops = o.ops;
  const r = engine.model.get('Webhook');
  const sendJson = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
  const oneJson = { 200: { description: 'OK', content: { 'application/json': { schema: Delivery } } } };

  app.get('/webhooks/event-types', {
    config: { openapi: { ...doc('The event types a webhook may subscribe to ("*": all)', 'api_webhooks_event_types', { 200: { description: 'Event types', content: { 'application/json': { schema: Type.Array(Type.String()) } } }, ...problems(401) }), params: undefined } },
  }, async (req, reply) => {
    o.principal(req);
    return sendJson(reply, 200, ops.eventTypes());
  });

  app.post<{ Params: { id: string } }>('/webhooks/:id/rotate-secret', {
    config: { openapi: doc('Replaces the signing secret; the response is the webhook with the new secret, shown this once', 'api_webhooks_rotate_secret', { 200: { description: 'The webhook, with its new secret', content: content(o.formats, (f) => f.docs.item(r)) }, ...problems(401, 403, 404, 406) }) },
  }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const rec = await ops.rotateSecret(o.principal(req), req.params.id);
    const rendered = format.item(engine.model, r, rec);
    reply.code(200).header('content-type', contentTypeOf(format.mediaType)).header('cache-control', 'no-store');
    if (rendered.headers) reply.headers(rendered.headers);
    return reply.send(format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body));
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, string | string[]> }>('/webhooks/:id/deliveries', {
    config: {
      openapi: doc('The deliveries of a webhook, newest first', 'api_webhooks_deliveries', {
        200: {
          description: `Deliveries. X-Total-Count gives their number up to ${MAX_COUNTED.toLocaleString('en-US')} (beyond it the header is absent); a Link header (rel="next") names the next page by a cursor while there is one.`,
          content: { 'application/json': { schema: Type.Array(Delivery) } },
        },
        ...problems(400, 401, 403, 404),
      }, {
        querystring: Type.Object({
          status: Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)) as TSchema[])),
          type: Type.Optional(Type.String({ description: 'An event type' })),
          page: Type.Optional(Type.Integer({ minimum: 1, description: `Up to offsets ((page - 1) × itemsPerPage) of ${MAX_PAGE_OFFSET.toLocaleString('en-US')}; follow the next links beyond` })),
          after: Type.Optional(Type.String({ description: 'A cursor: the page after it (from the Link header rel="next")' })),
          itemsPerPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        }),
      }),
    },
  }, async (req, reply) => {
    const url = new URL(req.url, 'http://x');
    const { items, total, next } = await ops.deliveries(o.principal(req), req.params.id, url.searchParams);
    if (total !== null) reply.header('x-total-count', String(total));
    if (next) {
      url.searchParams.delete('page');
      url.searchParams.set('after', next);
      reply.header('link', `<${url.pathname}?${url.searchParams}>; rel="next"`);
    }
    return sendJson(reply, 200, items);
  });

  app.post<{ Params: { id: string; delivery: string } }>('/webhooks/:id/deliveries/:delivery/retry', {
    config: { openapi: doc('Queues a delivery for an attempt now', 'api_webhooks_delivery_retry', { 202: { ...oneJson[200], description: 'Queued' }, ...problems(401, 403, 404) }, { params: Type.Object({ id: Type.String(), delivery: Type.String() }) }) },
  }, async (req, reply) => sendJson(reply, 202, await ops.retry(o.principal(req), req.params.id, req.params.delivery)));

  app.post<{ Params: { id: string } }>('/webhooks/:id/ping', {
    config: { openapi: doc('Sends a webhook.ping event to this webhook', 'api_webhooks_ping', { 202: { ...oneJson[200], description: 'Queued' }, ...problems(401, 403, 404) }) },
  }, async (req, reply) => sendJson(reply, 202, await ops.ping(o.principal(req), req.params.id)));
}
