// The `invoicing` CLI as scripts use it: exact outputs, exit codes, the embedded database's lock,
// commands run through a running server, and a graceful SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers.ts';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function env(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', SCHEDULER: 'off', ...extra };
  delete e.DATABASE_URL;
  return e;
}

function cli(dataDir: string, args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(tsx, ['server/cli.ts', ...args], { cwd: root, env: env(dataDir, extra), encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'invoicing-cli-'));
  dirs.push(d);
  return d;
}

describe('CLI on the embedded database', { timeout: 120_000 }, () => {
  it('creates a user and prints only the token value', () => {
    const dir = tempDir();
    const u = cli(dir, ['user:create', '--email', 'Ann@Example.com', '--password', 'correct horse', '--company', 'Acme', '--currency', 'EUR']);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toContain('ann@example.com');
    const tok = cli(dir, ['token:create', '--email', 'ann@example.com', '--company', 'acme', '--name', 'ci', '--description', 'for CI']);
    expect(tok.code, tok.stderr).toBe(0);
    expect(tok.stdout).toMatch(/^inv_[A-Za-z0-9_-]{43}\n$/);
  });

  it('fails with a clear message and a non-zero code on bad input', () => {
    const dir = tempDir();
    const missing = cli(dir, ['user:create', '--email', 'a@b.co']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--password is required');
    const unknownUser = cli(dir, ['token:create', '--email', 'nobody@b.co', '--company', 'X', '--name', 'n']);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stdout).toBe('');
    expect(unknownUser.stderr).toContain('No user nobody@b.co');
    const badFlag = cli(dir, ['user:create', '--nope', 'x']);
    expect(badFlag.code).toBe(2);
    const badCommand = cli(dir, ['frobnicate']);
    expect(badCommand.code).toBe(2);
  });

  it('serves, runs commands through the running server, refuses a second server, and stops on SIGTERM', async () => {
    const dir = tempDir();
    const port = String(await freePort());
    // node --import tsx, not the tsx command: tsx relays SIGTERM to its child and kills it (exit
    // 143) when the child does not acknowledge within 30 ms, which a busy machine can miss.
    const server = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve'], { cwd: root, env: env(dir, { PORT: port }) });
    let log = '';
    server.stdout.on('data', (c: Buffer) => (log += c.toString()));
    server.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    try {
      // The hint is logged after the server listens and its admin socket is up.
      for (let i = 0; i < 900 && !log.includes('No user exists yet'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(log).toContain('Server listening');
      expect(log).toContain('No user exists yet');

      expect(cli(dir, ['user:create', '--email', 'b@b.co', '--password', 'password123', '--company', 'B']).code).toBe(0);
      const tok = cli(dir, ['token:create', '--email', 'b@b.co', '--company', 'B', '--name', 'live']);
      expect(tok.code, tok.stderr).toBe(0);
      const token = tok.stdout.trim();
      const res = await fetch(`http://127.0.0.1:${port}/api/clients`, { headers: { 'x-api-token': token } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { '@type': string })['@type']).toBe('Collection');

      const second = cli(dir, ['serve'], { PORT: String(Number(port) + 1) });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/in use by process \d+/);
      expect(log).not.toContain(token);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // The lock is released: the data survives and another process can open it.
    const again = cli(dir, ['token:create', '--email', 'b@b.co', '--company', 'B', '--name', 'after']);
    expect(again.code, again.stderr).toBe(0);
  }, 240_000);

  it('applies migrations with migrate', () => {
    const r = cli(tempDir(), ['migrate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Migrations applied.\n');
  });
});
