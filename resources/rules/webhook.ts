// Webhook rules: at most 20 per company, URLs the service may call, a secret made on create,
// and an endpoint set active again forgets why it was disabled and has its pending deliveries
// (held while it was inactive) attempted at once.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ApiError, ViolationCode } from '../../engine/errors.ts';
import type { HookSet } from '../../engine/hooks.ts';
// (The URL policy is the service `webhookUrls`: ./webhook-url.ts.)
import './webhook-url.ts';

export const MAX_WEBHOOKS = 20;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export const webhookRules: HookSet = {
  async beforeWrite(api, e) {
    if (e.op === 'create' || e.data.url !== e.existing?.url) {
      const urls = api.services.webhookUrls;
      if (!urls) throw new Error('The engine has no `webhookUrls` service (server/services.ts): a URL cannot be checked.');
      const problem = await urls.urlProblem(String(e.data.url));
      if (problem) throw ApiError.validation([{ propertyPath: 'url', message: problem, code: ViolationCode.format }]);
    }
    if (e.op === 'create') {
      const t = api.table('Webhook');
      const company = api.principal.company.id;
      // Serialises the company's creates, so that two at once cannot make a 21st.
      await api.tx.execute(sql`select pg_advisory_xact_lock(hashtext('webhooks'), hashtext(${company}))`);
      const [row] = (await api.tx.select({ n: sql<number>`count(*)::int` }).from(t).where(sql`${t.companyId} = ${company}`)) as { n: number }[];
      if (Number(row?.n ?? 0) >= MAX_WEBHOOKS) throw ApiError.validation([{ propertyPath: 'url', message: `A company may have at most ${MAX_WEBHOOKS} webhooks.`, code: ViolationCode.range }]);
      e.data.secret = newSecret();
    }
    if (e.data.active === true && e.existing?.active === false) e.data.disabledReason = null;
  },
  async afterWrite(api, e) {
    if (e.op !== 'update' || e.data.active !== true || e.existing?.active !== false) return;
    // The worker claims nothing for an inactive endpoint; what waited is due now, in the order
    // it was due (the retry schedule goes on from the attempts already made).
    await api.tx.execute(sql`update webhook_deliveries set next_attempt_at = least(next_attempt_at, now()), updated_at = now()
      where webhook_id = ${e.id} and company_id = ${api.principal.company.id} and status = 'pending'`);
  },
};
