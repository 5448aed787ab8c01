// Patches postgres.js (3.4.9, the latest release) against a known defect that the fault tests
// reproduce (test/faults.test.ts, pg_terminate_backend under load): when a connection closes
// while a small write is scheduled, `nextWrite` runs on a null socket and throws from a
// setImmediate callback, which no caller can catch: the process crashes. And the teardown
// clears the scheduled write without forgetting it, so the reconnected connection never flushes
// again and its queries hang. Upstream: porsager/postgres issues #1066, #1154, #1208 (fix
// proposed in #1168/#1209, not released). Runs as `postinstall`; idempotent; does nothing once
// the installed version no longer has the defect.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../node_modules/postgres/', import.meta.url));
const MARK = '/* invoicing: guarded nextWrite */';
const edits = [
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    `  function nextWrite(fn) {\n    ${MARK}\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
  ],
  ['    clearImmediate(nextWriteTimer)\n    if (socket) {', '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {'],
  ["    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)", "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener('data', data)"],
];

for (const file of ['src/connection.js', 'cjs/src/connection.js']) {
  const path = root + file;
  if (!existsSync(path)) continue;
  let text = readFileSync(path, 'utf8');
  if (text.includes(MARK)) continue;
  if (!edits.every(([from]) => text.includes(from))) {
    console.log(`patch-postgres: ${file} has changed upstream; not patched (check whether the defect is fixed)`);
    continue;
  }
  for (const [from, to] of edits) text = text.replace(from, to);
  writeFileSync(path, text);
  console.log(`patch-postgres: patched ${file}`);
}
