// The floor of one webhook delivery's HTTP exchange on this machine, for reading W1: a keep-alive
// node:http client POSTing a 2.9 KB signed payload to a node:http server that verifies its HMAC,
// 16 in flight (the worker's default concurrency is 8), both in this process. Prints the CPU time
// per exchange (client and receiver together): what any delivery costs a machine that also runs
// its receiver, before the outbox, the queue and the database. Each client in turn: node:http's,
// and undici's Agent as the worker uses it (its handler API, a timer per attempt); the difference
// between the two lines is the clients' difference.
//
//   npx tsx bench/http-floor.ts [exchanges]
import { createHmac } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent as UndiciAgent } from 'undici';
import { signedHeaders } from '../server/webhooks/signing.ts';
import { undiciPost } from './undici-post.ts';

const total = Number(process.argv[2] ?? 20_000);
const key = Buffer.alloc(32, 7);
const body = JSON.stringify({ type: 'invoice.created', timestamp: new Date().toISOString(), data: { notes: 'x'.repeat(2800) } });
const sign = (id: string, ts: string, b: string) => createHmac('sha256', key).update(`${id}.${ts}.${b}`).digest('base64');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const ok = `v1,${sign(String(req.headers['webhook-id']), String(req.headers['webhook-timestamp']), Buffer.concat(chunks).toString('utf8'))}` === req.headers['webhook-signature'];
    res.writeHead(ok ? 200 : 400).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

const dispatcher = new UndiciAgent({ keepAliveTimeout: 5000 });
const origin = `http://127.0.0.1:${port}`;
let bad = 0;
// Signed as the worker signs (the receiver checks with its own HMAC above).
const signed = (n: number) => signedHeaders(key.toString('base64'), `msg_${n}`, body);
const clients: Record<string, (n: number) => Promise<void>> = {
  'node:http': (n) =>
    new Promise<void>((resolve, reject) => {
      const headers = { ...signed(n), 'content-length': String(Buffer.byteLength(body)) };
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/hook', agent, headers }, (res) => {
        if (res.statusCode !== 200) bad++;
        res.resume().on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(body);
    }),
  undici: async (n) => {
    if ((await undiciPost(dispatcher, origin, signed(n), body)) !== 200) bad++;
  },
};

for (const round of [1, 2]) {
  for (const [name, exchange] of Object.entries(clients)) {
    let sent = 0;
    bad = 0;
    const cpu = process.cpuUsage();
    const started = Date.now();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (sent < total) await exchange(sent++);
    }));
    const used = process.cpuUsage(cpu);
    console.log(`${name.padEnd(9)} (${round}) ${total} exchanges in ${Date.now() - started} ms, ${bad} refused; CPU ${((used.user + used.system) / 1000 / total).toFixed(3)} ms per exchange (client and receiver)`);
  }
}
agent.destroy();
await dispatcher.close();
server.close();
