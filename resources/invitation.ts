// Invitations to join the calling company with a role (CONTRACT §20). Creating one sends an
// e-mail with a link `<PUBLIC_URL>/invite/<token>`, valid 7 days and once (only its hash is
// stored); while e-mail is held (no SMTP_URL) the link is in the create's response instead, for
// the admin to hand over. Deleting one revokes it. Admins only write; every role reads. Stored by
// the server, passed in as the service `invitationStorage` (server/people.ts).
import { storedBy, type ResourceStorage } from '../engine/custom.ts';
import { defineResource, oneOf, text, timestamp } from '../engine/descriptor.ts';
import { ROLES } from './member.ts';

declare module '../engine/descriptor.ts' {
  interface OperationServices {
    /** The invitations' storage, which sends their e-mails (server/people.ts). */
    invitationStorage: ResourceStorage;
  }
}

export default defineResource({
  name: 'Invitation',
  plural: 'invitations',
  description: 'An invitation by e-mail to join the company with a role: a link valid 7 days, once. Deleting it revokes it.',
  fields: {
    email: text({ required: true, format: 'email', max: 254 }),
    role: oneOf(ROLES, { required: true }),
    status: oneOf(['pending', 'accepted', 'expired'] as const, { readOnly: true }),
    expiresAt: timestamp({ readOnly: true }),
    acceptedAt: timestamp({ readOnly: true }),
    link: text({ shownOnce: true, description: 'While e-mail is held (no SMTP_URL): the link to hand over, shown here once. Otherwise it is only in the e-mail.' }),
  },
  operations: { rest: ['list', 'read', 'create', 'delete'], graphql: 'none' },
  // Not in the application's navigation: the settings pages reach it (/profile/api, the people).
  present: { group: 'none' },
  writers: ['admin'],
  ...storedBy('invitationStorage'),
});
