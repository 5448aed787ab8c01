// API token values: `inv_` + 256 random bits (base64url). Only their SHA-256 is stored; a
// high-entropy secret needs no slow hash, and the lookup stays one indexed read.
import * as crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db, Principal, Role } from '../../engine/types.ts';
import { apiTokens, companies, memberships } from '../schema.ts';
import { vatColumns, vatOf } from './principals.ts';

export const TOKEN_PREFIX = 'inv_';

export function newTokenValue(): string {
  return TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
}

/** One-shot `crypto.hash` (Node ≥ 20.12) is about 2.5× faster than a Hash object; this runs on every request. */
export const hashToken: (value: string) => string =
  typeof crypto.hash === 'function' ? (value) => crypto.hash('sha256', value) : (value) => crypto.createHash('sha256').update(value).digest('hex');

/** Resolves a token value to its principal, or null when unknown or revoked. */
export async function lookupToken(db: Db, value: string): Promise<Principal | null> {
  if (!value.startsWith(TOKEN_PREFIX) || value.length > 200) return null;
  return lookupTokenHash(db, hashToken(value));
}

/** Resolves a token hash to its principal, or null when unknown or revoked. */
export async function lookupTokenHash(db: Db, hash: string): Promise<Principal | null> {
  const [row] = await db
    .select({
      tokenId: apiTokens.id,
      userId: apiTokens.userId,
      companyId: apiTokens.companyId,
      role: memberships.role,
      currency: companies.currency,
      ...vatColumns,
    })
    .from(apiTokens)
    .innerJoin(memberships, and(eq(memberships.userId, apiTokens.userId), eq(memberships.companyId, apiTokens.companyId)))
    .innerJoin(companies, eq(companies.id, apiTokens.companyId))
    .where(eq(apiTokens.tokenHash, hash));
  if (!row) return null;
  return { userId: row.userId, tokenId: row.tokenId, role: row.role as Role, company: { id: row.companyId, currency: row.currency, vat: vatOf(row) } };
}
