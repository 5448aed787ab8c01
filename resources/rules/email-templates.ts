// The company's e-mail templates (CONTRACT §15): `{invoice, quote, creditNote, reminder}` ×
// `{subject, body}` with the placeholders below. Values are inserted as text, never read as
// templates again (one pass over the template), and escaped in the HTML part (server/email/).
import { formatMoney, localSeparators } from './money.ts';

export const TEMPLATE_KINDS = ['invoice', 'quote', 'creditNote', 'reminder'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];
export interface Template {
  subject: string;
  body: string;
}
export type Templates = Record<TemplateKind, Template>;

/**
 * Whether `{{link}}` (a client link, CONTRACT §16) can be filled in: MailService.link
 * (resources/rules/email.ts, server/email/service.ts) makes the link for the document and the
 * e-mail's first recipient, in the e-mail's transaction.
 */
export const CLIENT_LINKS_AVAILABLE: boolean = true;

export const PLACEHOLDERS = ['company.name', 'client.name', 'number', 'total', 'balance', 'dueDate', 'link'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** Used where the company has not written its own. No `{{link}}`: client links may not be available. */
export const DEFAULT_TEMPLATES: Templates = {
  invoice: {
    subject: 'Invoice {{number}} from {{company.name}}',
    body: 'Dear {{client.name}},\n\nplease find attached invoice {{number}} for {{total}}, due on {{dueDate}}.\n\nKind regards,\n{{company.name}}',
  },
  quote: {
    subject: 'Quote {{number}} from {{company.name}}',
    body: 'Dear {{client.name}},\n\nplease find attached our quote {{number}} for {{total}}.\n\nKind regards,\n{{company.name}}',
  },
  creditNote: {
    subject: 'Credit note {{number}} from {{company.name}}',
    body: 'Dear {{client.name}},\n\nplease find attached credit note {{number}} for {{total}}.\n\nKind regards,\n{{company.name}}',
  },
  reminder: {
    subject: 'Reminder: invoice {{number}} from {{company.name}}',
    body: 'Dear {{client.name}},\n\nthis is a reminder that invoice {{number}} has a balance of {{balance}}, due on {{dueDate}}.\n\nKind regards,\n{{company.name}}',
  },
};

/** The default templates in the company's language (its profile's `locale`); English otherwise. */
export const LOCALE_TEMPLATES: Record<string, Templates> = {
  en: DEFAULT_TEMPLATES,
  de: {
    invoice: {
      subject: 'Rechnung {{number}} von {{company.name}}',
      body: 'Guten Tag {{client.name}},\n\nanbei erhalten Sie die Rechnung {{number}} über {{total}}, fällig am {{dueDate}}.\n\nMit freundlichen Grüßen\n{{company.name}}',
    },
    quote: {
      subject: 'Angebot {{number}} von {{company.name}}',
      body: 'Guten Tag {{client.name}},\n\nanbei erhalten Sie unser Angebot {{number}} über {{total}}.\n\nMit freundlichen Grüßen\n{{company.name}}',
    },
    creditNote: {
      subject: 'Gutschrift {{number}} von {{company.name}}',
      body: 'Guten Tag {{client.name}},\n\nanbei erhalten Sie die Gutschrift {{number}} über {{total}}.\n\nMit freundlichen Grüßen\n{{company.name}}',
    },
    reminder: {
      subject: 'Zahlungserinnerung: Rechnung {{number}} von {{company.name}}',
      body: 'Guten Tag {{client.name}},\n\nwir möchten Sie daran erinnern, dass die Rechnung {{number}} mit einem offenen Betrag von {{balance}} am {{dueDate}} fällig ist.\n\nMit freundlichen Grüßen\n{{company.name}}',
    },
  },
  fr: {
    invoice: {
      subject: 'Facture {{number}} de {{company.name}}',
      body: 'Bonjour {{client.name}},\n\nveuillez trouver ci-joint la facture {{number}} d’un montant de {{total}}, à régler avant le {{dueDate}}.\n\nCordialement,\n{{company.name}}',
    },
    quote: {
      subject: 'Devis {{number}} de {{company.name}}',
      body: 'Bonjour {{client.name}},\n\nveuillez trouver ci-joint notre devis {{number}} d’un montant de {{total}}.\n\nCordialement,\n{{company.name}}',
    },
    creditNote: {
      subject: 'Avoir {{number}} de {{company.name}}',
      body: 'Bonjour {{client.name}},\n\nveuillez trouver ci-joint l’avoir {{number}} d’un montant de {{total}}.\n\nCordialement,\n{{company.name}}',
    },
    reminder: {
      subject: 'Rappel : facture {{number}} de {{company.name}}',
      body: 'Bonjour {{client.name}},\n\nnous vous rappelons que la facture {{number}} présente un solde de {{balance}}, à régler avant le {{dueDate}}.\n\nCordialement,\n{{company.name}}',
    },
  },
};

const TAG = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The placeholders a template names that do not exist (`{{foo}}`); `link` too when links are not available. */
export function unknownPlaceholders(text: string, linksAvailable: boolean): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TAG)) {
    const name = m[1]!;
    if (!(PLACEHOLDERS as readonly string[]).includes(name) || (name === 'link' && !linksAvailable)) out.push(`{{${name}}}`);
  }
  return out;
}

/** The problems of a company's templates, by member path (`invoice.subject`). */
export function templateProblems(value: unknown, linksAvailable: boolean): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (value === null || value === undefined) return out;
  if (typeof value !== 'object' || Array.isArray(value)) return [{ path: '', message: 'This value should be an object with invoice, quote, creditNote and reminder.' }];
  for (const [kind, t] of Object.entries(value as Record<string, unknown>)) {
    const at = kind;
    if (!(TEMPLATE_KINDS as readonly string[]).includes(kind)) {
      out.push({ path: at, message: `Unknown template: the templates are ${TEMPLATE_KINDS.join(', ')}.` });
      continue;
    }
    if (t === null) continue;
    if (typeof t !== 'object' || Array.isArray(t)) {
      out.push({ path: at, message: 'This value should be an object with subject and body.' });
      continue;
    }
    for (const [part, text] of Object.entries(t as Record<string, unknown>)) {
      const p = `${at}.${part}`;
      if (part !== 'subject' && part !== 'body') out.push({ path: p, message: 'Only subject and body are allowed.' });
      else if (typeof text !== 'string') out.push({ path: p, message: 'This value should be a string.' });
      else if (text.length > (part === 'subject' ? 500 : 20_000)) out.push({ path: p, message: `This value is too long: at most ${part === 'subject' ? 500 : 20_000} characters.` });
      else if (part === 'subject' && /[\r\n]/.test(text)) out.push({ path: p, message: 'A subject is one line: no line breaks.' });
      else {
        const unknown = unknownPlaceholders(text, linksAvailable);
        if (unknown.length) {
          const noLink = unknown.includes('{{link}}') && !linksAvailable;
          out.push({ path: p, message: `Unknown placeholder ${unknown.join(', ')}: the placeholders are ${PLACEHOLDERS.filter((x) => linksAvailable || x !== 'link').map((x) => `{{${x}}}`).join(', ')}.${noLink ? ' Client links ({{link}}) are not available in this version.' : ''}` });
        }
      }
    }
  }
  return out;
}

/** The template of `kind`: the company's where it wrote one (subject and body each), else the default. */
export function templateOf(saved: unknown, kind: TemplateKind, locale = 'en'): Template {
  const t = (saved && typeof saved === 'object' ? (saved as Record<string, unknown>)[kind] : undefined) as Partial<Template> | null | undefined;
  const fallback = (LOCALE_TEMPLATES[locale] ?? DEFAULT_TEMPLATES)[kind];
  return { subject: t?.subject || fallback.subject, body: t?.body || fallback.body };
}

export interface TemplateValues {
  companyName: string;
  clientName: string;
  number: string;
  total: number | null;
  balance: number | null;
  currency: string;
  dueDate: string | null;
  link: string;
  /** The company's language: amounts take its separators (en 1,234.56, de 1.234,56, fr 1 234,56). */
  locale?: string;
}

const TAGS: Record<string, string> = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR' };

/** Fills the placeholders in one pass: an inserted value is never read as a template. */
export function fill(template: string, v: TemplateValues): string {
  const money = (minor: number) => localSeparators(formatMoney(minor, v.currency), TAGS[v.locale ?? 'en'] ?? 'en-GB');
  const values: Record<Placeholder, string> = {
    'company.name': v.companyName,
    'client.name': v.clientName,
    number: v.number,
    total: v.total === null ? '' : money(v.total),
    balance: v.balance === null ? '' : money(v.balance),
    dueDate: v.dueDate ?? '',
    link: v.link,
  };
  return template.replace(TAG, (whole, name: string) => (name in values ? values[name as Placeholder] : whole));
}
