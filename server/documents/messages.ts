// What the documents (PDF, client page) write, in the company's language (CONTRACT §20: en, de,
// fr): ICU messages formatted by intl-messageformat (plural and select rules from the ICU data of
// Node's Intl; see docs/languages.md for the choice), and dates, numbers and amounts written by
// Intl's conventions for that locale.
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES } from '../../resources/company.ts';
import { localSeparators } from '../../resources/rules/money.ts';

export type Locale = (typeof LOCALES)[number];

const CATALOGUE = {
  en: {
    invoice: 'Invoice', creditNote: 'Credit note', quote: 'Quote',
    invoiceNumber: 'Invoice number', creditNoteNumber: 'Credit note number', quoteNumber: 'Quote number',
    invoiceDate: 'Invoice date', date: 'Date', dueDate: 'Due date', validUntil: 'Valid until', creditsInvoice: 'Credits invoice', yourReference: 'Your reference', vat: 'VAT', currency: 'Currency',
    billTo: 'Bill to', preparedFor: 'Prepared for', vatNumber: 'VAT number: {value}', registration: 'Registration: {value}',
    description: 'Description', qty: 'Qty', unitPrice: 'Unit price', tax: 'Tax', amount: 'Amount ({currency})', noLines: 'No lines.', included: 'incl.',
    subtotal: 'Subtotal', discount: 'Discount', taxableAt: 'Taxable at {rate}', taxIncluded: '{label} (included)', total: 'Total',
    amountPaid: 'Amount paid', credited: 'Credited', balanceDue: 'Balance due',
    paymentDetails: 'Payment details', bankTransferTo: 'Bank transfer to {name}', amountLine: 'Amount: {value}', reference: 'Reference: {value}', scanToPay: 'Scan to pay (SEPA)',
    reason: 'Reason', terms: 'Terms', notes: 'Notes', page: '{number} · page {page} of {count}',
    lines: '{count, plural, one {# line} other {# lines}}',
    from: 'From', details: 'Details', totals: 'Totals', downloadPdf: 'Download PDF', linesOf: 'Lines of {title} {number}', by: 'by {date}',
    // The client page's answer and payment boxes (server/links/page.ts).
    status: '{status, select, pending {Awaiting payment} overdue {Overdue} paid {Paid} cancelled {Cancelled} draft {Draft} sent {Awaiting your answer} accepted {Accepted} declined {Declined} issued {Issued} other {{status}}}',
    downloadFacturx: 'Download PDF (Factur-X e-invoice)', einvoice: 'E-invoice ({format})',
    yourAnswer: 'Your answer', answerText: 'Accept this quote to go ahead, or decline it. {seller} is told either way.', acceptQuote: 'Accept quote', decline: 'Decline',
    howToPay: 'How to pay', bankTransfer: 'Bank transfer', beneficiary: 'Beneficiary', transferAmount: 'Amount', transferReference: 'Reference',
    qrLabel: 'EPC QR code of this transfer, for a banking app', qrCaption: 'Scan with your banking app',
    noticeAccepted: 'Thank you: the quote is accepted.', noticeDeclined: 'The quote is declined. The sender has been told.',
    noticePaid: 'Thank you: your payment is being processed. This page shows it once it is recorded.',
  },
  de: {
    invoice: 'Rechnung', creditNote: 'Gutschrift', quote: 'Angebot',
    invoiceNumber: 'Rechnungsnummer', creditNoteNumber: 'Gutschriftnummer', quoteNumber: 'Angebotsnummer',
    invoiceDate: 'Rechnungsdatum', date: 'Datum', dueDate: 'Fällig am', validUntil: 'Gültig bis', creditsInvoice: 'Zur Rechnung', yourReference: 'Ihre Referenz', vat: 'Umsatzsteuer', currency: 'Währung',
    billTo: 'Rechnung an', preparedFor: 'Erstellt für', vatNumber: 'USt-IdNr.: {value}', registration: 'Handelsregister: {value}',
    description: 'Beschreibung', qty: 'Menge', unitPrice: 'Einzelpreis', tax: 'Steuer', amount: 'Betrag ({currency})', noLines: 'Keine Positionen.', included: 'inkl.',
    subtotal: 'Zwischensumme', discount: 'Rabatt', taxableAt: 'Steuerpflichtig zu {rate}', taxIncluded: '{label} (enthalten)', total: 'Gesamtbetrag',
    amountPaid: 'Bezahlt', credited: 'Gutgeschrieben', balanceDue: 'Offener Betrag',
    paymentDetails: 'Zahlungsinformationen', bankTransferTo: 'Überweisung an {name}', amountLine: 'Betrag: {value}', reference: 'Verwendungszweck: {value}', scanToPay: 'Scannen und zahlen (SEPA)',
    reason: 'Grund', terms: 'Bedingungen', notes: 'Anmerkungen', page: '{number} · Seite {page} von {count}',
    lines: '{count, plural, one {# Position} other {# Positionen}}',
    from: 'Von', details: 'Angaben', totals: 'Summen', downloadPdf: 'PDF herunterladen', linesOf: 'Positionen: {title} {number}', by: 'bis {date}',
    status: '{status, select, pending {Zahlung ausstehend} overdue {Überfällig} paid {Bezahlt} cancelled {Storniert} draft {Entwurf} sent {Wartet auf Ihre Antwort} accepted {Angenommen} declined {Abgelehnt} issued {Ausgestellt} other {{status}}}',
    downloadFacturx: 'PDF herunterladen (E-Rechnung Factur-X)', einvoice: 'E-Rechnung ({format})',
    yourAnswer: 'Ihre Antwort', answerText: 'Nehmen Sie dieses Angebot an, um fortzufahren, oder lehnen Sie es ab. {seller} wird in beiden Fällen benachrichtigt.', acceptQuote: 'Angebot annehmen', decline: 'Ablehnen',
    howToPay: 'So bezahlen Sie', bankTransfer: 'Überweisung', beneficiary: 'Empfänger', transferAmount: 'Betrag', transferReference: 'Verwendungszweck',
    qrLabel: 'EPC-QR-Code dieser Überweisung, für eine Banking-App', qrCaption: 'Mit Ihrer Banking-App scannen',
    noticeAccepted: 'Vielen Dank: Das Angebot ist angenommen.', noticeDeclined: 'Das Angebot ist abgelehnt. Der Absender wurde benachrichtigt.',
    noticePaid: 'Vielen Dank: Ihre Zahlung wird bearbeitet. Diese Seite zeigt sie, sobald sie verbucht ist.',
  },
  fr: {
    invoice: 'Facture', creditNote: 'Avoir', quote: 'Devis',
    invoiceNumber: 'N° de facture', creditNoteNumber: 'N° d’avoir', quoteNumber: 'N° de devis',
    invoiceDate: 'Date de facture', date: 'Date', dueDate: 'Échéance', validUntil: 'Valable jusqu’au', creditsInvoice: 'Avoir sur la facture', yourReference: 'Votre référence', vat: 'TVA', currency: 'Devise',
    billTo: 'Facturé à', preparedFor: 'Établi pour', vatNumber: 'N° TVA : {value}', registration: 'Immatriculation : {value}',
    description: 'Désignation', qty: 'Qté', unitPrice: 'Prix unitaire', tax: 'TVA', amount: 'Montant ({currency})', noLines: 'Aucune ligne.', included: 'incl.',
    subtotal: 'Sous-total', discount: 'Remise', taxableAt: 'Base imposable à {rate}', taxIncluded: '{label} (incluse)', total: 'Total',
    amountPaid: 'Montant payé', credited: 'Avoirs', balanceDue: 'Reste à payer',
    paymentDetails: 'Modalités de paiement', bankTransferTo: 'Virement à {name}', amountLine: 'Montant : {value}', reference: 'Référence : {value}', scanToPay: 'Scanner pour payer (SEPA)',
    reason: 'Motif', terms: 'Conditions', notes: 'Notes', page: '{number} · page {page} sur {count}',
    lines: '{count, plural, one {# ligne} other {# lignes}}',
    from: 'De', details: 'Détails', totals: 'Totaux', downloadPdf: 'Télécharger le PDF', linesOf: 'Lignes : {title} {number}', by: 'avant le {date}',
    status: '{status, select, pending {En attente de paiement} overdue {En retard} paid {Payée} cancelled {Annulé} draft {Brouillon} sent {En attente de votre réponse} accepted {Accepté} declined {Refusé} issued {Émis} other {{status}}}',
    downloadFacturx: 'Télécharger le PDF (facture électronique Factur-X)', einvoice: 'Facture électronique ({format})',
    yourAnswer: 'Votre réponse', answerText: 'Acceptez ce devis pour donner suite, ou refusez-le. {seller} en est informé dans les deux cas.', acceptQuote: 'Accepter le devis', decline: 'Refuser',
    howToPay: 'Comment payer', bankTransfer: 'Virement bancaire', beneficiary: 'Bénéficiaire', transferAmount: 'Montant', transferReference: 'Référence',
    qrLabel: 'Code QR EPC de ce virement, pour une application bancaire', qrCaption: 'Scannez avec votre application bancaire',
    noticeAccepted: 'Merci : le devis est accepté.', noticeDeclined: 'Le devis est refusé. L’expéditeur en a été informé.',
    noticePaid: 'Merci : votre paiement est en cours de traitement. Cette page l’affichera dès qu’il sera enregistré.',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type MessageKey = keyof (typeof CATALOGUE)['en'];

/** The BCP 47 tag whose conventions a document follows (English documents write dates as in Britain). */
const TAGS: Record<Locale, string> = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR' };

export const localeOf = (v: unknown): Locale => ((LOCALES as readonly unknown[]).includes(v) ? (v as Locale) : 'en');

export interface Messages {
  readonly locale: Locale;
  t(key: MessageKey, values?: Record<string, string | number>): string;
  /** A date (YYYY-MM-DD) as people read it: "28 November 2026", "28. November 2026", "28 novembre 2026". */
  date(d: string): string;
  /** A decimal text with "." and "," (1,234.56) in the locale's separators. */
  number(text: string): string;
  /** A percentage of a decimal text: "19%", "19 %", "19 %". */
  percent(text: string): string;
}

const cache = new Map<Locale, Messages>();

export function messages(locale: unknown): Messages {
  const l = localeOf(locale);
  let m = cache.get(l);
  if (m) return m;
  const tag = TAGS[l];
  const compiled = new Map<string, IntlMessageFormat>();
  const dates = new Intl.DateTimeFormat(tag, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  const decimal = new Intl.NumberFormat(tag).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  const percentParts = new Intl.NumberFormat(tag, { style: 'percent' }).formatToParts(0.5);
  const percentSign = percentParts.filter((p) => p.type === 'literal' || p.type === 'percentSign').map((p) => p.value).join('');
  m = {
    locale: l,
    t(key, values) {
      let f = compiled.get(key);
      if (!f) compiled.set(key, (f = new IntlMessageFormat(CATALOGUE[l][key], tag)));
      return String(f.format(values));
    },
    date(d) {
      const t = Date.parse(`${d}T00:00:00Z`);
      return Number.isNaN(t) ? d : dates.format(t);
    },
    // Amounts stay exact (string arithmetic on minor units); only the separators are the locale's.
    number: (text) => localSeparators(text, tag),
    percent: (text) => `${text.replace('.', decimal)}${percentSign}`,
  };
  cache.set(l, m);
  return m;
}
