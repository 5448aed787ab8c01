// While `serve` holds the embedded database, the other CLI commands run inside the server through
// a Unix socket in DATA_DIR (mode 0600: only the owner of the data can use it).
import { chmodSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { CommandError, stderrOf, stdoutOf, type Args, type CommandContext } from './commands.ts';
import { commands } from './command-list.ts';

export async function startAdminSocket(path: string, ctx: CommandContext): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
      if (body.length > 65536) req.destroy();
    });
    req.on('end', async () => {
      const reply = (status: number, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      try {
        const { command, args } = JSON.parse(body) as { command: string; args: Args };
        const fn = commands[command];
        if (!fn) return reply(400, { error: `Unknown command ${command}.` });
        const out = await fn(ctx, args);
        reply(200, { output: stdoutOf(out), notice: stderrOf(out) });
      } catch (e) {
        reply(e instanceof CommandError ? 400 : 500, { error: e instanceof CommandError ? e.message : 'The command failed; see the server log.' });
      }
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  chmodSync(path, 0o600);
  return server;
}

/** Runs a command in the server that owns the socket. */
export function runThroughSocket(path: string, command: string, args: Args): Promise<{ output?: string; notice?: string; error?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'POST', path: '/run', headers: { 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString('utf8')));
      res.on('end', () => {
        try {
          resolve(JSON.parse(data));
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ command, args }));
  });
}
