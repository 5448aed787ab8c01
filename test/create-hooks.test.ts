// A resource's hooks declare what its creates need (HookSet.create), and the engine chooses the
// create path once, at start-up, from that declaration: 'references' writes the record in one
// statement without a transaction, 'transaction' in a transaction. Either way each hook runs
// once; hooks that use the transaction without declaring it fail with an error that says so,
// having written nothing. Models are built here from the service's descriptors with the Client's
// hooks replaced, on the same tables.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyResourceDescriptor } from '../engine/descriptor.ts';
import type { HookSet } from '../engine/hooks.ts';
import { buildModel } from '../engine/model.ts';
import { createEngine } from '../engine/operations.ts';
import { buildTables } from '../engine/tables.ts';
import type { Principal } from '../engine/types.ts';
import { descriptors } from '../resources/index.ts';
import { rowsOf } from '../server/db.ts';
import { companies } from '../server/schema.ts';
import { freshDatabase, type TestDatabase } from './helpers.ts';

let t: TestDatabase;
const principal: Principal = { userId: 'hooks-test', role: 'admin', company: { id: '0190b0b0-0000-7000-8000-0000000000c1', currency: 'EUR' } };

beforeAll(async () => {
  t = await freshDatabase();
  await t.database.db.execute(sql`insert into companies (id, name, currency) values (${principal.company.id}, 'Hooks Co', 'EUR')`);
});
afterAll(() => t.drop());

/** An engine over the service's model whose Client hooks are `hooks`. */
function engineWith(hooks: HookSet) {
  const model = buildModel(descriptors.map((d): AnyResourceDescriptor => (d.name === 'Client' ? { ...d, hooks } : d)));
  const tables = buildTables(model, { table: companies, column: companies.id });
  return { engine: createEngine(t.database.db, model, tables), client: model.get('Client') };
}

async function clientsNamed(name: string): Promise<number> {
  const [row] = rowsOf<{ n: number }>(await t.database.db.execute(sql`select count(*)::int as n from clients where name = ${name}`));
  return row!.n;
}

/** The statements one call runs. */
async function counted<T>(fn: () => Promise<T>): Promise<{ n: number; result: T }> {
  const before = t.database.statements();
  const result = await fn();
  return { n: t.database.statements() - before, result };
}

describe('hooks that declare what a create needs', () => {
  it("'references': one statement, no transaction, each hook once", async () => {
    const calls: string[] = [];
    const { engine, client } = engineWith({
      create: 'references',
      beforeWrite: (_api, e) => {
        calls.push(`before:${e.op}`);
        e.data.currency = 'USD';
      },
      afterWrite: (_api, e) => void calls.push(`after:${e.op}`),
    });
    const { n, result } = await counted(() => engine.create(principal, client, { name: 'One statement' }));
    expect(result).toMatchObject({ name: 'One statement', currency: 'USD', companyId: principal.company.id });
    expect(calls).toEqual(['before:create', 'after:create']);
    expect(n).toBe(1);
  });

  it("'transaction': the hooks get the transaction, run once, and see the record after the insert", async () => {
    const calls: string[] = [];
    const { engine, client } = engineWith({
      create: 'transaction',
      beforeWrite: async (api, e) => {
        calls.push('before');
        const [row] = rowsOf<{ n: number }>(await api.tx.execute(sql`select count(*)::int as n from clients where company_id = ${api.principal.company.id}`));
        e.data.notes = `${row!.n} before`;
      },
      afterWrite: async (api, e) => {
        calls.push('after');
        expect((await api.read('Client', e.id))?.name).toBe('In a transaction');
        await api.tx.execute(sql`update clients set vat_number = 'SET-AFTER' where id = ${e.id}`);
      },
    });
    const rec = await engine.create(principal, client, { name: 'In a transaction' });
    expect(calls).toEqual(['before', 'after']);
    // What afterWrite changed is in the record the create returns.
    expect(rec).toMatchObject({ name: 'In a transaction', vatNumber: 'SET-AFTER' });
    expect(String(rec.notes)).toMatch(/^\d+ before$/);
  });

  it('no declaration with create hooks means a transaction', async () => {
    const { engine, client } = engineWith({ beforeWrite: async (api) => void (await api.lock('Client', '0190b0b0-0000-7000-8000-00000000ffff')) });
    expect((await engine.create(principal, client, { name: 'Undeclared' })).name).toBe('Undeclared');
  });

  for (const [what, use] of [
    ['the transaction', (api: Parameters<NonNullable<HookSet['beforeWrite']>>[0]) => api.tx],
    ['lock', (api: Parameters<NonNullable<HookSet['beforeWrite']>>[0]) => api.lock('Client', principal.company.id)],
    ['create', (api: Parameters<NonNullable<HookSet['beforeWrite']>>[0]) => api.create('Contact', {})],
  ] as const) {
    it(`'references' hooks that use ${what} fail, say how to declare it, run once and write nothing`, async () => {
      let runs = 0;
      const name = `Misdeclared ${what}`;
      const { engine, client } = engineWith({
        create: 'references',
        beforeWrite: async (api) => {
          runs++;
          await use(api);
        },
      });
      await expect(engine.create(principal, client, { name })).rejects.toThrow(/Client declare create: 'references' but use .*declare create: 'transaction'/);
      expect(runs).toBe(1);
      expect(await clientsNamed(name)).toBe(0);
    });
  }
});
