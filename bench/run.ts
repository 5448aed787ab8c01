// `npm run bench`: seeds a fresh PostgreSQL database, starts our service, the hand-written REST
// baseline and PostGraphile on it, counts SQL statements per request in a sequential pass that
// also checks every response, then drives each server with autocannon and reports req/s,
// latency, errors, peak RSS and the ratio of ours to each scenario's anchor.
//
//   npm run bench                       full run (20,000 invoices, 50 connections, 10 s each)
//   npm run bench -- --smoke            seconds-long check that the harness works (CI)
//   npm run bench -- --duration 5 --connections 20 --scenarios S1,S2 --keep --profile
//   npm run bench -- --scenarios W1 --servers ours    creates without / with one webhook (and its queue)
//
// Exit status 1 only when the harness could not measure: a server crashed or did not start, or a
// scenario that should run answered no request correctly. Targets not met are a report.
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { CountingProxy, perRequest } from './pgcount.ts';
import { markdownTable, ratioOf, webhookLine, type Measurement, type Report, type ScenarioResult } from './report.ts';
import { SCENARIOS, workload, WRITES, type ScenarioId, type Workload } from './scenarios.ts';
import { BenchReceiver, createWebhook, deleteWebhook, deliveryUpdates, drain, queue, sampleQueue, walPosition } from './webhooks.ts';
import { createBenchDatabase, seed, type BenchDatabase, type Seeded } from './seed.ts';
import { cpuMsOf, oursEnv, postgraphileRuntime, ROOT, startBaseline, startOurs, startPostGraphile, type ServerName, type ServerProcess } from './servers.ts';
import { summariseProfile } from './profile.ts';
import { loadConfig } from '../server/config.ts';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    clients: { type: 'string' },
    invoices: { type: 'string' },
    'max-lines': { type: 'string' },
    calibrate: { type: 'string' },
    scenarios: { type: 'string' },
    servers: { type: 'string' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    binary: { type: 'boolean', default: false },
    out: { type: 'string' },
    'database-url': { type: 'string' },
    'pooler-url': { type: 'string' },
    'pooler-pid': { type: 'string' },
    'trace-sql': { type: 'boolean', default: false },
    size: { type: 'string' },
    reuse: { type: 'string' },
    alone: { type: 'string' },
    samples: { type: 'string' },
    'pg-statements': { type: 'boolean', default: false },
    pairs: { type: 'string' },
    rounds: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});

if (flags.help) {
  process.stdout.write(`Usage: npm run bench -- [--smoke] [--duration S] [--warmup S] [--connections N]
  [--clients N] [--invoices N] [--max-lines N] [--calibrate N] [--scenarios S1,S2,…]
  [--servers ours,baseline,postgraphile] [--keep] [--profile] [--binary] [--trace-sql] [--out FILE]
  [--database-url URL] [--pooler-url URL [--pooler-pid PID]] (ours also through a transaction pooler, e.g. PgBouncer, its runs alternating with the direct ones; the pooler's CPU counted apart)
  [--rounds N (alternating timed runs per server, default 3)] [--pg-statements] [--pairs N (W1: alternations without/with, default 2)]
       npm run bench -- --size N [--keep] [--reuse DATABASE] [--alone new|DATABASE] [--samples 7] [--invoices 20000]
  (scale mode: single-request latency for a company of N invoices and one of 20,000, and the ratio)
`);
  process.exit(0);
}

if (flags.size !== undefined) {
  const size = Number(flags.size);
  if (!Number.isInteger(size) || size < 1) throw new Error('--size must be a positive integer.');
  const { runScale } = await import('./scale.ts');
  process.exit(
    await runScale({
      size,
      small: Number(flags.invoices ?? 20_000),
      samples: Number(flags.samples ?? 7),
      keep: flags.keep,
      reuse: flags.reuse,
      alone: flags.alone,
      adminUrl: flags['database-url'] ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      out: flags.out ?? `${ROOT}bench/results/scale.json`,
    }),
  );
}

const smoke = flags.smoke;
const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
const opts = {
  duration: num(flags.duration, smoke ? 1 : 10),
  warmup: num(flags.warmup, smoke ? 0.5 : 3),
  connections: num(flags.connections, smoke ? 5 : 50),
  calibrate: num(flags.calibrate, smoke ? 5 : 30),
  rounds: num(flags.rounds, smoke ? 1 : 3),
  size: { clients: num(flags.clients, smoke ? 50 : 1000), invoices: num(flags.invoices, smoke ? 300 : 20_000), maxLines: num(flags['max-lines'], 10) },
  scenarios: (flags.scenarios ?? 'S1,S2,S3,S4,S5,S6,W1').split(',').map((s) => s.trim().toUpperCase()) as ScenarioId[],
  servers: (flags.servers ?? 'baseline,postgraphile,ours').split(',').map((s) => s.trim()) as ServerName[],
  adminUrl: flags['database-url'] ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  out: flags.out ?? `${ROOT}bench/results/${smoke ? 'smoke' : 'latest'}.json`,
};
for (const [k, v] of Object.entries({ duration: opts.duration, warmup: opts.warmup, connections: opts.connections, calibrate: opts.calibrate, ...opts.size })) {
  if (!Number.isFinite(v) || v < 0 || (k !== 'warmup' && v === 0)) throw new Error(`--${k} must be a positive number.`);
}

const log = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failures: string[] = [];

/** Sends one request with fetch and returns its status and body. */
async function send(base: string, r: ReturnType<Workload['nth']>): Promise<{ status: number; body: string }> {
  const res = await fetch(base + r.path, { method: r.method, headers: r.headers, body: r.body });
  return { status: res.status, body: await res.text() };
}

interface Ctx {
  db: BenchDatabase;
  data: Seeded;
  seededAt: string;
  admin: postgres.Sql;
}

/** Removes what S3 created, so every server and later scenario sees the seeded data set. */
async function resetWrites(c: Ctx): Promise<void> {
  await sleep(500); // requests still in flight when autocannon stopped
  await c.admin`delete from invoices where created_at > ${c.seededAt}::timestamptz`;
  // Whatever a straggler created after that keeps its number: the sequence continues past it.
  await c.admin`update engine_sequences set value = (select coalesce(max(substring(number from 5)::int), 0) from invoices where number ~ '^INV-[0-9]+$')
                where name = 'Invoice.number'`;
  await c.admin`vacuum analyze invoices, invoice_lines`;
}

type Plan = Map<ScenarioId, Map<ServerName, Measurement>>;

/**
 * The sequential pass, through the counting proxy: probes each scenario (a missing GraphQL
 * endpoint on our service makes S4/S5 "n/a"), checks every response and counts statements.
 */
async function calibrate(c: Ctx, servers: ServerName[], start: (name: ServerName, url: string) => Promise<ServerProcess>, plan: Plan) {
  const target = new URL(throughPooler(c.db.url));
  const proxy = new CountingProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.start();
  const viaProxy = new URL(throughPooler(c.db.url));
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  try {
    for (const name of servers) {
      let server: ServerProcess;
      try {
        server = await start(name, viaProxy.toString());
      } catch (e) {
        for (const [, row] of plan) {
          const m = row.get(name);
          if (m) Object.assign(m, { status: 'failed', reason: `did not start: ${(e as Error).message.split('\n')[0]}` });
        }
        failures.push(`${name} did not start: ${(e as Error).message}`);
        continue;
      }
      try {
        for (const [id, row] of plan) {
          const m = row.get(name);
          if (!m || m.status !== 'ok') continue;
          const wl = workload(id, name, c.data)!;
          const probe = await send(server.url, wl.nth(0));
          const verdict = wl.check(0, probe.status, probe.body);
          if (verdict.error) {
            if (name === 'ours' && (id === 'S4' || id === 'S5')) {
              m.status = 'n/a';
              m.reason = probe.status === 404 ? 'not available on this build' : `query not accepted on this build: ${verdict.error.slice(0, 160)}`;
              log(`  ${id} ${name}: ${m.reason}`);
            } else {
              m.status = 'failed';
              m.reason = verdict.error.slice(0, 200);
              failures.push(`${id} ${name}: ${verdict.error}`);
            }
            continue;
          }
          await sleep(300);
          const before = proxy.snapshot();
          let wrong = 0;
          let firstWrong: string | undefined;
          let noted = 0;
          let firstNote: string | undefined;
          for (let i = 1; i <= opts.calibrate; i++) {
            if (i === 1 && flags['trace-sql']) proxy.trace = [];
            const res = await send(server.url, wl.nth(i));
            if (proxy.trace) {
              await sleep(300);
              log(`  ${id} ${name}, the statements of one request:\n${proxy.trace.map((q) => `    ${q.replace(/\s+/g, ' ')}`).join('\n')}`);
              proxy.trace = null;
            }
            const v = wl.check(i, res.status, res.body);
            if (v.error) {
              wrong++;
              firstWrong ??= v.error;
            }
            if (v.note) {
              noted++;
              firstNote ??= v.note;
            }
          }
          await sleep(300); // buffered writes (request history) are flushed within this
          const per = perRequest(before, proxy.snapshot(), opts.calibrate);
          m.sql = { statements: per.statements, txControl: per.begins + per.txControl, roundTrips: per.roundTrips };
          m.checked = { requests: opts.calibrate, wrong, ...(firstWrong ? { firstWrong } : {}) };
          if (noted) m.notes = [`${noted} of ${opts.calibrate} checked responses: ${firstNote} (the first)`];
          if (wrong === opts.calibrate) {
            m.status = 'failed';
            m.reason = `every checked response was wrong: ${firstWrong}`;
            failures.push(`${id} ${name}: ${m.reason}`);
          }
          log(`  ${id} ${name}: ${per.statements.toFixed(2)} statements, ${(per.begins + per.txControl).toFixed(2)} tx control, ${per.roundTrips.toFixed(2)} round trips per request; ${wrong}/${opts.calibrate} wrong`);
          if (WRITES.includes(id)) await resetWrites(c);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await proxy.close();
  }
}

/**
 * --pooler-url: a transaction pooler (PgBouncer) in front of the bench database (its name
 * replaces the pooler URL's): our service runs twice, on PostgreSQL directly and through the
 * pooler (POOLED), their timed runs alternating like any two servers'; --pooler-pid: that
 * pooler's process, whose CPU is counted per request of the pooled runs, apart from the others.
 */
function throughPooler(url: string): string {
  if (!flags['pooler-url']) return url;
  const u = new URL(flags['pooler-url']);
  u.pathname = new URL(url).pathname;
  return u.toString();
}
const poolerPid = flags['pooler-pid'] ? Number(flags['pooler-pid']) : undefined;
/** The label of our service's measurements through the pooler. */
const POOLED = 'ours through the pooler';

/** The PostgreSQL backends serving the bench database, other than the harness's own. */
async function backends(admin: postgres.Sql): Promise<number[]> {
  const rows = await admin`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return rows.map((r) => r.pid as number);
}

/** CPU used by the server process and by its PostgreSQL backends, in ms. */
async function cpuNow(admin: postgres.Sql, server: ServerProcess) {
  const pids = await backends(admin);
  return { server: cpuMsOf(server.pid), db: new Map(pids.map((p) => [p, cpuMsOf(p)])), pooler: poolerPid ? cpuMsOf(poolerPid) : 0, harness: process.cpuUsage() };
}

function cpuSpent(before: Awaited<ReturnType<typeof cpuNow>>, after: Awaited<ReturnType<typeof cpuNow>>) {
  let db = 0;
  // A backend that appeared during the run counts from zero; one that ended is lost (rare:
  // pools keep their connections while busy).
  for (const [pid, ms] of after.db) db += ms - (before.db.get(pid) ?? 0);
  const h = process.cpuUsage(before.harness);
  return { server: after.server - before.server, db, pooler: after.pooler - before.pooler, harness: (h.user + h.system) / 1000 };
}

/**
 * --pg-statements: what PostgreSQL spent per statement during a timed run (pg_stat_statements,
 * which must be in shared_preload_libraries): the statements taking most time, per request.
 */
async function logStatements(c: Ctx, requests: number): Promise<void> {
  const rows = await c.admin`select calls, total_exec_time, total_plan_time, rows, wal_bytes::float8 as wal, shared_blks_hit + shared_blks_read as blks, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 150) as q
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) order by total_exec_time + total_plan_time desc limit 10`;
  const total = rows.reduce((a, r) => a + Number(r.total_exec_time), 0);
  log(`  pg_stat_statements (top 10: ${(total / requests).toFixed(3)} ms execution per request):`);
  for (const r of rows) {
    const per = (x: number) => (x / requests).toFixed(3);
    log(`    ${per(Number(r.total_exec_time))} ms/req (+${per(Number(r.total_plan_time))} planning)  ${per(Number(r.calls))} calls/req  ${Math.round(Number(r.wal) / Math.max(1, Number(r.calls)))} WAL B/call  ${per(Number(r.blks))} blocks/req  ${r.q}`);
  }
}

/** One autocannon run against `server`, sampling the server's RSS every 100 ms. */
async function hammer(server: ServerProcess, wl: Workload, seconds: number) {
  let i = 0;
  let peak = server.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, server.rss());
  }, 100);
  try {
    const result = await autocannon({
      url: server.url,
      connections: opts.connections,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          setupRequest: (req) => {
            const r = wl.nth(i++);
            return { ...req, method: r.method, path: r.path, headers: r.headers, body: r.body };
          },
        },
      ],
    });
    return { result, peakRss: Math.max(peak, server.rss()) };
  } finally {
    clearInterval(timer);
  }
}

/** The timed run of one scenario on one server (after its warm-up), recorded in `m`; false when it failed. */
async function timedRun(c: Ctx, server: ServerProcess, wl: Workload, id: ScenarioId, m: Measurement): Promise<boolean> {
  if (flags['pg-statements']) {
    await c.admin`create extension if not exists pg_stat_statements`;
    await c.admin`select pg_stat_statements_reset()`;
  }
  const cpuBefore = await cpuNow(c.admin, server);
  const { result, peakRss } = await hammer(server, wl, opts.duration);
  const cpu = cpuSpent(cpuBefore, await cpuNow(c.admin, server));
  if (flags['pg-statements']) await logStatements(c, result['2xx'] + result.non2xx);
  const crash = server.crashed();
  if (crash) {
    Object.assign(m, { status: 'failed', reason: 'server crashed' });
    failures.push(crash);
    return false;
  }
  Object.assign(m, {
    reqPerSec: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    peakRssMb: peakRss / 2 ** 20,
    cpuMsPerRequest: result['2xx'] ? { server: cpu.server / result['2xx'], postgres: cpu.db / result['2xx'], loadGenerator: cpu.harness / result['2xx'], ...(poolerPid && m.label === POOLED ? { pooler: cpu.pooler / result['2xx'] } : {}) } : undefined,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count ?? 0])),
  });
  log(`  ${id} ${m.label ?? m.server}: ${Math.round(m.reqPerSec!)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${result.non2xx} non-2xx, ${result.errors} errors (statuses ${JSON.stringify(m.statuses)}), peak RSS ${Math.round(m.peakRssMb!)} MB, CPU ms/request: server ${m.cpuMsPerRequest?.server.toFixed(2)}, PostgreSQL ${m.cpuMsPerRequest?.postgres.toFixed(2)},${m.cpuMsPerRequest?.pooler !== undefined ? ` pooler ${m.cpuMsPerRequest?.pooler?.toFixed(2)},` : ''} harness ${m.cpuMsPerRequest?.loadGenerator.toFixed(2)}`);
  if (result['2xx'] === 0) {
    m.status = 'failed';
    m.reason = `no successful response (${result.non2xx} non-2xx, ${result.errors} errors)`;
    failures.push(`${id} ${m.label ?? m.server}: ${m.reason}`);
    return false;
  }
  return true;
}

const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
};

/** `runs` of one configuration as one measurement: req/s their median, latency and CPU averaged, counts summed. */
function merged(into: Measurement, runs: Measurement[]): void {
  const ok = runs.filter((r) => r.status === 'ok' && r.reqPerSec !== undefined);
  if (ok.length < runs.length) {
    Object.assign(into, runs.find((r) => r.status !== 'ok'));
    return;
  }
  const mean = (f: (m: Measurement) => number) => ok.reduce((a, m) => a + f(m), 0) / ok.length;
  const sum = (f: (m: Measurement) => number | undefined) => ok.reduce((a, m) => a + (f(m) ?? 0), 0);
  const statuses: Record<string, number> = {};
  for (const m of ok) for (const [k, v] of Object.entries(m.statuses ?? {})) statuses[k] = (statuses[k] ?? 0) + v;
  Object.assign(into, {
    status: 'ok',
    reqPerSec: median(ok.map((m) => m.reqPerSec!)),
    p50: mean((m) => m.p50!),
    p99: mean((m) => m.p99!),
    ok: sum((m) => m.ok),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    timeouts: sum((m) => m.timeouts),
    peakRssMb: Math.max(...ok.map((m) => m.peakRssMb ?? 0)),
    cpuMsPerRequest: ok.every((m) => m.cpuMsPerRequest)
      ? { server: mean((m) => m.cpuMsPerRequest!.server), postgres: mean((m) => m.cpuMsPerRequest!.postgres), loadGenerator: mean((m) => m.cpuMsPerRequest!.loadGenerator), ...(ok[0]!.cpuMsPerRequest!.pooler !== undefined ? { pooler: mean((m) => m.cpuMsPerRequest!.pooler ?? 0) } : {}) }
      : undefined,
    statuses,
  });
  if (ok.length > 1) (into.notes ??= []).push(`req/s of its ${ok.length} timed runs: ${ok.map((m) => Math.round(m.reqPerSec!)).join(', ')} (median)`);
}

/**
 * W1: S3's creates on our service without, then with, one webhook subscribed to invoice.created
 * whose receiver (in this process, verifying every signature) answers 200. The runs alternate
 * without/with in ABBA order (without, with, with, without, …; `--pairs` pairs, one in --smoke), so
 * that a drift of the machine's load weighs on both sides; with ÷ without must reach 0.9. Delivery
 * must keep up: the pending deliveries are sampled every 250 ms during the runs with the webhook,
 * then watched until none is left.
 */
async function webhookScenario(c: Ctx, server: ServerProcess, wl: Workload, sr: ScenarioResult, without: Measurement): Promise<void> {
  const withHook: Measurement = { server: 'ours', status: 'ok', label: 'ours + webhook' };
  without.label = 'ours, no webhook';
  sr.results = [without, withHook];
  const pairs = smoke ? 1 : Math.max(1, Number(flags.pairs ?? 2));
  const runsWithout: Measurement[] = [];
  const runsWith: Measurement[] = [];
  // WAL per create: without the webhook over the timed run, with it until the run's deliveries
  // are recorded (the queue drained), so that the claims and records count.
  let walStart = 0n;
  const walWithout: number[] = [];
  const walWith: number[] = [];
  const hotShares: number[] = [];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const timed = async (into: Measurement[], label: string) => {
    const m: Measurement = { server: 'ours', status: 'ok', label };
    await resetWrites(c);
    await sleep(500);
    into.push(m);
    walStart = await walPosition(c.admin);
    return timedRun(c, server, wl, 'W1', m);
  };
  const receiver = new BenchReceiver();
  await receiver.start();
  let queueStats: NonNullable<Measurement['webhooks']> | undefined;
  let warm = false;
  const runWithout = async () => {
    if (opts.warmup > 0 && !warm) await hammer(server, wl, opts.warmup);
    warm = true;
    const ok = await timed(runsWithout, `ours, no webhook (${runsWithout.length + 1})`);
    const m = runsWithout.at(-1)!;
    if (ok && m.ok) walWithout.push(Number((await walPosition(c.admin)) - walStart) / m.ok);
    return ok;
  };
  const runWith = async (): Promise<boolean> => {
    const made = await createWebhook(server.url, c.data.token, receiver.url);
    receiver.verifyWith(made.secret);
    try {
      if (opts.warmup > 0) await hammer(server, wl, opts.warmup);
      await drain(c.admin, 30_000);
      await c.admin`delete from webhook_deliveries`;
      receiver.reset();
      const i = runsWith.length + 1;
      const sampler = sampleQueue(c.admin, 250);
      const updates = await deliveryUpdates(c.admin);
      const ran = await timed(runsWith, `ours + webhook (${i})`);
      const { max } = await sampler.stop();
      const atEnd = (await queue(c.admin)).pending;
      const drained = await drain(c.admin, smoke ? 10_000 : 30_000);
      await sleep(200);
      const walBytes = Number((await walPosition(c.admin)) - walStart);
      const q = await queue(c.admin);
      if (!ran) return false;
      // Backends report their tables' statistics within a second or so of their transactions.
      await sleep(1200);
      const after = await deliveryUpdates(c.admin);
      const upd = after.updates - updates.updates;
      const creates = runsWith.at(-1)!.ok ?? 0;
      const run = { maxPending: Math.max(max, atEnd), pendingAtEnd: atEnd, pendingFinal: drained.pending, drainMs: drained.ms, queued: q.total, succeeded: q.succeeded, received: receiver.received, badSignatures: receiver.bad, duplicates: receiver.duplicates, ...(creates ? { walPerCreate: walBytes / creates } : {}), ...(upd > 0 ? { hotShare: (after.hot - updates.hot) / upd } : {}) };
      log(`  W1 webhook queue (${i}): ${webhookLine(run)}`);
      if (receiver.bad) failures.push(`W1: ${receiver.bad} deliveries whose signature did not verify`);
      // The worst of the runs: the largest queue, the longest drain; the deliveries summed.
      queueStats = !queueStats ? run : {
        maxPending: Math.max(queueStats.maxPending, run.maxPending),
        pendingAtEnd: Math.max(queueStats.pendingAtEnd, run.pendingAtEnd),
        pendingFinal: Math.max(queueStats.pendingFinal, run.pendingFinal),
        drainMs: Math.max(queueStats.drainMs, run.drainMs),
        queued: queueStats.queued + run.queued,
        succeeded: queueStats.succeeded + run.succeeded,
        received: queueStats.received + run.received,
        badSignatures: queueStats.badSignatures + run.badSignatures,
        duplicates: queueStats.duplicates + run.duplicates,
      };
      if (run.walPerCreate !== undefined) walWith.push(run.walPerCreate);
      if (run.hotShare !== undefined) hotShares.push(run.hotShare);
      return true;
    } finally {
      await deleteWebhook(server.url, c.data.token, made.iri).catch(() => {});
    }
  };
  try {
    // ABBA: without, with | with, without | without, with | …
    for (let i = 0; i < pairs; i++) {
      const ok = i % 2 === 0 ? (await runWithout()) && (await runWith()) : (await runWith()) && (await runWithout());
      if (!ok) break;
    }
  } finally {
    await receiver.close();
  }
  await resetWrites(c);
  merged(without, runsWithout);
  merged(withHook, runsWith);
  without.label = 'ours, no webhook';
  withHook.label = 'ours + webhook';
  // Each pair's own ratio: its two runs are seconds apart, so a drift of the machine's speed
  // between pairs (a third, on the bench's VM) cancels out, which it does not in the ratio of the
  // medians above. Many short pairs (--pairs 10 --duration 4) compare two builds best.
  const ratios = runsWith.flatMap((w, i) => {
    const wo = runsWithout[i];
    return w.reqPerSec && wo?.reqPerSec ? [w.reqPerSec / wo.reqPerSec] : [];
  });
  if (ratios.length > 1) (withHook.notes ??= []).push(`with ÷ without in each pair: ${ratios.map((r) => r.toFixed(2)).join(', ')}; their median ${median(ratios).toFixed(2)}`);
  if (queueStats) withHook.webhooks = { ...queueStats, ...(walWith.length ? { walPerCreate: mean(walWith) } : {}), ...(hotShares.length ? { hotShare: mean(hotShares) } : {}) };
  if (walWithout.length) (without.notes ??= []).push(`${Math.round(mean(walWithout))} B of WAL per create`);
}

async function main(): Promise<number> {
  const started = Date.now();
  const loadAtStart = os.loadavg().map((l) => Math.round(l * 100) / 100);
  log(`== bench${smoke ? ' (smoke)' : ''}: ${opts.connections} connections, ${opts.warmup} s warm-up, ${opts.duration} s per timed run, ${opts.rounds} alternating round(s) per server; load average ${loadAtStart.join(' ')}`);
  const db = await createBenchDatabase(opts.adminUrl);
  log(`   database ${db.name}${flags.keep ? ' (kept)' : ''}`);
  const admin = postgres(db.url, { max: 1, onnotice: () => {} });
  const running: ServerProcess[] = [];
  // Ctrl-C still stops the servers and drops the database.
  process.once('SIGINT', () => {
    log('\ninterrupted: stopping servers and cleaning up');
    void Promise.allSettled(running.map((p) => p.stop()))
      .then(() => admin.end({ timeout: 2 }))
      .then(() => (flags.keep ? undefined : db.drop()))
      .finally(() => process.exit(130));
  });
  try {
    const data = await seed(db.url, opts.size);
    log(`== seeded in ${(data.ms / 1000).toFixed(1)} s: ${Object.entries(data.counts).map(([k, v]) => `${v.toLocaleString('en-US')} ${k}`).join(', ')}`);
    const [{ at: seededAt }] = (await admin`select max(created_at)::text as at from invoices`) as unknown as [{ at: string }];
    const c: Ctx = { db, data, seededAt, admin };

    const wanted = (n: ServerName) => opts.servers.includes(n);
    // Installed and looked for only when a requested scenario runs on it.
    const needsPgl = wanted('postgraphile') && SCENARIOS.some((s) => opts.scenarios.includes(s.id) && s.servers.includes('postgraphile'));
    const pgl = needsPgl ? postgraphileRuntime() : { node: null, version: null, reason: 'not requested' };
    if (needsPgl && !pgl.node) log(`   PostGraphile: n/a (${pgl.reason})`);
    else if (pgl.node) log(`   PostGraphile runs on Node ${pgl.version}`);

    // What runs where; n/a by design never appears.
    const plan: Plan = new Map();
    for (const s of SCENARIOS) {
      if (!opts.scenarios.includes(s.id)) continue;
      const row = new Map<ServerName, Measurement>();
      for (const name of s.servers) {
        if (!wanted(name)) continue;
        if (name === 'postgraphile' && !pgl.node) row.set(name, { server: name, status: 'n/a', reason: pgl.reason! });
        else row.set(name, { server: name, status: 'ok' });
      }
      plan.set(s.id, row);
    }
    const servers = (['baseline', 'postgraphile', 'ours'] as const).filter((n) => wanted(n) && [...plan.values()].some((r) => r.get(n)?.status === 'ok'));
    const start = (name: ServerName, url: string, profile = false): Promise<ServerProcess> => {
      if (name === 'ours') return startOurs({ databaseUrl: url, binary: flags.binary, nodeFlags: profile ? ['--cpu-prof', `--cpu-prof-dir=${ROOT}bench/results/profiles`] : [] });
      if (name === 'baseline') return startBaseline({ databaseUrl: url, companyId: data.companyId });
      return startPostGraphile({ databaseUrl: url, node: pgl.node! });
    };

    log(`== checking responses and counting SQL statements (${opts.calibrate} sequential requests each, through a counting proxy)`);
    await calibrate(c, servers, (n, u) => start(n, u), plan);

    log('== load');
    const live = new Map<ServerName, ServerProcess>();
    const idleRssMb: Partial<Record<ServerName, number>> = {};
    for (const name of servers) {
      try {
        const p = await start(name, db.url, name === 'ours' && flags.profile);
        live.set(name, p);
        running.push(p);
        idleRssMb[name] = Math.round(p.rss() / 2 ** 20);
      } catch (e) {
        failures.push(`${name} did not start: ${(e as Error).message}`);
      }
    }
    let pooledServer: ServerProcess | undefined;
    if (flags['pooler-url'] && live.has('ours')) {
      try {
        pooledServer = await start('ours', throughPooler(db.url));
        running.push(pooledServer);
      } catch (e) {
        failures.push(`ours through the pooler did not start: ${(e as Error).message}`);
      }
    }
    const results: ScenarioResult[] = [];
    for (const s of SCENARIOS) {
      const row = plan.get(s.id);
      if (!row) continue;
      const sr: ScenarioResult = { id: s.id, title: s.title, anchor: s.anchor, target: s.target, ratio: null, met: null, results: [...row.values()] };
      // Our service through the pooler, after the direct one (which the ratio keeps comparing).
      if (flags['pooler-url'] && row.get('ours')?.status === 'ok' && s.id !== 'W1') {
        sr.results.push(pooledServer ? { server: 'ours', status: 'ok', label: POOLED } : { server: 'ours', status: 'failed', label: POOLED, reason: 'server not running' });
      }
      results.push(sr);
      // Each server's timed runs alternate with the other's (A B | B A | A B …, `--rounds`), so
      // that a drift of the machine's speed weighs on both; req/s is their median.
      const runs = new Map<Measurement, Measurement[]>();
      const ready = new Set<Measurement>();
      for (let round = 0; round < (s.id === 'W1' ? 1 : opts.rounds); round++) {
        const order = round % 2 === 0 ? sr.results : [...sr.results].reverse();
        for (const m of order) {
          if (m.status !== 'ok') continue;
          const server = m.label === POOLED ? pooledServer : live.get(m.server);
          if (!server) {
            Object.assign(m, { status: 'failed', reason: 'server not running' });
            continue;
          }
          const wl = workload(s.id, m.server, data)!;
          if (s.id === 'W1') {
            await webhookScenario(c, server, wl, sr, m);
            continue;
          }
          if (!ready.has(m) && opts.warmup > 0) await hammer(server, wl, opts.warmup);
          ready.add(m);
          if (s.id === 'S3') await resetWrites(c);
          await sleep(500);
          const run: Measurement = { server: m.server, status: 'ok', label: m.label };
          runs.set(m, [...(runs.get(m) ?? []), run]);
          const ok = await timedRun(c, server, wl, s.id, run);
          if (s.id === 'S3') await resetWrites(c);
          if (!ok) Object.assign(m, { status: run.status, reason: run.reason });
        }
      }
      for (const [m, list] of runs) if (m.status === 'ok') merged(m, list);
      ratioOf(sr);
    }
    for (const p of running) await p.stop();

    let profileSummary: string | undefined;
    if (flags.profile) {
      const dir = `${ROOT}bench/results/profiles`;
      // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the main thread (the
      // others are tsx's loader).
      const newest = readdirSync(dir)
        .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f))
        .map((f) => `${dir}/${f}`)
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
      if (newest) {
        profileSummary = summariseProfile(newest, 25);
        log(`== CPU profile of our service (${newest.slice(ROOT.length)}), self time:\n${profileSummary}`);
      }
    }

    const oursRss = results.flatMap((s) => s.results).filter((m) => m.server === 'ours' && m.peakRssMb !== undefined).map((m) => m.peakRssMb!);
    const peakMb = oursRss.length ? Math.max(...oursRss) : null;
    const report: Report = {
      meta: {
        date: new Date().toISOString(),
        mode: smoke ? 'smoke' : 'full',
        commit: gitCommit(),
        machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), loadAverageAtStart: loadAtStart, loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100) },
        idleRssMb,
        node: process.version,
        redis: process.env.REDIS_URL ? 'REDIS_URL set: our service keeps rate-limit state in Redis' : 'REDIS_URL unset: in-process rate-limit state',
        ours: oursConfiguration(),
        postgraphileNode: pgl.version,
        postgres: ((await admin`select version() as v`) as unknown as [{ v: string }])[0].v,
        options: { connections: opts.connections, warmupSeconds: opts.warmup, durationSeconds: opts.duration, calibrationRequests: opts.calibrate, rounds: opts.rounds },
        dataset: data.counts,
        seedSeconds: data.ms / 1000,
        totalSeconds: Math.round((Date.now() - started) / 1000),
        method: {
          reqPerSec: '2xx responses ÷ duration of a timed run, after a warm-up; the median of each server\'s alternating rounds; autocannon in the harness process, on the same machine',
          latency: 'autocannon p50 / p99 over all responses, ms',
          peakRss: 'max VmRSS of the server process, sampled every 100 ms during the timed run',
          cpu: 'CPU time (user + system, /proc/<pid>/stat) used during the timed run by the server process and by the PostgreSQL backends connected to the bench database, ÷ 2xx responses; less sensitive to other load on the machine than req/s',
          sql: 'statements per request counted on the PostgreSQL wire protocol by a proxy, in a separate sequential pass (not under load); "tx" = BEGIN/COMMIT',
          writes: 'invoices created by S3 are deleted after each server’s run, so every run sees the seeded data',
        },
      },
      scenarios: results,
      rss: { peakMb, targetMb: 250, met: peakMb === null ? null : peakMb <= 250 },
      failures,
    };
    if (profileSummary) report.meta.profile = profileSummary;
    const table = markdownTable(report);
    log(`\n${table}\n`);
    for (const s of results) for (const m of s.results) for (const n of m.notes ?? []) log(`note: ${s.id} ${m.server}: ${n}`);
    mkdirSync(`${ROOT}bench/results`, { recursive: true });
    writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(opts.out.replace(/\.json$/, '.md'), `${table}\n`);
    log(`Results: ${opts.out.startsWith(ROOT) ? opts.out.slice(ROOT.length) : opts.out} (and .md)`);
  } catch (e) {
    failures.push(`harness error: ${(e as Error).stack ?? String(e)}`);
  } finally {
    for (const p of running) await p.stop().catch(() => {});
    await admin.end({ timeout: 5 }).catch(() => {});
    if (!flags.keep) await db.drop().catch((e) => log(`could not drop ${db.name}: ${(e as Error).message}`));
  }
  if (failures.length) {
    log(`\nBENCH FAILED (${failures.length}):\n${failures.map((f) => `- ${f}`).join('\n')}`);
    return 1;
  }
  log(`bench finished in ${Math.round((Date.now() - started) / 1000)} s`);
  return 0;
}

/**
 * The configuration our service ran with, as its own loadConfig reads the environment it was
 * given: the settings the harness set, and what the defaults resolved to.
 */
function oursConfiguration(): Record<string, unknown> {
  const set = oursEnv({ databaseUrl: '<bench database>', port: 0 });
  const c = loadConfig({ ...process.env, ...set });
  const passedThrough = ['REDIS_URL', 'TOKEN_CACHE', 'DATABASE_POOL_SIZE', 'GRAPHQL_COMPILE'].filter((k) => process.env[k] !== undefined);
  return {
    setByHarness: { ...set, PORT: '<free port>' },
    fromEnvironment: Object.fromEntries(passedThrough.map((k) => [k, k === 'REDIS_URL' ? 'set' : process.env[k]])),
    tokenCache: c.tokenCache === 'off' ? 'off' : c.redisUrl ? 'on, revocations through the Redis epoch' : 'on, revocations through PostgreSQL LISTEN/NOTIFY',
    rateLimitStore: c.redisUrl ? 'Redis' : 'memory',
    databasePoolSize: c.databasePoolSize,
    graphqlCompile: c.graphqlCompile,
    requestHistory: 'on',
  };
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
