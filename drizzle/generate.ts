// Generates the next SQL migration with drizzle-kit from the tables the engine derives (plus the
// service's own tables), in drizzle-kit's folder layout: NNNN_<tag>.sql, meta/_journal.json and
// meta/NNNN_snapshot.json. Run: npm run db:generate -- [tag]
// Check mode (`npm run db:check`, run by CI before the tests): writes nothing, and fails when the
// descriptors would generate a migration that is not checked in.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import * as system from '../server/schema.ts';
import { tables } from '../server/model.ts';

const check = process.argv.includes('--check');
const args = process.argv.slice(2).filter((a) => a !== '--check');
const dir = fileURLToPath(new URL('.', import.meta.url));
const meta = join(dir, 'meta');
if (!check) mkdirSync(meta, { recursive: true });
const journalPath = join(meta, '_journal.json');
const journal = existsSync(journalPath)
  ? (JSON.parse(readFileSync(journalPath, 'utf8')) as { version: string; dialect: string; entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[] })
  : { version: '7', dialect: 'postgresql', entries: [] };

const last = journal.entries.at(-1);
const prev = last
  ? JSON.parse(readFileSync(join(meta, `${String(last.idx).padStart(4, '0')}_snapshot.json`), 'utf8'))
  : generateDrizzleJson({});
const all: Record<string, unknown> = { ...system, engineSequences: tables.sequences };
for (const [name, t] of tables.byResource) all[name] = t;
const cur = generateDrizzleJson(all, prev.id);
const statements = await generateMigration(prev, cur);
if (!statements.length) {
  console.log(check ? 'db:check: the checked-in migrations match the descriptors.' : 'No schema changes.');
  process.exit(0);
}
if (check) {
  console.error(
    `db:check: the descriptors would generate a migration that is not checked in (${statements.length} statements):\n\n` +
      `${statements.join('\n')}\n\nRun \`npm run db:generate -- <tag>\` and commit drizzle/.`,
  );
  process.exit(1);
}
const idx = last ? last.idx + 1 : 0;
const tag = `${String(idx).padStart(4, '0')}_${(args[0] ?? (idx === 0 ? 'init' : 'change')).replace(/[^a-z0-9_]/gi, '_')}`;
writeFileSync(join(dir, `${tag}.sql`), `${statements.join('\n--> statement-breakpoint\n')}\n`);
writeFileSync(join(meta, `${String(idx).padStart(4, '0')}_snapshot.json`), `${JSON.stringify(cur, null, 2)}\n`);
journal.entries.push({ idx, version: '7', when: Date.now(), tag, breakpoints: true });
writeFileSync(journalPath, `${JSON.stringify(journal, null, 2)}\n`);
console.log(`Wrote drizzle/${tag}.sql (${statements.length} statements).`);
