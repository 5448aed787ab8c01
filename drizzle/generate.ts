// Generates the next SQL migration with drizzle-kit from the tables the engine derives (plus the
// service's own tables), in drizzle-kit's folder layout: NNNN_<tag>.sql, meta/_journal.json and
// meta/NNNN_snapshot.json. Run: npm run db:generate -- [tag]
//
// What drizzle-kit cannot express comes from the engine too: the extensions and functions the
// indexes need (before drizzle-kit's statements: the trigram keys of engine/trigrams.ts) and the counters' triggers (after them, engine/counts.ts).
// Each such statement is idempotent and is written again only when no earlier migration has it.
// Check mode (`npm run db:check`, run by CI before the tests): writes nothing, and fails when the
// descriptors would generate a migration that is not checked in.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import * as system from '../server/schema.ts';
import { model, scope, tables } from '../server/model.ts';
import { countsDdl } from '../engine/counts.ts';
import { FORMER_FUNCTIONS, trigramsDdl } from '../engine/trigrams.ts';
import { versionTriggers } from '../engine/versions.ts';
import { webhookDeliveries } from '../server/webhooks/schema.ts';
import { emailQueue } from '../server/email/schema.ts';

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
const all: Record<string, unknown> = { ...system, engineSequences: tables.sequences, engineIdempotency: tables.idempotency, engineCounts: tables.counts, webhookDeliveries, emailQueue };
for (const [name, t] of tables.byResource) all[name] = t;
const cur = generateDrizzleJson(all, prev.id);
// The counters' extension and triggers (engine/counts.ts), when no checked-in migration has them.
const written = readdirSync(dir).filter((f) => f.endsWith('.sql')).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
const missing = (xs: string[]) => xs.filter((x) => !written.includes(x));
const statements = [...missing(['CREATE EXTENSION IF NOT EXISTS pg_trgm;', ...trigramsDdl().map((x) => `${x};`)]), ...(await generateMigration(prev, cur)), ...missing(FORMER_FUNCTIONS.map((f) => `DROP FUNCTION IF EXISTS ${f};`)), ...missing(countsDdl(model, scope).map((x) => `${x};`))];
// What drizzle-kit does not derive: the engine's triggers (engine/versions.ts), written again
// whenever they change (they replace what is there). meta/engine_triggers.sql holds the checked-in
// ones: the check compares against it and writes nothing.
const triggersPath = join(meta, 'engine_triggers.sql');
const triggers = versionTriggers(model).join('\n');
if (!existsSync(triggersPath) || readFileSync(triggersPath, 'utf8') !== `${triggers}\n`) {
  statements.push(...versionTriggers(model));
  if (!check) writeFileSync(triggersPath, `${triggers}\n`);
}
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
