// Ad-hoc A/B of our service's configurations on one seeded database, alternating runs:
//   npx tsx bench/experiments/variants.ts --scenario S1 --variant a: --variant b:DATABASE_POOL_SIZE=10 [--baseline]
import os from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { workload, WRITES, type ScenarioId } from '../scenarios.ts';
import { createBenchDatabase, seed, type Seeded } from '../seed.ts';
import { cpuMsOf, startBaseline, startOurs, type ServerProcess } from '../servers.ts';

const { values: f } = parseArgs({ options: { keep: { type: 'string' }, reuse: { type: 'string' }, 'database-url': { type: 'string' }, scenario: { type: 'string', multiple: true }, variant: { type: 'string', multiple: true }, baseline: { type: 'boolean', default: false }, duration: { type: 'string', default: '6' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '32' }, invoices: { type: 'string', default: '20000' } } });
const admin0 = f['database-url'] ?? 'postgres://postgres@127.0.0.1:5448/postgres';
// --keep FILE: seed, write {url, data} to FILE and keep the database; --reuse FILE: run on it.
const kept = f.reuse ? (JSON.parse(readFileSync(f.reuse, 'utf8')) as { url: string; data: Seeded }) : undefined;
const db = kept ? { name: '', url: kept.url, drop: async () => {} } : await createBenchDatabase(admin0);
const admin = postgres(db.url, { max: 1, onnotice: () => {} });
const data = kept?.data ?? (await seed(db.url, { clients: 1000, invoices: Number(f.invoices), maxLines: 10 }));
if (f.keep) {
  writeFileSync(f.keep, JSON.stringify({ url: db.url, data }));
  db.drop = async () => {};
}
const [{ at: seededAt }] = (await admin`select max(created_at)::text as at from invoices`) as unknown as [{ at: string }];
const servers: { label: string; p: ServerProcess }[] = [];
try {
  if (f.baseline) servers.push({ label: 'baseline', p: await startBaseline({ databaseUrl: db.url, companyId: data.companyId }) });
  for (const v of f.variant ?? ['default:']) {
    const [label, env] = [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];
    const saved = { ...process.env };
    for (const kv of env ? env.split(',') : []) process.env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
    servers.push({ label, p: await startOurs({ databaseUrl: db.url }) });
    process.env = saved;
  }
  for (const id of (f.scenario ?? (f.keep ? [] : ['S1'])) as ScenarioId[]) {
    const acc = new Map<string, { rps: number[]; cpu: number[]; srv: number[] }>();
    for (let round = 0; round < Number(f.rounds); round++) {
      const order = round % 2 ? [...servers].reverse() : servers;
      for (const s of order) {
        const wl = workload(id, s.p.name, data)!;
        let i = 0;
        const run = (d: number) => autocannon({ url: s.p.url, connections: Number(f.connections), duration: d, requests: [{ setupRequest: (req) => ({ ...req, ...wl.nth(i++) }) }] });
        if (round === 0) await run(2);
        const pids = (await admin`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`).map((r) => r.pid as number);
        const b = { s: cpuMsOf(s.p.pid), d: new Map(pids.map((p) => [p, cpuMsOf(p)])) };
        const r = await run(Number(f.duration));
        const pids2 = (await admin`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`).map((r) => r.pid as number);
        let dms = 0;
        for (const p of pids2) dms += cpuMsOf(p) - (b.d.get(p) ?? 0);
        const ok = r['2xx'];
        const a = acc.get(s.label) ?? { rps: [], cpu: [], srv: [] };
        a.rps.push(ok / r.duration);
        a.srv.push((cpuMsOf(s.p.pid) - b.s) / ok);
        a.cpu.push(dms / ok);
        acc.set(s.label, a);
        console.log(`${id} ${s.label}: ${Math.round(ok / r.duration)} req/s, server ${((cpuMsOf(s.p.pid) - b.s) / ok).toFixed(3)} + PG ${(dms / ok).toFixed(3)} ms/req, non2xx ${r.non2xx}, p50 ${r.latency.p50}; load ${os.loadavg()[0]!.toFixed(1)}`);
        if (WRITES.includes(id)) {
          await admin`delete from invoices where created_at > ${seededAt}::timestamptz`;
          await admin`vacuum analyze invoices, invoice_lines`;
        }
      }
    }
    const m = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    for (const [k, a] of acc) console.log(`== ${id} ${k}: mean ${Math.round(m(a.rps))} req/s, server ${m(a.srv).toFixed(3)} + PG ${m(a.cpu).toFixed(3)} = ${(m(a.srv) + m(a.cpu)).toFixed(3)} ms/req`);
  }
} finally {
  for (const s of servers) await s.p.stop();
  await admin.end();
  await db.drop();
}
