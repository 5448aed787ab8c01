// The `invoicing` CLI as scripts use it: exact outputs, exit codes, the embedded database's lock,
// commands run through a running server, and a graceful SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { en16931Violations } from './support/en16931.ts';
import { Browserish } from './web-helpers.ts';
import { checkEinvoice } from './support/einvoice-validate.ts';

const root = join(import.meta.dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function env(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', SCHEDULER: 'off', ...extra };
  delete e.DATABASE_URL;
  return e;
}

/** One CLI command as a script runs it; asynchronous, so that the file's tests run side by side. */
function cli(dataDir: string, args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, ['server/cli/cli.ts', ...args], { cwd: root, env: env(dataDir, extra), timeout: 90_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'invoicing-cli-'));
  dirs.push(d);
  return d;
}

/** `serve` on the embedded database in `dir`, once it listens and its admin socket is up. */
async function serving(dir: string) {
  const port = String(await freePort());
  // node --import tsx, not the tsx command: tsx relays SIGTERM to its child and kills it (exit
  // 143) when the child does not acknowledge within 30 ms, which a busy machine can miss.
  const server = spawn(process.execPath, ['--import', 'tsx', 'server/cli/cli.ts', 'serve'], { cwd: root, env: env(dir, { PORT: port }) });
  const out = { log: '' };
  server.stdout.on('data', (c: Buffer) => (out.log += c.toString()));
  server.stderr.on('data', (c: Buffer) => (out.log += c.toString()));
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  // The hint is logged after the server listens and its admin socket is up.
  for (let i = 0; i < 900 && !out.log.includes('No user exists yet'); i++) await new Promise((r) => setTimeout(r, 100));
  return { port, server, out, exited };
}

// Each test has its own data directory: they run concurrently.
describe.concurrent('CLI on the embedded database', { timeout: 240_000 }, () => {
  it('creates a user and prints only the token value', async () => {
    const dir = tempDir();
    const u = await cli(dir, ['user:create', '--email', 'Ann@Example.com', '--password', 'correct horse', '--company', 'Acme', '--currency', 'EUR']);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toContain('ann@example.com');
    const tok = await cli(dir, ['token:create', '--email', 'ann@example.com', '--company', 'acme', '--name', 'ci', '--description', 'for CI']);
    expect(tok.code, tok.stderr).toBe(0);
    expect(tok.stdout).toMatch(/^inv_[A-Za-z0-9_-]{43}\n$/);
  });

  it('fails with a clear message and a non-zero code on bad input', async () => {
    const dir = tempDir();
    const missing = await cli(dir, ['user:create', '--email', 'a@b.co']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--password is required');
    const unknownUser = await cli(dir, ['token:create', '--email', 'nobody@b.co', '--company', 'X', '--name', 'n']);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stdout).toBe('');
    expect(unknownUser.stderr).toContain('No user nobody@b.co');
    const badFlag = await cli(dir, ['user:create', '--nope', 'x']);
    expect(badFlag.code).toBe(2);
    const badCommand = await cli(dir, ['frobnicate']);
    expect(badCommand.code).toBe(2);
  });

  it('serves, runs commands through the running server, refuses a second server, and stops on SIGTERM', async () => {
    const dir = tempDir();
    const { port, server, out, exited } = await serving(dir);
    try {
      expect(out.log).toContain('Server listening');
      expect(out.log).toContain('No user exists yet');

      expect((await cli(dir, ['user:create', '--email', 'b@b.co', '--password', 'password123', '--company', 'B'])).code).toBe(0);
      const tok = await cli(dir, ['token:create', '--email', 'b@b.co', '--company', 'B', '--name', 'live']);
      expect(tok.code, tok.stderr).toBe(0);
      const token = tok.stdout.trim();
      const res = await fetch(`http://127.0.0.1:${port}/api/clients`, { headers: { 'x-api-token': token } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { '@type': string })['@type']).toBe('Collection');

      const second = await cli(dir, ['serve'], { PORT: String(Number(port) + 1) });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/in use by process \d+/);
      expect(out.log).not.toContain(token);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // The lock is released: the data survives and another process can open it.
    const again = await cli(dir, ['token:create', '--email', 'b@b.co', '--company', 'B', '--name', 'after']);
    expect(again.code, again.stderr).toBe(0);
  }, 240_000);

  it('demo seeds a company through the running server once, and prints a token that reads every invoice state on stdout, an e-mail and password that sign in on stderr', async () => {
    const dir = tempDir();
    const { port, server, out, exited } = await serving(dir);
    const get = async (token: string, path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-token': token, accept: 'application/json' } });
      expect(res.status, path).toBe(200);
      return { items: (await res.json()) as Record<string, unknown>[], total: Number(res.headers.get('x-total-count')) };
    };
    try {
      expect(out.log).toContain('Server listening');

      const first = await cli(dir, ['demo']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^inv_[A-Za-z0-9_-]{43}\n$/);
      const token = first.stdout.trim();
      // On stderr: an e-mail and password that sign in to the demo company in a browser.
      const signIn = /e-mail:\s+(\S+)\n\s*password:\s+(\S+)/.exec(first.stderr);
      expect(signIn, first.stderr).toBeTruthy();
      expect(signIn![1]).toBe('demo@example.com');
      const browser = new Browserish(`http://127.0.0.1:${port}`);
      const login = await browser.login(signIn![1]!, signIn![2]!);
      expect(login.status, login.text).toBe(303);
      expect((await browser.get('/app')).status).toBe(200);
      expect((await new Browserish(`http://127.0.0.1:${port}`).login(signIn![1]!, 'not-the-password')).status).not.toBe(303);

      const invoices = await get(token, '/api/invoices?itemsPerPage=100');
      const states = new Set(invoices.items.map((i) => i.status));
      expect([...states].sort()).toEqual(['cancelled', 'draft', 'overdue', 'paid', 'pending']);
      for (const i of invoices.items) {
        // The engine's totals and rules: integers, balance = total − amountPaid, lines on every invoice.
        expect(Number.isInteger(i.total) && Number.isInteger(i.balance)).toBe(true);
        expect(i.balance).toBe((i.total as number) - (i.amountPaid as number) - (i.amountCredited as number));
        expect((i.lines as unknown[]).length).toBeGreaterThan(0);
        if (i.status === 'paid') expect(i.balance).toBe(0);
      }
      expect(invoices.items.some((i) => i.recurringInvoice), 'an invoice issued by the recurring invoice').toBe(true);
      expect(invoices.items.some((i) => i.quote), 'the invoice of the accepted quote').toBe(true);
      expect(invoices.items.some((i) => i.status === 'pending' && (i.amountPaid as number) > 0), 'a partly paid invoice').toBe(true);

      // A discounted invoice over two tax rates that exports as an e-invoice, and an issued credit note.
      const twoRates = invoices.items.find((i) => i.discountType !== 'none' && (i.taxGroups as unknown[]).length === 2 && i.status === 'pending');
      expect(twoRates, 'a discounted invoice with two tax rates').toBeDefined();
      const ubl = await fetch(`http://127.0.0.1:${port}/api/invoices/${String(twoRates!.id)}`, { headers: { 'x-api-token': token, accept: 'application/vnd.oasis.ubl+xml' } });
      const xml = await ubl.text();
      expect(ubl.status, xml).toBe(200);
      expect(en16931Violations(xml)).toEqual([]);
      await checkEinvoice(ubl.headers.get('content-type'), xml);
      expect(xml.match(/<cac:AllowanceCharge>/g)?.length).toBe(2);
      const notes = await get(token, '/api/credit-notes');
      expect(notes.items.map((n) => [n.status, n.invoice])).toEqual([['issued', `/api/invoices/${String(twoRates!.id)}`]]);
      expect(twoRates!.amountCredited).toBe(notes.items[0]!.total);
      const noteUbl = await fetch(`http://127.0.0.1:${port}/api/credit-notes/${String(notes.items[0]!.id)}`, { headers: { 'x-api-token': token, accept: 'application/vnd.oasis.ubl+xml' } });
      expect(noteUbl.status).toBe(200);
      const noteXml = await noteUbl.text();
      expect(en16931Violations(noteXml)).toEqual([]);
      await checkEinvoice(noteUbl.headers.get('content-type'), noteXml);

      const quotes = await get(token, '/api/quotes');
      expect(new Set(quotes.items.map((q) => q.status))).toEqual(new Set(['draft', 'sent', 'accepted', 'declined']));
      expect((await get(token, '/api/recurring-invoices')).items.map((r) => r.status)).toEqual(['active']);
      expect((await get(token, '/api/payments')).total).toBe(3);
      expect((await get(token, '/api/taxes')).total).toBe(3);
      const clients = (await get(token, '/api/clients')).total;
      expect(clients).toBeGreaterThanOrEqual(4);

      // Again: a new token for the same company, and nothing seeded twice.
      const second = await cli(dir, ['demo']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/^inv_[A-Za-z0-9_-]{43}\n$/);
      expect(second.stdout).not.toBe(first.stdout);
      // Each run prints a password that signs in (a new one: the earlier one no longer does).
      const again = /password:\s+(\S+)/.exec(second.stderr)![1]!;
      expect((await new Browserish(`http://127.0.0.1:${port}`).login('demo@example.com', again)).status).toBe(303);
      expect((await get(second.stdout.trim(), '/api/clients')).total).toBe(clients);
      expect((await get(second.stdout.trim(), '/api/invoices')).total).toBe(invoices.total);

      // Another company and user by option; a bad option is a clear error and prints no token.
      const other = await cli(dir, ['demo', '--email', 'sales@example.com', '--company', 'Second Demo', '--currency', 'EUR']);
      expect(other.code, other.stderr).toBe(0);
      const otherClients = await get(other.stdout.trim(), '/api/clients');
      expect(otherClients.total).toBe(clients);
      expect(otherClients.items.map((c) => c.id)).not.toContain((await get(token, '/api/clients')).items[0]!.id);
      // A German and a Belgian seller: every e-invoice the demo can make passes the official
      // artefacts, Peppol's national rules included (DE→DE: DE-R-*; BE→BE over 0208 identifiers).
      for (const [profile, domestic] of [['de', 'Globex GmbH'], ['be', 'Brabant Trading NV']] as const) {
        const made = await cli(dir, ['demo', '--email', `${profile}@example.com`, '--company', `Demo ${profile}`, '--profile', profile]);
        expect(made.code, made.stderr).toBe(0);
        const tok = made.stdout.trim();
        const byId = new Map((await get(tok, '/api/clients?itemsPerPage=100')).items.map((c) => [`/api/clients/${String(c.id)}`, String(c.name)]));
        let checked = 0;
        for (const [path, items] of [['/api/invoices', (await get(tok, '/api/invoices?itemsPerPage=100')).items], ['/api/credit-notes', (await get(tok, '/api/credit-notes')).items]] as const) {
          for (const i of items) {
            if (i.status === 'draft') continue;
            const res = await fetch(`http://127.0.0.1:${port}${path}/${String(i.id)}`, { headers: { 'x-api-token': tok, accept: 'application/vnd.oasis.ubl+xml' } });
            const body = await res.text();
            if (byId.get(String(i.client)) === domestic) expect(res.status, `${profile}: ${body}`).toBe(200);
            if (res.status !== 200) continue;
            await checkEinvoice(res.headers.get('content-type'), body);
            checked++;
          }
        }
        expect(checked, `${profile}: e-invoices checked`).toBeGreaterThanOrEqual(3);
      }
      const badProfile = await cli(dir, ['demo', '--company', 'Fourth', '--profile', 'xx']);
      expect(badProfile.code).toBe(1);
      expect(badProfile.stderr).toContain('--profile is one of us, de, be');
      const bad = await cli(dir, ['demo', '--currency', 'XYZ', '--company', 'Third']);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toContain('--currency "XYZ" is not an ISO 4217 code');
      expect(out.log).not.toContain(token);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 420_000);

  it('applies migrations with migrate', async () => {
    const r = await cli(tempDir(), ['migrate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Migrations applied.\n');
  });
});
