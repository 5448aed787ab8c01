// A TCP proxy in front of PostgreSQL that counts the SQL statements its clients run, by reading
// the frontend side of the wire protocol: each simple Query ('Q') and each extended-protocol
// Execute ('E', matched to its statement through Bind and Parse) is one statement; each Sync
// ('S') or simple Query ends one round trip. No server configuration is needed (the alternative,
// pg_stat_statements, needs shared_preload_libraries and a restart), and every driver is counted
// the same way: postgres.js (ours, the baseline) and node-postgres (PostGraphile).
// It runs only in the harness's calibration pass, never in the timed runs.
import net from 'node:net';

export interface StatementCounts {
  /** Statements other than transaction control. */
  statements: number;
  /** BEGIN / START TRANSACTION. */
  begins: number;
  /** COMMIT / ROLLBACK / SAVEPOINT / RELEASE / END. */
  txControl: number;
  /** Round trips: Sync messages plus simple Query messages. */
  roundTrips: number;
}

const TX_CONTROL = /^\s*(commit|rollback|savepoint|release|end|abort|prepare transaction)\b/i;
const BEGIN = /^\s*(begin|start\s+transaction)\b/i;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

export class CountingProxy {
  private readonly counts: StatementCounts = { statements: 0, begins: 0, txControl: 0, roundTrips: 0 };
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  /** When set, the text of every statement counted is appended to it. */
  trace: string[] | null = null;

  constructor(private readonly target: { host: string; port: number }) {}

  snapshot(): StatementCounts {
    return { ...this.counts };
  }

  async start(): Promise<number> {
    this.server = net.createServer((client) => this.connection(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private count(sql: string | undefined): void {
    if (sql === undefined) sql = '';
    this.trace?.push(sql);
    if (BEGIN.test(sql)) this.counts.begins++;
    else if (TX_CONTROL.test(sql)) this.counts.txControl++;
    else this.counts.statements++;
  }

  private connection(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    const done = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    upstream.pipe(client);

    const statements = new Map<string, string>();
    const portals = new Map<string, string | undefined>();
    let startup = true;
    let pending: Buffer = Buffer.alloc(0);

    const parse = () => {
      for (;;) {
        if (startup) {
          if (pending.length < 8) return;
          const len = pending.readInt32BE(0);
          if (pending.length < len) return;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(len);
          // After an SSL or GSS request the client sends its startup message again.
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST && code !== CANCEL_REQUEST) startup = false;
          continue;
        }
        if (pending.length < 5) return;
        const type = String.fromCharCode(pending[0]!);
        const len = pending.readInt32BE(1);
        if (pending.length < len + 1) return;
        const body = pending.subarray(5, len + 1);
        pending = pending.subarray(len + 1);
        switch (type) {
          case 'Q':
            this.count(cstring(body, 0)[0]);
            this.counts.roundTrips++;
            break;
          case 'P': {
            const [name, at] = cstring(body, 0);
            statements.set(name, cstring(body, at)[0]);
            break;
          }
          case 'B': {
            const [portal, at] = cstring(body, 0);
            portals.set(portal, statements.get(cstring(body, at)[0]));
            break;
          }
          case 'E':
            this.count(portals.get(cstring(body, 0)[0]));
            break;
          case 'S':
            this.counts.roundTrips++;
            break;
        }
      }
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      parse();
    });
    client.on('end', () => upstream.end());
  }
}

export function perRequest(before: StatementCounts, after: StatementCounts, requests: number) {
  const d = (k: keyof StatementCounts) => (after[k] - before[k]) / requests;
  return { statements: d('statements'), begins: d('begins'), txControl: d('txControl'), roundTrips: d('roundTrips') };
}
