// Idempotency-Key on REST POST and PATCH and on GraphQL mutations (CONTRACT §12), for the routes
// whose config says `idempotency` (http/rest.ts, http/graphql.ts). Per token, for 24 hours:
//
// - a first request runs with a `Keep` that the engine writes with its change, in the same
//   transaction (engine/idempotency.ts), so the key is taken exactly when the change commits,
//   on every instance, and survives restarts; a response that changed nothing (a 4xx) is kept
//   after it is sent, except 409 and 429 (and 5xx: never kept);
// - a retry (same method, path and body) gets the kept response again, with
//   `Idempotent-Replayed: true`; another request under the same key is a 422;
// - while the first is running on this instance, a retry is a 409 at once. On another instance
//   the retry's write waits for the first's commit and then fails as a whole on the taken key:
//   409 too, and the next retry is answered from the kept response.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { ApiError } from '../engine/errors.ts';
import type { Kept, Keep } from '../engine/idempotency.ts';
import type { Engine } from '../engine/operations.ts';
import { etagOf } from '../engine/versions.ts';
import type { Formats } from '../formats/negotiate.ts';
import { contentTypeOf } from '../formats/types.ts';
import type { Clock } from './access/rate-limit.ts';
import { withHook } from './route-hooks.ts';

/** How long a key and its response are kept. */
export const KEEP_MS = 24 * 60 * 60 * 1000;
/** An in-flight mark older than this is from a request that never finished (it is ignored). */
const INFLIGHT_MS = 10 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
const GRAPHQL_TYPE = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request runs under an Idempotency-Key (set when it is the first with its key). */
    idempotency: KeyedRequest | null;
  }
  interface FastifyContextConfig {
    /**
     * The route honours Idempotency-Key: REST writes (kept by the engine with the change), or
     * GraphQL (mutations only), or `response`: declared operations, whose response is kept once sent.
     */
    idempotency?: 'rest' | 'graphql' | 'response';
  }
}

export interface KeyedRequest {
  /** What the engine keeps with the write: its result, to be replayed with this status and type. */
  keep(status: number, mediaType: string | null): Keep;
  /** GraphQL only: the result a crashed first request kept without its response (answer with it). */
  readonly replay?: Record<string, unknown> | undefined;
}

/**
 * The key of an Idempotency-Key header: 1–255 visible ASCII characters, or the IETF draft's
 * structured-field string (the same in double quotes). 400 otherwise.
 */
export function parseKey(value: string | string[]): string {
  if (Array.isArray(value)) throw ApiError.badRequest('Send one Idempotency-Key header.');
  const quoted = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(value.trim());
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : value.trim();
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw ApiError.badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID, for example), optionally in double quotes.');
  }
  return key;
}

/** The mutation fields of a GraphQL request's operation, or null when it runs no mutation. */
function mutationFields(body: unknown): number | null {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return null;
  let ops: OperationDefinitionNode[];
  try {
    ops = parse(query, { maxTokens: 20_000 }).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return null; // the endpoint reports the syntax error itself
  }
  const op = typeof operationName === 'string' ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
  return op?.operation === 'mutation' ? op.selectionSet.selections.length : null;
}

export interface IdempotencyOptions {
  engine: Engine;
  formats: Formats;
  clock: Clock;
}

export function installIdempotency(app: FastifyInstance, o: IdempotencyOptions): void {
  const { engine, formats } = o;
  /** Keys whose first request runs on this instance, with when it started. */
  const inflight = new Map<string, number>();
  const state = new WeakMap<FastifyRequest, { scope: string; key: string; keep: Keep; companyId: string; graphql: boolean; whole: boolean }>();
  /** The in-flight mark of a request that set one, removed once its response is sent. */
  const marks = new WeakMap<FastifyRequest, string>();

  app.decorateRequest('idempotency', null);
  // Tests only (test/retries.test.ts): the process dies once a keyed write has committed, before
  // its response leaves, as a crash at the worst moment would.
  const dieAfterCommit = process.env.INVOICING_TEST_DIE_AFTER_COMMIT === '1';

  function fingerprint(req: FastifyRequest): string {
    return createHash('sha256').update(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`).digest('base64url');
  }

  /** Sends a kept response again. */
  function replay(req: FastifyRequest, reply: FastifyReply, kept: Kept) {
    reply.code(kept.status).header('idempotent-replayed', 'true');
    if (kept.body !== null) return reply.header('content-type', kept.mediaType ?? GRAPHQL_TYPE).send(kept.body);
    const r = engine.model.get(kept.resource!);
    const rec = engine.decodeKept(r, kept.result!);
    const format = formats.all.find((f) => f.mediaType === kept.mediaType) ?? formats.negotiate(undefined);
    const rendered = format.item(engine.model, r, rec);
    reply.header('content-type', contentTypeOf(format.mediaType)).header('vary', 'Accept').header('etag', etagOf(rec.version, format.name));
    if (kept.status === 201) reply.header('location', `${r.iri}/${String(rec.id)}`);
    if (rendered.headers) reply.headers(rendered.headers);
    return reply.send(rendered.text ?? (format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body)));
  }

  const preHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const mode = req.routeOptions.config?.idempotency;
    const header = req.headers['idempotency-key'];
    if (!mode || header === undefined || !req.principal) return;
    const key = parseKey(header);
    let graphqlReplayable = false;
    if (mode === 'graphql') {
      const fields = mutationFields(req.body);
      if (fields === null) return; // queries are safe to repeat: the key changes nothing
      if (fields > 1) throw ApiError.badRequest(`An Idempotency-Key covers one mutation; this request has ${fields}: send each in a request of its own.`);
      graphqlReplayable = true;
    }
    const p = req.principal;
    const scope = p.tokenId ?? `user:${p.userId}:${p.company.id}`;
    const id = `${scope}\n${key}`;
    const started = inflight.get(id);
    if (started !== undefined && Date.now() - started < INFLIGHT_MS) throw new ApiError(409, 'A request with this Idempotency-Key is still being processed; retry it once it has finished to get its response.');
    inflight.set(id, Date.now());
    let done = false;
    try {
      const now = new Date(o.clock());
      const fp = fingerprint(req);
      const kept = await engine.kept.find(scope, key, now);
      if (kept && kept.fingerprint !== fp) throw new ApiError(422, 'This Idempotency-Key was used for another request (method, path or body); use a new key for a new request.');
      if (kept && (kept.body !== null || !graphqlReplayable)) {
        done = true;
        return replay(req, reply, kept);
      }
      const keep = (status: number, mediaType: string | null): Keep => ({ scope, key, fingerprint: fp, status, mediaType, createdAt: now, expiresAt: new Date(now.getTime() + KEEP_MS) });
      // A GraphQL result kept without its response (the first request died after its commit):
      // the operation runs again, answered with that result instead of writing.
      const replayed = kept ? engine.decodeKept(engine.model.get(kept.resource!), kept.result!) : undefined;
      if (replayed) reply.header('idempotent-replayed', 'true');
      req.idempotency = { keep, replay: replayed };
      state.set(req, { scope, key, keep: keep(0, null), companyId: p.company.id, graphql: mode === 'graphql', whole: mode === 'response' });
      marks.set(req, id);
    } catch (e) {
      done = true;
      throw e;
    } finally {
      if (done) inflight.delete(id);
    }
  };

  // What the first request answered, when the engine did not keep it with a write.
  const onSend = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const s = state.get(req);
    if (!s || typeof payload !== 'string') return payload;
    state.delete(req);
    const status = reply.statusCode;
    if (dieAfterCommit && status < 300) process.kill(process.pid, 'SIGKILL');
    try {
      // REST: a success was kept by the write itself. GraphQL: a mutation that wrote kept its
      // result; the whole response is added to it, and replayed as it is from then on.
      if (!s.graphql && !s.whole && status < 300) return payload;
      if (s.graphql && (await engine.kept.attachBody(s.scope, s.key, payload))) return payload;
      const statuses = s.graphql ? graphqlStatuses(payload, status) : [status];
      if (statuses.some((x) => x === 409 || x === 429 || x >= 500)) return payload;
      await engine.kept.keep({ ...s.keep, status, mediaType: String(reply.getHeader('content-type') ?? GRAPHQL_TYPE) }, s.companyId, payload);
    } catch (err) {
      req.log.warn({ err }, 'could not keep the response of an Idempotency-Key request');
    }
    return payload;
  };

  const onResponse = async (req: FastifyRequest) => {
    const id = marks.get(req);
    if (id !== undefined) inflight.delete(id);
  };

  // Only the routes that say so get the hooks: the reads pay nothing for them.
  app.addHook('onRoute', (route) => {
    if (!(route.config as { idempotency?: string } | undefined)?.idempotency) return;
    route.preHandler = withHook(route.preHandler, preHandler as never);
    route.onSend = withHook(route.onSend, onSend as never);
    route.onResponse = withHook(route.onResponse, onResponse as never);
  });

  // Expired keys go; each instance purges hourly (deleting twice is harmless).
  const purge = async () => {
    try {
      await engine.kept.purge(new Date(o.clock()));
    } catch (err) {
      app.log.warn({ err }, 'could not purge expired Idempotency-Keys');
    }
  };
  const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
  timer.unref();
  app.addHook('onReady', async () => void purge());
  app.addHook('onClose', async () => clearInterval(timer));
}

/** The statuses a GraphQL response carries: its HTTP status and each error's. */
function graphqlStatuses(payload: string, status: number): number[] {
  try {
    const body = JSON.parse(payload) as { errors?: { extensions?: { status?: unknown } }[] };
    return [status, ...(body.errors ?? []).map((e) => Number(e.extensions?.status ?? 500))];
  } catch {
    return [status];
  }
}

