// The scenarios, and for each server that takes part the exact requests it gets and the check a
// response must pass. S1–S3 and S6 are measured against the hand-written baseline, S4–S5
// against PostGraphile, serving the same database; W1 (S3's creates with one webhook subscribed
// to invoice.created and a local receiver) against our own service without the webhook.
import type { Seeded } from './seed.ts';
import type { ServerName } from './servers.ts';
import { documentTotals, scaled, type Line } from './totals.ts';

export type ScenarioId = 'S1' | 'S2' | 'S3' | 'S4' | 'S5' | 'S6' | 'W1';

export interface Scenario {
  id: ScenarioId;
  title: string;
  anchor: ServerName;
  /** ours ÷ anchor must reach this (req/s). */
  target: number;
  servers: readonly ServerName[];
}

// Targets of issue 48 against the baseline that does what a careful hand-written server must
// (bench/baseline.ts): list and item reads ≥ 0.9×, creates within 1.2× (≥ 1/1.2 of its req/s),
// GraphQL ≥ 1.8× PostGraphile.
export const SCENARIOS: readonly Scenario[] = [
  { id: 'S1', title: 'REST GET /api/invoices (30 per page, JSON-LD)', anchor: 'baseline', target: 0.9, servers: ['baseline', 'ours'] },
  { id: 'S2', title: 'REST GET /api/invoices/<id>', anchor: 'baseline', target: 0.9, servers: ['baseline', 'ours'] },
  { id: 'S3', title: 'REST POST /api/invoices (5 lines)', anchor: 'baseline', target: 0.83, servers: ['baseline', 'ours'] },
  { id: 'S4', title: 'GraphQL invoices(first: 30) with client and lines', anchor: 'postgraphile', target: 1.8, servers: ['postgraphile', 'ours'] },
  { id: 'S5', title: 'GraphQL one invoice with lines and payments', anchor: 'postgraphile', target: 1.8, servers: ['postgraphile', 'ours'] },
  { id: 'S6', title: 'REST GET /api/invoices/<id> (plain JSON)', anchor: 'baseline', target: 0.9, servers: ['baseline', 'ours'] },
  // Run by bench/webhooks.ts: the same creates without, then with, the webhook.
  { id: 'W1', title: 'REST POST /api/invoices (5 lines), one webhook on invoice.created', anchor: 'ours', target: 0.9, servers: ['ours'] },
];

/** Scenarios that write invoices (removed after each run, so every run sees the seeded data). */
export const WRITES: readonly ScenarioId[] = ['S3', 'W1'];

export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Verdict {
  /** Why the response is wrong; undefined when it is right. */
  error?: string;
  /** Something worth reporting that does not make the response wrong. */
  note?: string;
}

export interface Workload {
  /** The i-th request (requests rotate over many records). */
  nth(i: number): HttpRequest;
  check(i: number, status: number, body: string): Verdict;
}

const S4_OURS = '{ invoices(first: 30) { edges { node { number total client { name currency } lines(first: 10) { edges { node { description qty price } } } } } } }';
const S5_OURS = 'query ($id: ID!) { invoice(id: $id) { number total client { name } lines(first: 10) { edges { node { description qty price } } } payments(first: 10) { edges { node { amount method paidAt } } } } }';
// The same selections in PostGraphile's schema (amber preset: allX, relations named after FKs).
const S4_PGL = '{ allInvoices(first: 30, orderBy: PRIMARY_KEY_ASC) { edges { node { number total clientByClientId { name currency } invoiceLinesByInvoiceId(first: 10) { edges { node { description qty price } } } } } } }';
const S5_PGL = 'query ($id: UUID!) { invoiceByRowId(rowId: $id) { number total clientByClientId { name } invoiceLinesByInvoiceId(first: 10) { edges { node { description qty price } } } paymentsByInvoiceId(first: 10) { edges { node { amount method paidAt } } } } }';

function json(body: string): any {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function graphqlVerdict(status: number, body: string, pick: (data: any) => string | undefined): Verdict {
  const doc = json(body);
  if (status !== 200) return { error: `status ${status}: ${body.slice(0, 200)}` };
  if (!doc) return { error: 'body is not JSON' };
  if (doc.errors?.length) return { error: `GraphQL error: ${String(doc.errors[0]?.message).slice(0, 200)}` };
  const wrong = pick(doc.data ?? {});
  return wrong ? { error: wrong } : {};
}

const QTYS = ['1', '2', '0.5', '1.25', '3'];
const PRICES = [1500, 9999, 120000, 4550, 33333];

/** The request of each scenario for each server; null when that server does not take part. */
export function workload(id: ScenarioId, server: ServerName, data: Seeded): Workload | null {
  const taxIds = data.taxes.map((t) => t.id);
  // The baseline checks the token as ours does (PostGraphile serves without one).
  const auth: Record<string, string> = server === 'ours' || server === 'baseline' ? { 'x-api-token': data.token } : {};
  const ld = { accept: 'application/ld+json', ...auth };
  const rest = server === 'ours' || server === 'baseline';
  const graphqlPath = server === 'ours' ? '/api/graphql' : '/graphql';
  const gql = (query: string, variables?: Record<string, unknown>): string => JSON.stringify(variables ? { query, variables } : { query });
  const gqlHeaders = { 'content-type': 'application/json', accept: 'application/json', ...auth };
  const at = <T>(xs: readonly T[], i: number): T => xs[i % xs.length]!;

  switch (id) {
    case 'S1':
      if (!rest) return null;
      return {
        nth: () => ({ method: 'GET', path: '/api/invoices', headers: ld }),
        check(_i, status, body) {
          const doc = json(body);
          if (status !== 200) return { error: `status ${status}: ${body.slice(0, 200)}` };
          if (!Array.isArray(doc?.member) || doc.member.length !== Math.min(30, data.invoiceIds.length)) return { error: `expected ${Math.min(30, data.invoiceIds.length)} members` };
          if (typeof doc.totalItems !== 'number' || !Array.isArray(doc.member[0]?.lines)) return { error: 'totalItems or lines missing' };
          return {};
        },
      };
    case 'S2':
      if (!rest) return null;
      return {
        nth: (i) => ({ method: 'GET', path: `/api/invoices/${at(data.invoiceIds, i * 7919)}`, headers: ld }),
        check(i, status, body) {
          const doc = json(body);
          if (status !== 200) return { error: `status ${status}: ${body.slice(0, 200)}` };
          if (doc?.id !== at(data.invoiceIds, i * 7919) || !Array.isArray(doc.lines) || !doc.lines.length) return { error: 'wrong invoice or no lines' };
          return {};
        },
      };
    case 'S6': {
      if (!rest) return null;
      const plain = { accept: 'application/json', ...auth };
      return {
        nth: (i) => ({ method: 'GET', path: `/api/invoices/${at(data.invoiceIds, i * 7919)}`, headers: plain }),
        check(i, status, body) {
          const doc = json(body);
          if (status !== 200) return { error: `status ${status}: ${body.slice(0, 200)}` };
          if (doc?.id !== at(data.invoiceIds, i * 7919) || '@id' in doc || !Array.isArray(doc.lines) || !doc.lines.length) return { error: 'wrong invoice, not plain JSON, or no lines' };
          return {};
        },
      };
    }
    case 'S3':
    case 'W1': {
      if (!rest || (id === 'W1' && server !== 'ours')) return null;
      const linesOf = (i: number) =>
        [0, 1, 2, 3, 4].map((k) => ({ description: `Bench line ${k + 1}`, qty: Number(at(QTYS, i + k)), price: at(PRICES, i * 3 + k), tax: k === 4 ? null : `/api/taxes/${at(taxIds, i + k)}` }));
      return {
        nth: (i) => ({
          method: 'POST',
          path: '/api/invoices',
          headers: { ...ld, 'content-type': 'application/ld+json' },
          body: JSON.stringify({ client: `/api/clients/${at(data.clientIds, i * 31)}`, lines: linesOf(i) }),
        }),
        check(i, status, body) {
          const doc = json(body);
          if (status !== 201) return { error: `status ${status}: ${body.slice(0, 200)}` };
          if (!Array.isArray(doc?.lines) || doc.lines.length !== 5) return { error: 'expected 5 lines in the response' };
          const lines: Line[] = linesOf(i).map((l) => {
            const tax = l.tax ? data.taxes.find((t) => l.tax!.endsWith(t.id)) : undefined;
            return { price: BigInt(l.price), qty: scaled(String(l.qty)), tax: tax ? { rate: scaled(tax.rate), type: tax.type } : null };
          });
          const expected = documentTotals(lines, { type: 'none', value: 0n }).total;
          if (String(doc.total) !== String(expected)) return { note: `created invoices' total is ${doc.total}, CONTRACT §6 gives ${expected}` };
          return {};
        },
      };
    }
    case 'S4':
      if (server === 'baseline') return null;
      return {
        nth: () => ({ method: 'POST', path: graphqlPath, headers: gqlHeaders, body: gql(server === 'ours' ? S4_OURS : S4_PGL) }),
        check: (_i, status, body) =>
          graphqlVerdict(status, body, (d) => {
            const edges = (server === 'ours' ? d.invoices : d.allInvoices)?.edges;
            if (!Array.isArray(edges) || edges.length !== Math.min(30, data.invoiceIds.length)) return 'expected 30 invoices';
            const n = edges[0].node;
            const lines = server === 'ours' ? n.lines : n.invoiceLinesByInvoiceId;
            if (!(server === 'ours' ? n.client : n.clientByClientId)?.name || !lines?.edges?.length) return 'client or lines missing';
            return undefined;
          }),
      };
    case 'S5':
      if (server === 'baseline') return null;
      return {
        nth: (i) => {
          const id = at(data.paidInvoiceIds, i * 7919);
          return {
            method: 'POST',
            path: graphqlPath,
            headers: gqlHeaders,
            body: server === 'ours' ? gql(S5_OURS, { id: `/api/invoices/${id}` }) : gql(S5_PGL, { id }),
          };
        },
        check: (_i, status, body) =>
          graphqlVerdict(status, body, (d) => {
            const inv = server === 'ours' ? d.invoice : d.invoiceByRowId;
            if (!inv) return 'invoice is null';
            const lines = server === 'ours' ? inv.lines : inv.invoiceLinesByInvoiceId;
            const payments = server === 'ours' ? inv.payments : inv.paymentsByInvoiceId;
            if (!lines?.edges?.length || !payments?.edges?.length) return 'lines or payments missing';
            return undefined;
          }),
      };
  }
}
