// Settings › Company (CONTRACT §13, §20): the profile printed on invoices, quotes and e-invoices;
// the logo (PNG or JPEG up to 1 MB, on PDFs and client pages); numbering (prefixes and the next
// numbers); a new document's defaults (due days, terms, tax) and the documents' language; the
// e-mail templates and reminders, with a preview. Every role reads it; admins change it (a viewer
// or member sees it read-only). Violations from the server are shown beside their fields.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, upload } from '../api.js';
import { formatMoney } from '../money.js';
import { Banner } from './ui.js';

// The profile and its logo are served beside the model /app is described from.
const IRI = '/api/company';
const LOGO = `${IRI}/logo`;
const LOGO_TYPES = ['image/png', 'image/jpeg'];
const LOGO_MAX = 1024 * 1024;
const TEMPLATE_KINDS = ['invoice', 'quote', 'creditNote', 'reminder'];

const T = {
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

// The profile's fields, in sections; a label and a hint for people. (The profile is not yet in
// the description /app is built from; when it is, these come from its `present`.)
const SECTIONS = [
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
];
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
  if (f.kind === 'integer') return /^\s*-?\d+\s*$/.test(text) ? { value: Number(text) } : { error: 'Enter a whole number.' };
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
