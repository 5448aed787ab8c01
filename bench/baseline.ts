// The REST baseline of `npm run bench`: what a careful hand-written service must run for S1–S3
// and S6 to give the same responses as ours, and nothing more (issue 48). fastify + postgres.js:
// - the caller: `X-API-TOKEN`, its SHA-256 looked up once (the same join as ours) and cached in
//   memory for 30 s, so a request with a known token reads no database; 401 otherwise;
// - the rate limit: a fixed window per token in memory (RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS, as
//   ours reads them), with the X-RateLimit-* headers;
// - each read is one prepared statement (one round trip) whose JSON PostgreSQL builds, sent as it
//   comes, byte for byte our JSON-LD (taxGroups in their declared member order, amountCredited,
//   the lines' net; ETag and Vary as ours);
// - a create is one statement, so one transaction: the number from the company's sequence, the
//   client's currency, the lines' totals, nets and tax groups (CONTRACT §6; the bench sends no
//   discount), the invoice and its lines, and the invoice.created deliveries of the company's
//   subscribed webhooks (the bench has none); the statement-level triggers of the schema (the
//   collection counters, versions) fire for it as for ours.
// It keeps no request history. Its pool has PG_POOL_MAX connections; the harness gives it our
// service's own pool size (DATABASE_POOL_SIZE's default), so that both sides have as many
// PostgreSQL backends.
import Fastify from 'fastify';
import postgres from 'postgres';
import * as crypto from 'node:crypto';
import { uuidv7 } from '../engine/uuid.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required.');
const port = Number(process.env.PORT ?? 8090);
const sql = postgres(url, { max: Number(process.env.PG_POOL_MAX ?? 4), onnotice: () => {} });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ts = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// The stored tax groups (jsonb, whose keys PostgreSQL keeps in its own order) in their declared
// member order: rebuilt entry by entry, as the response must have them. (Sent as stored, the
// column would cost less, with the members in jsonb's order.)
const TAX_GROUPS = `coalesce((select json_agg((select row_to_json(m) from (select case jsonb_typeof(e.v -> 'rate') when 'string' then to_jsonb((e.v ->> 'rate')::numeric) else e.v -> 'rate' end as rate,
  e.v -> 'base' as base, e.v -> 'discount' as discount, e.v -> 'taxable' as taxable, e.v -> 'tax' as tax) m) order by e.n) from jsonb_array_elements(i.tax_groups) with ordinality as e(v, n)), '[]'::json)`;

// One invoice with its lines as a JSON-LD object, or in plain JSON (no @-keys), as our service
// writes them (row_to_json keeps the text compact); `i` is the invoices row, `linesFrom` where
// its lines come from.
const invoiceJson = (linesFrom: string, context = false, ld = true) => `(select row_to_json(x) from (select
  ${context ? `'/api/contexts/Invoice' as "@context",` : ''}
  ${ld ? `'/api/invoices/' || i.id as "@id", 'Invoice' as "@type",` : ''} i.id, i.number,
  '/api/clients/' || i.client_id as client, i.status, i.invoice_date as "invoiceDate", i.due_date as "dueDate",
  ${ts('i.paid_at')} as "paidAt", i.currency, i.discount_type as "discountType", trim_scale(i.discount_value) as "discountValue",
  i.subtotal, i.tax_total as "taxTotal", i.discount_total as "discountTotal", i.total,
  ${TAX_GROUPS} as "taxGroups",
  i.amount_paid as "amountPaid", i.amount_credited as "amountCredited", i.balance, i.terms, i.notes,
  (select coalesce(json_agg(row_to_json(y)), '[]'::json) from (select
      ${ld ? `'/api/invoice-lines/' || l.id as "@id", 'InvoiceLine' as "@type",` : ''} l.id, '/api/invoices/' || l.invoice_id as invoice,
      l.description, trim_scale(l.qty) as qty, l.price, '/api/taxes/' || l.tax_id as tax,
      l.position, l.total, l.net, trim_scale(l.tax_rate) as "taxRate", l.tax_type as "taxType", ${ts('l.created_at')} as "createdAt", ${ts('l.updated_at')} as "updatedAt"
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

// The caller, from a token cache (sha256 → company, 30 s): one indexed read per token and TTL.
interface Caller { companyId: string; expires: number }
const callers = new Map<string, Caller>();
const TOKEN_TTL_MS = 30_000;
async function callerOf(value: unknown): Promise<Caller | null> {
  if (typeof value !== 'string' || !value.startsWith('inv_') || value.length > 200) return null;
  const hash = crypto.hash('sha256', value);
  const hit = callers.get(hash);
  const now = Date.now();
  if (hit && hit.expires > now) return hit;
  const [row] = await sql`select t.company_id from api_tokens t
    join memberships m on m.user_id = t.user_id and m.company_id = t.company_id join companies c on c.id = t.company_id
    where t.token_hash = ${hash}`;
  if (!row) return null;
  const caller = { companyId: row.company_id as string, expires: now + TOKEN_TTL_MS };
  callers.set(hash, caller);
  return caller;
}

// The rate limit: a fixed window per token, in memory.
const LIMIT = Number(process.env.RATE_LIMIT_MAX ?? 300);
const WINDOW_MS = Number(process.env.RATE_LIMIT_WINDOW_MS ?? 60_000);
const windows = new Map<string, { start: number; n: number }>();

declare module 'fastify' {
  interface FastifyRequest {
    companyId: string;
  }
}
app.decorateRequest('companyId', '');
app.addHook('onRequest', async (req, reply) => {
  if (!req.url.startsWith('/api/')) return;
  const token = req.headers['x-api-token'];
  const caller = await callerOf(token);
  const key = caller ? (token as string) : `ip:${req.ip}`;
  const now = Date.now();
  let w = windows.get(key);
  if (!w || now - w.start >= WINDOW_MS) windows.set(key, (w = { start: now, n: 0 }));
  w.n++;
  reply.headers({ 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': String(Math.max(0, LIMIT - w.n)), 'x-ratelimit-reset': String(Math.ceil((w.start + WINDOW_MS) / 1000)) });
  if (w.n > LIMIT) return reply.code(429).send();
  if (!caller) return reply.code(401).send();
  req.companyId = caller.companyId;
});

// S1: a page of 30 with the total, in one statement.
app.get<{ Querystring: { page?: string } }>('/api/invoices', async (req, reply) => {
  const page = Math.max(1, Number.parseInt(req.query.page ?? '1', 10) || 1);
  const perPage = 30;
  const [row] = await sql.unsafe(
    `select (select count(*) from invoices where company_id = $1)::int as total,
            (select coalesce(json_agg(${INVOICE_JSON} order by i.id), '[]'::json)
               from (select * from invoices where company_id = $1 order by id limit $2 offset $3) i)::text as member`,
    [req.companyId, perPage, (page - 1) * perPage],
    { prepare: true },
  );
  const total = row!.total as number;
  const last = Math.max(1, Math.ceil(total / perPage));
  const view: Record<string, string> = { '@id': `/api/invoices?page=${page}`, '@type': 'PartialCollectionView', first: '/api/invoices?page=1', last: `/api/invoices?page=${last}` };
  if (page > 1) view.previous = `/api/invoices?page=${Math.min(page - 1, last)}`;
  if (page < last) view.next = `/api/invoices?page=${page + 1}`;
  return reply
    .type(LD)
    .header('vary', 'Accept')
    .send(`{"@context":"/api/contexts/Invoice","@id":"/api/invoices","@type":"Collection","member":${row!.member},"totalItems":${total},"view":${JSON.stringify(view)},"search":${SEARCH}}`);
});

// S2 and S6: one invoice with its lines, in one statement; plain JSON when asked (S6).
app.get<{ Params: { id: string } }>('/api/invoices/:id', async (req, reply) => {
  if (!UUID.test(req.params.id)) return reply.code(404).send();
  const plain = req.headers.accept === 'application/json';
  const [row] = await sql.unsafe(`select i.company_id, i.version, ${plain ? PLAIN_ITEM_JSON : ITEM_JSON}::text as body from invoices i where i.id = $1`, [req.params.id], { prepare: true });
  if (!row) return reply.code(404).send();
  if (row.company_id !== req.companyId) return reply.code(403).send();
  return reply.type(plain ? 'application/json; charset=utf-8' : LD).header('etag', `"${row.version}-${plain ? 'json' : 'jsonld'}"`).header('vary', 'Accept').send(row.body);
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
       select amount.*, case when type = 'inclusive' then round(total * 100 / (100 + rate))::bigint else total end as net from amount
     ),
     groups as (
       select coalesce(rate, 0) as rate, sum(net)::bigint as base,
              case when bool_and(coalesce(type = 'inclusive', false)) then sum(total) - sum(net) else round(sum(net) * coalesce(rate, 0) / 100) end::bigint as tax
       from priced group by coalesce(rate, 0)
     ),
     sums as (
       select coalesce(sum(base), 0)::bigint as subtotal, coalesce(sum(tax), 0)::bigint as tax_total,
              coalesce(jsonb_agg(jsonb_build_object('rate', trim_scale(rate), 'base', base, 'discount', 0, 'taxable', base, 'tax', tax) order by rate), '[]'::jsonb) as tax_groups,
              (select coalesce(sum(foreign_tax), 0) from priced) as foreign_taxes
       from groups
     ),
     inv as (
       insert into invoices (id, company_id, number, client_id, status, invoice_date, due_date, currency, discount_type, discount_value,
                             subtotal, tax_total, discount_total, total, tax_groups, amount_paid, balance)
       select $9::uuid, $1, 'INV-' || lpad(seq.value::text, 6, '0'), client.id, 'draft', coalesce($7::date, current_date), $8::date,
              client.currency, 'none', 0, sums.subtotal, sums.tax_total, 0, sums.subtotal + sums.tax_total, sums.tax_groups, 0, sums.subtotal + sums.tax_total
       from client, seq, sums where sums.foreign_taxes = 0
       returning *
     ),
     ins_lines as (
       insert into invoice_lines (id, company_id, invoice_id, description, qty, price, tax_id, position, total, net, tax_rate, tax_type)
       select ($10::uuid[])[(p.position + 1)::int], $1, inv.id, p.d, p.qty, p.price, p.tax_id, p.position, p.total, p.net, p.rate, p.type from inv, priced p
       returning *
     ),
     events as (
       insert into webhook_deliveries (id, company_id, webhook_id, event_id, type, record_id, body, status, attempts, leased_until, next_attempt_at)
       select gen_random_uuid(), $1, w.id, gen_random_uuid(), 'invoice.created', inv.id, null, 'pending', 0, null, now()
       from inv join webhooks w on w.company_id = $1 and w.active and (w.events @> '["invoice.created"]'::jsonb or w.events @> '["*"]'::jsonb)
     )
     select ${invoiceJson('ins_lines l', true)}::text as body, i.id, i.version
     from inv i`,
    [
      req.companyId, clientId,
      lines.map((l) => l.description), lines.map((l) => String(l.qty ?? 1)), lines.map((l) => String(l.price)), taxIds,
      b.invoiceDate ?? null, b.dueDate ?? null,
      uuidv7(), lines.map(() => uuidv7()),
    ] as never[],
    { prepare: true },
  );
  const row = rows[0];
  if (!row) return reply.code(422).send({ status: 422, violations: [{ propertyPath: 'client', message: 'Item not found.' }] });
  return reply.code(201).header('location', `/api/invoices/${row.id}`).header('etag', `"${row.version}-jsonld"`).header('vary', 'Accept').type(LD).send(row.body);
});

await app.listen({ port, host: '127.0.0.1' });
const stop = async () => {
  await app.close();
  await sql.end({ timeout: 5 });
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
