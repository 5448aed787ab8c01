// A real SMTP server in the test process (smtp-server, from the nodemailer project): every message
// is parsed with mailparser; `plan` lists the answers to the next messages in turn (an SMTP code:
// 451 asks for a retry, 550 refuses), then it accepts.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Arrived {
  raw: Buffer;
  parsed: ParsedMail;
  /** The envelope's recipients (RCPT TO), bcc included. */
  rcpt: string[];
  from: string;
  /** The answer given: 250, or the planned code. */
  answer: number;
}

export class Mailbox {
  server: SMTPServer;
  arrived: Arrived[] = [];
  plan: number[] = [];
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          const answer = this.plan.shift() ?? 250;
          void simpleParser(raw).then((parsed) => {
            this.arrived.push({ raw, parsed, rcpt: session.envelope.rcptTo.map((r) => r.address), from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', answer });
            if (answer === 250) callback();
            else callback(Object.assign(new Error(answer >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: answer }));
          });
        });
      },
    });
  }

  async start(port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Messages accepted (answered 250). */
  get accepted(): Arrived[] {
    return this.arrived.filter((a) => a.answer === 250);
  }
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
