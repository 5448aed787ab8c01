// `invoicing demo`: a demo company with its profile, clients, taxes, invoices in every state (one
// discounted over two tax rates that exports as an EN 16931 e-invoice), quotes, a recurring
// invoice, payments and an issued credit note, written through the engine (so every total and rule holds, as
// if a user had made them through the API), and a new API token for it, printed alone.
// Running it again seeds nothing twice: a company that already has clients only gets a new token.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Principal, FieldValues } from '../../engine/types.ts';
import { createEngine } from '../../engine/operations.ts';
import { addDays, today } from '../../resources/rules/calendar.ts';
import { runSchedule } from '../../resources/rules/schedule.ts';
import { systemPrincipals } from '../access/principals.ts';
import { CommandError, findMembership, tokenCreate, userCreate, type Args, type CommandContext, type CommandOutput } from './commands.ts';
import { hashPassword } from '../access/passwords.ts';
import { users } from '../schema.ts';
import { updateCompany } from '../company.ts';
import { model, tables } from '../model.ts';

export const DEMO_DEFAULTS = { email: 'demo@example.com', company: 'Demo Company', currency: 'USD' };

type Line = { description: string; qty: number; price: number; tax?: string | null };

/**
 * The seller's profile by `--profile`: a US company (the default), or a German or a Belgian one, so
 * that the demo's e-invoices also meet Peppol's national rules (DE-R-*, a Belgian buyer over 0208).
 */
const PROFILES: Record<string, FieldValues> = {
  us: {
    legalName: 'Demo Company Inc.', email: 'billing@demo.example', phone: '+1 555 0199', vatNumber: 'US-1234-99', peppolId: '0088:0614141000005', contactName: 'Dana Demo',
    street1: '100 Main Street', city: 'Springfield', state: 'IL', zip: '62701', country: 'US',
    iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', invoiceFooter: 'Demo Company Inc. · made by invoicing demo',
  },
  de: {
    legalName: 'Demo Company GmbH', email: 'rechnung@demo.example', phone: '+49 30 1234567', vatNumber: 'DE287654321', peppolId: '9930:DE287654321', contactName: 'Dana Demo',
    registrationNumber: 'HRB 123456 B', street1: 'Friedrichstraße 100', city: 'Berlin', zip: '10117', country: 'DE',
    iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', invoiceFooter: 'Demo Company GmbH · Amtsgericht Charlottenburg HRB 123456 B',
  },
  be: {
    legalName: 'Demo Company BV', email: 'facturen@demo.example', phone: '+32 2 123 45 67', vatNumber: 'BE0876543270', peppolId: '0208:0876543270', contactName: 'Dana Demo',
    registrationNumber: '0876.543.270', street1: 'Wetstraat 16', city: 'Brussel', zip: '1000', country: 'BE',
    iban: 'BE68539007547034', bic: 'GKCCBEBB', invoiceFooter: 'Demo Company BV · RPR Brussel 0876.543.270',
  },
};

export async function demo(ctx: CommandContext, args: Args): Promise<CommandOutput> {
  const email = (args.email?.trim() || DEMO_DEFAULTS.email).toLowerCase();
  const company = args.company?.trim() || DEMO_DEFAULTS.company;
  const profile = (args.profile?.trim() || 'us').toLowerCase();
  if (!PROFILES[profile]) throw new CommandError(`--profile is one of ${Object.keys(PROFILES).join(', ')}.`);
  const currency = (args.currency?.trim() || (profile === 'us' ? DEMO_DEFAULTS.currency : 'EUR')).toUpperCase();
  // The demo opens in a browser: its user signs in with this password (a new one each run,
  // unless --password gives it), printed on stderr beside the token on stdout.
  const password = args.password ?? randomBytes(12).toString('base64url');
  await userCreate(ctx, { email, password, company, currency, role: 'admin' });

  const m = await findMembership(ctx.db, email, company);
  if (!m) throw new CommandError(`No user ${email} in a company named "${company}".`);
  await ctx.db.update(users).set({ passwordHash: await hashPassword(password) }).where(eq(users.id, m.userId));
  const principal: Principal = { userId: m.userId, role: 'admin', company: { id: m.companyId, currency: m.currency } };

  const clientTable = tables.get('Client');
  const [existing] = await ctx.db.select({ id: clientTable.id }).from(clientTable).where(eq(clientTable.companyId, m.companyId)).limit(1);
  if (!existing) await seed(ctx, principal, PROFILES[profile]!);

  const name = `demo ${new Date().toISOString().replace('T', ' ').slice(0, 19)}`;
  const token = await tokenCreate(ctx, { email, company, name, description: 'Made by invoicing demo' });
  return { stdout: token, stderr: `Sign in to "${company}" in a browser at /login with\n  e-mail:   ${email}\n  password: ${password}\n` };
}

/** The demo data, dated around today, written through the engine one operation at a time. */
async function seed(ctx: CommandContext, p: Principal, profile: FieldValues): Promise<void> {
  const engine = ctx.engine ?? createEngine(ctx.db, model, tables);
  const create = async (resource: string, input: FieldValues): Promise<string> => String((await engine.create(p, model.get(resource), input)).id);
  const update = (resource: string, id: string, input: FieldValues) => engine.update(p, model.get(resource), id, input, 'update');
  const day = today();
  const ago = (n: number) => addDays(day, -n);

  const vat = await create('Tax', { name: 'VAT 20%', rate: 20, type: 'exclusive' });
  const reduced = await create('Tax', { name: 'VAT 5.5%', rate: 5.5, type: 'exclusive' });
  const included = await create('Tax', { name: 'VAT 10% incl.', rate: 10, type: 'inclusive' });

  const acme = await create('Client', { name: 'Acme Corporation', website: 'https://acme.example', vatNumber: 'US-4581-22', peppolId: '0088:0614141000012', notes: 'Pays by bank transfer.' });
  const globex = await create('Client', { name: 'Globex GmbH', currency: 'EUR', website: 'https://globex.example', vatNumber: 'DE123456789', peppolId: '9930:DE123456789' });
  // A Belgian buyer, reached over its enterprise number (0208).
  const brabant = await create('Client', { name: 'Brabant Trading NV', currency: 'EUR', vatNumber: 'BE0417497106', peppolId: '0208:0417497106' });
  await create('Address', { client: brabant, street1: 'Grote Markt 1', city: 'Antwerpen', zip: '2000', country: 'BE' });
  const initech = await create('Client', { name: 'Initech Ltd', currency: 'GBP' });
  const umbrella = await create('Client', { name: 'Umbrella Studio' });
  await create('Client', { name: 'Hooli (former client)', status: 'archived' });
  await create('Contact', { client: acme, firstName: 'Wile', lastName: 'Coyote', email: 'wile@acme.example', phone: '+1 555 0100' });
  await create('Contact', { client: globex, firstName: 'Hank', lastName: 'Scorpio', email: 'hank@globex.example' });
  await create('Contact', { client: initech, firstName: 'Bill', lastName: 'Lumbergh', email: 'bill@initech.example' });
  await create('Address', { client: acme, street1: '1 Desert Road', city: 'Phoenix', state: 'AZ', zip: '85001', country: 'US' });
  await create('Address', { client: globex, street1: 'Hauptstraße 5', city: 'Berlin', zip: '10115', country: 'DE' });

  // The seller's profile: what an e-invoice (UBL, EN 16931) names besides the company's name.
  await updateCompany(ctx.db, p, profile);

  const design: Line[] = [
    { description: 'Design workshop (day)', qty: 2, price: 120000, tax: vat },
    { description: 'Wireframes', qty: 1, price: 85000, tax: vat },
  ];
  const hosting: Line[] = [{ description: 'Hosting, monthly', qty: 1, price: 4900, tax: vat }];
  const invoice = (client: string, status: 'draft' | 'pending', issued: number, dueIn: number, lines: Line[], extra: FieldValues = {}) =>
    create('Invoice', { client, status, invoiceDate: ago(issued), dueDate: addDays(ago(issued), dueIn), lines, terms: `Payable within ${dueIn} days.`, ...extra });

  // Every state: draft, pending (one partly paid), overdue, paid, cancelled.
  await invoice(umbrella, 'draft', 0, 30, [{ description: 'Logo refresh', qty: 1, price: 60000, tax: vat }]);
  const pending = await invoice(acme, 'pending', 5, 30, design, { discountType: 'percentage', discountValue: 10, notes: 'Thank you for your business.' });
  const partly = await invoice(globex, 'pending', 10, 30, [{ description: 'Translation, per word', qty: 4250, price: 12, tax: reduced }]);
  await invoice(initech, 'pending', 45, 14, [{ description: 'TPS report review', qty: 3.5, price: 9000, tax: included }]); // overdue below
  const paid = await invoice(acme, 'pending', 40, 30, hosting, { discountType: 'fixed', discountValue: 900 });
  const cancelled = await invoice(umbrella, 'draft', 20, 30, [{ description: 'Photo shoot (cancelled)', qty: 1, price: 150000 }]);
  await update('Invoice', cancelled, { status: 'cancelled' });

  // Discounted over two tax rates: tax on each rate's discounted net (CONTRACT §6), one allowance
  // per rate in its e-invoice. A credit note for a returned item, issued, reduces its balance.
  const twoRates = await invoice(globex, 'pending', 3, 30, [
    { description: 'Consulting (day)', qty: 3, price: 95000, tax: vat },
    { description: 'Handbook, printed', qty: 12, price: 2450, tax: reduced },
  ], { discountType: 'percentage', discountValue: 5, notes: 'Loyalty discount 5 %.' });
  const note = await create('CreditNote', {
    client: globex, invoice: twoRates, reason: 'Two handbooks returned', lines: [{ description: 'Handbook, printed (returned)', qty: 2, price: 2450, tax: reduced }],
    discountType: 'percentage', discountValue: 5,
  });
  await update('CreditNote', note, { status: 'issued' });
  await invoice(brabant, 'pending', 2, 30, [{ description: 'Market study, Flanders', qty: 1, price: 320000, tax: vat }]);

  const totalOf = async (id: string) => Number((await engine.read(p, model.get('Invoice'), id)).total);
  await create('Payment', { invoice: paid, amount: await totalOf(paid), method: 'bank_transfer', reference: 'TRX-20931', paidAt: `${ago(12)}T10:00:00Z` });
  await create('Payment', { invoice: partly, amount: Math.floor((await totalOf(partly)) / 2), method: 'card', reference: 'Deposit', paidAt: `${ago(3)}T15:30:00Z` });
  await create('Payment', { invoice: pending, amount: 50000, method: 'check', reference: 'Cheque 1042' });

  // Quotes: draft, sent, declined, and one accepted, which makes its draft invoice.
  const quote = (client: string, status: 'draft' | 'sent', issued: number, lines: Line[]) =>
    create('Quote', { client, status, invoiceDate: ago(issued), validUntil: addDays(ago(issued), 30), lines, terms: 'Valid for 30 days.' });
  await quote(umbrella, 'draft', 0, [{ description: 'Brand guidelines', qty: 1, price: 240000, tax: vat }]);
  await quote(globex, 'sent', 2, [{ description: 'Localisation, 3 languages', qty: 3, price: 75000, tax: reduced }]);
  const declined = await quote(initech, 'sent', 20, [{ description: 'Printer maintenance contract', qty: 12, price: 15000, tax: included }]);
  await update('Quote', declined, { status: 'declined' });
  const accepted = await quote(acme, 'sent', 8, [...design, { description: 'Prototype', qty: 1, price: 180000, tax: vat }]);
  await update('Quote', accepted, { status: 'accepted' });

  // A monthly recurring invoice from today: the day's schedule (which the server also runs at
  // start) issues its first invoice and marks the invoice due 31 days ago overdue.
  const recurring = await create('RecurringInvoice', {
    client: acme, frequency: 'monthly', interval: 1, startDate: day, dueInDays: 14, lines: hosting, terms: 'Monthly hosting.',
  });
  await update('RecurringInvoice', recurring, { status: 'active' });
  await runSchedule(engine, day, systemPrincipals(ctx.db));
}
