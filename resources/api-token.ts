// API tokens (CONTRACT §4 "API token"): REST only, always the calling user's tokens in the
// calling token's company; any role manages its own. Their rows live in system tables
// (server/schema.ts), so the server brings its storage as the service `apiTokenStorage`
// (server/access/token-storage.ts, backed by server/access/token-service.ts): the engine checks roles and
// validates bodies, the REST adapter negotiates, formats and answers errors, and the OpenAPI
// document follows, as for any resource. Its usage summary and a token's request history are
// declared operations, answered by the server's token activity service.
import { Type, type Static, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import { storedBy, type ResourceStorage } from '../engine/custom.ts';
import { defineResource, integer, text, timestamp, type OperationDescriptor } from '../engine/descriptor.ts';
import type { Principal } from '../engine/types.ts';

/** What the server keeps of the tokens' use: the summary and each token's history. */
export interface TokenActivity {
  summary(p: Principal): Promise<unknown>;
  /** The token's most recent requests matching the filters (checked by the runner; a date that does not exist is a 400). */
  history(p: Principal, tokenId: string, filters: HistoryQuery): Promise<unknown[]>;
  /** The token's requests per UTC day over the last 30 days (oldest first). */
  daily(p: Principal, tokenId: string): Promise<unknown>;
}

declare module '../engine/descriptor.ts' {
  interface OperationServices {
    tokens: TokenActivity;
    /** The tokens' storage (server/access/token-storage.ts). */
    apiTokenStorage: ResourceStorage;
  }
}

const nullable = (t: TSchema) => Type.Union([t, Type.Null()]);
const dateOps = ['after', 'before', 'strictly_after', 'strictly_before'] as const;
const METHOD = Type.String({ pattern: '^[A-Za-z]{1,16}$', description: 'HTTP method' });
const STATUS = Type.String({ pattern: '^[1-5]([0-9][0-9]|xx|XX)$', description: 'a status code, or 2xx, 3xx, 4xx, 5xx' });
const DAY_OR_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?$';

/** A token history's query parameters, checked by the runner (engine/declared.ts) before the service reads them. */
export const HistoryQuery = Type.Object({
  ...(Object.fromEntries(dateOps.map((op) => [`date[${op}]`, Type.Optional(Type.String({ pattern: DAY_OR_TIME, description: `date ${op.replace('_', ' ')} this day (UTC) or RFC 3339 time` }))])) as Record<`date[${(typeof dateOps)[number]}]`, TOptional<TString>>),
  method: Type.Optional(METHOD),
  'method[]': Type.Optional(Type.Array(METHOD, { description: 'Any of these methods' })),
  status: Type.Optional(STATUS),
  'status[]': Type.Optional(Type.Array(STATUS, { description: 'Any of these statuses or ranges' })),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

const summary: OperationDescriptor = {
  method: 'GET',
  path: 'summary',
  summary: "The calling user's token activity",
  description: "The calling user's token activity in the calling token's company; months are UTC.",
  operationId: 'api_api_tokens_summary_get',
  output: {
    type: 'ApiTokenSummary',
    schema: Type.Object({
      activeTokens: Type.Integer({ minimum: 0 }),
      apiCallsThisMonth: Type.Integer({ minimum: 0, description: 'Requests made with the tokens this UTC month' }),
      lastActivity: nullable(Type.String({ format: 'date-time' })),
      mostUsedToken: Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }, { additionalProperties: true, 'x-resource': 'ApiToken' }), Type.Null()], {
        description: 'The token used most this month (JSON-LD adds @id and @type)',
      }),
    }),
  },
  graphql: false,
  run: (ctx) => ctx.services.tokens.summary(ctx.principal),
};

const history: OperationDescriptor = {
  method: 'GET',
  path: 'history',
  summary: "A token's 100 most recent requests, newest first",
  description: 'Filters: date (whole UTC days or RFC 3339 times), method, status (a code or 2xx…5xx); repeat method[] or status[] for several.',
  operationId: 'api_api_tokens_id_history_get_collection',
  query: HistoryQuery,
  output: {
    type: 'ApiTokenHistoryEntry',
    many: true,
    schema: Type.Object({
      date: Type.String({ format: 'date-time' }),
      method: Type.String(),
      endpoint: Type.String(),
      status: Type.Integer(),
      ipAddress: nullable(Type.String()),
      userAgent: nullable(Type.String()),
    }),
  },
  graphql: false,
  run: async (ctx) => {
    const items = await ctx.services.tokens.history(ctx.principal, String(ctx.record!.id), ctx.args as HistoryQuery);
    return { items, total: items.length };
  },
};

const daily: OperationDescriptor = {
  method: 'GET',
  path: 'daily',
  summary: "A token's requests per UTC day over the last 30 days",
  description: 'One entry per UTC day, oldest first, today last; days without requests count 0. `completeSince` is set when older history was trimmed (the days before it may be undercounted).',
  operationId: 'api_api_tokens_id_daily_get',
  output: {
    type: 'ApiTokenDailyUsage',
    schema: Type.Object({
      days: Type.Array(Type.Object({ day: Type.String({ format: 'date' }), count: Type.Integer({ minimum: 0 }) })),
      completeSince: nullable(Type.String({ format: 'date-time' })),
    }),
  },
  graphql: false,
  run: (ctx) => ctx.services.tokens.daily(ctx.principal, String(ctx.record!.id)),
};

export default defineResource({
  name: 'ApiToken',
  plural: 'apiTokens',
  description: "An API token of the calling user in the calling token's company. Its value is shown once, when it is created.",
  fields: {
    name: text({ required: true, max: 100, filter: 'partial', order: true }),
    description: text({ filter: 'partial', order: true }),
    usageCount: integer({ readOnly: true, order: true, description: 'Requests made with the token' }),
    lastUsedAt: timestamp({ readOnly: true, order: true, description: 'Time of the last request; null if never used' }),
    token: text({ shownOnce: true, description: 'The value, shown here and never again (only its hash is stored).' }),
  },
  operations: { rest: ['list', 'read', 'create', 'update', 'delete'], graphql: 'none', collection: { summary }, item: { history, daily } },
  // Not in the application's navigation: the settings pages reach it (/profile/api, the people).
  present: { group: 'none' },
  writers: ['admin', 'member', 'viewer'],
  ...storedBy('apiTokenStorage'),
});
