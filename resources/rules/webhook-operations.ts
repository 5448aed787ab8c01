// The webhook's operations besides CRUD (CONTRACT §11): the event types, secret rotation, the
// delivery log, retry now and ping. Declared here, derived into REST, GraphQL and OpenAPI by the
// engine; the delivery log itself (its table, the queue's worker) is a service of the server
// (server/webhooks/deliveries.ts), named by the interface below.
import { Type, type Static } from '@sinclair/typebox';
import { and, eq } from 'drizzle-orm';
import { eventTypes } from '../../engine/events.ts';
import type { OperationContext, OperationDescriptor } from '../../engine/descriptor.ts';
import { ApiError } from '../../engine/errors.ts';
import type { Principal, Tx } from '../../engine/types.ts';
import { MAX_PAGE_OFFSET } from '../../engine/query.ts';
import { newSecret } from './webhook.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** Deliveries counted for a list's total; past this many, the total is not given (null). */
export const MAX_COUNTED = 10_000;

export const Delivery = Type.Object({
  id: Type.String({ description: 'The delivery id' }),
  eventId: Type.String({ description: 'The event id: the webhook-id header of every attempt' }),
  type: Type.String(),
  status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
  attempts: Type.Integer(),
  responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()], { description: 'Duration of the last attempt' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
}, { title: 'WebhookDelivery', description: 'A delivery of an event to a webhook' });

export type DeliveryJson = {
  id: string; eventId: string; type: string; status: string; attempts: number; responseStatus: number | null;
  lastError: string | null; durationMs: number | null; nextAttemptAt: string | null; createdAt: string;
};

const status = Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)));
const eventType = Type.String({ minLength: 1, maxLength: 100, description: 'An event type' });

/** The delivery log's query parameters, checked by the runner (engine/declared.ts) before `page` reads them. */
export const DeliveryQuery = Type.Object({
  status: Type.Optional(status),
  'status[]': Type.Optional(Type.Array(status, { description: 'Any of these statuses' })),
  type: Type.Optional(eventType),
  'type[]': Type.Optional(Type.Array(eventType, { description: 'Any of these event types' })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: `Up to offsets ((page - 1) × itemsPerPage) of ${MAX_PAGE_OFFSET.toLocaleString('en-US')}; follow the next links beyond` })),
  after: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 200, description: 'A cursor: the page after it (from the Link header rel="next")' })),
  itemsPerPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 30 })),
});
export type DeliveryQuery = Static<typeof DeliveryQuery>;

/** The delivery log and queue, as the server keeps them. */
export interface DeliveryLog {
  /** A page of a webhook's deliveries, newest first, as the checked query parameters say. */
  page(p: Principal, webhookId: string, query: DeliveryQuery): Promise<{ items: DeliveryJson[]; total: number | null; next: string | null }>;
  /** Queues delivery `id` of the webhook for an attempt now; null when there is none. */
  retry(tx: Tx, p: Principal, webhookId: string, id: string): Promise<DeliveryJson | null>;
  /** Queues a webhook.ping event carrying the webhook as a GET returns it in plain JSON. */
  ping(p: Principal, webhookId: string): Promise<DeliveryJson>;
  /** Tells the queue's worker that deliveries are due (after their commit). */
  wake(): void;
}

declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    deliveries: DeliveryLog;
  }
}

const queued = (ctx: OperationContext, d: DeliveryJson | null) => {
  if (!d) throw ApiError.notFound();
  ctx.afterCommit(() => ctx.services.deliveries.wake());
  return d;
};

export const webhookCollectionOperations: Record<string, OperationDescriptor> = {
  eventTypes: {
    method: 'GET',
    path: 'event-types',
    summary: 'The event types a webhook may subscribe to ("*": all)',
    operationId: 'api_webhooks_event_types',
    output: { schema: Type.Array(Type.String()) },
    run: async (ctx) => eventTypes(ctx.model),
  },
};

export const webhookItemOperations: Record<string, OperationDescriptor> = {
  rotateSecret: {
    method: 'POST',
    path: 'rotate-secret',
    summary: 'Replaces the signing secret; the response is the webhook with the new secret, shown this once',
    operationId: 'api_webhooks_rotate_secret',
    output: 'record',
    async run(ctx) {
      const api = ctx.api!;
      const t = api.table('Webhook');
      const id = String(ctx.record!.id);
      const secret = newSecret();
      await ctx.tx!.update(t).set({ secret, updatedAt: new Date() }).where(and(eq(t.id, id), eq(t.companyId, ctx.principal.company.id)));
      return { ...(await api.read('Webhook', id)), secret };
    },
  },
  deliveries: {
    method: 'GET',
    path: 'deliveries',
    summary: 'The deliveries of a webhook, newest first',
    description: `Deliveries. X-Total-Count gives their number up to ${MAX_COUNTED.toLocaleString('en-US')} (beyond it the header is absent); a Link header (rel="next") names the next page by a cursor while there is one.`,
    operationId: 'api_webhooks_deliveries',
    query: DeliveryQuery,
    output: { schema: Delivery, many: true },
    graphql: 'webhookDeliveries',
    // The application's settings page of webhooks, with each one's delivery log (web/app/settings/).
    present: { view: 'deliveries' },
    run: (ctx) => ctx.services.deliveries.page(ctx.principal, String(ctx.record!.id), ctx.args as DeliveryQuery),
  },
  retry: {
    method: 'POST',
    path: 'deliveries/{delivery}/retry',
    summary: 'Queues a delivery for an attempt now',
    operationId: 'api_webhooks_delivery_retry',
    status: 202,
    output: { schema: Delivery },
    graphql: 'retryWebhookDelivery',
    run: async (ctx) => queued(ctx, await ctx.services.deliveries.retry(ctx.tx!, ctx.principal, String(ctx.record!.id), ctx.params.delivery!)),
  },
  ping: {
    method: 'POST',
    path: 'ping',
    summary: 'Sends a webhook.ping event to this webhook',
    operationId: 'api_webhooks_ping',
    status: 202,
    output: { schema: Delivery },
    events: ['webhook.ping'],
    // One insert after the webhook's read: nothing to hold a transaction for.
    transaction: false,
    run: async (ctx) => queued(ctx, await ctx.services.deliveries.ping(ctx.principal, String(ctx.record!.id))),
  },
};
