// Prints the statements one request of a scenario runs on our service (full texts, from pg_stat_statements).
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { workload, type ScenarioId } from '../scenarios.ts';
import { startOurs } from '../servers.ts';
const kept = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const admin = postgres(kept.url, { max: 1, onnotice: () => {} });
await admin`create extension if not exists pg_stat_statements`;
const o = await startOurs({ databaseUrl: kept.url });
try {
  for (const id of process.argv.slice(3) as ScenarioId[]) {
    const wl = workload(id, 'ours', kept.data)!;
    const r0 = wl.nth(0);
    await fetch(o.url + r0.path, { method: r0.method, headers: r0.headers, body: r0.body });
    await new Promise((r) => setTimeout(r, 300));
    await admin`select pg_stat_statements_reset()`;
    const r = wl.nth(1);
    await fetch(o.url + r.path, { method: r.method, headers: r.headers, body: r.body });
    await new Promise((r) => setTimeout(r, 300));
    for (const s of await admin`select calls, toplevel, query from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'`) console.log(`-- ${id} calls ${s.calls} ${s.toplevel ? 'top' : 'nested'}\n${s.query};\n`);
  }
} finally {
  await o.stop();
  await admin.end();
}
