// The resources the service serves. Adding a resource means adding its file here.
import type { AnyResourceDescriptor } from '../engine/descriptor.ts';
import client from './client.ts';
import contact from './contact.ts';
import address from './address.ts';
import tax from './tax.ts';
import invoice from './invoice.ts';
import invoiceLine from './invoice-line.ts';
import quote from './quote.ts';
import quoteLine from './quote-line.ts';
import recurringInvoice from './recurring-invoice.ts';
import payment from './payment.ts';
import creditNote from './credit-note.ts';
import creditNoteLine from './credit-note-line.ts';
import webhook from './webhook.ts';
import documentLink from './document-link.ts';
import email from './email.ts';
import report from './report.ts';
import company from './company.ts';
import apiToken from './api-token.ts';
import member from './member.ts';
import invitation from './invitation.ts';

export const descriptors: readonly AnyResourceDescriptor[] = [
  client, contact, address, tax, invoice, invoiceLine, quote, quoteLine, recurringInvoice, payment, creditNote, creditNoteLine, webhook, documentLink, email, report,
  // Stored by the server (their storage is a service: engine/custom.ts storedBy).
  apiToken, company, member, invitation,
];
