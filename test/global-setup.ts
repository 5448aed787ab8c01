// Once per run, before the workers start: a migrated database every test file's freshDatabase copies
// (test/helpers.ts) instead of migrating its own, dropped when the run ends. On PostgreSQL a
// template database (CREATE DATABASE … TEMPLATE); on PGlite an archive of a migrated data
// directory (PGlite's loadDataDir), so no file pays for initdb and the migrations again. The
// migrations themselves are still tested where they are the subject: through the pooler
// (test/pooler.test.ts), against older schemas (test/en16931-migration.test.ts), by the CLI.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../server/db.ts';
import { artefactsAvailable, prepareEinvoiceArtefacts } from './support/einvoice-validate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL: the migrated template database's name. */
    testDatabaseTemplate: string;
    /** PGlite: the path of a migrated data directory's archive. */
    testDataDirArchive: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The official e-invoice artefacts compiled once (cached by checksum across runs), before any
  // test needs them; missing ones are an error in CI and a skip elsewhere (einvoice-validate.ts).
  if (artefactsAvailable()) prepareEinvoiceArtefacts();
  const admin = process.env.DATABASE_URL;
  if (admin) {
    const name = `test_template_${randomBytes(6).toString('hex')}`;
    const sql = postgres(admin, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create database ${name}`);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 1, pooler: 'none' });
    await database.migrate();
    await database.close();
    project.provide('testDatabaseTemplate', name);
    return async () => {
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    };
  }
  const database = await openDatabase({ dataDir: 'memory://' });
  await database.migrate();
  const dir = mkdtempSync(join(tmpdir(), 'invoicing-test-'));
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, new Uint8Array(await (await database.archive!()).arrayBuffer()));
  await database.close();
  project.provide('testDataDirArchive', file);
  return async () => rmSync(dir, { recursive: true, force: true });
}
