// `POST /api/clients/import` (CONTRACT §21): clients from a CSV file (a header row naming columns
// of §21), each row a client with, when its columns are given, a contact and an address. All rows
// or none: every row is checked first by the engine's own validation (no statement), the names
// against each other and the company's (unique, ignoring case); any problem is a 422 listing every
// row and column in error (`rows[<line>].<column>`, the line in the file, the header being line 1),
// and nothing is written. Then every record is created through the engine in the operation's one
// transaction (events, counters and rules as for any create). `dryRun` answers the same without
// writing. At most MAX_IMPORT_ROWS rows.
import { Type, type Static } from '@sinclair/typebox';
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { operation, type OperationContext } from '../../engine/descriptor.ts';
import { ApiError, ViolationCode, type Violation } from '../../engine/errors.ts';
import { rowsOf, type FieldValues } from '../../engine/types.ts';
import { compileValidator } from '../../engine/validate.ts';
import { eventPrefix } from '../../engine/events.ts';
import { uuidv7 } from '../../engine/uuid.ts';
import { derive } from '../../engine/write/state-rules.ts';

export const MAX_IMPORT_ROWS = 10_000;
/** The largest file taken (a 413 beyond). */
export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;

/** The columns of §21, by the resource each one goes to (a column of a field this model lacks is unknown). */
const COLUMNS = {
  Client: ['name', 'currency', 'website', 'vatNumber', 'peppolId'],
  Contact: ['email', 'firstName', 'lastName'],
  Address: ['street1', 'zip', 'city', 'country'],
} as const;
type Target = keyof typeof COLUMNS;

const Line = Type.Object({
  line: Type.Integer({ description: 'The line of the file (the header is line 1)' }),
  name: Type.String(),
  currency: Type.String(),
  client: Type.Union([Type.String({ format: 'iri-reference' }), Type.Null()], { description: 'The new client (IRI); null in a dry run' }),
  contact: Type.Boolean({ description: 'Whether a contact is (or would be) created with it' }),
  address: Type.Boolean({ description: 'Whether an address is (or would be) created with it' }),
});

const ImportQuery = Type.Object({ dryRun: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: check and answer what would be created, changing nothing' })) });
// A placeholder for the client a contact or address will belong to, so that the engine's
// validation checks their own fields before the client exists.
const PENDING_CLIENT = '00000000-0000-7000-8000-000000000000';

/** The columns this model takes, each with its resource. */
function columnsOf(ctx: OperationContext): Map<string, Target> {
  const out = new Map<string, Target>();
  for (const [target, names] of Object.entries(COLUMNS) as [Target, readonly string[]][]) {
    const r = ctx.model.get(target);
    for (const n of names) if (r.byName.get(n) && !r.byName.get(n)!.readOnly) out.set(n, target);
  }
  return out;
}

function decodeRows(text: string, known: Map<string, Target>): { header: string[]; rows: string[][] } {
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: false, skip_empty_lines: true }) as string[][];
  } catch (e) {
    const line = (e as { lines?: number }).lines;
    throw ApiError.validation([{ propertyPath: line ? `rows[${line}]` : 'csv', message: `Not a valid CSV file: ${(e as Error).message}`, code: ViolationCode.format }]);
  }
  const header = (records[0] ?? []).map((h) => h.trim());
  if (!header.length) throw ApiError.validation([{ propertyPath: 'csv', message: 'The file is empty: its first line names the columns.', code: ViolationCode.blank }]);
  const problems: Violation[] = [];
  const unknown = header.filter((h) => !known.has(h));
  if (unknown.length) problems.push({ propertyPath: 'csv', message: `Unknown columns: ${unknown.map((u) => JSON.stringify(u)).join(', ')}. The columns are ${[...known.keys()].join(', ')}.`, code: ViolationCode.format });
  const twice = header.filter((h, i) => header.indexOf(h) !== i);
  if (twice.length) problems.push({ propertyPath: 'csv', message: `Columns named twice: ${[...new Set(twice)].join(', ')}.`, code: ViolationCode.format });
  if (!header.includes('name')) problems.push({ propertyPath: 'csv', message: 'The "name" column is required.', code: ViolationCode.blank });
  if (records.length - 1 > MAX_IMPORT_ROWS) problems.push({ propertyPath: 'csv', message: `At most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows per file; this one has ${(records.length - 1).toLocaleString('en-US')}.`, code: ViolationCode.rule });
  if (problems.length) throw ApiError.validation(problems);
  return { header, rows: records.slice(1) };
}

interface Planned {
  line: number;
  client: FieldValues;
  contact?: FieldValues;
  address?: FieldValues;
}

export const importClients = operation({
  method: 'POST',
  path: 'import',
  summary: 'Imports clients from a CSV file, all rows or none',
  description:
    `A CSV file (\`text/csv\`, UTF-8, a header row) with the columns name, currency, website, vatNumber, peppolId, email, firstName, lastName, street1, zip, city, country ` +
    `(name required; email, firstName, lastName make a contact; street1, zip, city, country an address). At most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows. ` +
    'Every row is checked before anything is written: a 422 lists each row and column in error (`rows[<line>].<column>`, the header being line 1) and changes nothing. ' +
    'Otherwise every client is created in one transaction. `?dryRun=true` (GraphQL: `dryRun: true`) answers what would be created and changes nothing. ' +
    'Unknown columns, a file that is not UTF-8 or over the row limit: 422; over 4 MiB: 413.',
  roles: ['admin', 'member'],
  input: Type.Object({ csv: Type.String({ description: 'The CSV file' }), dryRun: Type.Optional(Type.Boolean()) }),
  body: { mediaTypes: ['text/csv'], maxBytes: MAX_IMPORT_BYTES, text: 'csv' },
  query: ImportQuery,
  output: {
    type: 'ClientImport',
    schema: Type.Object({
      dryRun: Type.Boolean(),
      created: Type.Integer({ description: 'The clients created (or that would be)' }),
      clients: Type.Array(Line),
    }),
  },
  async run(ctx) {
    const input = ctx.input as { csv: string; dryRun?: boolean };
    const dryRun = input.dryRun ?? (ctx.args as Static<typeof ImportQuery>).dryRun === 'true';
    const known = columnsOf(ctx);
    const { header, rows } = decodeRows(input.csv, known);
    const validators = new Map();
    const validator = (name: Target) => compileValidator(ctx.model, ctx.model.get(name), validators);
    const problems: Violation[] = [];
    const planned: Planned[] = [];
    const names = new Map<string, number>();
    rows.forEach((cells, i) => {
      const line = i + 2;
      const by: Record<Target, FieldValues> = { Client: {}, Contact: {}, Address: {} };
      header.forEach((h, k) => {
        const v = (cells[k] ?? '').trim();
        if (v !== '') by[known.get(h)!][h] = v;
      });
      const plan: Planned = { line, client: by.Client };
      const check = (target: Target, data: FieldValues) => {
        try {
          return validator(target).normalise(data, 'create', null).data;
        } catch (e) {
          if (!(e instanceof ApiError) || !e.violations) throw e;
          for (const v of e.violations) problems.push({ ...v, propertyPath: `rows[${line}].${v.propertyPath === 'client' ? 'name' : v.propertyPath}` });
          return undefined;
        }
      };
      // What the engine's validation gives (defaults, normal forms), and derived values.
      plan.client = check('Client', by.Client) ?? by.Client;
      if (Object.keys(by.Contact).length) plan.contact = without(check('Contact', { ...by.Contact, client: PENDING_CLIENT }), 'client');
      if (Object.keys(by.Address).length) {
        const address = without(check('Address', { ...by.Address, client: PENDING_CLIENT }), 'client');
        if (address) derive(ctx.model.get('Address'), address);
        plan.address = address;
      }
      const name = typeof by.Client.name === 'string' ? by.Client.name.toLowerCase() : undefined;
      if (name !== undefined) {
        const first = names.get(name);
        if (first !== undefined) problems.push({ propertyPath: `rows[${line}].name`, message: `The name is also on line ${first}.`, code: ViolationCode.unique });
        else names.set(name, line);
      }
      planned.push(plan);
    });
    // Names the company already uses (unique ignoring case), in one statement.
    if (names.size) {
      const clients = ctx.model.get('Client');
      const taken = rowsOf<{ name: string }>(await (ctx.tx ?? ctx.db).execute(sql`select lower(name) as name from ${sql.identifier(clients.table)}
        where company_id = ${ctx.principal.company.id} and lower(name) = any(${`{${[...names.keys()].map((n) => `"${n.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[])`));
      for (const t of taken) problems.push({ propertyPath: `rows[${names.get(t.name)}].name`, message: 'This value is already used.', code: ViolationCode.unique });
    }
    if (problems.length) {
      problems.sort((a, b) => lineOf(a) - lineOf(b));
      throw ApiError.validation(problems);
    }
    const currency = ctx.principal.company.currency;
    if (dryRun) {
      return { dryRun: true, created: planned.length, clients: planned.map((p) => ({ line: p.line, name: String(p.client.name), currency: String(p.client.currency ?? currency), client: null, contact: !!p.contact, address: !!p.address })) };
    }
    // The checked rows, written in a few multi-row statements (a create per record would cost
    // some 30,000 statements for 10,000 rows), with the records' events as the engine's creates
    // write them, in the operation's one transaction.
    const api = ctx.api!;
    const tx = ctx.tx!;
    const company = ctx.principal.company.id;
    const out = [];
    const ids: Record<Target, string[]> = { Client: [], Contact: [], Address: [] };
    for (let i = 0; i < planned.length; i += CHUNK) {
      const rows: Record<Target, FieldValues[]> = { Client: [], Contact: [], Address: [] };
      for (const p of planned.slice(i, i + CHUNK)) {
        const id = uuidv7();
        // A client's currency defaults to its company's (rules/client.ts does so on a create).
        const client: FieldValues = { ...p.client, currency: p.client.currency ?? currency };
        rows.Client.push({ ...client, id, companyId: company });
        if (p.contact) rows.Contact.push({ ...p.contact, client: id, id: uuidv7(), companyId: company });
        if (p.address) rows.Address.push({ ...p.address, client: id, id: uuidv7(), companyId: company });
        out.push({ line: p.line, name: String(client.name), currency: String(client.currency), client: `${ctx.resource.iri}/${id}`, contact: !!p.contact, address: !!p.address });
      }
      for (const target of ['Client', 'Contact', 'Address'] as const) {
        if (!rows[target].length) continue;
        await tx.insert(api.table(target)).values(rows[target]);
        ids[target].push(...rows[target].map((r) => String(r.id)));
      }
    }
    for (const target of ['Client', 'Contact', 'Address'] as const) if (ids[target].length) await api.emit(target, ids[target], [`${eventPrefix(ctx.model.get(target))}.created`]);
    return { dryRun: false, created: out.length, clients: out };
  },
});

const CHUNK = 1000;
const without = (data: FieldValues | undefined, key: string): FieldValues | undefined => {
  if (!data) return { invalid: true };
  const { [key]: _, ...rest } = data;
  return rest;
};

const lineOf = (v: Violation) => Number(/^rows\[(\d+)\]/.exec(v.propertyPath)?.[1] ?? 0);
