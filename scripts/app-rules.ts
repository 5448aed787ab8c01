// The server's totals arithmetic (resources/rules/totals.ts, CONTRACT §6) as an ES module the
// browser loads (web/app/rules/totals.js), so that the document editor totals as it is typed by
// the same code the server saves with. The module is the TypeScript with its types stripped by
// esbuild, nothing else; it is checked in (the application has no build step) and
// test/app-totals.test.ts fails while it differs from what this script writes.
//   npx tsx scripts/app-rules.ts          writes it
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

export const SOURCE = 'resources/rules/totals.ts';
export const TARGET = 'web/app/rules/totals.js';

/** The browser's module, from the server's source. */
export function browserModule(source: string): string {
  const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'es2022', legalComments: 'none' });
  return `// Generated from ${SOURCE} by scripts/app-rules.ts: do not edit (the types stripped, nothing else).\n${code}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(TARGET, browserModule(readFileSync(SOURCE, 'utf8')));
  console.log(`wrote ${TARGET}`);
}
