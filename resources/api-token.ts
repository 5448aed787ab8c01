// API tokens (CONTRACT §4 "API token"): REST only, always the calling user's tokens in the
// calling token's company; any role manages its own. Their rows live in system tables
// (server/schema.ts), so the descriptor brings its own provider and processor (server/token-api.ts,
// backed by server/token-service.ts): the engine checks roles and validates bodies, the REST
// adapter negotiates, formats and answers errors, and the OpenAPI document follows, as for any
// resource. Not listed in index.ts: a token belongs to a user rather than to the company's data;
// /api serves it from a model of its own, with its history and summary (token-service.ts).
import type { Processor, Provider } from '../engine/custom.ts';
import { defineResource, integer, text, timestamp } from '../engine/descriptor.ts';

/** The descriptor; without `storage` (validation only), it has neither provider nor processor. */
export const apiToken = (storage?: { provider: Provider; processor: Processor }) =>
  defineResource({
    name: 'ApiToken',
    plural: 'apiTokens',
    description: "An API token of the calling user in the calling token's company. Its value is shown once, when it is created.",
    fields: {
      name: text({ required: true, max: 100, filter: 'partial', order: true }),
      description: text({ filter: 'partial' }),
      usageCount: integer({ readOnly: true, order: true, description: 'Requests made with the token' }),
      lastUsedAt: timestamp({ readOnly: true, order: true, description: 'Time of the last request; null if never used' }),
      token: text({ shownOnce: true, description: 'The value, shown here and never again (only its hash is stored).' }),
    },
    operations: { rest: ['list', 'read', 'create', 'update', 'delete'], graphql: 'none' },
    writers: ['admin', 'member', 'viewer'],
    ...storage,
  });
