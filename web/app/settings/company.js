// Settings › Company (CONTRACT §13, §20): the profile printed on invoices, quotes and e-invoices;
// the logo (PNG or JPEG up to 1 MB, on PDFs and client pages); numbering (prefixes and the next
// numbers); a new document's defaults (due days, terms, tax) and the documents' language; the
// e-mail templates and reminders, with a preview. Every role reads it; admins change it (a viewer
// or member sees it read-only). Violations from the server are shown beside their fields.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, upload } from '../api.js';
import { formatMoney } from '../money.js';
import { Banner, inLanguage } from './ui.js';
import { currentLanguage, t } from '../lib.js';

// The profile and its logo are served beside the model /app is described from.
const IRI = '/api/company';
const LOGO = `${IRI}/logo`;
const LOGO_TYPES = ['image/png', 'image/jpeg'];
const LOGO_MAX = 1024 * 1024;
const TEMPLATE_KINDS = ['invoice', 'quote', 'creditNote', 'reminder'];

/** The page's words in English; German and French below (ui.js inLanguage). */
const EN = {
  title: 'Company profile',
  lead: (name) => html`The seller on invoices, quotes and e-invoices of <strong>${name}</strong>.`,
  currency: (c) => html` Default currency: <strong>${c}</strong>.`,
  readOnly: (name) => `Only an admin of ${name} can change these details.`,
  optional: '(optional)',
  loading: 'Loading…',
  save: 'Save',
  saving: 'Saving…',
  reset: 'Reset',
  saved: 'Saved. New invoice and quote documents show these details.',
  nothing: 'Nothing to save: no field changed.',
  correct: (n) => `Please correct ${n === 1 ? 'the field' : `the ${n} fields`} marked below.`,
  noCompany: 'You are not a member of any company yet.',
  country: '—',
  none: 'None',
  logo: 'Logo',
  logoHint: 'A PNG or JPEG image of at most 1 MB, shown on PDFs and client pages.',
  logoAlt: (name) => `The logo of ${name}`,
  noLogo: 'No logo yet.',
  chooseLogo: 'Upload a logo',
  removeLogo: 'Remove the logo',
  logoSaved: 'The logo is saved: new PDFs show it.',
  logoRemoved: 'The logo is removed.',
  logoType: 'Choose a PNG or JPEG image.',
  logoSize: 'The image is larger than 1 MB.',
  reminders: 'Reminders',
  remindersLabel: 'Days from the due date',
  remindersHint: 'Reminders of unpaid invoices: days before (−3) or after (7) the due date, separated by commas. Empty sends none.',
  remindersBad: 'Enter whole numbers between −365 and 365, separated by commas.',
  templates: 'E-mail templates',
  templatesHint: (p) => `Empty fields use the service's default text. Placeholders: ${p}.`,
  kinds: { invoice: 'Invoice', quote: 'Quote', creditNote: 'Credit note', reminder: 'Reminder' },
  subject: 'Subject',
  body: 'Body',
  preview: 'Preview',
  previewOf: (k) => `Preview of the ${k.toLowerCase()} e-mail`,
  previewDefault: "(the service's default text)",
  sample: { client: 'Example Client Ltd', number: 'INV-000042', link: 'https://…/c/…' },
};
const T = inLanguage({
  en: EN,
  de: {
    title: 'Unternehmensprofil',
    lead: (name) => html`Der Verkäufer auf Rechnungen, Angeboten und E-Rechnungen von <strong>${name}</strong>.`,
    currency: (c) => html` Standardwährung: <strong>${c}</strong>.`,
    readOnly: (name) => `Nur ein Administrator von ${name} kann diese Angaben ändern.`,
    optional: '(optional)',
    loading: 'Wird geladen …',
    save: 'Speichern',
    saving: 'Wird gespeichert …',
    reset: 'Zurücksetzen',
    saved: 'Gespeichert. Neue Rechnungs- und Angebotsdokumente zeigen diese Angaben.',
    nothing: 'Nichts zu speichern: Kein Feld wurde geändert.',
    correct: (n) => `Bitte korrigieren Sie ${n === 1 ? 'das unten markierte Feld' : `die ${n} unten markierten Felder`}.`,
    noCompany: 'Sie sind noch Mitglied keines Unternehmens.',
    none: 'Keine',
    logo: 'Logo',
    logoHint: 'Ein PNG- oder JPEG-Bild von höchstens 1 MB, gezeigt auf PDFs und Kundenseiten.',
    logoAlt: (name) => `Das Logo von ${name}`,
    noLogo: 'Noch kein Logo.',
    chooseLogo: 'Logo hochladen',
    removeLogo: 'Logo entfernen',
    logoSaved: 'Das Logo ist gespeichert: Neue PDFs zeigen es.',
    logoRemoved: 'Das Logo ist entfernt.',
    logoType: 'Wählen Sie ein PNG- oder JPEG-Bild.',
    logoSize: 'Das Bild ist größer als 1 MB.',
    reminders: 'Zahlungserinnerungen',
    remindersLabel: 'Tage ab dem Fälligkeitsdatum',
    remindersHint: 'Erinnerungen an unbezahlte Rechnungen: Tage vor (−3) oder nach (7) dem Fälligkeitsdatum, durch Kommas getrennt. Leer sendet keine.',
    remindersBad: 'Geben Sie ganze Zahlen zwischen −365 und 365 ein, durch Kommas getrennt.',
    templates: 'E-Mail-Vorlagen',
    templatesHint: (p) => `Leere Felder verwenden den Standardtext des Dienstes. Platzhalter: ${p}.`,
    kinds: { invoice: 'Rechnung', quote: 'Angebot', creditNote: 'Gutschrift', reminder: 'Zahlungserinnerung' },
    subject: 'Betreff',
    body: 'Text',
    preview: 'Vorschau',
    previewOf: (k) => `Vorschau der E-Mail: ${k}`,
    previewDefault: '(der Standardtext des Dienstes)',
    sample: { client: 'Beispielkunde GmbH', number: 'INV-000042', link: 'https://…/c/…' },
  },
  fr: {
    title: 'Profil de l’entreprise',
    lead: (name) => html`Le vendeur sur les factures, devis et factures électroniques de <strong>${name}</strong>.`,
    currency: (c) => html` Devise par défaut : <strong>${c}</strong>.`,
    readOnly: (name) => `Seul un administrateur de ${name} peut modifier ces informations.`,
    optional: '(facultatif)',
    loading: 'Chargement…',
    save: 'Enregistrer',
    saving: 'Enregistrement…',
    reset: 'Réinitialiser',
    saved: 'Enregistré. Les nouveaux documents de facture et de devis affichent ces informations.',
    nothing: 'Rien à enregistrer : aucun champ n’a changé.',
    correct: (n) => `Veuillez corriger ${n === 1 ? 'le champ signalé' : `les ${n} champs signalés`} ci-dessous.`,
    noCompany: 'Vous n’êtes encore membre d’aucune entreprise.',
    none: 'Aucun',
    logo: 'Logo',
    logoHint: 'Une image PNG ou JPEG d’au plus 1 Mo, affichée sur les PDF et les pages client.',
    logoAlt: (name) => `Le logo de ${name}`,
    noLogo: 'Pas encore de logo.',
    chooseLogo: 'Téléverser un logo',
    removeLogo: 'Supprimer le logo',
    logoSaved: 'Le logo est enregistré : les nouveaux PDF l’affichent.',
    logoRemoved: 'Le logo est supprimé.',
    logoType: 'Choisissez une image PNG ou JPEG.',
    logoSize: 'L’image dépasse 1 Mo.',
    reminders: 'Relances',
    remindersLabel: 'Jours depuis l’échéance',
    remindersHint: 'Relances des factures impayées : jours avant (−3) ou après (7) l’échéance, séparés par des virgules. Vide : aucune relance.',
    remindersBad: 'Saisissez des nombres entiers entre −365 et 365, séparés par des virgules.',
    templates: 'Modèles d’e-mail',
    templatesHint: (p) => `Les champs vides utilisent le texte par défaut du service. Variables : ${p}.`,
    kinds: { invoice: 'Facture', quote: 'Devis', creditNote: 'Avoir', reminder: 'Relance' },
    subject: 'Objet',
    body: 'Texte',
    preview: 'Aperçu',
    previewOf: (k) => `Aperçu de l’e-mail : ${k.toLowerCase()}`,
    previewDefault: '(le texte par défaut du service)',
    sample: { client: 'Client Exemple SARL', number: 'INV-000042', link: 'https://…/c/…' },
  },
});

// The sections' and fields' words in German and French, by their English (as resources/labels.ts).
const WORDS = {
  de: {
    'Company': 'Unternehmen',
    'Trading name': 'Handelsname',
    'Legal name': 'Firmenname',
    'As registered; printed as the seller. The trading name when empty.': 'Wie eingetragen; als Verkäufer gedruckt. Leer: der Handelsname.',
    'VAT number': 'USt-IdNr.',
    'With its country prefix, e.g. DE123456789.': 'Mit Länderpräfix, z. B. DE123456789.',
    'Registration number': 'Registernummer',
    'Contact': 'Kontakt',
    'Billing email': 'Rechnungs-E-Mail',
    'Phone': 'Telefon',
    'Website': 'Website',
    'Contact person': 'Ansprechpartner',
    'Named on e-invoices with the phone and e-mail.': 'Auf E-Rechnungen mit Telefon und E-Mail genannt.',
    'Address': 'Adresse',
    'Street': 'Straße',
    'Street (line 2)': 'Straße (Zeile 2)',
    'Postal code': 'Postleitzahl',
    'City': 'Ort',
    'State or region': 'Bundesland oder Region',
    'Country': 'Land',
    'Payment details': 'Zahlungsangaben',
    'Printed on invoices for payment by bank transfer.': 'Auf Rechnungen für die Zahlung per Überweisung gedruckt.',
    '8 or 11 characters, e.g. COBADEFFXXX.': '8 oder 11 Zeichen, z. B. COBADEFFXXX.',
    'Numbering': 'Nummerierung',
    'New numbers are the prefix followed by six digits. A next number below one already given with that prefix is refused.': 'Neue Nummern sind das Präfix gefolgt von sechs Ziffern. Eine nächste Nummer unter einer mit diesem Präfix bereits vergebenen wird abgelehnt.',
    'Invoice prefix': 'Rechnungspräfix',
    'Next invoice number': 'Nächste Rechnungsnummer',
    'Quote prefix': 'Angebotspräfix',
    'Next quote number': 'Nächste Angebotsnummer',
    'Credit note prefix': 'Gutschriftpräfix',
    'Next credit note number': 'Nächste Gutschriftnummer',
    'Defaults for new documents': 'Vorgaben für neue Dokumente',
    'Days until due': 'Tage bis zur Fälligkeit',
    'From the invoice date to the due date of a new invoice (0–365).': 'Vom Rechnungsdatum bis zum Fälligkeitsdatum einer neuen Rechnung (0–365).',
    'Default tax': 'Standardsteuer',
    'The tax a new line starts with.': 'Die Steuer, mit der eine neue Position beginnt.',
    'Language of documents': 'Sprache der Dokumente',
    'PDFs, client pages and the default e-mails.': 'PDFs, Kundenseiten und die Standard-E-Mails.',
    'Terms': 'Bedingungen',
    'The terms a new invoice or quote starts with.': 'Die Bedingungen, mit denen eine neue Rechnung oder ein neues Angebot beginnt.',
    'Documents': 'Dokumente',
    'Footer': 'Fußzeile',
    'Printed at the foot of every page of invoices and quotes.': 'Am Fuß jeder Seite von Rechnungen und Angeboten gedruckt.',
    'Electronic address (Peppol)': 'Elektronische Adresse (Peppol)',
    'A scheme and an identifier, e.g. 0088:4035811991014 or 9930:DE123456789.': 'Ein Schema und eine Kennung, z. B. 0088:4035811991014 oder 9930:DE123456789.',
    'Registered for VAT': 'Umsatzsteuerpflichtig',
    'VAT exemption note': 'Hinweis zur Steuerbefreiung',
    'Why no VAT is charged when not registered, shown on every document.': 'Warum keine USt. berechnet wird, wenn nicht registriert; auf jedem Dokument gezeigt.',
  },
  fr: {
    'Company': 'Entreprise',
    'Trading name': 'Nom commercial',
    'Legal name': 'Raison sociale',
    'As registered; printed as the seller. The trading name when empty.': 'Tel qu’enregistré ; imprimé comme vendeur. Vide : le nom commercial.',
    'VAT number': 'N° de TVA',
    'With its country prefix, e.g. DE123456789.': 'Avec le préfixe du pays, p. ex. DE123456789.',
    'Registration number': 'Numéro d’immatriculation',
    'Contact': 'Contact',
    'Billing email': 'E-mail de facturation',
    'Phone': 'Téléphone',
    'Website': 'Site web',
    'Contact person': 'Personne à contacter',
    'Named on e-invoices with the phone and e-mail.': 'Nommée sur les factures électroniques avec le téléphone et l’e-mail.',
    'Address': 'Adresse',
    'Street': 'Rue',
    'Street (line 2)': 'Rue (ligne 2)',
    'Postal code': 'Code postal',
    'City': 'Ville',
    'State or region': 'État ou région',
    'Country': 'Pays',
    'Payment details': 'Coordonnées bancaires',
    'Printed on invoices for payment by bank transfer.': 'Imprimé sur les factures pour le paiement par virement.',
    '8 or 11 characters, e.g. COBADEFFXXX.': '8 ou 11 caractères, p. ex. COBADEFFXXX.',
    'Numbering': 'Numérotation',
    'New numbers are the prefix followed by six digits. A next number below one already given with that prefix is refused.': 'Les nouveaux numéros sont le préfixe suivi de six chiffres. Un prochain numéro inférieur à un numéro déjà attribué avec ce préfixe est refusé.',
    'Invoice prefix': 'Préfixe des factures',
    'Next invoice number': 'Prochain numéro de facture',
    'Quote prefix': 'Préfixe des devis',
    'Next quote number': 'Prochain numéro de devis',
    'Credit note prefix': 'Préfixe des avoirs',
    'Next credit note number': 'Prochain numéro d’avoir',
    'Defaults for new documents': 'Valeurs par défaut des nouveaux documents',
    'Days until due': 'Jours jusqu’à l’échéance',
    'From the invoice date to the due date of a new invoice (0–365).': 'De la date de facture à l’échéance d’une nouvelle facture (0–365).',
    'Default tax': 'Taxe par défaut',
    'The tax a new line starts with.': 'La taxe d’une nouvelle ligne.',
    'Language of documents': 'Langue des documents',
    'PDFs, client pages and the default e-mails.': 'PDF, pages client et e-mails par défaut.',
    'Terms': 'Conditions',
    'The terms a new invoice or quote starts with.': 'Les conditions d’une nouvelle facture ou d’un nouveau devis.',
    'Documents': 'Documents',
    'Footer': 'Pied de page',
    'Printed at the foot of every page of invoices and quotes.': 'Imprimé en bas de chaque page des factures et devis.',
    'Electronic address (Peppol)': 'Adresse électronique (Peppol)',
    'A scheme and an identifier, e.g. 0088:4035811991014 or 9930:DE123456789.': 'Un schéma et un identifiant, p. ex. 0088:4035811991014 ou 9930:DE123456789.',
    'Registered for VAT': 'Assujetti à la TVA',
    'VAT exemption note': 'Mention d’exonération de TVA',
    'Why no VAT is charged when not registered, shown on every document.': 'Pourquoi aucune TVA n’est facturée en l’absence d’assujettissement, affiché sur chaque document.',
  },
};
const w = (text) => (text && WORDS[currentLanguage()]?.[text]) || text;

// The profile's fields, in sections; a label and a hint for people. (The profile is not yet in
// the description /app is built from; when it is, these come from its `present`.)
const SECTIONS = inWords([
  {
    legend: 'Company',
    fields: [
      { name: 'name', label: 'Trading name', required: true, autocomplete: 'organization' },
      { name: 'legalName', label: 'Legal name', hint: 'As registered; printed as the seller. The trading name when empty.' },
      { name: 'vatNumber', label: 'VAT number', hint: 'With its country prefix, e.g. DE123456789.' },
      { name: 'registrationNumber', label: 'Registration number' },
    ],
  },
  {
    legend: 'Contact',
    fields: [
      { name: 'email', label: 'Billing email', type: 'email', autocomplete: 'email' },
      { name: 'phone', label: 'Phone', type: 'tel', autocomplete: 'tel' },
      { name: 'website', label: 'Website', type: 'url', autocomplete: 'url' },
      { name: 'contactName', label: 'Contact person', hint: 'Named on e-invoices with the phone and e-mail.' },
    ],
  },
  {
    legend: 'Address',
    fields: [
      { name: 'street1', label: 'Street', autocomplete: 'address-line1' },
      { name: 'street2', label: 'Street (line 2)', autocomplete: 'address-line2' },
      { name: 'zip', label: 'Postal code', autocomplete: 'postal-code' },
      { name: 'city', label: 'City', autocomplete: 'address-level2' },
      { name: 'state', label: 'State or region', autocomplete: 'address-level1' },
      { name: 'country', label: 'Country', kind: 'country' },
    ],
  },
  {
    legend: 'Payment details',
    fields: [
      { name: 'iban', label: 'IBAN', hint: 'Printed on invoices for payment by bank transfer.' },
      { name: 'bic', label: 'BIC', hint: '8 or 11 characters, e.g. COBADEFFXXX.' },
    ],
  },
  {
    legend: 'Numbering',
    hint: 'New numbers are the prefix followed by six digits. A next number below one already given with that prefix is refused.',
    fields: [
      { name: 'invoiceNumberPrefix', label: 'Invoice prefix', required: true },
      { name: 'nextInvoiceNumber', label: 'Next invoice number', kind: 'integer', required: true },
      { name: 'quoteNumberPrefix', label: 'Quote prefix', required: true },
      { name: 'nextQuoteNumber', label: 'Next quote number', kind: 'integer', required: true },
      { name: 'creditNoteNumberPrefix', label: 'Credit note prefix', required: true },
      { name: 'nextCreditNoteNumber', label: 'Next credit note number', kind: 'integer', required: true },
    ],
  },
  {
    legend: 'Defaults for new documents',
    fields: [
      { name: 'defaultDueDays', label: 'Days until due', kind: 'integer', required: true, hint: 'From the invoice date to the due date of a new invoice (0–365).' },
      { name: 'defaultTax', label: 'Default tax', kind: 'tax', hint: 'The tax a new line starts with.' },
      { name: 'locale', label: 'Language of documents', kind: 'choice', choices: { en: 'English', de: 'Deutsch', fr: 'Français' }, required: true, hint: 'PDFs, client pages and the default e-mails.' },
      { name: 'defaultTerms', label: 'Terms', kind: 'textarea', hint: 'The terms a new invoice or quote starts with.' },
    ],
  },
  {
    legend: 'Documents',
    fields: [
      { name: 'invoiceFooter', label: 'Footer', kind: 'textarea', hint: 'Printed at the foot of every page of invoices and quotes.' },
      { name: 'peppolId', label: 'Electronic address (Peppol)', hint: 'A scheme and an identifier, e.g. 0088:4035811991014 or 9930:DE123456789.' },
      { name: 'vatRegistered', label: 'Registered for VAT', kind: 'boolean' },
      { name: 'vatExemptionNote', label: 'VAT exemption note', hint: 'Why no VAT is charged when not registered, shown on every document.' },
    ],
  },
]);
/** A section's legend and hint and its fields' labels and hints in the person's language. */
function inWords(sections) {
  return sections.map((s) => ({ ...s, legend: w(s.legend), hint: w(s.hint), fields: s.fields.map((f) => ({ ...f, label: w(f.label), hint: w(f.hint) })) }));
}

const FIELDS = SECTIONS.flatMap((s) => s.fields);
const PLACEHOLDERS = ['company.name', 'client.name', 'number', 'total', 'balance', 'dueDate', 'link'];

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Every ISO 3166-1 alpha-2 country the browser can name, by name. */
const COUNTRIES = (() => {
  const out = [];
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(65 + i, 65 + j);
      const name = regionNames.of(code);
      if (name && name !== code && name !== 'Unknown Region') out.push({ code, name });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
})();

/** What the form holds for a profile: text for every field, the templates and reminders apart. */
function valuesOf(p) {
  const v = {};
  for (const f of FIELDS) v[f.name] = f.kind === 'boolean' ? Boolean(p[f.name]) : p[f.name] === null || p[f.name] === undefined ? '' : String(p[f.name]);
  for (const k of TEMPLATE_KINDS) {
    v[`${k}.subject`] = p.emailTemplates?.[k]?.subject ?? '';
    v[`${k}.body`] = p.emailTemplates?.[k]?.body ?? '';
  }
  v.reminders = (p.reminders ?? []).join(', ');
  return v;
}

/** The API's value of a field as typed; `{ error }` when it is not one. */
function apiValue(f, text) {
  if (f.kind === 'boolean') return { value: Boolean(text) };
  if (text === '') return { value: null };
  if (f.kind === 'integer') return /^\s*-?\d+\s*$/.test(text) ? { value: Number(text) } : { error: t('input.wholeNumber') };
  return { value: text };
}

function templatesOf(values) {
  const out = {};
  for (const k of TEMPLATE_KINDS) {
    const t = {};
    if (values[`${k}.subject`]) t.subject = values[`${k}.subject`];
    if (values[`${k}.body`]) t.body = values[`${k}.body`];
    if (Object.keys(t).length) out[k] = t;
  }
  return Object.keys(out).length ? out : null;
}

const remindersOf = (text) => {
  const parts = text.split(/[,;\s]+/).map((s) => s.replace('−', '-')).filter(Boolean);
  if (!parts.every((s) => /^-?\d+$/.test(s) && Math.abs(Number(s)) <= 365)) return { error: T.remindersBad };
  return { value: [...new Set(parts.map(Number))] };
};

export function CompanyPage({ ctx }) {
  const admin = ctx.role === 'admin';
  const [profile, setProfile] = useState(null);
  const [values, setValues] = useState(null);
  const [errors, setErrors] = useState({});
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const [taxes, setTaxes] = useState([]);
  const [focusOn, setFocusOn] = useState(null);
  // The tax resource a default tax names, from the description.
  const tax = ctx.desc.resources.find((r) => r.iri.endsWith('/taxes'));
  useEffect(() => {
    if (!ctx.company) return;
    rest(IRI).then(
      (p) => {
        setProfile(p);
        setValues(valuesOf(p));
      },
      (e) => setMessage({ kind: 'error', text: e.message }),
    );
    if (tax) rest(`${tax.iri}?itemsPerPage=100`).then((l) => setTaxes(Array.isArray(l) ? l : (l['hydra:member'] ?? l.member ?? [])), () => setTaxes([]));
  }, []);
  useEffect(() => {
    if (!focusOn || busy) return;
    document.getElementById(`company-${focusOn.replace('.', '-')}`)?.focus();
    setFocusOn(null);
  }, [focusOn, busy]);

  const onInput = (name, value) => {
    setValues((v) => ({ ...v, [name]: value }));
    setErrors((e) => (e[name] ? { ...e, [name]: undefined } : e));
  };

  async function save(e) {
    e.preventDefault();
    const changes = {};
    const local = {};
    const before = valuesOf(profile);
    for (const f of FIELDS) {
      if (before[f.name] === values[f.name]) continue;
      const v = apiValue(f, values[f.name]);
      if (v.error) local[f.name] = v.error;
      else changes[f.name] = v.value;
    }
    if (TEMPLATE_KINDS.some((k) => before[`${k}.subject`] !== values[`${k}.subject`] || before[`${k}.body`] !== values[`${k}.body`])) changes.emailTemplates = templatesOf(values);
    if (before.reminders !== values.reminders) {
      const r = remindersOf(values.reminders);
      if (r.error) local.reminders = r.error;
      else changes.reminders = r.value;
    }
    if (Object.keys(local).length) {
      setErrors(local);
      setMessage({ kind: 'error', text: T.correct(Object.keys(local).length) });
      setFocusOn(Object.keys(local)[0]);
      return;
    }
    if (!Object.keys(changes).length) {
      setMessage({ kind: 'info', text: T.nothing });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const p = await rest(IRI, { method: 'PATCH', body: changes });
      setProfile(p);
      setValues(valuesOf(p));
      setErrors({});
      setMessage({ kind: 'success', text: T.saved });
    } catch (err) {
      const found = {};
      for (const v of err.violations) {
        // emailTemplates.invoice.subject → invoice.subject
        const path = String(v.propertyPath ?? '').replace(/^emailTemplates\./, '').replace(/\[\d+\]$/, '');
        found[path] ??= v.message;
      }
      setErrors(found);
      const count = Object.keys(found).length;
      setMessage({ kind: 'error', text: count ? T.correct(count) : err.message });
      setFocusOn(Object.keys(found)[0] ?? null);
    } finally {
      setBusy(false);
    }
  }

  if (!ctx.company) return html`<h1>${T.title}</h1><p class="alert" role="alert">${T.noCompany}</p>`;
  const disabled = !admin || busy;
  return html`<div class="page-head">
      <div>
        <h1>${T.title}</h1>
        <p class="muted lead">${T.lead(ctx.company.name)}${profile && T.currency(profile.currency)}</p>
      </div>
    </div>
    ${!admin && html`<p class="notice" role="status">${T.readOnly(ctx.company.name)}</p>`}
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <${LogoPanel} ctx=${ctx} admin=${admin} />
    ${values
      ? html`<form class="panel settings-form" onSubmit=${save} novalidate>
          ${SECTIONS.map((s) => html`<fieldset>
            <legend>${s.legend}</legend>
            ${s.hint && html`<p class="hint">${s.hint}</p>`}
            <div class="field-grid">
              ${s.fields.map((f) => html`<${Field} f=${f} value=${values[f.name]} error=${errors[f.name]} disabled=${disabled} onInput=${onInput} taxes=${taxes} tax=${tax} />`)}
            </div>
          </fieldset>`)}
          <${Templates} ctx=${ctx} profile=${profile} values=${values} errors=${errors} disabled=${disabled} onInput=${onInput} />
          ${admin &&
          html`<div class="form-actions">
            <button type="button" class="btn" disabled=${busy} onClick=${() => (setValues(valuesOf(profile)), setErrors({}))}>${T.reset}</button>
            <button type="submit" class="btn primary" disabled=${busy}>${busy ? T.saving : T.save}</button>
          </div>`}
        </form>`
      : html`<p class="muted" aria-busy="true">${T.loading}</p>`}`;
}

function Field({ f, value, error, disabled, onInput, taxes, tax }) {
  const id = `company-${f.name}`;
  const described = [f.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, name: f.name, disabled, 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': described, onInput: (e) => onInput(f.name, e.currentTarget.value) };
  let control;
  if (f.kind === 'textarea') control = html`<textarea ...${common} rows="3" value=${value}></textarea>`;
  else if (f.kind === 'boolean') control = html`<input ...${common} type="checkbox" checked=${value} onInput=${undefined} onChange=${(e) => onInput(f.name, e.currentTarget.checked)} />`;
  else if (f.kind === 'country') {
    control = html`<select ...${common} value=${value} onChange=${common.onInput}><option value="">${T.country}</option>${COUNTRIES.map((c) => html`<option value=${c.code}>${c.name}</option>`)}</select>`;
  } else if (f.kind === 'choice') {
    control = html`<select ...${common} value=${value} onChange=${common.onInput}>${Object.entries(f.choices).map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select>`;
  } else if (f.kind === 'tax') {
    const known = taxes.some((t) => (t['@id'] ?? `${tax?.iri}/${t.id}`) === value);
    control = html`<select ...${common} value=${value} onChange=${common.onInput}>
      <option value="">${T.none}</option>
      ${taxes.map((t) => html`<option value=${t['@id'] ?? `${tax.iri}/${t.id}`}>${t.name} (${Number(t.rate)} %)</option>`)}
      ${value && !known && html`<option value=${value}>${value}</option>`}
    </select>`;
  } else control = html`<input ...${common} type=${f.kind === 'integer' ? 'text' : (f.type ?? 'text')} inputmode=${f.kind === 'integer' ? 'numeric' : undefined} value=${value} autocomplete=${f.autocomplete ?? 'off'} required=${f.required} />`;
  const label = html`${f.label}${f.required || f.kind === 'boolean' ? null : html` <span class="required">${T.optional}</span>`}`;
  if (f.kind === 'boolean') {
    return html`<div class="field"><label class="check-row" for=${id}>${control} ${label}</label>${error && html`<p class="field-error" id=${`${id}-error`}>${error}</p>`}</div>`;
  }
  return html`<div class=${`field${f.kind === 'textarea' ? ' wide' : ''}`}>
    <label for=${id}>${label}</label>
    ${f.hint && html`<p class="hint" id=${`${id}-hint`}>${f.hint}</p>`}
    ${control}
    ${error && html`<p class="field-error" id=${`${id}-error`}>${error}</p>`}
  </div>`;
}

/** The e-mails' templates by document, the reminders' days, and a preview with sample values. */
function Templates({ ctx, profile, values, errors, disabled, onInput }) {
  const [kind, setKind] = useState('invoice');
  const currency = profile?.currency ?? ctx.company?.currency ?? 'EUR';
  const sample = {
    'company.name': values.name || ctx.company.name,
    'client.name': T.sample.client,
    number: T.sample.number,
    total: formatMoney(119000, currency, ctx.locale),
    balance: formatMoney(119000, currency, ctx.locale),
    dueDate: new Intl.DateTimeFormat(ctx.locale, { dateStyle: 'long' }).format(new Date(Date.now() + 14 * 86400_000)),
    link: T.sample.link,
  };
  const fill = (text) => text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (m, name) => sample[name] ?? m);
  const subject = values[`${kind}.subject`];
  const body = values[`${kind}.body`];
  const field = (part, rows) => {
    const id = `company-${kind}-${part}`;
    const name = `${kind}.${part}`;
    const error = errors[name];
    const common = { id, disabled, value: values[name], 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': error ? `${id}-error` : undefined, onInput: (e) => onInput(name, e.currentTarget.value) };
    return html`<div class="field wide">
      <label for=${id}>${part === 'subject' ? T.subject : T.body}</label>
      ${rows ? html`<textarea ...${common} rows=${rows}></textarea>` : html`<input ...${common} />`}
      ${error && html`<p class="field-error" id=${`${id}-error`}>${error}</p>`}
    </div>`;
  };
  return html`<fieldset>
      <legend>${T.templates}</legend>
      <p class="hint">${T.templatesHint(PLACEHOLDERS.map((p) => `{{${p}}}`).join(', '))}</p>
      <div class="report-tabs" role="group" aria-label=${T.templates}>
        ${TEMPLATE_KINDS.map((k) => html`<button type="button" class=${k === kind ? 'btn small primary' : 'btn small'} aria-pressed=${k === kind} onClick=${() => setKind(k)}>${T.kinds[k]}</button>`)}
      </div>
      <div class="field-grid">${field('subject')} ${field('body', 7)}</div>
      <section class="panel pad email-preview" aria-label=${T.previewOf(T.kinds[kind])}>
        <h3>${T.preview}</h3>
        <p><strong>${subject ? fill(subject) : T.previewDefault}</strong></p>
        <pre class="email-body">${body ? fill(body) : T.previewDefault}</pre>
      </section>
    </fieldset>
    <fieldset>
      <legend>${T.reminders}</legend>
      <div class="field wide">
        <label for="company-reminders">${T.remindersLabel} <span class="required">${T.optional}</span></label>
        <p class="hint" id="company-reminders-hint">${T.remindersHint}</p>
        <input id="company-reminders" value=${values.reminders} disabled=${disabled} aria-invalid=${errors.reminders ? 'true' : undefined}
          aria-describedby=${`company-reminders-hint${errors.reminders ? ' company-reminders-error' : ''}`} onInput=${(e) => onInput('reminders', e.currentTarget.value)} />
        ${errors.reminders && html`<p class="field-error" id="company-reminders-error">${errors.reminders}</p>`}
      </div>
    </fieldset>`;
}

/** The logo: its preview, and for admins an upload (checked here first, then by the server) and removal. */
function LogoPanel({ ctx, admin }) {
  // The preview's address changes with each upload, so the browser shows the new image.
  const [version, setVersion] = useState(0);
  const [present, setPresent] = useState(null);
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    rest(LOGO, { accept: LOGO_TYPES.join(', ') }).then(
      () => live && setPresent(true),
      (e) => live && (e.status === 404 ? setPresent(false) : setMessage({ kind: 'error', text: e.message })),
    );
    return () => {
      live = false;
    };
  }, [version]);
  async function choose(e) {
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = '';
    if (!file) return;
    if (!LOGO_TYPES.includes(file.type)) return setMessage({ kind: 'error', text: T.logoType });
    if (file.size > LOGO_MAX) return setMessage({ kind: 'error', text: T.logoSize });
    setBusy(true);
    try {
      await upload(LOGO, file);
      setMessage({ kind: 'success', text: T.logoSaved });
      setVersion((n) => n + 1);
    } catch (err) {
      setMessage({ kind: 'error', text: err.message });
    } finally {
      setBusy(false);
    }
  }
  async function remove() {
    setBusy(true);
    try {
      await rest(LOGO, { method: 'DELETE' });
      setMessage({ kind: 'success', text: T.logoRemoved });
      setVersion((n) => n + 1);
    } catch (err) {
      setMessage({ kind: 'error', text: err.message });
    } finally {
      setBusy(false);
    }
  }
  return html`<section class="panel pad logo-panel" aria-labelledby="logo-title">
    <h2 id="logo-title" class="panel-title">${T.logo}</h2>
    <p class="hint" id="logo-hint">${T.logoHint}</p>
    <div class="logo-row">
      ${present ? html`<img class="logo-preview" src=${`${LOGO}?v=${version}`} alt=${T.logoAlt(ctx.company.name)} />` : present === false ? html`<p class="muted">${T.noLogo}</p>` : null}
      ${admin &&
      html`<div class="logo-actions">
        <input id="company-logo" class="visually-hidden logo-input" type="file" accept=${LOGO_TYPES.join(',')} aria-describedby="logo-hint" disabled=${busy} onChange=${choose} />
        <label class=${`btn${busy ? ' disabled' : ''}`} for="company-logo">${T.chooseLogo}</label>
        ${present && html`<button type="button" class="btn danger" disabled=${busy} onClick=${remove}>${T.removeLogo}</button>`}
      </div>`}
    </div>
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
  </section>`;
}
