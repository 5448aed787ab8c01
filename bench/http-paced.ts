// What one webhook delivery's HTTP exchange costs at the pace W1 sends them, for reading W1. The
// receiver (node:http, verifying each HMAC, as the bench's) runs in a child process so that its
// CPU is counted apart; the client sends signed 1.4 KB payloads with undici's handler API, as the
// worker does. Each pace in turn, twice:
// - one exchange every P ms (W1 makes about one delivery every 3 ms on two cores);
// - 16 in flight at once (saturation: what bench/http-floor.ts measures).
// The client's CPU of the same pacing loop without exchanges (its timers) is measured apart and
// taken off. A node process pays for each wake of its event loop: an exchange that arrives alone
// costs its receiver and its client several times what one among many does.
//
//   npx tsx bench/http-paced.ts [exchanges per pace]
import { fork } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { signedHeaders } from '../server/webhooks/signing.ts';
import { undiciPost } from './undici-post.ts';

const key = Buffer.alloc(32, 7);
const sign = (id: string, ts: string, b: string) => createHmac('sha256', key).update(`${id}.${ts}.${b}`).digest('base64');
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

if (process.argv[2] === '--receiver') {
  let received = 0;
  let bad = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const ok = `v1,${sign(String(req.headers['webhook-id']), String(req.headers['webhook-timestamp']), Buffer.concat(chunks).toString('utf8'))}` === req.headers['webhook-signature'];
      if (ok) received++;
      else bad++;
      res.writeHead(ok ? 200 : 400).end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m) => {
    if (m === 'stats') process.send!({ cpu: cpuMs(process.cpuUsage()), received, bad });
    else server.close(() => process.exit(0));
  });
} else {
  const total = Number(process.argv[2] ?? 3000);
  const child = fork(new URL(import.meta.url).pathname, ['--receiver'], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve((m as { port: number }).port)));
  const stats = () => new Promise<{ cpu: number; received: number; bad: number }>((resolve) => {
    child.once('message', (m) => resolve(m as { cpu: number; received: number; bad: number }));
    child.send('stats');
  });
  const dispatcher = new Agent({ keepAliveTimeout: 5000 });
  const origin = `http://127.0.0.1:${port}`;
  const body = JSON.stringify({ type: 'invoice.created', timestamp: new Date().toISOString(), data: { notes: 'x'.repeat(1350) } });
  // Signed as the worker signs (the receiver checks with its own HMAC above).
  const exchange = (n: number) => undiciPost(dispatcher, origin, signedHeaders(key.toString('base64'), `msg_${n}`, body), body);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let n = 0;
  /** One exchange every `pace` ms (each started on time, not after the last one ended). */
  const paced = async (pace: number, send: boolean) => {
    const started = Date.now();
    const running: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      if (send) running.push(exchange(n++));
      const wait = started + (i + 1) * pace - Date.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(running);
  };
  const saturated = () => Promise.all(Array.from({ length: 16 }, async (_, k) => {
    for (let i = k; i < total; i += 16) await exchange(n++);
  }));
  await saturated(); // warm-up: JIT and connections
  const measure = async (label: string, run: () => Promise<unknown>, timersOnly?: () => Promise<unknown>) => {
    let timers = 0;
    if (timersOnly) {
      const t = process.cpuUsage();
      await timersOnly();
      timers = cpuMs(process.cpuUsage(t));
    }
    const before = await stats();
    const mine = process.cpuUsage();
    await run();
    const client = cpuMs(process.cpuUsage(mine)) - timers;
    const after = await stats();
    const receiver = after.cpu - before.cpu;
    console.log(`${label.padEnd(22)} CPU per exchange: client ${(client / total).toFixed(3)} ms, receiver ${(receiver / total).toFixed(3)} ms, both ${((client + receiver) / total).toFixed(3)} ms (${after.received - before.received} received, ${after.bad - before.bad} refused)`);
  };
  for (const round of [1, 2]) {
    for (const pace of [3, 1]) await measure(`one every ${pace} ms (${round})`, () => paced(pace, true), () => paced(pace, false));
    await measure(`16 in flight (${round})`, saturated);
  }
  child.send('close');
  await dispatcher.close();
}
