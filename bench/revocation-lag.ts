// How long after a change committed elsewhere another instance stops honouring a cached token,
// on PostgreSQL without Redis (the token cache's notifications, server/access/invalidation.ts).
// Two instances on a fresh database; each round caches a token on instance b, then deletes it
// with plain SQL (as an operator would, outside any instance) and polls b until it answers 401.
// A revocation made through the API needs no such bound: the revoking request answers only once
// every listening instance has applied it (test/token-cache-notify.test.ts).
//
//   npx tsx bench/revocation-lag.ts [rounds]        (BENCH_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres)
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { loadConfig } from '../server/config.ts';
import { tokenCreate, userCreate } from '../server/cli/commands.ts';
import { openDatabase } from '../server/db.ts';
import { startServer } from '../server/serve.ts';

const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const rounds = Number(process.argv[2] ?? 30);
const name = `lag_${randomBytes(5).toString('hex')}`;
const root = postgres(admin, { max: 1, onnotice: () => {} });
await root.unsafe(`create database ${name}`);
const u = new URL(admin);
u.pathname = `/${name}`;
const url = u.toString();
const sql = postgres(url, { max: 1, onnotice: () => {} });
const config = { ...loadConfig({ LOG_LEVEL: 'silent', SCHEDULER: 'off', RATE_LIMIT_MAX: '1000000' }), port: 0, databaseUrl: url };
const a = await startServer(config);
const b = await startServer(config);
const lags: number[] = [];
try {
  const ctx = { db: a.database.db };
  await userCreate(ctx, { email: 'lag@example.com', password: 'password123', company: 'Lag' });
  const get = (token: string) => fetch(`${b.url}/api/taxes`, { headers: { 'x-api-token': token } }).then(async (r) => (await r.arrayBuffer(), r.status));
  for (let i = 0; i < rounds; i++) {
    const token = (await tokenCreate(ctx, { email: 'lag@example.com', company: 'Lag', name: `t${i}` })).trim();
    if ((await get(token)) !== 200 || (await get(token)) !== 200) throw new Error('token not accepted');
    await sql`delete from api_tokens where name = ${`t${i}`}`;
    const committed = performance.now();
    let polls = 0;
    while ((await get(token)) !== 401) {
      if (++polls > 5000) throw new Error('still accepted after 5000 polls');
    }
    lags.push(performance.now() - committed);
  }
} finally {
  await a.stop();
  await b.stop();
  await sql.end();
  await root.unsafe(`drop database if exists ${name} with (force)`);
  await root.end();
}
lags.sort((x, y) => x - y);
const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!.toFixed(1);
process.stdout.write(`${rounds} revocations by SQL outside the instances; time until the other instance answered 401 (ms, including that request): median ${at(0.5)}, p90 ${at(0.9)}, max ${lags.at(-1)!.toFixed(1)}\n`);
