// `invoicing` — the one program: serve (default), migrate, user:create, token:create, schedule:run,
// demo, counts:rebuild.
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db.ts';
import { CommandError, stderrOf, stdoutOf, type Args } from './commands.ts';
import { commands } from './command-list.ts';
import { acquireLock, adminSocketPath, type Lock } from '../lock.ts';
import { runThroughSocket } from './admin-socket.ts';
import { databaseOptions, startServer } from '../serve.ts';

const USAGE = `Usage: invoicing <command> [options]

Commands:
  serve                       start the HTTP server (default)
  migrate                     apply pending database migrations
  user:create --email E --password P --company NAME [--role admin|member|viewer] [--currency USD]
  token:create --email E --company NAME --name N [--description D]
                              prints only the token value
  schedule:run [--date YYYY-MM-DD]
                              issues due recurring invoices and marks overdue invoices
                              for that day (default today, UTC), in every company
  counts:rebuild              recounts the collection sizes kept for totalItems/totalCount
  demo [--email demo@example.com] [--company "Demo Company"] [--currency USD] [--password P]
       [--profile us|de|be]   seeds a demo company (clients, taxes, invoices in every state,
                              quotes, a recurring invoice, payments) once, and prints only a
                              new token for it; --profile de or be makes the seller a German
                              or Belgian company (national e-invoice rules; default currency EUR)
Environment: PORT, HOST, DATABASE_URL, DATA_DIR, REDIS_URL, APP_SECRET, LOG_LEVEL, TRUST_PROXY
`;

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const [command = 'serve', ...rest] = process.argv.slice(2);
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  let values: Args;
  try {
    values = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' }, password: { type: 'string' }, company: { type: 'string' }, role: { type: 'string' },
        currency: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' }, date: { type: 'string' },
        profile: { type: 'string' },
      },
      strict: true,
    }).values as Args;
  } catch (e) {
    fail(`${(e as Error).message}\n\n${USAGE}`, 2);
  }
  if (command !== 'serve' && command !== 'migrate' && !commands[command]) fail(`Unknown command "${command}".\n\n${USAGE}`, 2);

  // The embedded database belongs to one process at a time.
  let lock: Lock | undefined;
  if (!config.databaseUrl) {
    const got = acquireLock(config.dataDir);
    if ('heldBy' in got) {
      const socket = adminSocketPath(config.dataDir);
      if (command === 'serve' || command === 'migrate' || !existsSync(socket)) {
        fail(`The embedded database in ${config.dataDir} is in use by process ${got.heldBy}. Stop that process first, or use another DATA_DIR.`);
      }
      const res = await runThroughSocket(socket, command, values).catch(() => fail(`The embedded database in ${config.dataDir} is in use by process ${got.heldBy}, which did not answer. Stop it and retry.`));
      if (res.error) fail(res.error);
      process.stdout.write(res.output ?? '');
      if (res.notice) process.stderr.write(res.notice);
      return;
    }
    lock = got;
  }

  if (command === 'serve') {
    const running = await startServer(config, { adminSocket: true });
    const shutdown = async (signal: string) => {
      running.fastify.log.info(`${signal} received: finishing requests in flight, then stopping.`);
      await running.stop();
      lock?.release();
      process.exit(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
    return;
  }

  const database = await openDatabase({ ...databaseOptions(config), maxConnections: 2 });
  try {
    await database.migrate();
    if (command === 'migrate') process.stdout.write('Migrations applied.\n');
    else {
      const out = await commands[command]!({ db: database.db }, values);
      process.stdout.write(stdoutOf(out));
      if (stderrOf(out)) process.stderr.write(stderrOf(out));
    }
  } catch (e) {
    if (e instanceof CommandError) fail(e.message);
    throw e;
  } finally {
    await database.close();
    lock?.release();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
