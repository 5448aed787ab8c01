// Tables that are not API resources: tenancy, users, tokens, request history, settings.
import { bigint, boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/** Binary data (PostgreSQL bytea) as a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

export const companies = pgTable('companies', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  currency: text('currency').notNull().default('USD'),
  // The company profile (CONTRACT §13): the seller on invoices, quotes and e-invoices.
  legalName: text('legal_name'),
  email: text('email'),
  phone: text('phone'),
  website: text('website'),
  vatNumber: text('vat_number'),
  registrationNumber: text('registration_number'),
  street1: text('street1'),
  street2: text('street2'),
  city: text('city'),
  state: text('state'),
  zip: text('zip'),
  country: text('country'),
  iban: text('iban'),
  bic: text('bic'),
  invoiceFooter: text('invoice_footer'),
  // E-mail (CONTRACT §15): templates {invoice, quote, creditNote, reminder} × {subject, body}, and
  // the reminders' day offsets from the due date.
  emailTemplates: jsonb('email_templates'),
  reminders: jsonb('reminders').notNull().default([]),
  // Settings (CONTRACT §20, issue #49): the defaults of a new document and the documents'
  // language. The numbering's prefixes and next numbers are the engine's sequences
  // (engine_sequences), the logo a row of company_logos.
  defaultDueDays: integer('default_due_days').notNull().default(14),
  defaultTerms: text('default_terms'),
  /** The id of a Tax of the company; a tax deleted since reads as none. */
  defaultTax: uuid('default_tax'),
  locale: text('locale').notNull().default('en'),
  // E-invoices (CONTRACT §18): electronic address, seller contact, VAT registration.
  peppolId: text('peppol_id'),
  contactName: text('contact_name'),
  vatRegistered: boolean('vat_registered').notNull().default(true),
  vatExemptionNote: text('vat_exemption_note'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('companies_name_unique').on(sql`lower(${t.name})`)]);

export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull().default(''),
  passwordHash: text('password_hash').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('users_email_unique').on(sql`lower(${t.email})`)]);

export const memberships = pgTable('memberships', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  role: text('role').notNull().default('member'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.userId, t.companyId] }), index('memberships_company_idx').on(t.companyId)]);

export const apiTokens = pgTable('api_tokens', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description'),
  /** sha256 of the token value, hex. The value itself is never stored. */
  tokenHash: text('token_hash').notNull(),
  usageCount: bigint('usage_count', { mode: 'number' }).notNull().default(0),
  lastUsedAt: ts('last_used_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('api_tokens_hash_unique').on(t.tokenHash),
  uniqueIndex('api_tokens_name_unique').on(t.userId, t.companyId, t.name),
]);

export const apiTokenHistory = pgTable('api_token_history', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  // No foreign key: its check was a row-level trigger per history row, i.e. per request (issue 48).
  // The one writer (server/history.ts) locks the tokens of a batch and writes only the rows of
  // those that exist, and a token's deletion deletes its rows (the statement-level trigger
  // api_tokens_delete_history, migration 0020), as the cascade did.
  tokenId: uuid('token_id').notNull(),
  date: ts('date').notNull(),
  method: text('method').notNull(),
  endpoint: text('endpoint').notNull(),
  status: integer('status').notNull(),
  ipAddress: text('ip_address'),
  userAgent: text('user_agent'),
}, (t) => [index('api_token_history_token_date_idx').on(t.tokenId, t.date)]);

/** Requests per token and calendar month, so `apiCallsThisMonth` stays exact when history is trimmed. */
export const apiTokenMonthly = pgTable('api_token_monthly', {
  tokenId: uuid('token_id').notNull().references(() => apiTokens.id, { onDelete: 'cascade' }),
  month: text('month').notNull(),
  count: bigint('count', { mode: 'number' }).notNull().default(0),
}, (t) => [primaryKey({ columns: [t.tokenId, t.month] })]);

/**
 * Sign-in sessions of the web pages. The cookie carries a random value; only its SHA-256 is
 * stored, so the table alone lets no one sign in. The active company is kept here.
 */
export const sessions = pgTable('sessions', {
  /** sha256 of the cookie value, hex. */
  id: text('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** Idle expiry, pushed forward as the session is used, never past created_at + the absolute limit. */
  expiresAt: ts('expires_at').notNull(),
}, (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)]);

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * One row: a counter that every change able to make a cached principal wrong increments (a token
 * deleted, a membership's role changed or the membership removed, a company's currency changed or
 * the company deleted), in the same statement through triggers, which also NOTIFY
 * `token_cache_invalidation` with the new value (delivered at commit). See server/access/invalidation.ts.
 */
export const tokenCacheEpoch = pgTable('token_cache_epoch', {
  id: integer('id').primaryKey().default(1),
  epoch: bigint('epoch', { mode: 'number' }).notNull().default(0),
});

/**
 * The tokens of the document links (CONTRACT §16, resources/rules/document-link.ts): only the
 * SHA-256 of each token. A row outlives its link (no foreign key to it): a revoked link's token is
 * still known, and its page answers 410 rather than 404. `lastEventAt`: when the link's page last
 * emitted `invoice.viewed` / `quote.viewed` (at most once an hour).
 */
export const documentLinkTokens = pgTable('document_link_tokens', {
  /** sha256 of the token, hex. */
  hash: text('hash').primaryKey(),
  linkId: uuid('link_id').notNull(),
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  expiresAt: ts('expires_at').notNull(),
  revokedAt: ts('revoked_at'),
  lastEventAt: ts('last_event_at'),
}, (t) => [uniqueIndex('document_link_tokens_link_unique').on(t.linkId)]);

/**
 * Card payments' sessions at a payment provider (server/links/payments.ts): one row per session the
 * service created (a Stripe Checkout Session for an invoice's balance). A completion the service
 * did not create has no row here, and records nothing.
 */
export const paymentSessions = pgTable('payment_sessions', {
  provider: text('provider').notNull(),
  sessionId: text('session_id').notNull(),
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  invoiceId: uuid('invoice_id').notNull(),
  linkId: uuid('link_id'),
  amount: bigint('amount', { mode: 'number' }).notNull(),
  currency: text('currency').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.provider, t.sessionId] })]);

/**
 * One row per completed session, inserted first in the transaction that records its payment: its
 * primary key makes a second payment for the session impossible, however often or concurrently the
 * provider repeats the event (a concurrent insert waits for the first to commit, then conflicts).
 */
export const paymentSessionReceipts = pgTable('payment_session_receipts', {
  provider: text('provider').notNull(),
  sessionId: text('session_id').notNull(),
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  paymentId: uuid('payment_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.provider, t.sessionId] })]);

/** The company's logo (CONTRACT §20): a PNG or JPEG of at most 1 MB, checked when it is put. */
export const companyLogos = pgTable('company_logos', {
  companyId: uuid('company_id').primaryKey().references(() => companies.id, { onDelete: 'cascade' }),
  contentType: text('content_type').notNull(),
  data: bytea('data').notNull(),
  width: integer('width').notNull(),
  height: integer('height').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * The logos issued documents were made with (CONTRACT §18: an issued document never changes): the
 * logo's bytes as they were when a document was issued, by their sha256, which the document's
 * kept parties name (`seller.logo`). Copied from company_logos at the first issue with that logo;
 * a later logo, or none, leaves them as they are.
 */
export const keptLogos = pgTable('kept_logos', {
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  sha256: text('sha256').notNull(),
  contentType: text('content_type').notNull(),
  data: bytea('data').notNull(),
}, (t) => [primaryKey({ columns: [t.companyId, t.sha256] })]);

/**
 * Invitations to join a company with a role (CONTRACT §20): the link's token is shown once (in
 * the e-mail, or to the admin when e-mail is held); only its sha256 is stored. One use, 7 days.
 */
export const invitations = pgTable('invitations', {
  id: uuid('id').primaryKey(),
  companyId: uuid('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  role: text('role').notNull(),
  tokenHash: text('token_hash').notNull(),
  invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
  expiresAt: ts('expires_at').notNull(),
  acceptedAt: ts('accepted_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('invitations_token_unique').on(t.tokenHash), index('invitations_company_idx').on(t.companyId, t.createdAt)]);

/** Password reset links (CONTRACT §20): one use, 1 hour; only the token's sha256 is stored. */
export const passwordResets = pgTable('password_resets', {
  tokenHash: text('token_hash').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [index('password_resets_user_idx').on(t.userId)]);

/**
 * E-mails about a person's account (an invitation, a password reset): no document, so not the
 * E-mail resource; queued in email_queue under the same id and sent by the same mail worker.
 * `company_id`: the company that invites, or null (a reset).
 */
export const accountEmails = pgTable('account_emails', {
  id: uuid('id').primaryKey(),
  companyId: uuid('company_id').references(() => companies.id, { onDelete: 'cascade' }),
  purpose: text('purpose').notNull(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  messageId: text('message_id').notNull(),
  status: text('status').notNull(),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  sentAt: ts('sent_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});
