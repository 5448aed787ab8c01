// The hourly cap on e-mails (CONTRACT §15): more than 200 e-mails created through the API by one
// company in the last 60 minutes (held ones included, reminders not) is a 429 with Retry-After.
// Counted exactly, one at a time and under concurrent creates; an invitation (POST /api/invitations
// sends one) is an e-mail the API creates for the company, counted and capped with the others.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../server/db.ts';
import { client, freshDatabase, startTestServer, tokenFor, type Client, type TestDatabase, type TestServer } from './helpers.ts';
import { Browserish } from './web-helpers.ts';

let db: TestDatabase;
let t: TestServer;

beforeAll(async () => {
  db = await freshDatabase();
  t = await startTestServer({}, { db });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await db?.drop();
});

async function company(name: string): Promise<{ c: Client; invoice: string; id: string }> {
  const c = client(t, await tokenFor(t, { email: `${name.toLowerCase().replace(/\W/g, '')}@cap.test`, company: name }));
  const cl = await c.post('/api/clients', { name: 'R' });
  await c.post('/api/contacts', { client: cl.body['@id'], firstName: 'R', email: 'r@r.test' });
  const inv = await c.post('/api/invoices', { client: cl.body['@id'], status: 'pending', lines: [{ description: 'x', price: 100 }] });
  const id = rowsOf<{ id: string }>(await db.database.db.execute(sql`select id from companies where name = ${name}`))[0]!.id;
  return { c, invoice: inv.body['@id'], id };
}

const invitationEmails = async (companyId: string) => rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from account_emails where company_id = ${companyId} and purpose = 'invitation'`))[0]!.n;
const emails = async (companyId: string) => rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from emails where company_id = ${companyId} and kind = 'document'`))[0]!.n;

describe('the hourly cap', () => {
  it('lets exactly 200 through when they are created one at a time', async () => {
    const { c, invoice, id } = await company('Cap Serial');
    await db.database.db.execute(sql`insert into emails (id, company_id, document, kind, status, created_at, updated_at)
      select gen_random_uuid(), ${id}, ${invoice}, 'document', 'held', now() - interval '59 minutes', now() from generate_series(1, 190)`);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await c.post('/api/emails', { document: invoice })).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(await emails(id)).toBe(200);
  }, 120_000);

  it('holds under concurrent creates', async () => {
    const { c, invoice, id } = await company('Cap Concurrent');
    await db.database.db.execute(sql`insert into emails (id, company_id, document, kind, status, created_at, updated_at)
      select gen_random_uuid(), ${id}, ${invoice}, 'document', 'held', now() - interval '10 minutes', now() from generate_series(1, 195)`);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => c.post('/api/emails', { document: invoice }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(await emails(id)).toBe(200);
  }, 120_000);

  it('counts the invitations the API sends with the e-mails, one at a time', async () => {
    const { c, invoice, id } = await company('Cap Invitations');
    await db.database.db.execute(sql`insert into emails (id, company_id, document, kind, status, created_at, updated_at)
      select gen_random_uuid(), ${id}, ${invoice}, 'document', 'held', now() - interval '30 minutes', now() from generate_series(1, 196)`);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await c.post('/api/invitations', { email: `p${i}@cap.test`, role: 'member' })).status);
    statuses.push((await c.post('/api/emails', { document: invoice })).status);
    const refusedInvitation = await c.post('/api/invitations', { email: 'late@cap.test', role: 'member' });
    const refusedEmail = await c.post('/api/emails', { document: invoice });
    expect(statuses).toEqual([201, 201, 201, 201]);
    expect(refusedInvitation.status).toBe(429);
    expect(Number(refusedInvitation.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refusedEmail.status).toBe(429);
    expect((await emails(id)) + (await invitationEmails(id))).toBe(200);
    // Nothing of the refused invitation was written.
    const n = rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from invitations where company_id = ${id} and email = 'late@cap.test'`))[0]!.n;
    expect(n).toBe(0);
  }, 120_000);

  it('holds under concurrent e-mails and invitations', async () => {
    const { c, invoice, id } = await company('Cap Mixed');
    await db.database.db.execute(sql`insert into emails (id, company_id, document, kind, status, created_at, updated_at)
      select gen_random_uuid(), ${id}, ${invoice}, 'document', 'held', now() - interval '10 minutes', now() from generate_series(1, 192)`);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? c.post('/api/emails', { document: invoice }) : c.post('/api/invitations', { email: `m${i}@cap.test`, role: 'viewer' })).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(8);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12);
    expect((await emails(id)) + (await invitationEmails(id))).toBe(200);
  }, 120_000);
});

describe('the reset links’ cap (CONTRACT §20: 5 requests an hour per address and per IP)', () => {
  // With Redis (the counts every instance shares) when the run has one, else in memory.
  it('holds under concurrent requests: exactly 5 e-mails, the others 429', async () => {
    const shared = process.env.REDIS_URL ? await startTestServer({ REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `cap-${Date.now()}-${Math.random()}:` }, { db }) : t;
    try {
      await tokenFor(shared, { email: 'reset@cap.test', company: 'Cap Reset' });
      const forms = await Promise.all(Array.from({ length: 12 }, async () => {
        const b = new Browserish(shared.url);
        return { b, csrf: Browserish.csrfOf((await b.get('/reset')).text) };
      }));
      const statuses = await Promise.all(forms.map(({ b, csrf }) => b.request('POST', '/reset', { form: { _csrf: csrf, email: 'reset@cap.test' } }).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
      const n = rowsOf<{ n: number }>(await db.database.db.execute(sql`select count(*)::int as n from account_emails where purpose = 'reset' and "to" = 'reset@cap.test'`))[0]!.n;
      expect(n).toBe(5);
    } finally {
      if (shared !== t) await shared.close();
    }
  }, 120_000);
});
