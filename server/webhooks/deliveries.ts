// The webhooks' delivery log and queue as the service the webhook's declared operations use
// (resources/rules/webhook-operations.ts): a page of the log, retry now, ping. Tenancy and roles
// were checked by the engine before (the webhook was read as the caller).
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Principal } from '../../engine/types.ts';
import { ApiError } from '../../engine/errors.ts';
import type { Engine } from '../../engine/operations.ts';
import { MAX_PAGE_OFFSET } from '../../engine/query.ts';
import { cursorWindow, pageOf, reading } from '../../engine/read/window.ts';
import { isUuid } from '../../engine/validate.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { json } from '../../formats/json.ts';
import { MAX_COUNTED, type DeliveryJson, type DeliveryLog, type DeliveryQuery } from '../../resources/rules/webhook-operations.ts';
import { rowsOf } from '../db.ts';
import { payloadText } from './outbox.ts';
import { webhookDeliveries as d } from './schema.ts';

export { MAX_COUNTED };

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

function deliveryJson(row: Record<string, unknown>): DeliveryJson {
  return {
    id: row.id as string,
    eventId: row.eventId as string,
    type: row.type as string,
    status: row.status as string,
    attempts: row.attempts as number,
    responseStatus: (row.lastStatus as number | null) ?? null,
    lastError: (row.lastError as string | null) ?? null,
    durationMs: (row.lastDurationMs as number | null) ?? null,
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    createdAt: iso(row.createdAt)!,
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

export function deliveryLog(o: { db: Db; engine: Engine; wake(): void }): DeliveryLog {
  const { db, engine } = o;
  const r = engine.model.get('Webhook');
  return {
    wake: () => o.wake(),
    /**
     * A page of the webhook's deliveries, newest first: by page number (offsets up to
     * MAX_PAGE_OFFSET) or after a cursor (`after`, from the previous page's `next`), which costs
     * what the first page costs at any depth. Each filter is served by an index in the list's order
     * (drizzle/0010). The total is exact up to MAX_COUNTED and null beyond it: counting an
     * endpoint's whole log would cost what the log holds, not what the page returns.
     */
    async page(p: Principal, webhookId: string, q: DeliveryQuery) {
      // The parameters were read and checked by the operation runner (engine/declared.ts).
      const ipp = q.itemsPerPage ?? 30;
      const where: SQL[] = [eq(d.webhookId, webhookId), eq(d.companyId, p.company.id)];
      const statuses = [...(q.status ? [q.status] : []), ...(q['status[]'] ?? [])];
      if (statuses.length) where.push(inArray(d.status, statuses));
      const types = [...(q.type ? [q.type] : []), ...(q['type[]'] ?? [])];
      if (types.length) where.push(inArray(d.type, types));
      const after = q.after ?? null;
      let offset = 0;
      let page = where;
      if (after !== null) {
        const at = cursorPosition(after);
        if (!at) throw ApiError.badRequest('"after" is not a cursor of this list: use the "next" link of a previous page.');
        page = [...where, sql`(${d.createdAt}, ${d.id}) < (${at.createdAt}::timestamptz, ${at.id}::uuid)`];
      } else {
        const n = q.page ?? 1;
        offset = (n - 1) * ipp;
        if (offset > MAX_PAGE_OFFSET) throw ApiError.badRequest(`Page parameter is too large: page numbers reach offsets ((page - 1) × itemsPerPage) up to ${MAX_PAGE_OFFSET.toLocaleString('en-US')}. Follow the "next" links (cursors in "after") to read further.`);
      }
      // The page is a window of the log, read as the engine reads one (engine/read/window.ts): one
      // record more than the page says whether more follow.
      const w = cursorWindow('after', undefined, ipp);
      const rows = (await db.select(LOG_COLUMNS).from(d).where(and(...page)).orderBy(desc(d.createdAt), desc(d.id)).limit(reading(w).limit).offset(offset)) as Record<string, unknown>[];
      const { items, hasNextPage } = pageOf(w, rows, false, false);
      const last = items.at(-1);
      const next = hasNextPage && last ? cursorOf(last) : null;
      // A page by number that reached the end of the list has its total already (most logs fit one page).
      const ended = after === null && !hasNextPage && (rows.length > 0 || offset === 0);
      const n = ended ? offset + rows.length : rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from (select 1 from ${d} where ${and(...where)} limit ${MAX_COUNTED + 1}) as x`))[0]!.n;
      return { items: items.map(deliveryJson), total: n > MAX_COUNTED ? null : n, next };
    },
    async retry(tx, p, webhookId, delivery) {
      if (!isUuid(delivery)) return null;
      // A delivery whose attempt is running right now keeps its lease; it is retried after it.
      const [row] = (await tx
        .update(d)
        .set({ status: 'pending', nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(d.id, delivery.toLowerCase()), eq(d.webhookId, webhookId), eq(d.companyId, p.company.id)))
        .returning(LOG_COLUMNS)) as Record<string, unknown>[];
      return row ? deliveryJson(row) : null;
    },
    async ping(p, webhookId) {
      const hook = engine.json ? await engine.json.read(p, r, webhookId, json.projection!) : JSON.stringify(await engine.read(p, r, webhookId));
      const body = payloadText('webhook.ping', new Date(), hook);
      const [row] = (await db
        .insert(d)
        .values({ id: uuidv7(), companyId: p.company.id, webhookId, eventId: uuidv7(), type: 'webhook.ping', body, status: 'pending', attempts: 0, nextAttemptAt: sql`now()` as never })
        .returning(LOG_COLUMNS)) as Record<string, unknown>[];
      return deliveryJson(row!);
    },
  };
}
