// Document links (CONTRACT §16): a URL a client opens without signing in, to one invoice, quote or
// credit note of the company. The link's `document` is the document's IRI (a bare id is looked up
// among the three); `invoice`, `quote` or `creditNote` holds it as a reference, so that the link
// goes with its document. The URL's token (192 random bits) is returned once, by the create; only
// its SHA-256 is stored, in `document_link_tokens` (server/schema.ts), which outlives the link so
// that a revoked link answers 410 and not 404. Deleting the link revokes it.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookApi, HookSet } from '../../engine/hooks.ts';
import { rowsOf, type FieldValues } from '../../engine/types.ts';

/** The resources a link may show, by the IRI path segment, with the reference field naming it. */
export const LINKED = [
  { resource: 'Invoice', path: 'invoices', field: 'invoice', due: 'dueDate' },
  { resource: 'Quote', path: 'quotes', field: 'quote', due: 'validUntil' },
  { resource: 'CreditNote', path: 'credit-notes', field: 'creditNote', due: null },
] as const;
export type LinkedResource = (typeof LINKED)[number]['resource'];

/** Where beforeWrite keeps the new token for afterWrite, in the write's values (never stored). */
const TOKEN = Symbol('token');
const DAY = 86_400_000;
export const MIN_DAYS = 30;
export const MAX_DAYS = 120;
/** Public page paths: `<PUBLIC_URL>/d/<token>`. */
export const LINK_PREFIX = '/d/';

declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    /** PUBLIC_URL (server/config.ts): where client links point. */
    publicUrl: string;
  }
}

/** A link's URL: `<PUBLIC_URL>/d/<token>`. */
export const linkUrl = (publicUrl: string, token: string): string => `${publicUrl.replace(/\/+$/, '')}${LINK_PREFIX}${token}`;

/** A new token: 24 random bytes (192 bits), base64url. */
export const newLinkToken = (): string => randomBytes(24).toString('base64url');
export const hashLinkToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The default expiry: the end of the UTC day 30 days after the due or validity date (today when
 * the document has none), but no earlier than 30 and no later than 120 days from now.
 */
export function defaultExpiry(due: string | null, now = Date.now()): Date {
  const base = due && /^\d{4}-\d{2}-\d{2}$/.test(due) ? Date.parse(`${due}T00:00:00Z`) : Math.floor(now / DAY) * DAY;
  const end = base + (MIN_DAYS + 1) * DAY - 1;
  return new Date(Math.min(Math.max(end, now + MIN_DAYS * DAY), now + MAX_DAYS * DAY));
}

const refused = (path: string, message: string, code: string = ViolationCode.rule) => ApiError.validation([{ propertyPath: path, message, code }]);

/** The document a link names, read as the principal (another company's reads as missing). */
async function resolveDocument(api: HookApi, value: string): Promise<{ kind: (typeof LINKED)[number]; doc: FieldValues }> {
  const m = /^\/api\/([a-z-]+)\/([0-9a-fA-F-]{36})$/.exec(value) ?? /^()([0-9a-fA-F-]{36})$/.exec(value);
  const notFound = () => refused('document', `Item "${value.slice(0, 200)}" not found: give the IRI of an invoice, a quote or a credit note.`, ViolationCode.notFound);
  if (!m) throw notFound();
  const [, path, id] = m;
  for (const kind of LINKED) {
    if (path && path !== kind.path) continue;
    const doc = await api.read(kind.resource, id!.toLowerCase());
    if (doc) return { kind, doc };
  }
  throw notFound();
}

export const documentLinkRules: HookSet = {
  create: 'transaction',
  async beforeWrite(api, e) {
    if (e.op !== 'create') return;
    const { kind, doc } = await resolveDocument(api, String(e.data.document));
    e.data.document = `/api/${kind.path}/${String(doc.id)}`;
    for (const k of LINKED) e.data[k.field] = k === kind ? doc.id : null;
    if (e.data.contact) {
      const contact = await api.read('Contact', String(e.data.contact));
      if (contact && contact.client !== doc.client) throw refused('contact', "This contact is not one of the document's client's contacts.");
    }
    const now = Date.now();
    if (e.data.expiresAt === undefined || e.data.expiresAt === null) {
      e.data.expiresAt = defaultExpiry(kind.due ? ((doc[kind.due] as string | null) ?? null) : null, now);
    } else {
      const at = new Date(e.data.expiresAt as Date | string).getTime();
      if (!(at > now)) throw refused('expiresAt', 'This value should be in the future.', ViolationCode.range);
      if (at > now + MAX_DAYS * DAY) throw refused('expiresAt', `This value should be at most ${MAX_DAYS} days ahead.`, ViolationCode.range);
    }
    e.data.views = 0;
    e.data.lastViewedAt = null;
    const token = newLinkToken();
    if (!api.services.publicUrl) throw new Error('The engine has no `publicUrl` service (server/services.ts): a link cannot be made.');
    e.data.url = linkUrl(api.services.publicUrl, token);
    // Kept for afterWrite (the record's id is known there); never stored.
    (e.data as { [TOKEN]?: string })[TOKEN] = token;
  },
  async afterWrite(api, e) {
    if (e.op !== 'create') return;
    const token = (e.data as { [TOKEN]?: string })[TOKEN];
    if (!token) return;
    await api.tx.execute(sql`insert into document_link_tokens (hash, link_id, company_id, expires_at)
      values (${hashLinkToken(token)}, ${e.id}, ${api.principal.company.id}, ${(e.data.expiresAt as Date).toISOString()})`);
  },
  async afterDelete(api, existing) {
    await api.tx.execute(sql`update document_link_tokens set revoked_at = now() where link_id = ${String(existing.id)} and company_id = ${api.principal.company.id}`);
  },
};

/**
 * A new link to `document` (an IRI or id) for `contact` (optional), created through the engine in
 * the caller's transaction (validation, tenancy, events): its URL, the only time it is known. For
 * e-mails whose template says `{{link}}` (CONTRACT §15).
 */
export async function createLinkFor(api: HookApi, document: string, contact?: string | null): Promise<{ id: string; url: string }> {
  const rec = await api.create('DocumentLink', { document, ...(contact ? { contact } : {}) });
  return { id: String(rec.id), url: String(rec.url) };
}

/**
 * The link of an e-mail: for its first `to` address, the contact of the document's client with that
 * address when there is one (else a link for no contact).
 */
export async function createLinkForRecipient(api: HookApi, document: string, email: string | null | undefined): Promise<{ id: string; url: string }> {
  let contact: string | null = null;
  if (email) {
    const { kind, doc } = await resolveDocument(api, document);
    const c = api.table('Contact');
    const [row] = rowsOf<{ id: string }>(await api.tx.execute(sql`select id from ${c} where company_id = ${api.principal.company.id} and client_id = ${String(doc.client)}
      and lower(email) = lower(${email}) order by created_at, id limit 1`));
    contact = row?.id ?? null;
    document = `/api/${kind.path}/${String(doc.id)}`;
  }
  return createLinkFor(api, document, contact);
}
