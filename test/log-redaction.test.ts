// Token values never reach a log line, even at the most verbose level: the real server process
// runs with LOG_LEVEL=trace, requests carry a valid token, a wrong one, one in Authorization,
// one in oversized and malformed requests, and a new token is created (its value is in the
// response); then every byte the process wrote is searched for each value and its hash.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, freePort } from './helpers.ts';

function run(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

function raw(port: number, text: string): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.end(text));
    s.on('data', () => {});
    s.on('error', () => resolve());
    s.on('close', () => resolve());
  });
}

describe('logs at trace level', () => {
  it('never contain a token value or its hash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invoicing-logs-'));
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', PORT: String(port), LOG_LEVEL: 'trace', SCHEDULER: 'off', REDIS_URL: '', RATE_LIMIT_MAX: '100000' };
    try {
      await run(env, ['user:create', '--email', 'log@l.test', '--password', 'password123', '--company', 'L']);
      const token = (await run(env, ['token:create', '--email', 'log@l.test', '--company', 'L', '--name', 'log'])).trim();
      const wrong = `inv_${'W'.repeat(43)}`;
      const server = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let logs = '';
      server.stdout!.on('data', (d) => (logs += d));
      server.stderr!.on('data', (d) => (logs += d));
      const t = { url: `http://127.0.0.1:${port}` };
      await expect.poll(async () => (await call(t, 'GET', '/healthz').catch(() => ({ status: 0 }))).status, { timeout: 60_000, interval: 200 }).toBe(200);

      const made: string[] = [];
      const statuses: number[] = [];
      const hit = async (...a: Parameters<typeof call>) => statuses.push((await call(...a)).status);
      await hit(t, 'GET', '/api/clients', { token });
      await hit(t, 'GET', '/api/clients/00000000-0000-7000-8000-000000000000', { token });
      await hit(t, 'POST', '/api/clients', { token, body: { name: '' } });
      await hit(t, 'POST', '/api/clients', { token, rawBody: '{"name":', contentType: 'application/json' });
      await hit(t, 'POST', '/api/clients', { token, body: { name: 'big', notes: 'x'.repeat(1_100_000) } });
      await hit(t, 'GET', '/api/clients', { token: wrong });
      await hit(t, 'GET', '/api/clients', { headers: { authorization: `Bearer ${token}` } });
      await hit(t, 'GET', `/api/clients?token=${encodeURIComponent('not-a-secret')}`, { token, headers: { cookie: `session=${token}` } });
      await hit(t, 'POST', '/api/graphql', { token, body: { query: '{ clients { totalCount } nope }' }, contentType: 'application/json' });
      await hit(t, 'POST', '/api/graphql', { token: wrong, body: { query: '{ clients { totalCount } }' }, contentType: 'application/json' });
      const created = await call(t, 'POST', '/api/api-tokens', { token, body: { name: 'second' }, contentType: 'application/json' });
      expect(created.status).toBe(201);
      made.push(created.body.token);
      await hit(t, 'GET', '/api/api-tokens', { token: made[0] });
      await raw(port, `GET /api/clients HTTP/1.1\r\nHost: x\r\nX-API-TOKEN: ${token}\r\nX-Big: ${'b'.repeat(100_000)}\r\n\r\n`);
      await raw(port, `GET /api/clients HTTP/1.1\r\nX-API-TOKEN: ${token}\r\nBroken header line\r\n\r\n`);
      expect(statuses).toEqual([200, 404, 422, 400, 413, 401, 401, 200, 200, 401, 200]);

      server.kill('SIGTERM');
      await once(server, 'exit');
      // Verbose logging was on: every request was logged with its URL, and the refused raw
      // requests at debug level.
      expect(logs).toMatch(/"level":20,.*"msg":"client error"/);
      expect(logs).toContain('/api/clients/00000000-0000-7000-8000-000000000000');
      for (const secret of [token, wrong, ...made]) {
        for (const form of [secret, secret.slice(4), createHash('sha256').update(secret).digest('hex')]) {
          expect(logs.includes(form), `the logs contain ${form.slice(0, 8)}…`).toBe(false);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
