// What the e-mail rules (resources/rules/email.ts) use of the server: whether it sends at all,
// the company's e-mail settings, the queue's insert and the Message-ID. The CLI's engine gets one
// too (its reminders are queued for the running servers' workers).
import { createLinkForRecipient } from '../../resources/rules/document-link.ts';
import { hostname } from 'node:os';
import { eq, sql } from 'drizzle-orm';
import type { MailService } from '../../resources/rules/email.ts';
import { companies } from '../schema.ts';
import { emailQueue } from './schema.ts';
import { checkEmailCap } from './cap.ts';

export interface MailSettings {
  /** SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; none: e-mails are held. */
  smtpUrl: string | undefined;
  /** MAIL_FROM; the company profile's e-mail when unset. */
  from: string | undefined;
  /** Delays before the 2nd, 3rd, … attempt (CONTRACT §15: 1 min, 10 min, 1 h, 6 h). */
  retrySchedule: readonly number[];
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
}

/** The domain of Message-IDs: MAIL_FROM's, else the host's name. */
function messageDomain(from: string | undefined): string {
  const m = from ? /@([A-Za-z0-9.-]+)>?\s*$/.exec(from) : null;
  return m?.[1] ?? (hostname().replace(/[^A-Za-z0-9.-]/g, '') || 'localhost');
}

export function mailService(settings: Pick<MailSettings, 'smtpUrl' | 'from'>, o: { wake?: () => void } = {}): MailService {
  const domain = messageDomain(settings.from);
  return {
    sending: settings.smtpUrl !== undefined,
    async company(tx, companyId) {
      const [row] = await tx.select({
        name: companies.name, email: companies.email, emailTemplates: companies.emailTemplates, reminders: companies.reminders, locale: companies.locale,
        peppolId: companies.peppolId, country: companies.country, vatNumber: companies.vatNumber,
      }).from(companies).where(eq(companies.id, companyId));
      return {
        name: row?.name ?? '', email: row?.email ?? null, emailTemplates: row?.emailTemplates ?? null, reminders: (row?.reminders as number[] | null) ?? [], locale: row?.locale ?? 'en',
        peppolId: row?.peppolId ?? null, country: row?.country ?? null, vatNumber: row?.vatNumber ?? null,
      };
    },
    async enqueue(tx, companyId, id) {
      await tx.insert(emailQueue).values({ id, companyId, attempts: 0, nextAttemptAt: sql`now()` as never });
      // The worker looks once the write has committed: a wake now would find nothing, so it looks
      // a moment later (and its poll finds it in any case).
      if (o.wake) setTimeout(o.wake, 50).unref();
    },
    checkCap: checkEmailCap,
    messageId: (unique) => `<${unique}@${domain}>`,
    // `{{link}}`: a client link (CONTRACT §16) for the document and the first recipient, made in the e-mail's transaction.
    link: async (api, document, recipient) => (await createLinkForRecipient(api, `${api.model.get(document.resource).iri}/${document.id}`, recipient)).url,
  };
}
