// What one webhook delivery adds to a create, in CPU, steadier than W1's throughput: creates of
// S3's invoices (5 lines) from a few connections, in phases without and with one webhook on
// invoice.created (a local receiver answering 200), alternated; PostgreSQL's CPU per create from
// /proc (all its processes), this process's (server, client and receiver) from process.cpuUsage.
// The database is analysed after a first batch of creates, as a running service's would be.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/delivery-cost.ts
//   (N creates per phase, default 3000; ROUNDS, default 3; CONNECTIONS, default 4)
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { client, startTestServer, tokenFor } from '../test/helpers.ts';

if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL (a PostgreSQL server on this machine) is required: PostgreSQL\'s CPU is read from /proc.');
const N = Number(process.env.N ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 4);
const TICK_MS = 1000 / 100; // USER_HZ

/** CPU time of every process named postgres, in clock ticks. */
function postgresTicks(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks;
}

let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_MAX: '100000000' });
const admin = postgres(t.db.url!, { max: 1, onnotice: () => {} });
const api = client(t, await tokenFor(t, { email: 'bench@delivery.cost', company: 'Delivery cost' }));
const clientIri = (await api.post('/api/clients', { name: 'Acme' })).body['@id'];
const tax = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
const invoice = { client: clientIri, lines: [1, 2, 3, 4, 5].map((i) => ({ description: `Line ${i}`, qty: i, price: 1000 * i, tax })) };

async function creates(n: number): Promise<void> {
  let left = n;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (left-- > 0) {
      const res = await api.post('/api/invoices', invoice);
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
    }
  }));
}

async function phase(withHook: boolean): Promise<{ postgres: number; node: number }> {
  const hook = withHook ? (await api.post('/api/webhooks', { url: hookUrl, events: ['invoice.created'] }, { contentType: 'application/json' })).body['@id'] as string : undefined;
  const before = received;
  await creates(200);
  const ticks = postgresTicks();
  const cpu = process.cpuUsage();
  await creates(N);
  // With the webhook, until every delivery of the phase was received and recorded.
  if (hook) {
    while (received < before + 200 + N) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
  }
  const node = process.cpuUsage(cpu);
  const pg = postgresTicks() - ticks;
  if (hook) await api.delete(hook);
  return { postgres: (pg * TICK_MS * 1000) / N, node: (node.user + node.system) / N };
}

await creates(3000);
await admin`vacuum analyze`;
const sums = { without: { postgres: 0, node: 0 }, with: { postgres: 0, node: 0 } };
for (let round = 0; round < ROUNDS; round++) {
  for (const withHook of round % 2 ? [true, false] : [false, true]) {
    const r = await phase(withHook);
    const into = sums[withHook ? 'with' : 'without'];
    into.postgres += r.postgres / ROUNDS;
    into.node += r.node / ROUNDS;
    console.log(`${withHook ? 'with the webhook   ' : 'without the webhook'}  PostgreSQL ${r.postgres.toFixed(0)} µs/create, this process ${r.node.toFixed(0)} µs/create`);
  }
}
console.log(`mean: PostgreSQL ${sums.without.postgres.toFixed(0)} → ${sums.with.postgres.toFixed(0)} µs/create, this process ${sums.without.node.toFixed(0)} → ${sums.with.node.toFixed(0)} µs/create`);
await admin.end();
await t.close();
receiver.close();
