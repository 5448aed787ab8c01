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
import { isUuid } from '../../engine/validate.ts';
import { json } from '../../formats/json.ts';
import type { Formats } from '../../formats/negotiate.ts';
import { contentTypeOf } from '../../formats/types.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { newSecret } from '../../resources/rules/webhook.ts';
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
    /** A page of the webhook's deliveries, newest first, and their total. */
    async deliveries(p: Principal, id: string, q: URLSearchParams): Promise<{ items: DeliveryJson[]; total: number }> {
      const hook = await engine.read(p, r, id);
      const page = parseIntParam('page', q.get('page'), 1) ?? 1;
      const ipp = Math.min(parseIntParam('itemsPerPage', q.get('itemsPerPage'), 1) ?? 30, 100);
      if ((page - 1) * ipp > 10_000) throw ApiError.badRequest('Page parameter is too large.');
      const where: SQL[] = [eq(d.webhookId, String(hook.id)), eq(d.companyId, p.company.id)];
      const statuses = [...q.getAll('status'), ...q.getAll('status[]')];
      for (const s of statuses) if (!(STATUSES as readonly string[]).includes(s)) throw ApiError.badRequest(`status must be one of ${STATUSES.join(', ')}.`);
      if (statuses.length) where.push(inArray(d.status, statuses));
      const types = [...q.getAll('type'), ...q.getAll('type[]')];
      if (types.length) where.push(inArray(d.type, types));
      const rows = (await db.select().from(d).where(and(...where)).orderBy(desc(d.createdAt), desc(d.id)).limit(ipp).offset((page - 1) * ipp)) as Record<string, unknown>[];
      const [{ n }] = (await db.select({ n: sql<number>`count(*)::int` }).from(d).where(and(...where))) as [{ n: number }];
      return { items: rows.map(deliveryJson), total: n };
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
        .returning()) as Record<string, unknown>[];
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
      const body = `{"type":"webhook.ping","timestamp":${JSON.stringify(new Date().toISOString())},"data":${hook}}`;
      const [row] = (await db
        .insert(d)
        .values({ id: uuidv7(), companyId: p.company.id, webhookId: hookId, eventId: uuidv7(), type: 'webhook.ping', body, status: 'pending', attempts: 0, nextAttemptAt: sql`now()` as never })
        .returning()) as Record<string, unknown>[];
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
        200: { description: 'Deliveries (the total is in X-Total-Count)', content: { 'application/json': { schema: Type.Array(Delivery) } } },
        ...problems(400, 401, 403, 404),
      }, {
        querystring: Type.Object({
          status: Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)) as TSchema[])),
          type: Type.Optional(Type.String({ description: 'An event type' })),
          page: Type.Optional(Type.Integer({ minimum: 1 })),
          itemsPerPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        }),
      }),
    },
  }, async (req, reply) => {
    const { items, total } = await ops.deliveries(o.principal(req), req.params.id, new URL(req.url, 'http://x').searchParams);
    reply.header('x-total-count', String(total));
    return sendJson(reply, 200, items);
  });

  app.post<{ Params: { id: string; delivery: string } }>('/webhooks/:id/deliveries/:delivery/retry', {
    config: { openapi: doc('Queues a delivery for an attempt now', 'api_webhooks_delivery_retry', { 202: { ...oneJson[200], description: 'Queued' }, ...problems(401, 403, 404) }, { params: Type.Object({ id: Type.String(), delivery: Type.String() }) }) },
  }, async (req, reply) => sendJson(reply, 202, await ops.retry(o.principal(req), req.params.id, req.params.delivery)));

  app.post<{ Params: { id: string } }>('/webhooks/:id/ping', {
    config: { openapi: doc('Sends a webhook.ping event to this webhook', 'api_webhooks_ping', { 202: { ...oneJson[200], description: 'Queued' }, ...problems(401, 403, 404) }) },
  }, async (req, reply) => sendJson(reply, 202, await ops.ping(o.principal(req), req.params.id)));
}
