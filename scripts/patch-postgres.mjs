// Patches postgres.js (3.4.9, the latest release) against defects around a connection that closes
// under load, which test/faults.test.ts reproduces with pg_terminate_backend. Unpatched, they
// crash the process, hang requests, and worse: a query can receive another query's result, and a
// transaction's remaining statements can run in autocommit on the connection that replaced its
// own. Upstream: porsager/postgres issues #1066, #1154, #1186, #1189, #1204, #1208, #1216 (fixes
// proposed in #1155, #1168, #1209, #1215; none released). Runs as `postinstall`; idempotent
// (an edit already in place is skipped); does nothing once the installed files have changed.
//
// connection.js
// 1. nextWrite on a closed socket threw from a setImmediate callback no caller can catch; the
//    teardowns cleared the scheduled write without forgetting it, so the next socket never
//    flushed. Now the write is dropped and its queries fail with CONNECTION_CLOSED.
// 2. A query executed on a closed connection (no socket) was buffered and written to whichever
//    socket the connection opened next, where its response was taken for another query's.
//    Now it fails at once with CONNECTION_CLOSED.
// 3. closed() forgot the queries in flight when the socket closed with an error (their rejection
//    was left to the 'error' event, which misses queries added between the two events), and kept
//    the active query and the fatal error response: the next connection's first query then
//    inherited the old backend's error, and queries behind a stale active query were answered
//    with the wrong responses. Now every query in flight fails and that state is reset.
// 4. The array-types query of a connection's setup, rejected when the socket closed during the
//    setup, was an unhandled rejection (which ends a Node process).
// 5. BEGIN written at the pipeline boundary skipped the hook that reserves its connection
//    (#1189): the transaction's connection stayed in the pool for other queries.
// index.js
// 6. sql.begin(): once its connection closed, the callback still ran its next statements (and the
//    final COMMIT/ROLLBACK) on that connection object, by then reconnected for other work; and
//    statements queued in the transaction never settled. Now they are rejected with the close
//    error.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../node_modules/postgres/', import.meta.url));

const connection = [
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    `  function nextWrite(fn) {\n    /* invoicing: guarded nextWrite */\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
  ],
  ['    clearImmediate(nextWriteTimer)\n    if (socket) {', '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {'],
  ["    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)", "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener('data', data)"],
  [
    "      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n\n    if (stream)",
    "      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n\n    /* invoicing: no query on a closed connection */\n    if (!socket)\n      return queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true\n\n    if (stream)",
  ],
  [
    '    if (initial)\n      return reconnect()\n\n    !hadError && (query || sent.length) && error(Errors.connection(\'CONNECTION_CLOSED\', options, socket))\n',
    "    /* invoicing: nothing survives its socket */\n    if (initial) {\n      query && query !== initial && queryError(query, Errors.connection('CONNECTION_CLOSED', options))\n      query = results = errorResponse = null\n      result = new Result()\n      return reconnect()\n    }\n\n    (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options))\n    query = results = errorResponse = null\n    result = new Result()\n",
  ],
  [
    '    `], [], execute)\n    types.forEach(({ oid, typarray }) => addArrayType(oid, typarray))',
    '    `], [], execute).catch(() => []) /* invoicing: failing with its socket, not an unhandled rejection */\n    types.forEach(({ oid, typarray }) => addArrayType(oid, typarray))',
  ],
  [
    '      return write(toBuffer(q))\n        && !q.describeFirst\n        && !q.cursorFn\n        && sent.length < max_pipeline\n        && (!q.options.onexecute || q.options.onexecute(connection))',
    '      /* invoicing: the reserving hook runs whenever the query was written */\n      const more = write(toBuffer(q))\n        && !q.describeFirst\n        && !q.cursorFn\n        && sent.length < max_pipeline\n      return q.options.onexecute ? q.options.onexecute(connection) : more',
  ],
];

const index = [
  ['    let savepoints = 0\n      , connection\n      , prepare = null\n', '    let savepoints = 0\n      , connection\n      , prepare = null\n      , closedError = null /* invoicing: the transaction\'s connection closed */\n'],
  [
    '        new Promise((_, reject) => connection.onclose = reject)',
    '        new Promise((_, reject) => connection.onclose = e => {\n          closedError = e\n          while (queries.length)\n            queries.shift().reject(e)\n          reject(e)\n        })',
  ],
  [
    '        q.catch(e => uncaughtError || (uncaughtError = e))\n        c.queue === full',
    '        q.catch(e => uncaughtError || (uncaughtError = e))\n        if (closedError)\n          return q.reject(closedError)\n        c.queue === full',
  ],
];

// queue.js
// 7. A queue's backing array only shrank when the queue emptied, and remove() scanned it from the
//    start: under steady load (the busy queue never empty) every move of a connection between
//    queues walked an ever longer array (6 % of the service's CPU in a 10 s benchmark run).
//    remove() now starts at the head, and shift() drops the consumed part once it is half.
const queue = [
  [
    '    remove: (x) => {\n      const index = xs.indexOf(x)\n      return index === -1\n        ? null\n        : (xs.splice(index, 1), x)\n    },',
    '    remove: (x) => {\n      /* invoicing: from the head */\n      const at = xs.indexOf(x, index)\n      return at === -1\n        ? null\n        : (xs.splice(at, 1), x)\n    },',
  ],
  [
    '      } else {\n        xs[index - 1] = undefined\n      }',
    '      } else if (index >= 64 && index * 2 >= xs.length) {\n        xs = xs.slice(index) /* invoicing: compacted */\n        index = 0\n      } else {\n        xs[index - 1] = undefined\n      }',
  ],
];

let failed = false;
for (const [files, edits] of [
  [['src/connection.js', 'cjs/src/connection.js'], connection],
  [['src/index.js', 'cjs/src/index.js'], index],
  [['src/queue.js', 'cjs/src/queue.js'], queue],
]) {
  for (const file of files) {
    const path = root + file;
    if (!existsSync(path)) continue;
    let text = readFileSync(path, 'utf8');
    const pending = edits.filter(([, to]) => !text.includes(to));
    if (pending.length === 0) continue;
    if (!pending.every(([from]) => text.includes(from))) {
      console.log(`patch-postgres: ${file} has changed upstream; not patched (check whether the defects are fixed)`);
      failed = true;
      continue;
    }
    for (const [from, to] of pending) text = text.replace(from, to);
    writeFileSync(path, text);
    console.log(`patch-postgres: patched ${file} (${pending.length} edits)`);
  }
}
if (failed && process.env.CI) process.exitCode = 1;
