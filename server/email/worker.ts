// Sends e-mails after commit (CONTRACT §15): the mail channel of the service's one delivery
// mechanism (server/delivery/queue.ts: claims, leases, batched records, shutdown, shared with the
// webhooks). An attempt reads the e-mail, renders its attachments as GET renders them (the
// descriptors' documents), and hands the message to the SMTP server through nodemailer with the
// e-mail's Message-ID, the same on every attempt. A connection error or an SMTP 4xx is retried
// on the schedule (1 min, 10 min, 1 h, 6 h); an SMTP 5xx fails at once. Its record updates the
// e-mail (status, attempts, lastError, sentAt) and emits `email.sent` / `email.failed`, in one
// transaction with the queue row's removal.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Engine } from '../../engine/operations.ts';
import type { Db, Principal } from '../../engine/types.ts';
import { PDF_TYPE, UBL_TYPE, type DocumentRenderers } from '../../resources/rules/document-files.ts';
import { pgArray, rowsOf } from '../db.ts';
import { MAX_ERROR, nextStep, QueueWorker, type Made, type Outcome } from '../delivery/queue.ts';
import type { MailSettings } from './service.ts';

export interface ClaimedEmail {
  id: string;
  company_id: string;
  attempts: number;
}

const RESOURCES: Record<string, { resource: string; kind: 'invoice' | 'quote' | 'creditNote' }> = {
  invoices: { resource: 'Invoice', kind: 'invoice' },
  quotes: { resource: 'Quote', kind: 'quote' },
  'credit-notes': { resource: 'CreditNote', kind: 'creditNote' },
};

/** Text as HTML: escaped, paragraphs and line breaks kept. */
export function htmlOf(text: string): string {
  const esc = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  const paragraphs = esc.split(/\r?\n\s*\r?\n/).map((p) => `<p>${p.replace(/\r?\n/g, '<br>\n')}</p>`);
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n${paragraphs.join('\n')}\n</body></html>\n`;
}

/** An SMTP reply or connection error as `lastError`: code and text. */
function errorText(e: unknown): { permanent: boolean; status: number | null; error: string } {
  const err = e as { responseCode?: number; response?: string; code?: string; message?: string };
  const code = typeof err.responseCode === 'number' ? err.responseCode : null;
  const text = (err.response ?? err.message ?? String(e)).replace(/\s+/g, ' ').trim();
  if (code !== null) return { permanent: code >= 500, status: code, error: text.startsWith(String(code)) ? text : `${code} ${text}` };
  return { permanent: false, status: null, error: err.code ? `${err.code}: ${text}` : text };
}

/** SMTP_URL as nodemailer's options: smtp:// (STARTTLS when offered) or smtps:// (TLS from the start). */
export function smtpOptions(url: string): SMTPTransport.Options {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps:// (not "${u.protocol}").`);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
  };
}

export class EmailWorker extends QueueWorker<ClaimedEmail> {
  protected readonly label = 'e-mail';
  private readonly transport: Transporter | undefined;

  constructor(
    db: Db,
    private readonly mail: MailSettings,
    log: FastifyBaseLogger,
    private readonly engine: Engine,
    private readonly documents: DocumentRenderers,
    private readonly principalFor: (companyId: string) => Promise<Principal>,
  ) {
    super(db, mail, log);
    this.transport = mail.smtpUrl
      ? nodemailer.createTransport({ ...smtpOptions(mail.smtpUrl), connectionTimeout: mail.timeoutMs, greetingTimeout: mail.timeoutMs, socketTimeout: mail.timeoutMs * 3 } as SMTPTransport.Options)
      : undefined;
  }

  /** Without SMTP_URL nothing is sent (e-mails are held; none is queued): the worker does not run. */
  override start(): void {
    if (this.transport) super.start();
  }

  protected async claim(n: number, leaseMs: number): Promise<ClaimedEmail[]> {
    return rowsOf<ClaimedEmail>(await this.db.execute(sql`
      with due as (
        select q.id from email_queue q
        where q.next_attempt_at <= now() and (q.leased_until is null or q.leased_until <= now())
        order by q.next_attempt_at limit ${n}
        for update of q skip locked)
      update email_queue q set attempts = q.attempts + 1, leased_until = now() + ${`${leaseMs} milliseconds`}::interval
      where q.id in (select id from due)
      returning q.id, q.company_id, q.attempts`));
  }

  protected async returnRows(rows: ClaimedEmail[]): Promise<void> {
    await this.db.execute(sql`
      update email_queue as q set attempts = q.attempts - 1, leased_until = null
      from unnest(${pgArray(rows.map((c) => c.id))}::uuid[], ${pgArray(rows.map((c) => c.attempts))}::int[]) as v(id, attempts)
      where q.id = v.id and q.attempts = v.attempts`);
  }

  protected async attempt(c: ClaimedEmail): Promise<Outcome> {
    const started = Date.now();
    const done = (ok: boolean, o: { permanent?: boolean; status?: number | null; error?: string | null } = {}): Outcome =>
      ({ ok, permanent: o.permanent, status: o.status ?? null, error: o.error?.slice(0, MAX_ERROR) ?? null, durationMs: Date.now() - started });
    let message: SendMailOptions;
    try {
      const m = await this.message(c);
      if ('problem' in m) return done(false, { permanent: true, error: m.problem });
      message = m;
    } catch (e) {
      // The document could not be rendered (a UBL whose data the standard requires went missing):
      // sending it would never work.
      const err = e as { status?: number; message?: string; violations?: { propertyPath: string; message: string }[] };
      const detail = err.violations?.length ? err.violations.map((v) => `${v.propertyPath}: ${v.message}`).join('; ') : err.message;
      return done(false, { permanent: typeof err.status === 'number' && err.status < 500, error: `The message could not be made: ${detail}` });
    }
    try {
      const info = await this.transport!.sendMail(message);
      return done(true, { status: Number(/^\d{3}/.exec(String(info.response ?? ''))?.[0] ?? 250) });
    } catch (e) {
      const t = errorText(e);
      return done(false, { permanent: t.permanent, status: t.status, error: t.error });
    }
  }

  /** The message of e-mail `c`: headers, text and HTML parts, attachments. */
  private async message(c: ClaimedEmail): Promise<SendMailOptions | { problem: string }> {
    const [row] = rowsOf<Record<string, unknown>>(await this.db.execute(sql`
      select e."document", e."to", e."cc", e."bcc", e."subject", e."body", e."attach", e."message_id", c."email" as "company_email", c."name" as "company_name"
      from "emails" e join "companies" c on c."id" = e."company_id" where e."id" = ${c.id}`));
    if (!row) return this.accountMessage(c);
    const from = this.mail.from ?? (row.company_email ? { name: String(row.company_name), address: String(row.company_email) } : undefined);
    if (!from) return { problem: "No sender: set MAIL_FROM, or the company profile's email." };
    const m = /^\/api\/([a-z-]+)\/([0-9a-f-]+)$/.exec(String(row.document));
    const target = m ? RESOURCES[m[1]!] : undefined;
    if (!m || !target) return { problem: `Unknown document ${String(row.document)}.` };
    const p = await this.principalFor(c.company_id);
    const r = this.engine.model.get(target.resource);
    const attachments: SendMailOptions['attachments'] = [];
    const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? (JSON.parse(v) as string[]) : []);
    for (const a of list(row.attach)) {
      const rendered = a === 'ubl' && target.kind !== 'quote' ? await this.documents.ubl(p, r, target.kind, m[2]!) : a === 'pdf' ? await this.documents.pdf(p, r, target.kind, m[2]!) : undefined;
      if (!rendered) continue;
      const name = /filename="([^"]+)"/.exec(rendered.headers?.['content-disposition'] ?? '')?.[1] ?? `document.${a === 'ubl' ? 'xml' : 'pdf'}`;
      attachments.push({ filename: name, content: Buffer.isBuffer(rendered.body) ? rendered.body : Buffer.from(rendered.body, 'utf8'), contentType: a === 'ubl' ? UBL_TYPE : PDF_TYPE });
    }
    const body = String(row.body ?? '');
    return {
      from,
      to: list(row.to),
      cc: list(row.cc),
      bcc: list(row.bcc),
      subject: String(row.subject ?? ''),
      text: body,
      html: htmlOf(body),
      messageId: String(row.message_id),
      attachments,
      disableFileAccess: true,
      disableUrlAccess: true,
    };
  }

  /** An e-mail about a person's account (an invitation, a password reset: server/people.ts): text only. */
  private async accountMessage(c: ClaimedEmail): Promise<SendMailOptions | { problem: string }> {
    const [row] = rowsOf<Record<string, unknown>>(await this.db.execute(sql`
      select a."to", a."subject", a."body", a."message_id", c."email" as "company_email", c."name" as "company_name"
      from "account_emails" a left join "companies" c on c."id" = a."company_id" where a."id" = ${c.id}`));
    if (!row) return { problem: 'The e-mail no longer exists.' };
    const from = this.mail.from ?? (row.company_email ? { name: String(row.company_name), address: String(row.company_email) } : undefined);
    if (!from) return { problem: "No sender: set MAIL_FROM (or, for an invitation, the company profile's email)." };
    const body = String(row.body);
    return { from, to: [String(row.to)], subject: String(row.subject), text: body, html: htmlOf(body), messageId: String(row.message_id), disableFileAccess: true, disableUrlAccess: true };
  }

  /**
   * Records the outcomes, guarded by the attempt count (a takeover after a lost lease is not
   * overwritten): the queue rows go (sent, failed) or wait for their next attempt, and the e-mails
   * show it, with their events, in one transaction.
   */
  protected async write(batch: Made<ClaimedEmail>[]): Promise<void> {
    const schedule = this.settings.retrySchedule;
    const steps = batch.map((b) => nextStep(schedule, b.c.attempts, b.outcome));
    const col = <T extends string | number | null>(f: (b: Made<ClaimedEmail>, i: number) => T) => pgArray(batch.map(f));
    const r = this.engine.model.get('Email');
    await this.engine.transaction(async (tx) => {
      // Account e-mails (no E-mail record, no event) first, while their queue rows are there.
      await tx.execute(sql`
        with v as (
          select * from unnest(${col((b) => b.c.id)}::uuid[], ${col((b) => b.c.attempts)}::int[], ${col((_b, i) => (steps[i]!.settled === 'succeeded' ? 'sent' : steps[i]!.settled ?? 'queued'))}::text[], ${col((b) => b.outcome.error)}::text[]) as v(id, attempts, status, error))
        update account_emails a set status = v.status, attempts = v.attempts, last_error = v.error, sent_at = case when v.status = 'sent' then now() else a.sent_at end
        from v join email_queue q on q.id = v.id and q.attempts = v.attempts where a.id = v.id`);
      const rows = rowsOf<{ id: string; status: string }>(await tx.execute(sql`
        with v as (
          select * from unnest(${col((b) => b.c.id)}::uuid[], ${col((b) => b.c.attempts)}::int[], ${col((_b, i) => (steps[i]!.settled === 'succeeded' ? 'sent' : steps[i]!.settled ?? 'queued'))}::text[],
            ${col((_b, i) => steps[i]!.delay)}::int[], ${col((b) => b.outcome.error)}::text[]) as v(id, attempts, status, delay, error)),
        settled as (
          delete from email_queue q using v where q.id = v.id and q.attempts = v.attempts and v.status <> 'queued' returning q.id),
        waiting as (
          update email_queue q set next_attempt_at = now() + v.delay * interval '1 millisecond', leased_until = null
          from v where q.id = v.id and q.attempts = v.attempts and v.status = 'queued' returning q.id)
        update emails e set status = v.status, attempts = v.attempts, last_error = v.error,
          sent_at = case when v.status = 'sent' then now() else e.sent_at end, updated_at = now()
        from v where e.id = v.id and (e.id in (select id from settled) or e.id in (select id from waiting))
        returning e.id, e.status`));
      const sent = rows.filter((x) => x.status === 'sent').map((x) => x.id);
      const failed = rows.filter((x) => x.status === 'failed').map((x) => x.id);
      if (sent.length) await this.engine.emit(tx, r, sent, ['email.sent']);
      if (failed.length) await this.engine.emit(tx, r, failed, ['email.failed']);
    });
  }
}
