// GraphQL over HTTP: mercurius (document cache, JIT) executes the schema derived from the model
// (engine/graphql/); our routes handle HTTP (POST and GET; the page a browser gets on GET is
// GraphiQL, http/graphiql.ts, a route of its own), and errors come out in API Platform's shape:
// `message`, `extensions.status`, and `extensions.violations` for 422.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import mercurius from 'mercurius';
import type { Principal } from '../engine/types.ts';
import { ApiError } from '../engine/errors.ts';
import type { Engine } from '../engine/operations.ts';
import { aliasRule, checkCost, DEFAULT_LIMITS, depthRule, introspectionRule, type Limits } from '../engine/graphql/limits.ts';
import { createCompiler } from '../engine/graphql/compile.ts';
import { Loaders } from '../engine/graphql/loaders.ts';
import { buildGraphqlSchema, type GraphqlContext } from '../engine/graphql/schema.ts';

export interface GraphqlOptions {
  engine: Engine;
  /** The schema to serve; derived from the engine's model when omitted. */
  schema?: GraphQLSchema;
  principal(req: FastifyRequest): Principal;
  /** Maps an error that is not an ApiError (database unavailable…) to one; null: internal error. */
  toApiError(err: unknown): ApiError | null;
  /** Relative to the plugin's prefix; default `/graphql`. */
  path?: string;
  limits?: Partial<Limits>;
  /** Query operations compiled into one SQL statement each (compile.ts); default true. */
  compile?: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

interface ErrorJson {
  message: string;
  locations?: readonly { line: number; column: number }[] | undefined;
  path?: readonly (string | number)[] | undefined;
  extensions?: Record<string, unknown>;
}

export async function registerGraphql(app: FastifyInstance, o: GraphqlOptions): Promise<{ schema: GraphQLSchema }> {
  const path = o.path ?? '/graphql';
  const limits: Limits = { ...DEFAULT_LIMITS, ...o.limits };
  const schema = o.schema ?? buildGraphqlSchema(o.engine.model, o.engine);

  /**
   * An error as the client sees it, and the HTTP status it calls for. A validation error
   * becomes one error per violation (`field: text`), each listing all the violations.
   */
  function errorJson(e: GraphQLError | Error, log: FastifyRequest['log']): { json: ErrorJson[]; status: number } {
    const gql = e instanceof GraphQLError ? e : undefined;
    const original = gql ? gql.originalError : e;
    let api: ApiError | null = null;
    if (original instanceof ApiError) api = original;
    else if (original && !(original instanceof GraphQLError)) {
      api = o.toApiError(original);
      if (!api) {
        log.error({ err: original }, 'unhandled error in a GraphQL resolver');
        api = new ApiError(500, 'Internal Server Error');
      }
    }
    const where = { locations: gql?.locations, path: gql?.path };
    if (!api) return { json: [{ message: e.message, ...where, ...(gql?.extensions && Object.keys(gql.extensions).length ? { extensions: gql.extensions } : {}) }], status: 200 };
    if (!api.violations?.length) return { json: [{ message: api.message, ...where, extensions: { status: api.status } }], status: api.status };
    const violations = api.violations.map((v) => ({ path: v.propertyPath, message: v.message, ...(v.extensions ? { extensions: v.extensions } : {}) }));
    return { json: violations.map((v) => ({ message: `${v.path}: ${v.message}`, ...where, extensions: { status: api.status, violations } })), status: api.status };
  }

  const validationRules = [depthRule(limits), aliasRule(limits), introspectionRule()];
  const maxTokens = 20_000;
  await app.register(mercurius, {
    schema,
    routes: false,
    jit: 1,
    cache: 1024,
    validationRules,
    graphql: { parseOptions: { maxTokens } },
    // Errors from resolvers: a viewer's write makes the whole response a 403 (CONTRACT §8);
    // everything else is a 200 carrying `errors`, as API Platform does.
    errorFormatter: (execution: ExecutionResult & { statusCode?: number }, ctx: { reply?: FastifyReply; app: FastifyInstance }) => {
      const log = ctx.reply?.log ?? ctx.app.log;
      let statusCode = 200;
      const errors = (execution.errors ?? []).flatMap((e) => {
        const { json, status } = errorJson(e, log);
        if (status === 403) statusCode = 403;
        return json;
      });
      return { statusCode, response: { data: execution.data ?? null, errors } as never };
    },
  });
  app.graphql.addHook('preExecution', async (s, document, context, variables) => {
    checkCost(s, document, (context as unknown as GraphqlContext).operationName, variables as Record<string, unknown> | undefined, limits);
  });

  // The same document, validation and limits, then one statement instead of the resolvers.
  const compiled = o.compile === false
    ? undefined
    : createCompiler({
      schema, engine: o.engine, limits, rules: validationRules, maxTokens,
      onError: (err) => app.log.warn({ err }, 'a GraphQL query could not be compiled: it is answered through the resolvers'),
    });

  /** Errors raised before execution (syntax, validation, limits): the response has no `data`. */
  function sendRefused(req: FastifyRequest, reply: FastifyReply, err: unknown) {
    const e = err as FastifyError & { errors?: Error[] };
    if (e?.code === 'MER_ERR_METHOD_NOT_ALLOWED') {
      return reply.code(405).header('allow', 'POST').type(JSON_TYPE).send({ errors: [{ message: 'Mutations must be sent with POST.', extensions: { status: 405 } }] });
    }
    if (e?.code === 'MER_ERR_GQL_VALIDATION' && Array.isArray(e.errors)) {
      return reply.code(200).type(JSON_TYPE).send({ errors: e.errors.flatMap((x) => errorJson(x, req.log).json) });
    }
    if (err instanceof ApiError && err.status < 500) return reply.code(200).type(JSON_TYPE).send({ errors: errorJson(err, req.log).json });
    throw err;
  }

  async function run(req: FastifyRequest, reply: FastifyReply, params: { query?: unknown; variables?: unknown; operationName?: unknown }) {
    const principal = o.principal(req);
    const { query, variables, operationName } = params;
    if (typeof query !== 'string' || query.trim() === '') throw ApiError.badRequest('The request carries no GraphQL query: send {"query": "…"}.');
    if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) throw ApiError.badRequest('"variables" must be an object.');
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') throw ApiError.badRequest('"operationName" must be a string.');
    if (compiled) {
      // The text is the `data` object as PostgreSQL wrote it: sent as it is, never parsed here.
      let data: string | undefined;
      try {
        data = await compiled.run(query, operationName ?? undefined, (variables ?? undefined) as Record<string, unknown> | undefined, principal);
      } catch (err) {
        // The database unavailable: answered at once, in the shape the resolvers give it, rather
        // than waiting for it a second time through them.
        const api = o.toApiError(err);
        if (api && api.status >= 500) return reply.type(JSON_TYPE).send({ data: null, errors: [{ message: api.message, extensions: { status: api.status } }] });
        req.log.warn({ err }, 'a compiled GraphQL statement failed: the query is answered through the resolvers');
      }
      if (data !== undefined) return reply.type(JSON_TYPE).send(`{"data":${data}}`);
    }
    const keyed = req.idempotency;
    const writes = keyed ? { keep: keyed.keep(200, JSON_TYPE), replay: keyed.replay } : undefined;
    const context: GraphqlContext = { principal, loaders: new Loaders(o.engine, principal), operationName: operationName ?? undefined, writes };
    let result: ExecutionResult;
    try {
      result = await reply.graphql(query, context as never, (variables ?? undefined) as Record<string, unknown> | undefined, operationName ?? undefined);
    } catch (err) {
      return sendRefused(req, reply, err);
    }
    return reply.type(JSON_TYPE).send(result);
  }

  // Transport errors (bad JSON, wrong content type, no token…) in the GraphQL shape.
  const errorHandler = (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    let api = o.toApiError(err);
    if (!api) {
      req.log.error({ err }, 'unhandled error');
      api = new ApiError(500, 'Internal Server Error');
    }
    if (api.headers) reply.headers(api.headers);
    return reply.code(api.status).type(JSON_TYPE).send({ errors: [{ message: api.message, extensions: { status: api.status } }] });
  };

  app.post(path, { errorHandler, config: { idempotency: 'graphql' } }, async (req, reply) => {
    const body = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest('The request body must be a JSON object with "query" and, optionally, "variables" and "operationName".');
    return run(req, reply, body as Record<string, unknown>);
  });

  app.get(path, { errorHandler }, async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    let variables: unknown;
    if (typeof q.variables === 'string' && q.variables !== '') {
      try {
        variables = JSON.parse(q.variables);
      } catch {
        throw ApiError.badRequest('"variables" must be a JSON object.');
      }
    }
    return run(req, reply, { query: q.query, variables, operationName: q.operationName });
  });

  app.route({
    method: ['PUT', 'PATCH', 'DELETE'],
    url: path,
    errorHandler,
    handler: async () => {
      throw new ApiError(405, 'The GraphQL endpoint takes GET (queries) and POST.', { headers: { allow: 'GET, POST' } });
    },
  });

  return { schema };
}
