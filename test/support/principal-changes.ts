// What a principal carries besides its token (its role, its company's VAT registration: engine/types.ts)
// is cached with it (server/access/token-cache.ts): a change made through one instance must reach
// `b` (the same instance, or another) on its next request, whatever carries the news (this
// process, Redis's epoch, PostgreSQL's notifications). Shared by the single- and multi-instance suites.
import { expect } from 'vitest';
import { client, tokenFor, type TestServer } from '../helpers.ts';

const J = { accept: 'application/json' };

/** An admin demoted through `a` writes no more through `b`, at once; promoted again, writes again. */
export async function roleChangeReaches(a: TestServer, b: TestServer, company: string): Promise<void> {
  const boss = client(a, await tokenFor(a, { email: `boss@${company}.test`, company }));
  const value = await tokenFor(a, { email: `second@${company}.test`, company });
  const second = client(b, value);
  // Cached on b with the admin role.
  expect((await second.post('/api/taxes', { name: 'Before', rate: 10 })).status).toBe(201);
  const id = (await boss.get('/api/members', J)).body.find((m: { email: string }) => m.email === `second@${company}.test`).id;
  expect((await boss.patch(`/api/members/${id}`, { role: 'viewer' })).status).toBe(200);
  const refused = await second.post('/api/taxes', { name: 'While a viewer', rate: 10 });
  expect(refused.status).toBe(403);
  expect((await second.get('/api/taxes', J)).body.map((t: { name: string }) => t.name)).toEqual(['Before']);
  expect((await boss.patch(`/api/members/${id}`, { role: 'member' })).status).toBe(200);
  expect((await second.post('/api/taxes', { name: 'As a member', rate: 10 })).status).toBe(201);
}

/** The company's VAT registration changed through `a`: the next invoice created through `b` follows it. */
export async function registrationChangeReaches(a: TestServer, b: TestServer, company: string): Promise<void> {
  const admin = client(a, await tokenFor(a, { email: `owner@${company}.test`, company }));
  const writer = client(b, await tokenFor(a, { email: `writer@${company}.test`, company, role: 'member' }));
  const buyer = (await admin.post('/api/clients', { name: 'Buyer' })).body['@id'];
  const tax = (await admin.post('/api/taxes', { name: 'VAT', rate: 20 })).body['@id'];
  const create = async () => {
    const r = await writer.post('/api/invoices', { client: buyer, lines: [{ description: 'Work', price: 1000, qty: 1, tax }] });
    expect(r.status, r.text).toBe(201);
    return r.body;
  };
  expect((await create()).total).toBe(1200);
  expect((await admin.patch('/api/company', { vatRegistered: false, vatExemptionNote: 'Kleinunternehmer, § 19 UStG' })).status).toBe(200);
  const exempt = await create();
  expect(exempt.total).toBe(1000);
  expect(exempt.lines[0]).toMatchObject({ taxCategory: 'O', taxExemptionReason: 'Kleinunternehmer, § 19 UStG' });
  expect((await admin.patch('/api/company', { vatExemptionNote: 'Auto-entrepreneur' })).status).toBe(200);
  expect((await create()).lines[0].taxExemptionReason).toBe('Auto-entrepreneur');
  expect((await admin.patch('/api/company', { vatRegistered: true })).status).toBe(200);
  expect((await create()).total).toBe(1200);
}
