// The people of the calling company (CONTRACT §20): each with their e-mail, name and role. Every
// role reads them; admins change a role or remove a person (their API tokens for the company are
// revoked with it); the company's last admin can be neither demoted nor removed (422). People
// join through an invitation (resources/invitation.ts). Their rows are the service's own (users,
// memberships), so the descriptor brings its storage (server/people.ts). Not listed in index.ts:
// /api serves it from a model of its own, as the API tokens.
import type { Processor, Provider } from '../engine/custom.ts';
import { defineResource, oneOf, text } from '../engine/descriptor.ts';

export const ROLES = ['admin', 'member', 'viewer'] as const;

export const member = (storage?: { provider: Provider; processor: Processor }) =>
  defineResource({
    name: 'Member',
    plural: 'members',
    description: "A person of the calling company, with their role. The id is the person's. Admins change roles and remove people; the last admin can be neither demoted nor removed.",
    fields: {
      email: text({ readOnly: true }),
      name: text({ readOnly: true }),
      role: oneOf(ROLES, { required: true, description: 'admin: everything; member: reads and writes the business records; viewer: reads only' }),
    },
    operations: { rest: ['list', 'read', 'update', 'delete'], graphql: 'none' },
    writers: ['admin'],
    ...storage,
  });
