// The bench's results: one record per scenario and server, the ratio of ours to the scenario's
// anchor, and a markdown table (printed, written beside the JSON, pasted into the README).
import type { ScenarioId } from './scenarios.ts';
import type { ServerName } from './servers.ts';

export interface SqlPerRequest {
  /** SQL statements other than transaction control. */
  statements: number;
  /** BEGIN, COMMIT and the like. */
  txControl: number;
  roundTrips: number;
}

export interface Measurement {
  server: ServerName;
  /** How the row is named in the table when not by its server (W1: without / with the webhook). */
  label?: string;
  status: 'ok' | 'n/a' | 'failed';
  reason?: string;
  reqPerSec?: number;
  p50?: number;
  p99?: number;
  /** Responses in the timed run: 2xx, other statuses, connection errors and timeouts. */
  ok?: number;
  non2xx?: number;
  errors?: number;
  timeouts?: number;
  peakRssMb?: number;
  /** CPU time per successful request, ms: the server process, its PostgreSQL backends, autocannon. */
  /** pooler: a transaction pooler's CPU (bench --pooler-pid). */
  cpuMsPerRequest?: { server: number; postgres: number; loadGenerator: number; pooler?: number };
  /** Responses per HTTP status in the timed run. */
  statuses?: Record<string, number>;
  sql?: SqlPerRequest;
  /** The sequential pass that counts statements and checks every response body. */
  checked?: { requests: number; wrong: number; firstWrong?: string };
  notes?: string[];
  /** W1 with the webhook: the pending-delivery queue during the run and after it. */
  webhooks?: WebhookQueue;
}

export interface WebhookQueue {
  /** WAL PostgreSQL wrote per create, from the run's start until its deliveries were recorded (bytes). */
  walPerCreate?: number;
  /** Of the delivery rows' updates (claims and records), the share that were HOT. */
  hotShare?: number;
  /** Pending deliveries, sampled every 250 ms during the timed run: the largest sample. */
  maxPending: number;
  /** Pending when the timed run ended, and after waiting for the queue to drain. */
  pendingAtEnd: number;
  pendingFinal: number;
  /** How long after the run the queue took to reach 0 (or the wait's bound). */
  drainMs: number;
  /** Deliveries the run's creates queued, those succeeded, and what the receiver got. */
  queued: number;
  succeeded: number;
  received: number;
  /** Requests whose signature did not verify; webhook-ids received more than once. */
  badSignatures: number;
  duplicates: number;
}

export interface ScenarioResult {
  id: ScenarioId;
  title: string;
  anchor: ServerName;
  target: number;
  ratio: number | null;
  met: boolean | null;
  results: Measurement[];
}

export interface Report {
  meta: Record<string, unknown>;
  scenarios: ScenarioResult[];
  rss: { peakMb: number | null; targetMb: number; met: boolean | null };
  failures: string[];
}

const LABEL: Record<ServerName, string> = { ours: 'ours', baseline: 'baseline', postgraphile: 'PostGraphile' };
const n0 = (v: number | undefined) => (v === undefined ? '' : Math.round(v).toLocaleString('en-US'));
const n1 = (v: number | undefined) => (v === undefined ? '' : String(Math.round(v * 10) / 10));
const n2 = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

function sqlCell(s: SqlPerRequest | undefined): string {
  if (!s) return '';
  return `${n2(s.statements)}${s.txControl > 0 ? ` +${n2(s.txControl)} tx` : ''}`;
}

function cpuCell(m: Measurement): string {
  const c = m.cpuMsPerRequest;
  return c ? `${c.server.toFixed(2)} + ${c.postgres.toFixed(2)}${c.pooler !== undefined ? ` + ${c.pooler.toFixed(2)} pooler` : ''}` : '';
}

export function ratioOf(s: ScenarioResult): void {
  // W1: our service with the webhook (second row) ÷ without (first row).
  const anchor = s.anchor === 'ours' ? s.results[0] : s.results.find((m) => m.server === s.anchor);
  const ours = s.anchor === 'ours' ? s.results[1] : s.results.find((m) => m.server === 'ours');
  if (anchor?.status === 'ok' && ours?.status === 'ok' && anchor.reqPerSec && ours.reqPerSec !== undefined) {
    s.ratio = ours.reqPerSec / anchor.reqPerSec;
    s.met = s.ratio >= s.target;
  } else {
    s.ratio = null;
    s.met = null;
  }
}

export function markdownTable(r: Report): string {
  const rows = [
    '| Scenario | Server | req/s | p50 ms | p99 ms | errors / non-2xx | peak RSS MB | SQL stmts/req | CPU ms/req server + PG | ours ÷ anchor | target |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const s of r.scenarios) {
    for (const m of s.results) {
      const first = m === s.results[0] ? `${s.id} ${s.title}` : '';
      if (m.status !== 'ok') {
        rows.push(`| ${first} | ${m.label ?? LABEL[m.server]} | ${m.status === 'n/a' ? `n/a (${m.reason})` : `FAILED: ${m.reason}`} | | | | | | | | |`);
        continue;
      }
      const errors = `${(m.errors ?? 0) + (m.checked?.wrong ?? 0)} / ${m.non2xx ?? 0}`;
      // W1 compares our service with itself: its first row (without the webhook) is the anchor.
      const isAnchor = s.anchor === 'ours' ? m === s.results[0] : m.server === s.anchor;
      const isOurs = m.server === 'ours' && !isAnchor;
      const ratio = isOurs ? (s.ratio === null ? 'n/a' : `${s.ratio.toFixed(2)}×`) : isAnchor ? 'anchor' : '';
      const target = isOurs ? `≥ ${s.target}× ${s.met === null ? '(n/a)' : s.met ? 'met' : 'NOT met'}` : '';
      rows.push(`| ${first} | ${m.label ?? LABEL[m.server]} | ${n0(m.reqPerSec)} | ${n1(m.p50)} | ${n1(m.p99)} | ${errors} | ${n0(m.peakRssMb)} | ${sqlCell(m.sql)} | ${cpuCell(m)} | ${ratio} | ${target} |`);
    }
  }
  const rss = r.rss.peakMb === null ? 'n/a' : `${Math.round(r.rss.peakMb)} MB`;
  rows.push('', `Peak RSS of our service under load: ${rss} (target ≤ ${r.rss.targetMb} MB: ${r.rss.met === null ? 'n/a' : r.rss.met ? 'met' : 'NOT met'}).`);
  for (const s of r.scenarios) {
    for (const m of s.results) if (m.webhooks) rows.push('', `${s.id} webhook queue: ${webhookLine(m.webhooks)}.`);
  }
  return rows.join('\n');
}

/** W1's queue in one sentence. */
export function webhookLine(q: WebhookQueue): string {
  const drained = q.pendingFinal === 0 ? `drained ${(q.drainMs / 1000).toFixed(1)} s after the run` : `NOT drained: ${q.pendingFinal} still pending ${(q.drainMs / 1000).toFixed(1)} s after the run`;
  const wal = q.walPerCreate !== undefined ? `; ${Math.round(q.walPerCreate)} B of WAL per create${q.hotShare !== undefined ? `, ${Math.round(q.hotShare * 100)} % of the delivery rows' updates HOT` : ''}` : '';
  return `pending max ${q.maxPending} during the run, ${q.pendingAtEnd} at its end, ${drained}; ${q.succeeded}/${q.queued} deliveries succeeded, ${q.received} received (${q.duplicates} duplicate webhook-ids, ${q.badSignatures} bad signatures)${wal}`;
}
