// W1's parts: a local receiver that verifies every delivery's signature (Standard Webhooks) and
// answers 200, the webhook made and removed through our API, and the pending-delivery queue
// length sampled while the creates run and until it drains.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type postgres from 'postgres';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks verification with node:crypto's HMAC (the receiver is not what W1 measures,
 * and the `standardwebhooks` package hashes in JavaScript: on this bench's two cores its cost
 * would weigh on the service measured). Every 50th delivery is verified by the package as well.
 */
function verified(key: Buffer, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
  return sig.split(' ').some((s) => {
    const [version, value] = s.split(',');
    const got = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/** Counts deliveries; one whose signature does not verify counts as bad (and is answered 400). */
export class BenchReceiver {
  received = 0;
  bad = 0;
  duplicates = 0;
  url = '';
  private readonly seen = new Set<string>();
  private verifier: Webhook | undefined;
  private key: Buffer | undefined;
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let ok = verified(this.key!, req.headers, body);
      if (ok && this.received % 50 === 0) {
        try {
          this.verifier!.verify(body, req.headers as Record<string, string>);
        } catch {
          ok = false;
        }
      }
      if (!ok) {
        this.bad++;
        return res.writeHead(400).end();
      }
      const id = String(req.headers['webhook-id']);
      if (this.seen.has(id)) this.duplicates++;
      this.seen.add(id);
      this.received++;
      res.writeHead(200).end();
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/bench-hook`;
  }

  verifyWith(secret: string): void {
    this.verifier = new Webhook(secret);
    this.key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  }

  reset(): void {
    this.received = this.bad = this.duplicates = 0;
    this.seen.clear();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Creates the webhook (its secret is in the create response only). */
export async function createWebhook(base: string, token: string, url: string): Promise<{ iri: string; secret: string }> {
  const res = await fetch(`${base}/api/webhooks`, {
    method: 'POST',
    headers: { 'x-api-token': token, 'content-type': 'application/json', accept: 'application/ld+json' },
    body: JSON.stringify({ url, events: ['invoice.created'], description: 'bench W1' }),
  });
  const body = (await res.json()) as { '@id'?: string; secret?: string };
  if (res.status !== 201 || !body['@id'] || !body.secret) throw new Error(`could not create the bench webhook: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { iri: body['@id'], secret: body.secret };
}

export async function deleteWebhook(base: string, token: string, iri: string): Promise<void> {
  await fetch(base + iri, { method: 'DELETE', headers: { 'x-api-token': token } });
}

/** Deliveries due or waiting (status pending), succeeded and in all. */
export async function queue(admin: postgres.Sql): Promise<{ pending: number; succeeded: number; total: number }> {
  const [r] = await admin`select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'succeeded')::int as succeeded, count(*)::int as total from webhook_deliveries`;
  return { pending: r!.pending as number, succeeded: r!.succeeded as number, total: r!.total as number };
}

/** Where PostgreSQL's write-ahead log stands (bytes): the difference over a run is the WAL it wrote. */
export async function walPosition(admin: postgres.Sql): Promise<bigint> {
  const [r] = await admin`select (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as b`;
  return BigInt(r!.b as string);
}

/** Updates of delivery rows so far, and how many were HOT (no index touched); read after the backends reported them. */
export async function deliveryUpdates(admin: postgres.Sql): Promise<{ updates: number; hot: number }> {
  const [r] = await admin`select coalesce(n_tup_upd, 0)::int as u, coalesce(n_tup_hot_upd, 0)::int as h from pg_stat_user_tables where relname = 'webhook_deliveries'`;
  return { updates: (r?.u as number) ?? 0, hot: (r?.h as number) ?? 0 };
}

/** Deliveries pending: read from the queue's partial index (the samples must cost the machine little). */
async function pending(admin: postgres.Sql): Promise<number> {
  const [r] = await admin`select count(*)::int as n from webhook_deliveries where status = 'pending'`;
  return r!.n as number;
}

/** Samples the pending count every `everyMs` until stopped; keeps the maximum and the samples. */
export function sampleQueue(admin: postgres.Sql, everyMs: number) {
  const samples: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      samples.push(await pending(admin));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    samples,
    async stop(): Promise<{ max: number; samples: number[] }> {
      stopped = true;
      await loop;
      return { max: samples.length ? Math.max(...samples) : 0, samples };
    },
  };
}

/** Waits until no delivery is pending or `timeoutMs` passed: how long it took and what is left. */
export async function drain(admin: postgres.Sql, timeoutMs: number): Promise<{ ms: number; pending: number }> {
  const start = Date.now();
  for (;;) {
    const { pending } = await queue(admin);
    if (pending === 0 || Date.now() - start >= timeoutMs) return { ms: Date.now() - start, pending };
    await new Promise((r) => setTimeout(r, 100));
  }
}
