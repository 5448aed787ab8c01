// Configuration comes from the environment (CONTRACT §1); every setting has a working default.
import { availableParallelism } from 'node:os';
import type { PoolerMode } from './db.ts';
import type { WebhookSettings } from './webhooks/worker.ts';
import type { MailSettings } from './email/service.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * PostgreSQL: a direct connection (DATABASE_DIRECT_URL, optional) for what needs a session of
   * its own when DATABASE_URL is a transaction pooler: migrations under a session lock, LISTEN.
   */
  databaseDirectUrl: string | undefined;
  /**
   * PostgreSQL: DATABASE_POOLER — `auto` (default: a probe at start finds out whether
   * DATABASE_URL is a transaction pooler), `transaction` (it is: no probe), `none` (it is not:
   * the server refuses to start when the probe finds one).
   */
  databasePooler: PoolerMode;
  /** PostgreSQL: seconds to wait for a connection (DATABASE_CONNECT_TIMEOUT, default 5). */
  databaseConnectTimeout: number;
  /** PostgreSQL: connections in the pool (DATABASE_POOL_SIZE, default twice the CPU cores, at least 4). */
  databasePoolSize: number;
  /** PostgreSQL: statement timeout in ms (DATABASE_STATEMENT_TIMEOUT, default 30000; 0 disables). */
  databaseStatementTimeout: number;
  dataDir: string;
  redisUrl: string | undefined;
  /** Prefix of every Redis key (several deployments, or tests, can share one Redis). */
  redisPrefix: string;
  /**
   * Per-instance token cache (TOKEN_CACHE): `auto` (default) caches while every revocation can
   * reach this instance (always with PGlite; with Redis or PostgreSQL notifications while they are
   * heard); `on` caches even while they cannot (one instance only); `off` reads every token.
   */
  tokenCache: 'auto' | 'on' | 'off';
  appSecret: string | undefined;
  logLevel: string;
  trustProxy: boolean | string;
  rateLimit: { max: number; windowMs: number };
  /** Run the daily scheduler inside the server. */
  scheduler: boolean;
  /** GraphQL queries compiled into one SQL statement each (GRAPHQL_COMPILE=off: every query through the resolvers). */
  graphqlCompile: boolean;
  webhooks: WebhookSettings & { allowPrivate: boolean; worker: boolean };
  /** Where client links point (PUBLIC_URL, default http://<HOST>:<PORT>), without a trailing slash. */
  publicUrl: string;
  /**
   * Origins whose browser clients (API Platform Admin on another host) may call /api (CORS_ORIGINS,
   * comma-separated `scheme://host[:port]`; none by default).
   */
  corsOrigins: string[];
  /** Online payment on client links (CONTRACT §16): PAYMENT_PROVIDER=stripe, or none. */
  payments: { provider: 'stripe' | undefined; stripe: { secretKey: string | undefined; webhookSecret: string | undefined; apiBase: string | undefined } };
  /** E-mail (CONTRACT §15): SMTP_URL, MAIL_FROM; `worker` (MAIL_WORKER=off: this instance sends nothing, others do). */
  mail: MailSettings & { worker: boolean };
}

/** CORS_ORIGINS: comma-separated origins (`https://admin.example.com`), each exactly `scheme://host[:port]`. */
export function corsOrigins(v: string | undefined): string[] {
  const out: string[] = [];
  for (const part of (v ?? '').split(',')) {
    const o = part.trim().replace(/\/+$/, '');
    if (!o) continue;
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== o.toLowerCase()) throw new Error(`CORS_ORIGINS: "${o}" is not an origin (scheme://host[:port], e.g. https://admin.example.com)`);
    out.push(url.origin);
  }
  return out;
}

/** A duration: `500ms`, `5s`, `5m`, `2h`, `5d` (a bare number is milliseconds). */
export function duration(v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(v);
  if (!m) throw new Error(`Not a duration: "${v}" (examples: 500ms, 5s, 5m, 2h, 5d)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Math.round(Number(m[1]) * unit);
}

/** CONTRACT §11: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. */
const RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
/** CONTRACT §15: e-mails are retried after 1 min, 10 min, 1 h and 6 h. */
const MAIL_RETRY_SCHEDULE = '1m,10m,1h,6h';

function trustProxy(v: string | undefined): boolean | string {
  if (v === undefined || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  return v;
}

/**
 * PostgreSQL's own sizing rule (twice the cores): more backends than that only queue for the
 * same CPUs, and fewer connections each carry more pipelined queries per socket write.
 */
function poolSize(v: string | undefined): number {
  const n = Math.floor(Number(v));
  return v && n >= 1 ? n : Math.max(4, 2 * availableParallelism());
}

function pooler(v: string | undefined): PoolerMode {
  if (v === undefined || v === '' || v === 'auto') return 'auto';
  if (v === 'transaction' || v === 'none') return v;
  throw new Error(`DATABASE_POOLER must be auto, transaction or none (not "${v}").`);
}

function paymentProvider(v: string | undefined): 'stripe' | undefined {
  if (v === undefined || v === '' || v === 'none') return undefined;
  if (v === 'stripe') return v;
  throw new Error(`PAYMENT_PROVIDER must be stripe or none (not "${v}").`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  const host = env.HOST ?? '127.0.0.1';
  const provider = paymentProvider(env.PAYMENT_PROVIDER);
  if (provider === 'stripe' && (!env.STRIPE_SECRET_KEY || !env.STRIPE_WEBHOOK_SECRET)) {
    throw new Error('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET.');
  }
  return {
    port,
    host,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseDirectUrl: env.DATABASE_DIRECT_URL || undefined,
    databasePooler: pooler(env.DATABASE_POOLER),
    databaseConnectTimeout: Number(env.DATABASE_CONNECT_TIMEOUT || 5),
    databasePoolSize: poolSize(env.DATABASE_POOL_SIZE),
    databaseStatementTimeout: Number(env.DATABASE_STATEMENT_TIMEOUT || 30_000),
    dataDir: env.DATA_DIR ?? './data',
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_KEY_PREFIX ?? 'invoicing:',
    tokenCache: env.TOKEN_CACHE === 'on' || env.TOKEN_CACHE === 'off' ? env.TOKEN_CACHE : 'auto',
    appSecret: env.APP_SECRET || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimit: { max: Number(env.RATE_LIMIT_MAX ?? 300), windowMs: Number(env.RATE_LIMIT_WINDOW_MS ?? 60_000) },
    scheduler: env.SCHEDULER !== 'off',
    graphqlCompile: env.GRAPHQL_COMPILE !== 'off',
    webhooks: {
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true',
      worker: env.WEBHOOK_WORKER !== 'off',
      retrySchedule: (env.WEBHOOK_RETRY_SCHEDULE || RETRY_SCHEDULE).split(',').map(duration),
      timeoutMs: duration(env.WEBHOOK_TIMEOUT || '10s'),
      pollMs: duration(env.WEBHOOK_POLL_INTERVAL || '1s'),
      concurrency: Math.max(1, Math.floor(Number(env.WEBHOOK_CONCURRENCY || 8))),
      disableAfterMs: duration(env.WEBHOOK_DISABLE_AFTER || '5d'),
    },
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    publicUrl: (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    payments: {
      provider,
      stripe: { secretKey: env.STRIPE_SECRET_KEY || undefined, webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined, apiBase: env.STRIPE_API_BASE || undefined },
    },
    mail: {
      smtpUrl: env.SMTP_URL || undefined,
      from: env.MAIL_FROM || undefined,
      worker: env.MAIL_WORKER !== 'off',
      retrySchedule: (env.MAIL_RETRY_SCHEDULE || MAIL_RETRY_SCHEDULE).split(',').map(duration),
      timeoutMs: duration(env.MAIL_TIMEOUT || '30s'),
      pollMs: duration(env.MAIL_POLL_INTERVAL || '1s'),
      concurrency: Math.max(1, Math.floor(Number(env.MAIL_CONCURRENCY || 4))),
    },
  };
}
