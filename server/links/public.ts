// The public side of document links (CONTRACT §16), outside /api and without sign-in:
//   GET  /d/<token>           the document's page (server/links/page.ts); counts a view
//   GET  /d/<token>/pdf|ubl   the API's documents, byte for byte, with their content type
//   POST /d/<token>/accept|decline   a sent quote's answer, through the engine as an API call
//   POST /d/<token>/pay       a card checkout for the invoice's balance, then a redirect to it
//   POST /payments/<provider>/webhook   the provider's signed notifications: one `card` payment per
//                             completed session the service created
// The token is the only credential: it is looked up by its SHA-256 (document_link_tokens); an
// unknown one is a 404, an expired or revoked one (or one whose document is gone) a 410, and
// neither shows anything of a document. Every /d/ response is no-store, no-referrer, noindex,
// under a Content-Security-Policy without any script, and counted against 60 requests a minute per
// IP. The engine is used as the link's company (a system principal), so that tenancy, state rules,
// hooks and events are those of the API.
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../engine/errors.ts';
import type { ModelResource } from '../../engine/model.ts';
import type { Engine } from '../../engine/operations.ts';
import type { Db, FieldValues, Principal } from '../../engine/types.ts';
import type { OperationServices } from '../../engine/descriptor.ts';
import { problem } from '../../formats/problem.ts';
import { hashLinkToken, LINK_PREFIX, LINKED } from '../../resources/rules/document-link.ts';
import { PDF_TYPE, UBL_TYPE } from '../../resources/rules/document-files.ts';
import { systemPrincipals } from '../access/principals.ts';
import { loadDocument, type DocumentData, type DocumentKind } from '../documents/data.ts';
import { epcPayload, epcPossible, epcSvg } from '../documents/epc.ts';
import { messagesOf } from '../documents/labels.ts';
import type { Verdict } from '../access/rate-limit.ts';
import { documentLinkTokens, paymentSessionReceipts, paymentSessions } from '../schema.ts';
import { documentPage, linkCsp, messagePage } from './page.ts';
import { BadSignature, type PaymentProvider } from './payments.ts';

export interface LinkRoutesOptions {
  db: Db;
  engine: Engine;
  services: OperationServices;
  publicUrl: string;
  /** Counts a request of an IP against the links' limit (Gate.limiter). */
  limit(key: string): Promise<Verdict>;
  provider: PaymentProvider | undefined;
  log: FastifyBaseLogger;
}

export const LINK_RATE_LIMIT = { max: 60, windowMs: 60_000 };
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;
const HOUR = 3_600_000;
const PAYABLE = ['pending', 'overdue'];

type Live = {
  state: 'live';
  hash: string;
  link: FieldValues;
  principal: Principal;
  resource: ModelResource;
  kind: DocumentKind;
  docId: string;
};
type Found = { state: 'unknown' } | { state: 'dead' } | Live;

const KINDS: Record<string, DocumentKind> = { Invoice: 'invoice', Quote: 'quote', CreditNote: 'creditNote' };

export async function registerLinkRoutes(app: FastifyInstance, o: LinkRoutesOptions): Promise<void> {
  const { db, engine } = o;
  const principalFor = systemPrincipals(db);
  const links = engine.model.get('DocumentLink');
  const formTargets = o.provider?.formTargets ?? [];

  async function find(token: string): Promise<Found> {
    if (!TOKEN_SHAPE.test(token)) return { state: 'unknown' };
    const hash = hashLinkToken(token);
    const [row] = await db.select().from(documentLinkTokens).where(eq(documentLinkTokens.hash, hash));
    if (!row) return { state: 'unknown' };
    if (row.revokedAt || row.expiresAt.getTime() <= Date.now()) return { state: 'dead' };
    const principal = await principalFor(row.companyId);
    // The link row goes with its document (a deleted draft): then the link is dead too.
    const link = await engine.find(principal, links, row.linkId);
    if (!link) return { state: 'dead' };
    const target = LINKED.find((k) => typeof link[k.field] === 'string');
    if (!target) return { state: 'dead' };
    return { state: 'live', hash, link, principal, resource: engine.model.get(target.resource), kind: KINDS[target.resource]!, docId: String(link[target.field]) };
  }

  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('text/html; charset=utf-8').send(body);
  const unknown = (reply: FastifyReply) => html(reply, 404, messagePage('Link not found', 'This link does not exist. Check that it was copied whole, or ask the sender for a new one.'));
  const dead = (reply: FastifyReply) => html(reply, 410, messagePage('This link is no longer valid', 'It has expired or was withdrawn. Please ask the sender for a new one.'));

  /** The link, or the answer already sent (404, 410). */
  async function live(req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply): Promise<Live | null> {
    const f = await find(req.params.token);
    if (f.state === 'live') return f;
    if (f.state === 'unknown') unknown(reply);
    else dead(reply);
    return null;
  }

  const base = (token: string) => `${LINK_PREFIX}${token}`;

  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.addHook('onRequest', async (req, reply) => {
      reply.headers({
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-robots-tag': 'noindex, nofollow',
        'content-security-policy': linkCsp(formTargets),
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'cross-origin-resource-policy': 'same-origin',
      });
      const v = await o.limit(`ip:${req.ip}`);
      if (!v.allowed) {
        const seconds = Math.max(1, Math.ceil(v.retryAfterMs / 1000));
        return html(reply.header('retry-after', String(seconds)), 429, messagePage('Too many requests', `Please wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`));
      }
    });
    // Errors on these pages are pages too, saying nothing of the document.
    scope.setErrorHandler((err, _req, reply) => {
      const e = err instanceof ApiError ? err : null;
      if (!e || e.status >= 500) o.log.error({ err }, 'client link');
      const status = e?.status ?? 500;
      return html(reply, status, messagePage(status === 422 ? 'This cannot be done' : 'Something went wrong', e && status < 500 ? e.detail : 'Please try again later.'));
    });

    scope.get<{ Params: { token: string }; Querystring: { done?: string } }>(`${LINK_PREFIX}:token`, async (req, reply) => {
      const l = await live(req, reply);
      if (!l) return reply;
      const d = await loadDocument(engine, db, l.principal, l.resource, l.kind, l.docId);
      const page = documentPage(d, await pageOptions(l, d, req.params.token, req.query.done));
      await viewed(l);
      return html(reply, 200, page);
    });

    const download = (what: 'pdf' | 'ubl') => async (req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
      const l = await live(req, reply);
      if (!l) return reply;
      const media = what === 'pdf' ? PDF_TYPE : UBL_TYPE;
      const doc = l.resource.documents.find((x) => x.mediaType === media);
      if (!doc) return html(reply, 404, messagePage('Not available', `This document has no ${what === 'ubl' ? 'e-invoice' : 'PDF'}.`));
      // As the client's format asks (CONTRACT §19): the Factur-X PDF, the XRechnung or Peppol UBL.
      const out = await doc.def.render({ principal: l.principal, resource: l.resource, id: l.docId, services: o.services, variant: {} });
      reply.code(200).header('content-type', out.contentType ?? media);
      if (out.headers) reply.headers(out.headers);
      return reply.send(out.body);
    };
    // The company's logo, by its own request rather than inside the page (up to 1 MB as base64 in
    // every page view otherwise): cached by the browser for the hour, private to this link.
    scope.get<{ Params: { token: string } }>(`${LINK_PREFIX}:token/logo`, async (req, reply) => {
      const l = await live(req, reply);
      if (!l) return reply;
      // The document's: an issued one's is the logo it was issued with (CONTRACT §18).
      const { logo } = await loadDocument(engine, db, l.principal, l.resource, l.kind, l.docId);
      if (!logo) return html(reply, 404, messagePage('Not available', 'This company has no logo.'));
      return reply.code(200).header('content-type', logo.contentType).header('cache-control', 'private, max-age=3600').send(logo.body);
    });
    scope.get(`${LINK_PREFIX}:token/pdf`, download('pdf'));
    scope.get(`${LINK_PREFIX}:token/ubl`, download('ubl'));

    const answer = (status: 'accepted' | 'declined') => async (req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
      const l = await live(req, reply);
      if (!l) return reply;
      if (l.kind !== 'quote') return html(reply, 404, messagePage('Not available', 'Only a quote can be accepted or declined.'));
      const quote = await engine.read(l.principal, l.resource, l.docId);
      const closed = (now: string) => html(reply, 409, messagePage('This quote is no longer open', `This quote is ${now}: it can no longer be accepted or declined. Please contact the sender.`, { href: base(req.params.token), label: 'Back to the quote' }));
      if (quote.status !== 'sent') return closed(String(quote.status));
      try {
        // As PATCH /api/quotes/<id> {status} would, on the version just read: a concurrent answer
        // makes this one a 412, and nothing changes.
        await engine.update(l.principal, l.resource, l.docId, { status }, 'update', { precondition: { versions: [Number(quote.version)] } });
      } catch (e) {
        if (e instanceof ApiError && (e.status === 412 || e.status === 422)) {
          const now = await engine.find(l.principal, l.resource, l.docId);
          return closed(String(now?.status ?? 'closed'));
        }
        throw e;
      }
      return reply.code(303).header('location', `${base(req.params.token)}?done=${status}`).send();
    };
    scope.post(`${LINK_PREFIX}:token/accept`, answer('accepted'));
    scope.post(`${LINK_PREFIX}:token/decline`, answer('declined'));

    scope.post<{ Params: { token: string } }>(`${LINK_PREFIX}:token/pay`, async (req, reply) => {
      const l = await live(req, reply);
      if (!l) return reply;
      const provider = o.provider;
      if (!provider || l.kind !== 'invoice') return html(reply, 404, messagePage('Not available', 'Card payment is not offered for this document.'));
      const invoice = await engine.read(l.principal, l.resource, l.docId);
      const balance = Number(invoice.balance ?? 0);
      if (!PAYABLE.includes(String(invoice.status)) || balance <= 0) {
        return html(reply, 409, messagePage('Nothing to pay', 'This invoice has no balance to pay.', { href: base(req.params.token), label: 'Back to the invoice' }));
      }
      const page = `${o.publicUrl}${base(req.params.token)}`;
      const currency = String(invoice.currency);
      const session = await provider.checkout({
        company: l.principal.company.id, invoice: l.docId, link: String(l.link.id), number: String(invoice.number),
        amount: balance, currency, successUrl: `${page}?done=paid`, cancelUrl: page,
      });
      await db.insert(paymentSessions).values({ provider: provider.name, sessionId: session.sessionId, companyId: l.principal.company.id, invoiceId: l.docId, linkId: String(l.link.id), amount: balance, currency });
      return reply.code(303).header('location', session.url).send();
    });
  });

  // The provider's notifications: JSON, its raw bytes verified by the provider's library.
  if (o.provider) {
    const provider = o.provider;
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 512 * 1024 }, (_req, body, done) => done(null, body));
      scope.post(`/payments/${provider.name}/webhook`, async (req, reply) => {
        const send = (e: ApiError) => {
          const p = problem(e);
          return reply.code(p.status).headers(p.headers).send(JSON.stringify(p.body));
        };
        let done;
        try {
          done = provider.completion(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers);
        } catch (e) {
          if (e instanceof BadSignature) return send(ApiError.badRequest(`The signature of this notification is not valid: ${e.message.slice(0, 200)}`));
          throw e;
        }
        if (!done) return { received: true };
        const recorded = await recordCompletion(provider.name, done.sessionId, done.amount);
        return { received: true, recorded };
      });
    });
  }

  /**
   * One `card` payment for a completed session the service created, through the engine (the
   * invoice settles as with any payment, events included). The receipt's primary key, inserted
   * first in the same transaction, makes a repeated or concurrent notification record nothing.
   */
  async function recordCompletion(provider: string, sessionId: string, amount: number): Promise<boolean> {
    const [s] = await db.select().from(paymentSessions).where(and(eq(paymentSessions.provider, provider), eq(paymentSessions.sessionId, sessionId)));
    if (!s) return false; // not ours: acknowledged, nothing recorded
    const principal = await principalFor(s.companyId);
    const payments = engine.model.get('Payment');
    try {
      return await engine.transaction(async (tx) => {
        const got = await tx.insert(paymentSessionReceipts).values({ provider, sessionId, companyId: s.companyId }).onConflictDoNothing().returning({ sessionId: paymentSessionReceipts.sessionId });
        if (!got.length) return false;
        const api = engine.bind(tx, principal, payments);
        const payment = await api.create('Payment', { invoice: s.invoiceId, amount: amount || Number(s.amount), method: 'card', reference: sessionId });
        await tx.update(paymentSessionReceipts).set({ paymentId: String(payment.id) }).where(and(eq(paymentSessionReceipts.provider, provider), eq(paymentSessionReceipts.sessionId, sessionId)));
        return true;
      });
    } catch (e) {
      // The invoice no longer takes it (paid meanwhile, cancelled, a smaller balance): the money
      // is the provider's to refund; retrying would not change that, so the notification is taken.
      if (e instanceof ApiError && e.status === 422) {
        o.log.error({ provider, sessionId, detail: e.detail }, 'a completed card payment could not be recorded on its invoice');
        return false;
      }
      throw e;
    }
  }

  async function pageOptions(l: Live, d: DocumentData, token: string, done: string | undefined) {
    const seller = d.seller;
    const open = d.kind === 'invoice' && PAYABLE.includes(d.status) && (d.balance ?? 0) > 0;
    let transfer = null;
    if (open && typeof seller.iban === 'string' && seller.iban) {
      const t = { name: String(seller.legalName ?? seller.name), iban: seller.iban, bic: typeof seller.bic === 'string' && seller.bic ? seller.bic : null, amount: d.balance!, reference: d.number };
      const svg = epcPossible(d.currency, d.balance, seller.iban) ? await epcSvg(epcPayload(t)) : null;
      // The SVG's own XML declaration has no place inside HTML.
      transfer = { ...t, qrSvg: svg ? svg.replace(/^<\?xml[^>]*>\s*/, '').replace('<svg ', '<svg aria-hidden="true" focusable="false" ') : null };
    }
    // In the company's language, as the page (documents/messages.ts).
    const m = messagesOf(d);
    const notices: Record<string, string> = { accepted: m.t('noticeAccepted'), declined: m.t('noticeDeclined'), paid: m.t('noticePaid') };
    return {
      base: base(token),
      canAnswer: l.kind === 'quote' && d.status === 'sent',
      transfer,
      pay: open && o.provider ? { label: o.provider.label } : null,
      ubl: l.resource.documents.some((x) => x.mediaType === UBL_TYPE),
      notice: done ? notices[done] ?? null : null,
    };
  }

  /** A page view: one more view, and the document's `viewed` event at most once per link and hour. */
  async function viewed(l: Live): Promise<void> {
    const t = engine.tables.get('DocumentLink');
    await engine.transaction(async (tx) => {
      await tx.update(t).set({ views: sql`${t.views} + 1`, lastViewedAt: new Date() }).where(and(eq(t.id, String(l.link.id)), eq(t.companyId, l.principal.company.id)));
      if (l.kind === 'creditNote') return;
      const since = new Date(Date.now() - HOUR);
      const due = await tx
        .update(documentLinkTokens)
        .set({ lastEventAt: new Date() })
        .where(and(eq(documentLinkTokens.hash, l.hash), sql`(${documentLinkTokens.lastEventAt} is null or ${documentLinkTokens.lastEventAt} <= ${since.toISOString()})`))
        .returning({ hash: documentLinkTokens.hash });
      if (due.length) await engine.emit(tx, l.resource, [l.docId], [`${l.kind}.viewed`]);
    });
  }
}
