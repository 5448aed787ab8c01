// The REST baseline of `npm run bench`: what a careful hand-written service would run for
// S1–S3 and S6, with nothing else. fastify + postgres.js, one company given by COMPANY_ID, no
// authentication, rate limit or history. Each request is one SQL statement (one round trip),
// and the JSON is built by PostgreSQL and sent as it comes. The shape is our JSON-LD's.
import Fastify from 'fastify';
import postgres from 'postgres';
import { uuidv7 } from '../engine/uuid.ts';

const url = process.env.DATABASE_URL;
const companyId = process.env.COMPANY_ID;
if (!url || !companyId) throw new Error('DATABASE_URL and COMPANY_ID are required.');
const port = Number(process.env.PORT ?? 8090);
const sql = postgres(url, { max: Number(process.env.PG_POOL_MAX ?? 10), onnotice: () => {} });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ts = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// One invoice with its lines as a JSON-LD object, or in plain JSON (no @-keys), as our service
// writes them (row_to_json keeps the text compact); `i` is the invoices row, `linesFrom` where
// its lines come from.
const invoiceJson = (linesFrom: string, context = false, ld = true) => `(select row_to_json(x) from (select
  ${context ? `'/api/contexts/Invoice' as "@context",` : ''}
  ${ld ? `'/api/invoices/' || i.id as "@id", 'Invoice' as "@type",` : ''} i.id, i.number,
  '/api/clients/' || i.client_id as client, i.status, i.invoice_date as "invoiceDate", i.due_date as "dueDate",
  ${ts('i.paid_at')} as "paidAt", i.currency, i.discount_type as "discountType", trim_scale(i.discount_value) as "discountValue",
  i.subtotal, i.tax_total as "taxTotal", i.discount_total as "discountTotal", i.total,
  i.amount_paid as "amountPaid", i.balance, i.terms, i.notes,
  (select coalesce(json_agg(row_to_json(y)), '[]'::json) from (select
      ${ld ? `'/api/invoice-lines/' || l.id as "@id", 'InvoiceLine' as "@type",` : ''} l.id, '/api/invoices/' || l.invoice_id as invoice,
      l.description, trim_scale(l.qty) as qty, l.price, '/api/taxes/' || l.tax_id as tax,
      l.position, l.total, trim_scale(l.tax_rate) as "taxRate", l.tax_type as "taxType", ${ts('l.created_at')} as "createdAt", ${ts('l.updated_at')} as "updatedAt"
    from ${linesFrom} order by l.position, l.id) y) as lines,
  '/api/quotes/' || i.quote_id as quote, '/api/recurring-invoices/' || i.recurring_invoice_id as "recurringInvoice",
  ${ts('i.created_at')} as "createdAt", ${ts('i.updated_at')} as "updatedAt") x)`;
const INVOICE_JSON = invoiceJson('invoice_lines l where l.invoice_id = i.id');
const ITEM_JSON = invoiceJson('invoice_lines l where l.invoice_id = i.id', true);
const PLAIN_ITEM_JSON = invoiceJson('invoice_lines l where l.invoice_id = i.id', false, false);

// The collection's search template never changes: serialised once.
const SEARCH = JSON.stringify((() => {
  const vars: [string, string][] = [];
  for (const f of ['number', 'client', 'status']) vars.push([f, f], [`${f}[]`, f]);
  for (const f of ['invoiceDate', 'dueDate']) for (const op of ['before', 'strictly_before', 'after', 'strictly_after']) vars.push([`${f}[${op}]`, f]);
  for (const f of ['number', 'invoiceDate', 'dueDate', 'total', 'createdAt']) vars.push([`order[${f}]`, f]);
  return {
    '@type': 'IriTemplate',
    template: `/api/invoices{?${vars.map((v) => v[0]).join(',')}}`,
    variableRepresentation: 'BasicRepresentation',
    mapping: vars.map(([variable, property]) => ({ '@type': 'IriTemplateMapping', variable, property, required: false })),
  };
})());

const LD = 'application/ld+json; charset=utf-8';
const app = Fastify({ logger: false });
app.addContentTypeParser('application/ld+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

app.get('/healthz', async () => ({ status: 'ok' }));

// S1: a page of 30 with the total, in one statement.
app.get<{ Querystring: { page?: string } }>('/api/invoices', async (req, reply) => {
  const page = Math.max(1, Number.parseInt(req.query.page ?? '1', 10) || 1);
  const perPage = 30;
  const [row] = await sql.unsafe(
    `select (select count(*) from invoices where company_id = $1)::int as total,
            (select coalesce(json_agg(${INVOICE_JSON} order by i.id), '[]'::json)
               from (select * from invoices where company_id = $1 order by id limit $2 offset $3) i)::text as member`,
    [companyId, perPage, (page - 1) * perPage],
    { prepare: true },
  );
  const total = row!.total as number;
  const last = Math.max(1, Math.ceil(total / perPage));
  const view: Record<string, string> = { '@id': `/api/invoices?page=${page}`, '@type': 'PartialCollectionView', first: '/api/invoices?page=1', last: `/api/invoices?page=${last}` };
  if (page > 1) view.previous = `/api/invoices?page=${Math.min(page - 1, last)}`;
  if (page < last) view.next = `/api/invoices?page=${page + 1}`;
  return reply
    .type(LD)
    .send(`{"@context":"/api/contexts/Invoice","@id":"/api/invoices","@type":"Collection","member":${row!.member},"totalItems":${total},"view":${JSON.stringify(view)},"search":${SEARCH}}`);
});

// S2 and S6: one invoice with its lines, in one statement; plain JSON when asked (S6).
app.get<{ Params: { id: string } }>('/api/invoices/:id', async (req, reply) => {
  if (!UUID.test(req.params.id)) return reply.code(404).send();
  const plain = req.headers.accept === 'application/json';
  const [row] = await sql.unsafe(`select i.company_id, ${plain ? PLAIN_ITEM_JSON : ITEM_JSON}::text as body from invoices i where i.id = $1`, [req.params.id], { prepare: true });
  if (!row) return reply.code(404).send();
  if (row.company_id !== companyId) return reply.code(403).send();
  return reply.type(plain ? 'application/json; charset=utf-8' : LD).send(row.body);
});

// S3: create an invoice with its lines: the number from the company's sequence, the client's
// currency, line and document totals (CONTRACT §6; numeric round() is half away from zero),
// all in one statement, which PostgreSQL runs as one transaction.
interface LineIn { description: string; qty?: number; price: number; tax?: string | null }
const iriId = (v: string | null | undefined) => (v ? v.slice(v.lastIndexOf('/') + 1) : null);

app.post<{ Body: { client: string; lines?: LineIn[]; invoiceDate?: string; dueDate?: string } }>('/api/invoices', {
  schema: {
    body: {
      type: 'object',
      required: ['client'],
      properties: {
        client: { type: 'string', maxLength: 200 },
        invoiceDate: { type: 'string', format: 'date' },
        dueDate: { type: 'string', format: 'date' },
        lines: {
          type: 'array', maxItems: 500,
          items: {
            type: 'object', required: ['description', 'price'],
            properties: { description: { type: 'string', minLength: 1, maxLength: 1000 }, qty: { type: 'number', exclusiveMinimum: 0 }, price: { type: 'integer' }, tax: { type: ['string', 'null'] } },
          },
        },
      },
    },
  },
}, async (req, reply) => {
  const b = req.body;
  const lines = b.lines ?? [];
  const clientId = iriId(b.client);
  if (!clientId || !UUID.test(clientId)) return reply.code(422).send({ status: 422, violations: [{ propertyPath: 'client', message: 'Invalid IRI.' }] });
  const taxIds = lines.map((l) => iriId(l.tax));
  if (taxIds.some((t) => t !== null && !UUID.test(t))) return reply.code(422).send({ status: 422, violations: [{ propertyPath: 'lines', message: 'Invalid tax IRI.' }] });
  const rows = await sql.unsafe(
    `with client as (select id, currency from clients where id = $2 and company_id = $1),
     seq as (
       insert into engine_sequences (company_id, name, value) select $1, 'Invoice.number', 1 from client
       on conflict (company_id, name) do update set value = engine_sequences.value + 1 returning value
     ),
     input as (
       select ord - 1 as position, d, q::numeric(18,4) as qty, p::bigint as price, t::uuid as tax_id
       from unnest($3::text[], $4::text[], $5::text[], $6::text[]) with ordinality as x(d, q, p, t, ord)
     ),
     amount as (
       select input.*, round(price * qty)::bigint as total, tx.rate, tx.type,
         case when tx.company_id is distinct from $1 and input.tax_id is not null then 1 else 0 end as foreign_tax
       from input left join taxes tx on tx.id = input.tax_id
     ),
     priced as (
       select amount.*, case type when 'exclusive' then round(total * rate / 100)::bigint
                                  when 'inclusive' then (total - round(total / (1 + rate / 100)))::bigint else 0 end as tax
       from amount
     ),
     sums as (
       select coalesce(sum(case when type = 'inclusive' then total - tax else total end), 0)::bigint as subtotal,
              coalesce(sum(tax), 0)::bigint as tax_total, coalesce(sum(foreign_tax), 0) as foreign_taxes from priced
     ),
     inv as (
       insert into invoices (id, company_id, number, client_id, status, invoice_date, due_date, currency, discount_type, discount_value,
                             subtotal, tax_total, discount_total, total, amount_paid, balance)
       select $9::uuid, $1, 'INV-' || lpad(seq.value::text, 6, '0'), client.id, 'draft', coalesce($7::date, current_date), $8::date,
              client.currency, 'none', 0, sums.subtotal, sums.tax_total, 0, sums.subtotal + sums.tax_total, 0, sums.subtotal + sums.tax_total
       from client, seq, sums where sums.foreign_taxes = 0
       returning *
     ),
     ins_lines as (
       insert into invoice_lines (id, company_id, invoice_id, description, qty, price, tax_id, position, total)
       select ($10::uuid[])[(p.position + 1)::int], $1, inv.id, p.d, p.qty, p.price, p.tax_id, p.position, p.total from inv, priced p
       returning *
     )
     select ${invoiceJson('ins_lines l', true)}::text as body, i.id
     from inv i`,
    [
      companyId, clientId,
      lines.map((l) => l.description), lines.map((l) => String(l.qty ?? 1)), lines.map((l) => String(l.price)), taxIds,
      b.invoiceDate ?? null, b.dueDate ?? null,
      uuidv7(), lines.map(() => uuidv7()),
    ] as never[],
    { prepare: true },
  );
  const row = rows[0];
  if (!row) return reply.code(422).send({ status: 422, violations: [{ propertyPath: 'client', message: 'Item not found.' }] });
  return reply.code(201).header('location', `/api/invoices/${row.id}`).type(LD).send(row.body);
});

await app.listen({ port, host: '127.0.0.1' });
const stop = async () => {
  await app.close();
  await sql.end({ timeout: 5 });
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
