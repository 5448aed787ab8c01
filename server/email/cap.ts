// The hourly cap on e-mails (CONTRACT §15): at most HOURLY_LIMIT e-mails created through the API by
// one company in the last 60 minutes, held ones included, reminders not. Counted here for every
// e-mail the API creates for a company: the documents' e-mails (`emails`, kind `document`) and the
// invitations (`account_emails`, purpose `invitation`: an admin's POST /api/invitations sends one).
// Password resets are no company's (their own caps: 5 per address and per IP an hour).
//
// Creates of one company wait for each other on an advisory lock held to the end of the
// transaction, taken before counting, so that each counts the others' committed e-mails. The
// window is measured on the clock that stamps createdAt (this process's: the engine's stamps, and
// the invitations' e-mails are given it too), not the database's `now()`.
import { sql } from 'drizzle-orm';
import { ApiError } from '../../engine/errors.ts';
import { rowsOf, type Tx } from '../../engine/types.ts';

export const HOURLY_LIMIT = 200;
const HOUR = 3_600_000;

/** 429 with Retry-After when company `companyId` has made HOURLY_LIMIT e-mails in the last hour; in `tx`. */
export async function checkEmailCap(tx: Tx, companyId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('email-rate'), hashtext(${companyId}))`);
  const now = Date.now();
  const since = new Date(now - HOUR).toISOString();
  const rows = rowsOf<{ created_at: Date | string }>(
    await tx.execute(sql`select created_at from (
        select created_at from "emails" where company_id = ${companyId} and kind = 'document' and created_at > ${since}::timestamptz
        union all
        select created_at from "account_emails" where company_id = ${companyId} and purpose = 'invitation' and created_at > ${since}::timestamptz
      ) counted order by created_at desc limit ${HOURLY_LIMIT}`),
  );
  if (rows.length < HOURLY_LIMIT) return;
  const oldest = new Date(rows.at(-1)!.created_at).getTime();
  const wait = Math.max(1, Math.ceil((oldest + HOUR - now) / 1000));
  throw new ApiError(429, `At most ${HOURLY_LIMIT} e-mails per hour may be created; the next one is possible in ${wait} seconds. Nothing was queued.`, { title: 'Too Many Requests', headers: { 'retry-after': String(wait) } });
}
