// postgres.js carries patches/postgres+3.4.9.patch (applied by patch-package in postinstall):
// both of its builds (ESM, which the server imports, and CommonJS) have every line the patch adds
// and the mark the server checks, and a driver without the mark is refused with a message saying
// why. test/faults.test.ts shows on PostgreSQL what the fixes are for.
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { assertPatchedDriver, openDatabase, POSTGRES_PATCH } from '../server/db.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { dependencies: Record<string, string>; scripts: Record<string, string> };
const installed = (JSON.parse(readFileSync(`${root}node_modules/postgres/package.json`, 'utf8')) as { version: string }).version;
const patchFile = `patches/postgres+${installed}.patch`;

/** The lines each file of a unified diff adds, by path inside the repository. */
function addedLines(patch: string): Map<string, string[]> {
  const files = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of patch.split('\n')) {
    const header = /^\+\+\+ b\/(.+)$/.exec(line);
    if (header) files.set(header[1]!, (current = []));
    else if (current && line.startsWith('+') && line.slice(1).trim()) current.push(line.slice(1));
  }
  return files;
}

describe('postgres.js driver patch', () => {
  it('is pinned to the exact version the patch is written for, and applied by patch-package on install', () => {
    expect(pkg.dependencies.postgres).toBe(installed);
    expect(pkg.dependencies.postgres).toMatch(/^\d+\.\d+\.\d+$/);
    expect(POSTGRES_PATCH).toContain(`postgres@${installed} `);
    expect(pkg.scripts.postinstall).toMatch(/^patch-package\b/);
  });

  it('every line the patch adds is in the installed driver, ESM and CommonJS builds alike', () => {
    const files = addedLines(readFileSync(`${root}${patchFile}`, 'utf8'));
    expect([...files.keys()].sort()).toEqual(
      ['connection.js', 'index.js', 'query.js', 'queue.js'].flatMap((f) => [`node_modules/postgres/cjs/src/${f}`, `node_modules/postgres/src/${f}`]).sort(),
    );
    for (const [path, lines] of files) {
      const text = readFileSync(`${root}${path}`, 'utf8');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(text, `${path} lacks: ${line.trim()}`).toContain(line);
    }
  });

  it('marks both builds of the driver, and the server accepts the one it loads', () => {
    expect((postgres as unknown as { invoicingPatch?: string }).invoicingPatch).toBe(POSTGRES_PATCH);
    const cjs = require('postgres') as { invoicingPatch?: string };
    expect(cjs).not.toBe(postgres);
    expect(cjs.invoicingPatch).toBe(POSTGRES_PATCH);
    expect(() => assertPatchedDriver(postgres)).not.toThrow();
  });

  it('refuses a driver without the mark, or with another version of it, saying why and what to do', () => {
    const unpatched = function Postgres() {};
    expect(() => assertPatchedDriver(unpatched)).toThrow(/not patched: patches\/postgres\+3\.4\.9\.patch fixes connections that close under load.*Run `npm ci`/);
    const older = Object.assign(function Postgres() {}, { invoicingPatch: 'postgres@3.4.9 invoicing-0' });
    expect(() => assertPatchedDriver(older)).toThrow(/it carries "postgres@3\.4\.9 invoicing-0"/);
  });

  // Unpatched, each query's two settling closures (made in its constructor) keep its promise and
  // result alive through the young collections when V8 has allocated them in the old generation:
  // the server's item read then promoted about 1.7 MB per young collection (bench/gc-promotion.ts),
  // which cost it a fifth of its CPU. The fixture measures what the collections promote.
  it('a settled query leaves nothing for the young collections to promote', () => {
    const run = spawnSync(process.execPath, ['--trace-gc-nvp', `${root}test/fixtures/query-promotion.mjs`, `${root}node_modules/postgres/src/query.js`], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 2 ** 20 });
    expect(run.status, `${run.signal ?? ''} ${run.error?.message ?? ''} ${run.stderr}`).toBe(0);
    const promoted = [...run.stdout.matchAll(/ gc=s .* promoted=(\d+)/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(promoted.length).toBeGreaterThan(20);
    // Unpatched: about 2.6 MB per young collection; patched: none.
    expect(promoted[Math.floor(promoted.length / 2)]!).toBeLessThan(256 * 1024);
  });

  it('fails a query refused after the connection was set up, instead of reconnecting for it forever', async () => {
    // What PgBouncer 1.18 answers while its logins to PostgreSQL fail (server_login_retry): the
    // client's start-up succeeds from its cached parameters (AuthenticationOk, ReadyForQuery),
    // then the first query gets a FATAL error and the connection closes. That first query is the
    // driver's array-types query; unpatched, the query waiting behind it reconnected at once, over
    // and over (a thousand connections a second, test/history.test.ts through the pooler), and
    // never settled. The bytes are PgBouncer's, recorded; the test's own server plays them.
    const message = (type: string, body: Buffer) => {
      const head = Buffer.alloc(5);
      head.write(type, 0);
      head.writeInt32BE(body.length + 4, 1);
      return Buffer.concat([head, body]);
    };
    const fatal = message('E', Buffer.from('SFATAL\0C08P01\0Mserver login has been failing, try again later (server_login_retry)\0\0'));
    const setup = Buffer.concat([
      message('R', Buffer.from([0, 0, 0, 0])),
      message('S', Buffer.from('server_version\x0016.4\0')),
      message('S', Buffer.from('client_encoding\0UTF8\0')),
      message('K', Buffer.alloc(8)),
      message('Z', Buffer.from('I')),
    ]);
    let connections = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      connections++;
      sockets.add(socket);
      let started = false;
      socket.on('data', () => {
        if (!started) {
          started = true;
          socket.write(setup);
        } else socket.end(fatal);
      });
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const sql = postgres(`postgres://u@127.0.0.1:${(server.address() as AddressInfo).port}/d`, { max: 1, onnotice: () => {}, backoff: () => 0.05 });
    try {
      const outcome = await Promise.race([
        sql`select 1`.then(() => 'answered', (e: { code?: string; message: string }) => `${e.code}: ${e.message}`),
        new Promise((r) => setTimeout(() => r('still waiting'), 5000)),
      ]);
      expect(outcome).toBe('08P01: server login has been failing, try again later (server_login_retry)');
      expect(connections).toBe(1);
    } finally {
      await sql.end({ timeout: 0 }).catch(() => {});
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it.runIf(process.env.DATABASE_URL)('opens PostgreSQL through the patched driver', async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
    try {
      await database.ping();
    } finally {
      await database.close();
    }
  });
});
