// What sending an invoice by e-mail adds to its create, in CPU (issue #35): creates of invoices
// (5 lines) from a few connections, in phases without and with one e-mail each (POST /api/emails
// right after the create: the draft is issued, the e-mail queued, then sent by the server's mail
// worker with its PDF to an SMTP server on loopback, smtp-server in this process), alternated.
// A phase with e-mails ends when the SMTP server has accepted every one of them: the queue drained
// at that rate. PostgreSQL's CPU per create from /proc (all its processes), this process's
// (server, client and SMTP receiver) from process.cpuUsage. No throughput target: the receiver
// shares the machine's cores.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/email-cost.ts
//   (N creates per phase, default 500; ROUNDS, default 2; CONNECTIONS, default 4)
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { client, startTestServer, tokenFor } from '../test/helpers.ts';

if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL (a PostgreSQL server on this machine) is required: PostgreSQL\'s CPU is read from /proc.');
const N = Number(process.env.N ?? 500);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
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

let accepted = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () => {
      accepted++;
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
const port = (smtp.server.address() as AddressInfo).port;

const t = await startTestServer({ RATE_LIMIT_MAX: '100000000', SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'bench@mail.test', MAIL_POLL_INTERVAL: '50ms', MAIL_CONCURRENCY: '4' });
const api = client(t, await tokenFor(t, { email: 'bench@email.cost', company: 'E-mail cost' }));
const clientIri = (await api.post('/api/clients', { name: 'Acme' })).body['@id'];
await api.post('/api/contacts', { client: clientIri, firstName: 'Ann', email: 'ann@acme.test' });
const tax = (await api.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
const invoice = { client: clientIri, lines: [1, 2, 3, 4, 5].map((i) => ({ description: `Line ${i}`, qty: i, price: 1000 * i, tax })) };

async function creates(n: number, email: boolean): Promise<void> {
  let left = n;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (left-- > 0) {
      const res = await api.post('/api/invoices', invoice);
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
      if (email) {
        const e = await api.post('/api/emails', { document: res.body['@id'] });
        if (e.status !== 201) throw new Error(`e-mail: ${e.status} ${e.text}`);
      }
    }
  }));
}

async function phase(email: boolean): Promise<{ postgres: number; node: number; drainMs: number }> {
  const before = accepted;
  const ticks = postgresTicks();
  const cpu = process.cpuUsage();
  const started = Date.now();
  await creates(N, email);
  const created = Date.now();
  if (email) while (accepted < before + N) await new Promise((r) => setTimeout(r, 20));
  const node = process.cpuUsage(cpu);
  const pg = postgresTicks() - ticks;
  return { postgres: (pg * TICK_MS * 1000) / N, node: (node.user + node.system) / N, drainMs: Date.now() - created + 0 * started };
}

await creates(Math.min(N, 200), false);
for (let round = 0; round < ROUNDS; round++) {
  for (const email of round % 2 ? [true, false] : [false, true]) {
    const r = await phase(email);
    console.log(`${email ? 'with an e-mail   ' : 'without an e-mail'}  PostgreSQL ${r.postgres.toFixed(0)} µs/create, this process ${r.node.toFixed(0)} µs/create${email ? `, queue drained ${r.drainMs} ms after the last create` : ''}`);
  }
}
await t.close();
smtp.close();
