// The people of the calling company (CONTRACT §20): each with their e-mail, name and role. Every
// role reads them; admins change a role or remove a person (their API tokens for the company are
// revoked with it); the company's last admin can be neither demoted nor removed (422). People
// join through an invitation (resources/invitation.ts). Their rows are the service's own (users,
// memberships), so the server brings their storage as the service `memberStorage` (server/people.ts).
import { storedBy, type ResourceStorage } from '../engine/custom.ts';
import { defineResource, oneOf, text } from '../engine/descriptor.ts';

declare module '../engine/descriptor.ts' {
  interface OperationServices {
    /** The people's storage: users and memberships (server/people.ts). */
    memberStorage: ResourceStorage;
  }
}

export const ROLES = ['admin', 'member', 'viewer'] as const;

export default defineResource({
  name: 'Member',
  plural: 'members',
  description: "A person of the calling company, with their role. The id is the person's. Admins change roles and remove people; the last admin can be neither demoted nor removed.",
  fields: {
    email: text({ readOnly: true }),
    name: text({ readOnly: true }),
    role: oneOf(ROLES, { required: true, description: 'admin: everything; member: reads and writes the business records; viewer: reads only' }),
  },
  operations: { rest: ['list', 'read', 'update', 'delete'], graphql: 'none' },
  // Not in the application's navigation: the settings pages reach it (/profile/api, the people).
  present: { group: 'none' },
  writers: ['admin'],
  ...storedBy('memberStorage'),
});
