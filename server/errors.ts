// One error handler for the whole server: every failure becomes problem+json, and nothing
// internal (stack, SQL, driver message) ever reaches a response.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../engine/errors.ts';
import { driverError } from '../engine/operations.ts';
import { problem } from '../formats/problem.ts';

const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'ETIMEDOUT', 'EPIPE']);

export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  const e = err as FastifyError & { code?: string; cause?: unknown };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, `The content-type "${String((e.message.match(/: (.*)$/) ?? [])[1] ?? '')}" is not supported.`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'The request body is too large: at most 1 MiB (a CSV file to import: 4 MiB).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ApiError.badRequest('Syntax error');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return ApiError.badRequest('Invalid Content-Length.');
  }
  if (err instanceof SyntaxError || (e.statusCode === 400 && /JSON/i.test(e.message))) return ApiError.badRequest('Syntax error');
  const d = driverError(err);
  const code = d?.code ?? e.code ?? (e.cause as { code?: string } | undefined)?.code;
  // 08xxx: connection failures; 57P01-03: the server is shutting down or starting; 57014: a
  // statement cancelled by statement_timeout; 53xxx: out of connections or resources.
  if (code && (UNAVAILABLE.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '57014' || code.startsWith('53'))) {
    return new ApiError(503, 'The database is unavailable; retry shortly.', { headers: { 'retry-after': '1' } });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError(e.statusCode, e.message);
  return null;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    let api = toApiError(err);
    if (!api) {
      req.log.error({ err }, 'unhandled error');
      api = new ApiError(500, 'Internal Server Error');
    }
    const p = problem(api);
    return reply.code(p.status).headers(p.headers).send(JSON.stringify(p.body));
  });
  app.setNotFoundHandler(notFound);
}

/** The answer to a request no route takes (also /api's, behind its hooks: server/api.ts). */
export function notFound(req: FastifyRequest, reply: FastifyReply) {
  const p = problem(ApiError.notFound(`No route found for "${req.method} ${req.url.split('?')[0]!.slice(0, 200)}"`));
  return reply.code(404).headers(p.headers).send(JSON.stringify(p.body));
}
