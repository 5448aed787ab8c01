// E-mail rules (CONTRACT §15). Creating an e-mail, in one transaction:
// 1. checks the document (an invoice, quote or credit note of the company, not cancelled), the
//    addresses (RFC 5322 mailboxes, stored as bare addr-specs; no CR/LF in any header value; at
//    most 50 recipients), `attach`, and the company's hourly limit (server/email/cap.ts);
// 2. moves a draft document on as its own PATCH would (invoice → pending, quote → sent, credit note
//    → issued), with its rules and events: both happen or neither;
// 3. fills in the defaults: `to` from the client's contacts, subject and body from the company's
//    templates (literal when given);
// 4. queues it for the mail worker (`queued`), or keeps it `held` when the server has no SMTP.
// Reminders (the daily run, resources/rules/reminders.ts) are created through the same path with
// kind `reminder`, the reminder template, and no hourly limit.
import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { currencyDigits } from './money.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { ApiError, ViolationCode, type Violation } from '../../engine/errors.ts';
import type { FieldValues, Tx } from '../../engine/types.ts';
import { fill, templateOf, type TemplateKind } from './email-templates.ts';
import { keptParties } from './documents.ts';

/** What the e-mail rules use of the server (server/email/service.ts). */
export interface MailService {
  /** False without SMTP_URL: e-mails are kept `held` and never sent. */
  readonly sending: boolean;
  /** The company's name, e-mail and e-mail settings as the profile holds them. */
  company(tx: Tx, companyId: string): Promise<{ name: string; email: string | null; emailTemplates: unknown; reminders: number[]; locale?: string; peppolId?: string | null; country?: string | null; vatNumber?: string | null }>;
  /** Puts e-mail `id` in the delivery queue, in `tx`; the worker sends it once `tx` has committed. */
  enqueue(tx: Tx, companyId: string, id: string): Promise<void>;
  /**
   * The hourly cap (CONTRACT §15): a 429 with Retry-After when the company has created its
   * hour's e-mails through the API, counted with every other e-mail the API made for it (server/email/cap.ts).
   */
  checkCap(tx: Tx, companyId: string): Promise<void>;
  /** A Message-ID made of `unique` (written with the e-mail: the same on every attempt). */
  messageId(unique: string): string;
  /**
   * The client link (CONTRACT §16) for `{{link}}`: the document and the recipient. Absent until
   * client links exist (issue #36): `{{link}}` is then refused when a template is saved.
   */
  link?: (api: HookApi, document: { resource: string; id: string }, recipient: string) => Promise<string>;
}

declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    mail: MailService;
    /** The reminders being created (ReminderMarks); absent, every e-mail is a document's. */
    reminders?: ReminderMarks;
  }
}

/**
 * An e-mail asking for the e-invoice of a document that cannot make one is refused before any
 * byte (CONTRACT §15, §18): what the UBL would answer 422 for, checked here in the e-mail's
 * transaction — the buyer's country and electronic address, the seller's, a currency with three
 * decimals. (The UBL's own checks, server/documents/ubl.ts, stay the full list when it is made.)
 */
type EinvoiceFormat = 'peppol' | 'xrechnung' | 'facturx';
const FORMAT_NAMES: Record<EinvoiceFormat, string> = { peppol: 'an e-invoice (UBL)', xrechnung: 'an XRechnung', facturx: 'a Factur-X PDF' };

/** What an e-invoice reads of the two parties. */
interface EinvoiceParties {
  buyer: { peppolId: unknown; buyerReference: unknown; country: unknown };
  seller: { peppolId: unknown; country: unknown };
}

type Kept = { seller: FieldValues; buyer: FieldValues & { address?: FieldValues | null } };

/** The client's e-invoice format as the document is made with it: as issued, else today's. */
async function einvoiceFormat(api: HookApi, doc: FieldValues): Promise<EinvoiceFormat> {
  const kept = keptParties<Kept>(doc);
  return ((kept ? kept.buyer.eInvoiceFormat : (await api.read('Client', String(doc.client)))?.eInvoiceFormat) ?? 'peppol') as EinvoiceFormat;
}

/**
 * The parties as the document's e-invoice is made with them (server/documents/data.ts): those it
 * was issued with (CONTRACT §18: kept in `parties`), a draft's as they are today (the e-mail
 * issues it, which keeps them).
 */
async function einvoiceParties(api: HookApi, doc: FieldValues): Promise<EinvoiceParties> {
  const kept = keptParties<Kept>(doc);
  if (kept) {
    const b = kept.buyer;
    return {
      buyer: { peppolId: b.peppolId, buyerReference: b.buyerReference, country: b.address?.country },
      seller: { peppolId: kept.seller.peppolId, country: kept.seller.country },
    };
  }
  const client = await api.read('Client', String(doc.client));
  const a = api.table('Address');
  const [address] = await api.tx.select({ country: a.country }).from(a).where(eq(a.client, String(doc.client))).orderBy(asc(a.createdAt), asc(a.id)).limit(1);
  const company = await api.services.mail.company(api.tx, api.principal.company.id);
  return {
    buyer: { peppolId: client?.peppolId, buyerReference: client?.buyerReference, country: address?.country },
    seller: { peppolId: company.peppolId, country: company.country },
  };
}

/**
 * Refused before any byte (CONTRACT §18, §19): the e-invoice an e-mail would attach, when the
 * document's data cannot make one: Peppol and XRechnung need both electronic addresses,
 * XRechnung a buyer reference (BT-10); all need two-decimal amounts and both parties' countries.
 */
async function refuseImpossibleEinvoice(api: HookApi, doc: FieldValues, format: EinvoiceFormat): Promise<void> {
  const reasons: string[] = [];
  const parties = await einvoiceParties(api, doc);
  const currency = String(doc.currency ?? api.principal.company.currency);
  if (currencyDigits(currency) > 2) reasons.push(`amounts in ${currency} have three decimals, EN 16931 allows two`);
  const { buyer, seller } = parties;
  if (format !== 'facturx' && !buyer.peppolId) reasons.push("the client has no electronic address (peppolId)");
  // The buyer reference as the document is made with it (server/documents/data.ts): the
  // document's, else (a credit note) its invoice's, else the client's.
  const credited = format === 'xrechnung' && !doc.buyerReference && doc.invoice ? await api.read('Invoice', String(doc.invoice)) : null;
  if (format === 'xrechnung' && !doc.buyerReference && !credited?.buyerReference && !buyer.buyerReference) reasons.push('neither the document nor the client has a buyer reference (buyerReference, BT-10)');
  if (!buyer.country) reasons.push('the client has no address with a country');
  if (format !== 'facturx' && !seller.peppolId) reasons.push('the company profile has no electronic address (peppolId)');
  if (!seller.country) reasons.push('the company profile has no country');
  if (reasons.length) {
    const instead = format === 'facturx' ? 'Change the client\'s eInvoiceFormat' : 'Attach "pdf" only';
    throw ApiError.validation([{ propertyPath: 'attach', message: `This document cannot be sent as ${FORMAT_NAMES[format]}: ${reasons.join('; ')}. ${instead}, or complete the data.`, code: ViolationCode.rule }]);
  }
}

export const MAX_RECIPIENTS = 50;

/** The documents an e-mail carries, by their REST path. */
const DOCUMENTS = [
  { path: 'invoices', resource: 'Invoice', kind: 'invoice', issue: { from: 'draft', to: 'pending' }, ubl: true },
  { path: 'quotes', resource: 'Quote', kind: 'quote', issue: { from: 'draft', to: 'sent' }, ubl: false },
  { path: 'credit-notes', resource: 'CreditNote', kind: 'creditNote', issue: { from: 'draft', to: 'issued' }, ubl: true },
] as const;
export type DocumentType = (typeof DOCUMENTS)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The reminders being created, by transaction, with their offset: the daily run
 * (server/email/reminders.ts) marks the transaction in which it creates a reminder, and the
 * e-mail rules read the mark. One per server, passed in as the service `reminders`.
 */
export class ReminderMarks {
  readonly #offsets = new WeakMap<Tx, number>();
  /** Runs `fn` (which creates the e-mail in `tx`) as the reminder of `offset` days. */
  creating<T>(tx: Tx, offset: number, fn: () => Promise<T>): Promise<T> {
    this.#offsets.set(tx, offset);
    return fn().finally(() => this.#offsets.delete(tx));
  }
  /** The offset of the reminder being created in `tx`; undefined for a document's e-mail. */
  offset(tx: Tx): number | undefined {
    return this.#offsets.get(tx);
  }
}

// RFC 5322 addr-spec: dot-atom or quoted-string local part, dot-atom domain (or a literal).
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const DOT_ATOM = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const QUOTED = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"';
const DOMAIN = '(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+|\\[[\\x21-\\x5a\\x5e-\\x7e]*\\])';
const ADDR_SPEC = new RegExp(`^(?:${DOT_ATOM}|${QUOTED})@${DOMAIN}$`);

/**
 * The bare addr-spec of a mailbox (`a@b.example` or `Name <a@b.example>`), or a problem. CR or LF
 * anywhere is refused (header injection), as is more than one address.
 */
export function mailbox(value: unknown): { address: string } | { problem: string } {
  if (typeof value !== 'string') return { problem: 'This value should be a string.' };
  if (/[\r\n]/.test(value)) return { problem: 'Line breaks (CR, LF) are not allowed in an address.' };
  let v = value.trim();
  const named = /^([^<>]*)<([^<>]*)>$/.exec(v);
  if (named) {
    const name = named[1]!.trim();
    if (/[",;:@\\]/.test(name.replace(/^"(.*)"$/, '')) && !/^"[^"\\]*"$/.test(name)) return { problem: 'This value is not a valid mailbox (RFC 5322).' };
    v = named[2]!.trim();
  }
  if (v.length > 254 || !ADDR_SPEC.test(v) || v.split('@')[0]!.length > 64) return { problem: 'This value is not a valid mailbox (RFC 5322).' };
  return { address: v };
}

function documentOf(value: string): { type: DocumentType | undefined; id: string } | null {
  const m = /^\/api\/([a-z-]+)\/([^/]+)$/.exec(value);
  if (m) {
    const type = DOCUMENTS.find((d) => d.path === m[1]);
    return type && UUID.test(m[2]!) ? { type, id: m[2]!.toLowerCase() } : null;
  }
  return UUID.test(value) ? { type: undefined, id: value.toLowerCase() } : null;
}

const MISSING = 'This document does not exist: give an invoice, quote or credit note (its IRI, e.g. /api/invoices/<id>).';

/** The document named by `value`, of the caller's company, or a 422 on `document`. */
export async function findDocument(api: HookApi, value: unknown): Promise<{ type: DocumentType; record: FieldValues }> {
  const refused = (message: string) => ApiError.validation([{ propertyPath: 'document', message, code: ViolationCode.notFound }]);
  const named = typeof value === 'string' ? documentOf(value.trim()) : null;
  if (!named) throw refused(MISSING);
  const types: readonly DocumentType[] = named.type ? [named.type] : DOCUMENTS;
  for (const type of types) {
    const record = await api.lock(type.resource, named.id);
    if (record) return { type, record };
  }
  throw refused(MISSING);
}

/** Addresses of field `name`: bare addr-specs, or violations. */
export function addresses(name: string, value: unknown, v: Violation[]): string[] {
  if (value === undefined || value === null) return [];
  const out: string[] = [];
  (value as unknown[]).forEach((item, i) => {
    const m = mailbox(item);
    if ('problem' in m) v.push({ propertyPath: `${name}[${i}]`, message: m.problem, code: ViolationCode.format });
    else out.push(m.address);
  });
  return out;
}

/** The e-mail addresses of the client's contacts, oldest contact first. */
export async function contactsOf(api: HookApi, clientId: string): Promise<string[]> {
  const c = api.table('Contact');
  const rows = (await api.tx.select({ email: c.email }).from(c).where(and(eq(c.client, clientId), eq(c.companyId, api.principal.company.id))).orderBy(c.createdAt, c.id)) as { email: string }[];
  return [...new Set(rows.map((r) => r.email))];
}

/** The bare addresses of `to`, `cc` and `bcc`, or a 422 naming the field (and CR/LF in the subject). */
export function checkedAddresses(d: FieldValues): { to: string[]; cc: string[]; bcc: string[] } {
  const v: Violation[] = [];
  const to = addresses('to', d.to, v);
  const cc = addresses('cc', d.cc, v);
  const bcc = addresses('bcc', d.bcc, v);
  for (const f of ['subject'] as const) {
    if (typeof d[f] === 'string' && /[\r\n]/.test(d[f])) v.push({ propertyPath: f, message: 'Line breaks (CR, LF) are not allowed in a header.', code: ViolationCode.format });
  }
  if (v.length) throw ApiError.validation(v);
  if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) throw ApiError.validation([{ propertyPath: 'to', message: `At most ${MAX_RECIPIENTS} recipients in to, cc and bcc together.`, code: ViolationCode.length }]);
  return { to, cc, bcc };
}

/** A cancelled document cannot be sent: 422 on `document`. */
export function refuseCancelled(type: DocumentType, doc: FieldValues): void {
  if (doc.status === 'cancelled') throw ApiError.validation([{ propertyPath: 'document', message: `This ${type.kind === 'creditNote' ? 'credit note' : type.kind} is cancelled: it cannot be sent.`, code: ViolationCode.state }]);
}

/** `attach` as given (default `["pdf"]`), or a 422 on `attach` for what the document has not. */
export async function attachmentsOf(api: HookApi, type: DocumentType, doc: FieldValues, given: unknown): Promise<string[]> {
  // By default what the client's e-invoice format asks (CONTRACT §19): its XRechnung with the
  // PDF; for Factur-X the PDF is the hybrid itself (the PDF document follows the client) — the
  // client as the document was issued to it.
  const format = await einvoiceFormat(api, doc);
  const attach = (given as string[] | null | undefined)?.length ? [...new Set(given as string[])]
    : type.ubl && format === 'xrechnung' ? ['pdf', 'ubl'] : ['pdf'];
  if (attach.includes('ubl') && !type.ubl) throw ApiError.validation([{ propertyPath: 'attach', message: 'A quote has no UBL document: attach "pdf" only.', code: ViolationCode.choice }]);
  // Refused before any byte (CONTRACT §18): an e-invoice the document cannot make — the UBL
  // attached, or the PDF that is a Factur-X for such a client.
  if (attach.includes('ubl')) await refuseImpossibleEinvoice(api, doc, format === 'xrechnung' ? 'xrechnung' : 'peppol');
  else if (type.ubl && format === 'facturx' && attach.includes('pdf')) await refuseImpossibleEinvoice(api, doc, 'facturx');
  return attach;
}

/**
 * Subject and body as sent: each literal when given (non-null), else the company's template for
 * the document (`doc` as it is sent) filled in. `link` makes `{{link}}`'s value (a client link:
 * a write), asked only when a template used has the placeholder and the server makes links; the
 * preview (resources/rules/email-preview.ts) passes a placeholder instead. `number`, when given,
 * stands for a number the document has not been given yet (a draft credit note, previewed).
 */
export async function filledTemplate(
  api: HookApi,
  type: DocumentType,
  doc: FieldValues,
  kind: 'document' | 'reminder',
  given: { subject: string | null; body: string | null },
  link: () => Promise<string>,
  number?: string,
): Promise<{ subject: string; body: string }> {
  const mail = api.services.mail;
  const company = await mail.company(api.tx, api.principal.company.id);
  const client = await api.read('Client', String(doc.client));
  const template = templateOf(company.emailTemplates, kind === 'reminder' ? 'reminder' : (type.kind as TemplateKind), company.locale);
  const values = {
    companyName: company.name,
    clientName: String(client?.name ?? ''),
    number: String(doc.number ?? number ?? ''),
    total: doc.total === null || doc.total === undefined ? null : Number(doc.total),
    balance: doc.balance === null || doc.balance === undefined ? null : Number(doc.balance),
    currency: String(doc.currency ?? api.principal.company.currency),
    dueDate: typeof doc.dueDate === 'string' ? doc.dueDate : typeof doc.validUntil === 'string' ? doc.validUntil : null,
    link: mail.link && /\{\{\s*link\s*\}\}/.test(`${given.subject === null ? template.subject : ''}${given.body === null ? template.body : ''}`) ? await link() : '',
    locale: company.locale,
  };
  // A value with a line break (a client's name) never makes a second header line.
  return { subject: given.subject ?? fill(template.subject, values).replace(/[\r\n]+/g, ' '), body: given.body ?? fill(template.body, values) };
}

export const emailRules: HookSet = {
  create: 'transaction',
  async beforeWrite(api, e) {
    if (e.op !== 'create') return;
    const reminderOffset = api.services.reminders?.offset(api.tx);
    const kind = reminderOffset === undefined ? 'document' : 'reminder';
    const d = e.data;
    const { to, cc, bcc } = checkedAddresses(d);

    const { type, record: doc } = await findDocument(api, d.document);
    refuseCancelled(type, doc);
    const attach = await attachmentsOf(api, type, doc, d.attach);

    if (kind === 'document') await api.services.mail.checkCap(api.tx, api.principal.company.id);

    // A draft moves on as its own PATCH would (its rules, number and events), in this transaction:
    // whatever refuses the e-mail after this (no recipient) undoes it too.
    let current = doc;
    if (doc.status === type.issue.from) {
      await api.update(type.resource, String(doc.id), { status: type.issue.to });
      current = (await api.read(type.resource, String(doc.id)))!;
    }

    if (!to.length) to.push(...(await contactsOf(api, String(doc.client))));
    if (!to.length) throw ApiError.validation([{ propertyPath: 'to', message: "No recipient: give addresses, or add a contact with an e-mail to the document's client.", code: ViolationCode.blank }]);
    if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) throw ApiError.validation([{ propertyPath: 'to', message: `At most ${MAX_RECIPIENTS} recipients in to, cc and bcc together.`, code: ViolationCode.length }]);

    const mail = api.services.mail;
    const given = { subject: typeof d.subject === 'string' && d.subject !== '' ? d.subject : null, body: typeof d.body === 'string' && d.body !== '' ? d.body : null };
    let subject = given.subject;
    let body = given.body;
    if (subject === null || body === null) {
      const filled = await filledTemplate(api, type, current, kind, { subject, body }, () => mail.link!(api, { resource: type.resource, id: String(doc.id) }, to[0]!));
      subject = filled.subject;
      body = filled.body;
    }

    d.document = `/api/${type.path}/${String(doc.id)}`;
    d.to = to;
    d.cc = cc;
    d.bcc = bcc;
    d.attach = attach;
    d.subject = subject;
    d.body = body;
    d.kind = kind;
    d.status = mail.sending ? 'queued' : 'held';
    d.attempts = 0;
    d.lastError = null;
    d.sentAt = null;
    d.reminder = reminderOffset === undefined ? null : String(reminderOffset);
    d.messageId = mail.messageId(randomUUID());
  },
  async afterWrite(api, e) {
    if (e.op === 'create' && e.data.status === 'queued') await api.services.mail.enqueue(api.tx, api.principal.company.id, e.id);
  },
};
