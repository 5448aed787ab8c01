// Request history written off the hot path: exact counts after a flush, nothing lost on stop()
// or SIGTERM during a burst, nothing lost while the database is briefly away, bounded storage.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import type { Db } from '../engine/types.ts';
import { call, client, freshDatabase, startTestServer, tokenFor, type TestDatabase, freePort } from './helpers.ts';

const PG = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function stored(db: Db, tokenValueName: string) {
  const [row] = rowsOf<{ id: string; usage: string | number; rows: string | number; month: string | number | null }>(
    await db.execute(sql`select t.id, t.usage_count as usage,
      (select count(*) from api_token_history h where h.token_id = t.id) as rows,
      (select sum(count) from api_token_monthly m where m.token_id = t.id) as month
      from api_tokens t where t.name = ${tokenValueName}`),
  );
  return { usage: Number(row!.usage), rows: Number(row!.rows), month: Number(row!.month ?? 0) };
}

const toClose: TestDatabase[] = [];
afterAll(async () => {
  for (const d of toClose) await d.drop();
});

describe('on one instance', () => {
  it('N requests give exactly N history entries and a usage count of N', async () => {
    const t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
    try {
      const token = await tokenFor(t, { email: 'n@a.test', company: 'A', name: 'n' });
      const N = 237;
      for (let i = 0; i < N; i += 40) await Promise.all(Array.from({ length: Math.min(40, N - i) }, (_, j) => call(t, j % 8 ? 'GET' : 'POST', '/api/taxes', { token, body: j % 8 ? undefined : { name: `tax ${i + j}`, rate: 1 } })));
      // Reading through the token API writes this instance's queue first.
      const me = (await client(t, token).get('/api/api-tokens')).body.member[0];
      expect(me.usageCount).toBe(N);
      // …and the read itself is written within a second.
      await expect.poll(() => stored(t.db.database.db, 'n'), { timeout: 3000, interval: 50 }).toEqual({ usage: N + 1, rows: N + 1, month: N + 1 });
    } finally {
      await t.close();
    }
  });

  it('stop() during a burst loses no entry', async () => {
    const db = await freshDatabase();
    toClose.push(db);
    const t = await startTestServer({ RATE_LIMIT_MAX: '100000' }, { db });
    const token = await tokenFor(t, { email: 'burst@a.test', company: 'A', name: 'burst' });
    let stopping: Promise<void> | undefined;
    let answered = 0;
    const requests = Array.from({ length: 400 }, (_, i) =>
      call(t, 'GET', `/api/taxes?i=${i}`, { token })
        .then((r) => {
          if (++answered === 100) stopping = t.running.stop();
          return r.status;
        })
        .catch(() => 0),
    );
    const statuses = await Promise.all(requests);
    await stopping;
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThanOrEqual(100);
    // Every request that was answered (authenticated) is stored; the rest never got in.
    expect(statuses.every((s) => s === 200 || s === 503 || s === 0)).toBe(true);
    expect(await stored(db.database.db, 'burst')).toEqual({ usage: ok, rows: ok, month: ok });
  });

  it('keeps at least the 1,000 newest entries per token, and counts exactly beyond them', async () => {
    const t = await startTestServer({ RATE_LIMIT_MAX: '100000' });
    try {
      const token = await tokenFor(t, { email: 'many@a.test', company: 'A', name: 'many' });
      const N = 1250;
      for (let i = 0; i < N; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => call(t, 'GET', `/api/n${i + j}`, { token })));
      const me = (await client(t, token).get('/api/api-tokens')).body.member[0];
      expect(me.usageCount).toBe(N);
      await expect.poll(async () => (await stored(t.db.database.db, 'many')).usage, { timeout: 3000, interval: 50 }).toBe(N + 1);
      const s = await stored(t.db.database.db, 'many');
      expect(s.month).toBe(N + 1);
      expect(s.rows).toBeGreaterThanOrEqual(1000);
      expect(s.rows).toBeLessThan(N);
      // The newest are kept: the last 1,000 requests' endpoints are all there.
      const kept = new Set(
        rowsOf<{ endpoint: string }>(await t.db.database.db.execute(sql`select h.endpoint from api_token_history h join api_tokens t on t.id = h.token_id where t.name = 'many'`)).map((r) => r.endpoint),
      );
      for (let i = N - 950; i < N; i++) expect(kept.has(`/api/n${i}`)).toBe(true);
      const summary = await client(t, token).get('/api/api-tokens/summary');
      expect(summary.body.apiCallsThisMonth).toBe(N + 1);
    } finally {
      await t.close();
    }
  });
});

describe('on PostgreSQL', () => {
  it('keeps the entries queued while the database is briefly away, and writes them when it is back', async () => {
    const db = await freshDatabase(PG);
    toClose.push(db);
    // Cached tokens and the in-memory rate limit: GET /api needs no database at all.
    const t = await startTestServer({ TOKEN_CACHE: 'on', RATE_LIMIT_MAX: '100000' }, { db });
    const admin = postgres(PG, { max: 1, onnotice: () => {} });
    const name = new URL(db.url!).pathname.slice(1);
    try {
      const token = await tokenFor(t, { email: 'away@a.test', company: 'A', name: 'away' });
      expect((await call(t, 'GET', '/api', { token })).status).toBe(200);
      await expect.poll(async () => (await stored(db.database.db, 'away')).rows, { timeout: 5000, interval: 50 }).toBe(1);

      await admin.unsafe(`alter database ${name} allow_connections false`);
      await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
      for (let i = 0; i < 50; i++) expect((await call(t, 'GET', '/api', { token })).status).toBe(200);
      // Several flushes fail meanwhile.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await call(t, 'GET', '/readyz')).status).toBe(503);
      await admin.unsafe(`alter database ${name} allow_connections true`);

      await expect.poll(async () => (await stored(db.database.db, 'away').catch(() => ({ rows: -1 }))).rows, { timeout: 10_000, interval: 200 }).toBe(51);
      expect(await stored(db.database.db, 'away')).toEqual({ usage: 51, rows: 51, month: 51 });
    } finally {
      await admin.unsafe(`alter database ${name} allow_connections true`);
      await admin.end();
      await t.running.stop();
    }
  });

  it('SIGTERM to a real server process during a burst loses no entry', async () => {
    const db = await freshDatabase(PG);
    toClose.push(db);
    const port = await freePort();
    const seed = await startTestServer({}, { db });
    const token = await tokenFor(seed, { email: 'sig@a.test', company: 'A', name: 'sig' });
    await seed.running.stop();

    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], {
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '100000', SCHEDULER: 'off', REDIS_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const base = { url: `http://127.0.0.1:${port}` };
    await expect.poll(async () => (await call(base, 'GET', '/healthz').catch(() => ({ status: 0 }))).status, { timeout: 30_000, interval: 200 }).toBe(200);

    let answered = 0;
    const exited = once(child, 'exit');
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        call(base, 'GET', `/api/taxes?i=${i}`, { token, headers: { 'user-agent': `burst-${randomBytes(2).toString('hex')}` } })
          .then((r) => {
            if (++answered === 80) child.kill('SIGTERM');
            return r.status;
          })
          .catch(() => 0),
      ),
    );
    const [code] = await exited;
    expect(code, stderr).toBe(0);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThanOrEqual(80);
    expect(await stored(db.database.db, 'sig')).toEqual({ usage: ok, rows: ok, month: ok });
  });
});
