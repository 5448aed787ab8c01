// The API token resource's storage and activity (resources/api-token.ts): its provider and
// processor over token-service.ts, which holds the rules for /api/api-tokens and the /profile/api
// page alike, and the summary and history its declared operations answer with.
import { escapeLike } from '../../engine/read/conditions.ts';
import type { FastifyBaseLogger } from 'fastify';
import { ilike, or } from 'drizzle-orm';
import type { Db } from '../../engine/types.ts';
import type { ResourceStorage } from '../../engine/custom.ts';
import type { TokenActivity } from '../../resources/api-token.ts';
import type { HistoryRecorder } from '../history.ts';
import { apiTokens } from '../schema.ts';
import { createToken, dailyUsage, historyFilters, listTokens, ownerOf, ownToken, recOf, revokeTokens, tokenHistory, tokenSummary, updateToken, type TokenColumn } from './token-service.ts';

/**
 * The token resource's storage: reads see this instance's requests so far (its queued history
 * is written first); a revocation is told to every instance (`revoked`).
 */
export function tokenStorage(o: { settle(): Promise<void>; revoked(tokenId: string): Promise<void> }): ResourceStorage {
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

/** The summary and history the token's declared operations answer with; reads see this instance's requests so far. */
export function tokenActivity(o: { db: Db; settle(): Promise<void>; clock(): number }): TokenActivity {
  return {
    async summary(p) {
      await o.settle();
      return tokenSummary(o.db, ownerOf(p), o.clock());
    },
    async history(_p, tokenId, query) {
      const filters = historyFilters(query);
      await o.settle();
      return tokenHistory(o.db, tokenId, filters);
    },
    async daily(p, tokenId) {
      const token = await ownToken(o.db, ownerOf(p), tokenId);
      // Flushed first: usage_count is compared with the stored history.
      await o.settle();
      return dailyUsage(o.db, token, o.clock());
    },
  };
}

/** Writes this instance's queued request history before a read, so the read sees it. */
export async function settleHistory(history: HistoryRecorder, logged: { log: FastifyBaseLogger }): Promise<void> {
  try {
    await history.flush();
  } catch (err) {
    logged.log.warn({ err }, 'Request history not written yet; answering with what is stored');
  }
}
