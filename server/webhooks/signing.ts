// Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>", keyed with the base64-decoded secret after "whsec_".
import { createHmac } from 'node:crypto';
import { memo } from '../../engine/memo.ts';

/** Secrets' decoded keys, kept for the next attempts (a few per company). */
const keyOf = memo((secret: string) => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64'));

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt. */
export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
    'user-agent': 'invoicing-webhooks/0.1 (+Standard Webhooks)',
  };
}
