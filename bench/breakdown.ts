// Where a request's CPU goes, ours against the hand-written baseline (issue 48):
//
//   npx tsx bench/breakdown.ts --database-url postgres://postgres@127.0.0.1:5448/postgres \
//     [--scenarios S1,S2,S3] [--duration 10] [--warmup 3] [--connections 32] [--rounds 2] \
//     [--invoices 20000] [--out bench/results/issue-48-breakdown.md]
//
// For each scenario, in one run:
// 1. the two servers' timed runs alternate (baseline, ours | ours, baseline | …, `--rounds`), each
//    measured by CPU per request from /proc (the server process and the PostgreSQL backends of the
//    bench database), req/s, and, when pg_stat_statements is loaded (shared_preload_libraries),
//    what PostgreSQL ran per request: calls, execution and planning time and rows of each
//    statement. Without the extension, the statements are counted on the wire (bench/pgcount.ts)
//    in a sequential pass instead, and their times are not known (the report says which);
// 2. then our service alone, started again with --cpu-prof, for one more run of the same length:
//    its profile, restricted to that run's time, is mapped by bench/profile.ts to phases
//    (authentication, rate limit, history, window, statement building, rendering, serialisation,
//    driver, HTTP/fastify, GC, …), and each phase's share is applied to the CPU per request of
//    the unprofiled runs (the profiler itself costs a little).
// The load average is recorded with every run. Results: markdown to --out, JSON next to it.
import { writeFileSync, mkdirSync, readdirSync, statSync, rmSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { CountingProxy, perRequest } from './pgcount.ts';
import { phasesOfProfile, type PhaseShare } from './profile.ts';
import { SCENARIOS, workload, WRITES, type ScenarioId, type Workload } from './scenarios.ts';
import { createBenchDatabase, seed, type Seeded } from './seed.ts';
import { cpuMsOf, ROOT, startBaseline, startOurs, type ServerName, type ServerProcess } from './servers.ts';

const { values: flags } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    scenarios: { type: 'string', default: 'S1,S2,S3' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '2' },
    invoices: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '1000' },
    'no-profile': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
  strict: true,
});

const adminUrl = flags['database-url'] ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const duration = Number(flags.duration);
const warmup = Number(flags.warmup);
const connections = Number(flags.connections);
const rounds = Number(flags.rounds);
const scenarios = flags.scenarios!.split(',').map((s) => s.trim().toUpperCase()) as ScenarioId[];
const out = flags.out ?? `${ROOT}bench/results/breakdown.md`;
const log = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

interface StatementRow {
  query: string;
  toplevel: boolean;
  calls: number;
  execMs: number;
  planMs: number;
  rows: number;
}

interface Run {
  server: ServerName;
  reqPerSec: number;
  ok: number;
  serverMs: number;
  postgresMs: number;
  load: string;
  statements?: StatementRow[];
}

interface ScenarioReport {
  id: ScenarioId;
  title: string;
  runs: Run[];
  /** Statements per request counted on the wire (sequential pass), per server. */
  wire: Partial<Record<ServerName, { statements: number; txControl: number; roundTrips: number; texts: string[] }>>;
  phases?: Partial<Record<ServerName, { shares: PhaseShare[]; samples: number; load: string }>>;
}

async function main() {
  log(`== breakdown: ${scenarios.join(',')}, ${connections} connections, ${duration} s runs, ${rounds} alternating rounds; load average ${load()}`);
  const db = await createBenchDatabase(adminUrl);
  const admin = postgres(db.url, { max: 1, onnotice: () => {} });
  const running: ServerProcess[] = [];
  try {
    const data = await seed(db.url, { clients: Number(flags.clients), invoices: Number(flags.invoices), maxLines: 10 });
    log(`   seeded ${db.name} in ${(data.ms / 1000).toFixed(1)} s`);
    const [{ at: seededAt }] = (await admin`select max(created_at)::text as at from invoices`) as unknown as [{ at: string }];
    // The extension can be created where it is not preloaded, and then fails on its first use.
    const pgss = await admin`create extension if not exists pg_stat_statements`
      .then(async () => (await admin`select pg_stat_statements_reset()`, true))
      .catch(() => false);
    log(`   pg_stat_statements: ${pgss ? 'loaded' : 'not loadable here (needs shared_preload_libraries): statements counted on the wire only'}`);
    const resetWrites = async () => {
      await sleep(500);
      await admin`delete from invoices where created_at > ${seededAt}::timestamptz`;
      await admin`update engine_sequences set value = (select coalesce(max(substring(number from 5)::int), 0) from invoices where number ~ '^INV-[0-9]+$') where name = 'Invoice.number'`;
      await admin`vacuum analyze invoices, invoice_lines`;
    };
    const start = (name: ServerName, url = db.url, profileDir?: string) =>
      name === 'ours'
        ? startOurs({ databaseUrl: url, nodeFlags: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] })
        : startBaseline({ databaseUrl: url, companyId: data.companyId, nodeFlags: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });

    const reports: ScenarioReport[] = [];
    // The wire count, sequentially, through the counting proxy: statements and their texts per request.
    const wire = await countOnTheWire(db.url, data, start);
    const servers = new Map<ServerName, ServerProcess>();
    for (const name of ['baseline', 'ours'] as const) {
      const p = await start(name);
      servers.set(name, p);
      running.push(p);
    }
    for (const id of scenarios) {
      const s = SCENARIOS.find((x) => x.id === id)!;
      const report: ScenarioReport = { id, title: s.title, runs: [], wire: wire.get(id) ?? {} };
      reports.push(report);
      const warm = new Set<ServerName>();
      for (let round = 0; round < rounds; round++) {
        const order: ServerName[] = round % 2 === 0 ? ['baseline', 'ours'] : ['ours', 'baseline'];
        for (const name of order) {
          const server = servers.get(name)!;
          const wl = workload(id, name, data)!;
          if (!warm.has(name) && warmup > 0) await hammer(server, wl, warmup);
          warm.add(name);
          if (WRITES.includes(id)) await resetWrites();
          await sleep(500);
          const run = await timed(admin, server, wl, pgss);
          report.runs.push(run);
          log(`  ${id} ${name}: ${Math.round(run.reqPerSec)} req/s, CPU ms/req server ${run.serverMs.toFixed(3)} + PostgreSQL ${run.postgresMs.toFixed(3)}; load ${run.load}`);
          if (WRITES.includes(id)) await resetWrites();
        }
      }
    }
    for (const p of servers.values()) await p.stop();

    if (!flags['no-profile']) {
      for (const report of reports) {
        for (const name of ['ours', 'baseline'] as const) {
          const dir = `${ROOT}bench/results/profiles/breakdown-${report.id}-${name}`;
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true });
          const p = await start(name, db.url, dir);
          running.push(p);
          const wl = workload(report.id, name, data)!;
          if (warmup > 0) await hammer(p, wl, warmup);
          if (WRITES.includes(report.id)) await resetWrites();
          await sleep(500);
          const from = process.hrtime.bigint();
          await hammer(p, wl, duration);
          const to = process.hrtime.bigint();
          const at = load();
          await p.stop();
          if (WRITES.includes(report.id)) await resetWrites();
          const file = newestProfile(dir);
          if (!file) {
            log(`  ${report.id} ${name}: no CPU profile written`);
            continue;
          }
          const { shares, samples } = phasesOfProfile(file, { fromUs: Number(from / 1000n), toUs: Number(to / 1000n) });
          (report.phases ??= {})[name] = { shares, samples, load: at };
          log(`  ${report.id} ${name} profile: ${samples} samples in the timed run; load ${at}`);
        }
      }
    }

    const md = markdown(reports, pgss);
    mkdirSync(out.replace(/\/[^/]*$/, ''), { recursive: true });
    writeFileSync(out, md);
    writeFileSync(out.replace(/\.md$/, '.json'), `${JSON.stringify({ date: new Date().toISOString(), database: adminUrl.replace(/\/[^/]*$/, '/…'), pgStatStatements: pgss, options: { connections, duration, warmup, rounds }, machine: { cores: os.cpus().length }, reports }, null, 2)}\n`);
    log(`\n${md}`);
  } finally {
    for (const p of running) await p.stop().catch(() => {});
    await admin.end({ timeout: 5 }).catch(() => {});
    await db.drop().catch(() => {});
  }
}

function newestProfile(dir: string): string | undefined {
  // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the main thread.
  return readdirSync(dir)
    .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .map((f) => `${dir}/${f}`)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

async function countOnTheWire(url: string, data: Seeded, start: (name: ServerName, url: string) => Promise<ServerProcess>) {
  const target = new URL(url);
  const proxy = new CountingProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.start();
  const via = new URL(url);
  via.host = `127.0.0.1:${proxy.port}`;
  const result = new Map<ScenarioId, ScenarioReport['wire']>();
  try {
    for (const name of ['baseline', 'ours'] as const) {
      const server = await start(name, via.toString());
      try {
        for (const id of scenarios) {
          const wl = workload(id, name, data)!;
          for (let i = 0; i < 3; i++) await send(server.url, wl, i); // warm: statements prepared, tokens cached
          await sleep(300);
          const before = proxy.snapshot();
          proxy.trace = [];
          const n = 30;
          for (let i = 3; i < 3 + n; i++) await send(server.url, wl, i);
          await sleep(300); // the history's flush (every 100 ms) lands within the pass
          const per = perRequest(before, proxy.snapshot(), n);
          const texts = [...new Set(proxy.trace.map((q) => q.replace(/\s+/g, ' ').slice(0, 160)))];
          proxy.trace = null;
          const row = result.get(id) ?? {};
          row[name] = { statements: per.statements, txControl: per.begins + per.txControl, roundTrips: per.roundTrips, texts };
          result.set(id, row);
          log(`  ${id} ${name}: ${per.statements.toFixed(2)} statements + ${(per.begins + per.txControl).toFixed(2)} tx control per request (wire, sequential)`);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await proxy.close();
  }
  return result;
}

async function send(base: string, wl: Workload, i: number) {
  const r = wl.nth(i);
  const res = await fetch(base + r.path, { method: r.method, headers: r.headers, body: r.body });
  const body = await res.text();
  const v = wl.check(i, res.status, body);
  if (v.error) throw new Error(`wrong response: ${v.error}`);
}

async function hammer(server: ServerProcess, wl: Workload, seconds: number) {
  let i = 0;
  return autocannon({
    url: server.url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [{ setupRequest: (req) => ({ ...req, ...wl.nth(i++) }) }],
  });
}

async function backends(admin: postgres.Sql): Promise<number[]> {
  const rows = await admin`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return rows.map((r) => r.pid as number);
}

async function timed(admin: postgres.Sql, server: ServerProcess, wl: Workload, pgss: boolean): Promise<Run> {
  if (pgss) await admin`select pg_stat_statements_reset()`;
  const pids = await backends(admin);
  const before = { server: cpuMsOf(server.pid), db: new Map(pids.map((p) => [p, cpuMsOf(p)])) };
  const result = await hammer(server, wl, duration);
  const after = { server: cpuMsOf(server.pid), db: new Map((await backends(admin)).map((p) => [p, cpuMsOf(p)])) };
  let dbMs = 0;
  for (const [pid, ms] of after.db) dbMs += ms - (before.db.get(pid) ?? 0);
  const ok = result['2xx'];
  const run: Run = { server: server.name, reqPerSec: ok / result.duration, ok, serverMs: (after.server - before.server) / ok, postgresMs: dbMs / ok, load: load() };
  if (pgss) {
    const rows = await admin`select toplevel, calls::float8 as calls, total_exec_time as exec, total_plan_time as plan, rows::float8 as rows,
        regexp_replace(query, '[[:space:]]+', ' ', 'g') as q
      from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
        and query not like '%pg_stat_statements%' and query not like '%pg_stat_activity%'
      order by total_exec_time + total_plan_time desc`;
    run.statements = rows.map((r) => ({ query: String(r.q), toplevel: r.toplevel !== false, calls: Number(r.calls), execMs: Number(r.exec), planMs: Number(r.plan), rows: Number(r.rows) }));
  }
  return run;
}

const f3 = (n: number) => n.toFixed(3);
const f2 = (n: number) => n.toFixed(2);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function markdown(reports: ScenarioReport[], pgss: boolean): string {
  const lines: string[] = [];
  for (const r of reports) {
    lines.push(`### ${r.id} ${r.title}`, '');
    lines.push('| run | server | req/s | CPU ms/req server | CPU ms/req PostgreSQL | load average |', '|--:|---|--:|--:|--:|---|');
    r.runs.forEach((run, i) => lines.push(`| ${i + 1} | ${run.server} | ${Math.round(run.reqPerSec)} | ${f3(run.serverMs)} | ${f3(run.postgresMs)} | ${run.load} |`));
    const side = (n: ServerName) => r.runs.filter((x) => x.server === n);
    const b = side('baseline');
    const o = side('ours');
    const cpu = (xs: Run[]) => mean(xs.map((x) => x.serverMs + x.postgresMs));
    // Each round's ours ÷ baseline, then their mean: runs seconds apart see the same machine.
    const pairs = o.map((x, i) => ({ rps: x.reqPerSec / b[i]!.reqPerSec, cpu: (x.serverMs + x.postgresMs) / (b[i]!.serverMs + b[i]!.postgresMs) }));
    lines.push('', `ours ÷ baseline: req/s ${pairs.map((p) => f2(p.rps)).join(', ')} (mean ${f2(mean(pairs.map((p) => p.rps)))}); CPU per request ${pairs.map((p) => f2(p.cpu)).join(', ')} (mean ${f2(mean(pairs.map((p) => p.cpu)))}); server ${f3(mean(o.map((x) => x.serverMs)))} vs ${f3(mean(b.map((x) => x.serverMs)))} ms, PostgreSQL ${f3(mean(o.map((x) => x.postgresMs)))} vs ${f3(mean(b.map((x) => x.postgresMs)))} ms (total ${f3(cpu(o))} vs ${f3(cpu(b))}).`, '');
    for (const n of ['baseline', 'ours'] as const) {
      const w = r.wire[n];
      if (w) lines.push(`Wire (${n}, 30 sequential requests): ${f2(w.statements)} statements + ${f2(w.txControl)} BEGIN/COMMIT, ${f2(w.roundTrips)} round trips per request.`);
    }
    lines.push('');
    if (pgss) {
      for (const n of ['baseline', 'ours'] as const) {
        const runs = side(n).filter((x) => x.statements);
        const total = runs.reduce((a, x) => a + x.ok, 0);
        const by = new Map<string, StatementRow>();
        for (const run of runs) {
          for (const s of run.statements!) {
            const k = `${s.toplevel ? 'T' : 'N'}|${s.query}`;
            const g = by.get(k) ?? { ...s, calls: 0, execMs: 0, planMs: 0, rows: 0 };
            g.calls += s.calls;
            g.execMs += s.execMs;
            g.planMs += s.planMs;
            g.rows += s.rows;
            by.set(k, g);
          }
        }
        const top = [...by.values()].sort((x, y) => y.execMs + y.planMs - (x.execMs + x.planMs));
        const sum = top.filter((s) => s.toplevel).reduce((a, s) => a + s.execMs + s.planMs, 0);
        const calls = top.filter((s) => s.toplevel).reduce((a, s) => a + s.calls, 0);
        lines.push(`pg_stat_statements, ${n} (${total} requests): ${f2(calls / total)} top-level statements per request, ${f3(sum / total)} ms of execution + planning per request`, '');
        lines.push('| calls/req | exec ms/req | plan ms/req | rows/req | level | statement |', '|--:|--:|--:|--:|---|---|');
        for (const s of top.slice(0, 12)) {
          if ((s.execMs + s.planMs) / total < 0.0005 && s.calls / total < 0.005) continue;
          lines.push(`| ${f3(s.calls / total)} | ${f3(s.execMs / total)} | ${f3(s.planMs / total)} | ${f2(s.rows / total)} | ${s.toplevel ? 'top' : 'nested'} | \`${s.query.slice(0, 140).replace(/\|/g, '\\|')}${s.query.length > 140 ? '…' : ''}\` |`);
        }
        lines.push('');
      }
    }
    if (r.phases?.ours) {
      const ms = (n: ServerName) => mean(side(n).map((x) => x.serverMs));
      const share = (n: ServerName, phase: string) => r.phases?.[n]?.shares.find((p) => p.phase === phase)?.share ?? 0;
      const phases = [...new Set([...(r.phases.ours?.shares ?? []), ...(r.phases.baseline?.shares ?? [])].map((p) => p.phase))];
      phases.sort((a, b) => share('ours', b) * ms('ours') - share('ours', a) * ms('ours'));
      lines.push(
        `The servers' CPU by phase (a profile of each in a separate ${duration} s run: ours ${r.phases.ours.samples} samples at load ${r.phases.ours.load}${r.phases.baseline ? `, baseline ${r.phases.baseline.samples} at ${r.phases.baseline.load}` : ''}; ms/req = share × the CPU per request measured above without the profiler, ${f3(ms('ours'))} and ${f3(ms('baseline'))} ms):`,
        '',
      );
      lines.push('| phase | ours share | ours ms/req | baseline ms/req | where in ours (share of all its samples) |', '|---|--:|--:|--:|---|');
      for (const phase of phases) {
        const o = share('ours', phase);
        const b = share('baseline', phase);
        if (o < 0.005 && b < 0.005) continue;
        const top = r.phases.ours.shares.find((p) => p.phase === phase)?.top ?? [];
        lines.push(`| ${phase} | ${(o * 100).toFixed(1)} % | ${f3(o * ms('ours'))} | ${f3(b * ms('baseline'))} | ${top.map(([w, x]) => `${w} ${(x * 100).toFixed(1)} %`).join('; ')} |`);
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
