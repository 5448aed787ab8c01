// The company profile's storage: its fields live on the companies row. The descriptor
// (resources/company.ts) is a singleton served by the engine through REST and GraphQL; this
// provider and processor (the service `companyStorage`) read and write the row, and
// readCompany/updateCompany give the same rules to the documents and the settings page.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Principal, FieldValues, Tx, VatRegistration } from '../engine/types.ts';
import { vatColumns, vatOf } from './access/principals.ts';
import type { OperationServices } from '../engine/descriptor.ts';
import { customEngine, type ResourceStorage } from '../engine/custom.ts';
import { ApiError, ViolationCode } from '../engine/errors.ts';
import { driverError } from '../engine/operations.ts';
import { NUMBERING } from '../resources/company.ts';
import { setSequence, sequenceSettingSql } from '../engine/sequences.ts';
import { literal } from '../engine/sql-text.ts';
import { refId } from '../engine/validate.ts';
import { uuidv7 } from '../engine/uuid.ts';
import { model, tables } from './model.ts';
import { companies } from './schema.ts';

export { ibanProblem, bicProblem, vatProblem } from '../resources/rules/company.ts';

/** The profile's fields a principal carries (engine/types.ts; server/access/principals.ts vatColumns). */
const PRINCIPAL_FIELDS = ['vatRegistered', 'vatExemptionNote'];

/**
 * The profile's storage: the calling company's row (a singleton's id is the company's).
 * `changed`: tells every instance that principals of a company changed (they carry its VAT registration).
 */
export function companyStorage(o: { changed?(which: (p: Principal) => boolean): Promise<void> } = {}): ResourceStorage {
  return {
    provider: {
      async list() {
        throw new ApiError(405, 'The company profile is one record.');
      },
      async read({ db, principal }, id) {
        if (id !== principal.company.id) return null;
        return readCompany(db, id);
      },
    },
    processor: {
      async create() {
        throw new ApiError(405, 'The company profile is one record.');
      },
      async update({ db, principal }, existing, changes) {
        if (!Object.keys(changes).length) return existing;
        const companyId = principal.company.id;
        const columns: FieldValues = {};
        for (const [k, v] of Object.entries(changes)) if (!SEQUENCE_FIELDS.has(k)) columns[k] = v;
        if ('defaultTax' in columns) columns.defaultTax = await taxId(db, companyId, columns.defaultTax);
        try {
          await db.transaction(async (tx) => {
            const [row] = await tx.update(companies).set({ ...columns, updatedAt: new Date() }).where(eq(companies.id, companyId)).returning({ id: companies.id });
            if (!row) throw ApiError.notFound();
            for (const n of NUMBERING) {
              const change: { prefix?: string; next?: number } = {};
              if (typeof changes[n.prefix] === 'string' && changes[n.prefix] !== existing[n.prefix]) change.prefix = changes[n.prefix] as string;
              if (typeof changes[n.next] === 'number' && changes[n.next] !== existing[n.next]) change.next = changes[n.next] as number;
              if (change.prefix === undefined && change.next === undefined) continue;
              const r = model.get(n.resource);
              await setSequence(tx, tables, r, r.byName.get(n.field)!, companyId, change, { next: n.next });
            }
          });
        } catch (e) {
          const d = driverError(e);
          if (d?.code === '23505') throw ApiError.validation([{ propertyPath: 'name', message: 'This value is already used.', code: ViolationCode.unique }]);
          throw e;
        }
        if (PRINCIPAL_FIELDS.some((f) => f in changes && changes[f] !== existing[f])) await o.changed?.((p) => p.company.id === companyId);
        return readCompany(db, companyId);
      },
      async remove() {
        throw new ApiError(405, 'The company profile is one record.');
      },
    },
  };
}

/** The id of the company's tax an IRI names; another company's or an unknown one: 422 as for one that does not exist. */
async function taxId(db: Db, companyId: string, iri: unknown): Promise<string | null> {
  if (iri === null || iri === undefined) return null;
  const TAX = model.get('Tax');
  const id = refId(model, 'Tax', iri);
  const t = tables.get(TAX);
  const found = id ? await db.select({ id: t.id }).from(t).where(and(eq(t.id, id), eq(t.companyId, companyId))) : [];
  if (!found.length) throw ApiError.validation([{ propertyPath: 'defaultTax', message: `Item not found for "${String(iri).slice(0, 200)}".`, code: ViolationCode.notFound }]);
  return id!;
}

export const COMPANY = model.get('Company');
/** The profile's field names, in the descriptor's order. */
export const PROFILE_FIELDS = COMPANY.fields.map((f) => f.name);

export type CompanyRow = typeof companies.$inferSelect;
export type CompanyProfile = FieldValues & { id: string; name: string; currency: string; createdAt: Date; updatedAt: Date };

/** The profile's fields held by the engine's sequences (the numbering), not by the company's row. */
const SEQUENCE_FIELDS = new Set<string>(NUMBERING.flatMap((n) => [n.prefix, n.next]));

/**
 * The profile in one statement: the company's row, its numbering from the engine's sequences,
 * and its default tax as an IRI (null when that tax was deleted since).
 */
// (Columns inside a single table's select lose their table's name in drizzle: the company is a
// value here, and the subqueries name their own tables.)
function profileSelect(companyId: string) {
  const TAX = model.get('Tax');
  const company = sql`${companyId}::uuid`;
  const extra: Record<string, SQL> = {
    defaultTaxIri: sql<string | null>`(select ${literal(`${TAX.iri}/`)} || t.id::text from ${sql.identifier(TAX.table)} as t where t.company_id = ${company} and t.id = (select c.default_tax from ${companies} as c where c.id = ${company}))`,
  };
  for (const n of NUMBERING) {
    const r = model.get(n.resource);
    const s = sequenceSettingSql(tables, r, r.byName.get(n.field)!, company);
    extra[n.prefix] = s.prefix;
    extra[n.next] = sql`${s.next}::int`;
  }
  return extra;
}

export function profileOf(row: CompanyRow & Record<string, unknown>): CompanyProfile {
  const out: FieldValues = { id: row.id };
  for (const n of PROFILE_FIELDS) out[n] = (row as unknown as FieldValues)[n] ?? null;
  out.defaultTax = row.defaultTaxIri ?? null;
  for (const n of NUMBERING) out[n.next] = row[n.next] === null || row[n.next] === undefined ? null : Number(row[n.next]);
  return { ...out, createdAt: row.createdAt, updatedAt: row.updatedAt } as CompanyProfile;
}

export async function readCompany(db: Db | Tx, companyId: string): Promise<CompanyProfile> {
  const [row] = await db.select({ row: companies, ...profileSelect(companyId) }).from(companies).where(eq(companies.id, companyId));
  if (!row) throw ApiError.notFound();
  const { row: r, ...extra } = row;
  return profileOf({ ...r, ...extra });
}
/** Applies a profile change through the engine's rules: admins only (403), every field validated (422). */
export async function updateCompany(db: Db, principal: Pick<Principal, 'role' | 'company'>, input: FieldValues): Promise<CompanyProfile> {
  return (await customEngine(db, model, { companyStorage: companyStorage() } as OperationServices).update(principal as Principal, COMPANY, principal.company.id, input, 'update')) as CompanyProfile;
}

/** The company's VAT registration (CONTRACT §18), for the totals of a new document (resources/rules/documents.ts). */
export async function vatRegistration(db: Db, companyId: string): Promise<VatRegistration> {
  const [row] = await db.select(vatColumns).from(companies).where(eq(companies.id, companyId));
  return vatOf(row);
}

/** The company named `name` (whatever its case), made with `currency` when there is none: user:create and the set-up page. */
export async function findOrCreateCompany(db: Db, name: string, currency: string): Promise<{ id: string; created: boolean }> {
  const [existing] = await db.select({ id: companies.id }).from(companies).where(sql`lower(${companies.name}) = lower(${name})`);
  if (existing) return { id: existing.id, created: false };
  const id = uuidv7();
  await db.insert(companies).values({ id, name, currency });
  return { id, created: true };
}
