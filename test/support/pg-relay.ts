// A TCP relay in front of PostgreSQL, to make an outage without touching the shared server:
// `cut()` closes every connection and refuses new ones, `restore()` relays again, which is what a
// database restart (or a network cut) looks like from the service. Used by
// test/token-cache-notify.test.ts and test/webhooks.test.ts.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: URL) {}

  async open(): Promise<void> {
    this.server = createServer((inbound) => {
      const outbound = connect(Number(this.target.port || 5432), this.target.hostname);
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.sockets.delete(s);
          inbound.destroy();
          outbound.destroy();
        });
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as { port: number }).port;
  }

  /** The URL of `database` through the relay. */
  url(database: string): string {
    const u = new URL(this.target);
    u.host = `127.0.0.1:${this.port}`;
    u.pathname = `/${database}`;
    return u.toString();
  }

  async cut(): Promise<void> {
    const closed = new Promise((r) => this.server?.close(r));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  restore = () => this.open();
}
