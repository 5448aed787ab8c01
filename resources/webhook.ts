import { boolean, defineResource, text, textList } from '../engine/descriptor.ts';
import { eventTypes } from '../engine/events.ts';
import { webhookRules } from './rules/webhook.ts';
import { webhookCollectionOperations, webhookItemOperations } from './rules/webhook-operations.ts';

export default defineResource({
  name: 'Webhook',
  plural: 'webhooks',
  description: 'An endpoint that receives the company\'s events, signed as Standard Webhooks (see the README).',
  fields: {
    url: text({ required: true, max: 2048, format: 'url', description: 'http or https; private and link-local addresses are refused' }),
    events: textList({
      required: true,
      maxItems: 200,
      itemMax: 100,
      choices: (model) => ['*', ...eventTypes(model)],
      description: 'Event types to receive (GET /api/webhooks/event-types), or ["*"] for all',
    }),
    description: text({ max: 255 }),
    active: boolean({ default: true, description: 'Inactive endpoints receive nothing; set back to true to resume' }),
    disabledReason: text({ readOnly: true, description: 'Why the service set the endpoint inactive' }),
    secret: text({
      readOnly: true,
      mask: { prefix: 'whsec_', last: 4 },
      description: 'The signing secret: whole only in the create and rotate-secret responses',
    }),
  },
  operations: { rest: 'all', graphql: 'all', collection: webhookCollectionOperations, item: webhookItemOperations },
  events: { emitted: ['webhook.ping'] },
  present: { title: 'url', columns: ['url', 'description', 'active'], group: 'settings' },
  hooks: webhookRules,
});
