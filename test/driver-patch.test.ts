// postgres.js carries patches/postgres+3.4.9.patch (applied by patch-package in postinstall):
// both of its builds (ESM, which the server imports, and CommonJS) have every line the patch adds
// and the mark the server checks, and a driver without the mark is refused with a message saying
// why. test/faults.test.ts shows on PostgreSQL what the fixes are for.
import { spawnSync } from 'node:child_process';
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

  it.runIf(process.env.DATABASE_URL)('opens PostgreSQL through the patched driver', async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
    try {
      await database.ping();
    } finally {
      await database.close();
    }
  });
});
