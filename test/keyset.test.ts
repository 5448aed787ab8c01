// Keyset cursors (engine/keyset.ts, CONTRACT §10): paging forwards and backwards through a
// collection under every order — ties, nulls, mixed directions — visits every record exactly
// once while records are inserted and deleted between pages, and a forged cursor is a 400.
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldValues } from '../engine/types.ts';
import { ApiError } from '../engine/errors.ts';
import { decodeCursor, encodeCursor, orderBy, seekRead } from '../engine/keyset.ts';
import type { Order } from '../engine/query.ts';
import { uuidv7 } from '../engine/uuid.ts';
import { model, tables } from '../server/model.ts';
import { rowsOf } from '../server/db.ts';
import { client, startTestServer, tokenFor, type TestServer } from './helpers.ts';

let t: TestServer;
let companyId: string;
let clientId: string;
const r = model.get('Invoice');
const table = tables.get(r);

/** A deterministic generator, so a failure can be replayed. */
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

async function insertOne(): Promise<string> {
  const id = uuidv7();
  const date = pick(['2026-01-01', '2026-01-02', '2026-01-03']);
  await t.db.database.db.insert(table).values({
    id, companyId, client: clientId, status: 'draft', discountType: 'none', discountValue: '0',
    number: rnd() < 0.3 ? null : `N-${Math.floor(rnd() * 1e6)}-${id.slice(-4)}`,
    invoiceDate: date,
    dueDate: rnd() < 0.3 ? null : pick(['2026-02-01', '2026-02-02', '2026-03-01']),
    total: pick([0, 100, 100, 250, 999]),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, pick([0, 1, 2]))),
  } as never);
  return id;
}

beforeAll(async () => {
  t = await startTestServer();
  const api = client(t, await tokenFor(t, { email: 'owner@keyset.test', company: 'Keyset Co' }));
  const c = await api.post('/api/clients', { name: 'Acme' });
  clientId = c.body.id;
  companyId = rowsOf<{ id: string }>(await t.db.database.db.execute(sql`select company_id::text as id from clients where id = ${clientId}`))[0]!.id;
  for (let i = 0; i < 45; i++) await insertOne();
});
afterAll(() => t.close());

/**
 * One page after `cursor` (forwards) or before it (backwards), from the start or the end without
 * one, read as the engine reads pages: `seekRead`, the seek's index ranges each ordered and limited.
 */
async function page(order: Order[], size: number, direction: 'forwards' | 'backwards', cursor?: string): Promise<FieldValues[]> {
  const backwards = direction === 'backwards';
  const side = backwards ? 'before' : 'after';
  const pos = cursor === undefined ? undefined : decodeCursor(r, order, cursor, side);
  const read = seekRead(r, table, order, pos, side, (v) => sql`${v}`, backwards, sql`${size}::int`, (cond) => sql`select * from ${table} where ${eq(table.companyId, companyId)} and ${cond}`, sql`${table}`);
  const ids = rowsOf<{ id: string }>(await t.db.database.db.execute(sql`select ${table.id}::text as id from ${read} order by ${sql.join(orderBy(table, order, backwards), sql`, `)}`)).map((x) => x.id);
  const byId = new Map(((ids.length ? await t.db.database.db.select().from(table).where(inArray(table.id, ids)) : []) as FieldValues[]).map((x) => [String(x.id), x]));
  const rows = ids.map((id) => byId.get(id)!);
  return backwards ? rows.reverse() : rows;
}

/** The whole collection in `order`, in one read. */
async function all(order: Order[]): Promise<string[]> {
  const rows = (await t.db.database.db.select({ id: table.id }).from(table).where(eq(table.companyId, companyId)).orderBy(...orderBy(table, order))) as { id: string }[];
  return rows.map((x) => x.id);
}

const ORDERS: Order[][] = [
  [],
  ...r.orders.flatMap((field) => (['asc', 'desc'] as const).map((dir) => [{ field, dir }])),
  [{ field: 'dueDate', dir: 'asc' }, { field: 'total', dir: 'desc' }],
  [{ field: 'number', dir: 'desc' }, { field: 'invoiceDate', dir: 'asc' }],
];

describe('keyset cursors', () => {
  for (const order of ORDERS) {
    const label = order.map((o) => `${o.field} ${o.dir}`).join(', ') || 'the default order';
    for (const direction of ['forwards', 'backwards'] as const) {
      it(`visit every record exactly once ${direction} under ${label}, with inserts and deletes between pages`, async () => {
        const start = new Set(await all(order));
        const deleted = new Set<string>();
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let n = 0; n < 100; n++) {
          const got = await page(order, 7, direction, cursor);
          if (!got.length) break;
          if (direction === 'forwards') seen.push(...got.map((x) => String(x.id)));
          else seen.unshift(...got.map((x) => String(x.id)));
          const edge = direction === 'forwards' ? got.at(-1)! : got[0]!;
          cursor = encodeCursor(r, order, edge);
          // Between pages: one record removed anywhere, one added anywhere.
          const ids = await all(order);
          const victim = pick(ids);
          await t.db.database.db.delete(table).where(eq(table.id, victim));
          deleted.add(victim);
          await insertOne();
        }
        expect(new Set(seen).size).toBe(seen.length); // never twice
        for (const id of start) if (!deleted.has(id)) expect(seen).toContain(id); // every survivor once
        // And in the collection's order.
        const now = await all(order);
        const survivors = seen.filter((id) => now.includes(id));
        expect(survivors).toEqual(now.filter((id) => survivors.includes(id)));
      });
    }
  }

  it('the first page backwards from the end is the last page of the collection', async () => {
    const order: Order[] = [{ field: 'dueDate', dir: 'desc' }];
    const ids = await all(order);
    const last = await page(order, 5, 'backwards');
    expect(last.map((x) => x.id)).toEqual(ids.slice(-5));
    // and the page before it, through its first record's cursor, is the five before those
    const before = await page(order, 5, 'backwards', encodeCursor(r, order, last[0]!));
    expect(before.map((x) => x.id)).toEqual(ids.slice(-10, -5));
  });

  it('refuse malformed, forged and foreign cursors with a 400', async () => {
    const order: Order[] = [{ field: 'total', dir: 'desc' }];
    const [rec] = await page(order, 1, 'forwards');
    const good = encodeCursor(r, order, rec!);
    expect(decodeCursor(r, order, good, 'after').id).toBe(rec!.id);
    const forge = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const bad = [
      '', 'not a cursor', 'MTA', good.slice(0, -3), `${good}x!`, 'A'.repeat(5000),
      encodeCursor(r, [{ field: 'number', dir: 'desc' }], rec!), // another order's cursor
      forge(['total-', '100', rec!.id]), // a number as text
      forge(['total-', 1.5, rec!.id]),
      forge(['total-', null, rec!.id]), // total is never null
      forge(['total-', 100, 'not-a-uuid']),
      forge(['total-', 100]),
      forge({ total: 100 }),
    ];
    for (const c of bad) {
      let err: unknown;
      try {
        decodeCursor(r, order, c, 'after');
      } catch (e) {
        err = e;
      }
      expect(err, c).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
    }
  });
});
