// The services the engine's hooks, declared operations and server-stored resources use that
// depend only on the database and the configuration (engine/descriptor.ts OperationServices):
// made here for the server (server/app.ts, which adds those of its running parts: delivery log,
// documents, token activity and storage, people) and for the command line's engine alike, so that
// both apply the same start-up settings (PUBLIC_URL, WEBHOOK_ALLOW_PRIVATE, SMTP_URL), held by
// the services rather than by modules.
import type { OperationServices } from '../engine/descriptor.ts';
import type { Db, Tx } from '../engine/types.ts';
import { ReminderMarks } from '../resources/rules/email.ts';
import { WebhookUrlPolicy } from '../resources/rules/webhook-url.ts';
import { companyStorage, readCompany, vatRegistration } from './company.ts';
import { keepLogo, logoStorage } from './company-logo.ts';
import type { Config } from './config.ts';
import { mailService } from './email/service.ts';

export type ConfiguredServices = Pick<OperationServices, 'vatRegistration' | 'companyProfile' | 'keepLogo' | 'companyStorage' | 'companyLogo' | 'publicUrl' | 'webhookUrls' | 'reminders' | 'mail'>;

/** `wake`: tells the mail worker to look (a server's; a command's e-mails wait for the servers' workers). */
export function configuredServices(db: Db, config: Pick<Config, 'publicUrl' | 'mail'> & { webhooks: { allowPrivate: boolean } }, o: { wake?: () => void } = {}): ConfiguredServices {
  return {
    vatRegistration: (companyId: string) => vatRegistration(db, companyId),
    companyProfile: (tx: Tx, companyId: string) => readCompany(tx, companyId),
    // Issuing keeps the logo of the moment with the document (CONTRACT §18).
    keepLogo: (tx: Tx, companyId: string) => keepLogo(tx, companyId),
    // The company profile's storage: the company's row (server/company.ts); its logo's.
    companyStorage: companyStorage(),
    companyLogo: logoStorage,
    // Client links point there (CONTRACT §16).
    publicUrl: config.publicUrl,
    // Which addresses webhooks may call, at write time and at each attempt (the worker's too).
    webhookUrls: new WebhookUrlPolicy(config.webhooks.allowPrivate),
    reminders: new ReminderMarks(),
    mail: mailService(config.mail, o),
  };
}
