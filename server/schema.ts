// Tables that are not API resources: tenancy, users, tokens, request history, settings.
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

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
  tokenId: uuid('token_id').notNull().references(() => apiTokens.id, { onDelete: 'cascade' }),
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
 * `token_cache_invalidation` with the new value (delivered at commit). See server/invalidation.ts.
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
