// Settings → Company: the company profile printed on invoices, quotes and e-invoices. Every
// member sees it; admins change it. Violations from the server are shown beside their fields.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { Banner, Header, switchCompanyAndReload } from './app.js';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Every ISO 3166-1 alpha-2 country the browser can name, by name. */
const COUNTRIES = (() => {
  const out = [];
  const A = 65;
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(A + i, A + j);
      const name = regionNames.of(code);
      if (name && name !== code && name !== 'Unknown Region') out.push({ code, name });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
})();

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
    legend: 'Documents',
    fields: [{ name: 'invoiceFooter', label: 'Footer', kind: 'textarea', hint: 'Printed at the foot of every page of invoices and quotes.' }],
  },
];
const NAMES = SECTIONS.flatMap((s) => s.fields.map((f) => f.name));

const valuesOf = (profile) => Object.fromEntries(NAMES.map((n) => [n, profile[n] ?? '']));

function Field({ f, value, error, disabled, onInput }) {
  const id = `company-${f.name}`;
  const described = [f.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, name: f.name, disabled, 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': described, onInput: (e) => onInput(f.name, e.currentTarget.value) };
  let control;
  if (f.kind === 'textarea') control = html`<textarea ...${common} rows="3" value=${value}></textarea>`;
  else if (f.kind === 'country') {
    control = html`<select ...${common} value=${value} onChange=${common.onInput}>
      <option value="">—</option>
      ${COUNTRIES.map((c) => html`<option value=${c.code}>${c.name}</option>`)}
    </select>`;
  } else control = html`<input ...${common} type=${f.type ?? 'text'} value=${value} autocomplete=${f.autocomplete ?? 'off'} required=${f.required} />`;
  return html`<div class=${`field${f.kind === 'textarea' ? ' wide' : ''}`}>
    <label for=${id}>${f.label}${f.required ? null : html` <span class="required">(optional)</span>`}</label>
    ${f.hint ? html`<p class="hint" id=${`${id}-hint`}>${f.hint}</p>` : null}
    ${control}
    ${error ? html`<p class="field-error" id=${`${id}-error`}>${error}</p>` : null}
  </div>`;
}

export function CompanyPage({ boot }) {
  const me = { user: boot.user, company: boot.company, companies: boot.companies };
  const [profile, setProfile] = useState(null);
  const [values, setValues] = useState(null);
  const [errors, setErrors] = useState({});
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  // The first field with a violation, focused once the form is enabled again.
  const [focusOn, setFocusOn] = useState(null);
  const admin = me.company?.role === 'admin';

  useEffect(() => {
    if (!me.company) return;
    api('/company').then(
      (p) => {
        setProfile(p);
        setValues(valuesOf(p));
      },
      (e) => setMessage({ kind: 'error', text: e.message }),
    );
  }, []);

  useEffect(() => {
    if (!focusOn || busy) return;
    document.getElementById(`company-${focusOn}`)?.focus();
    setFocusOn(null);
  }, [focusOn, busy]);

  const switchCompany = (id) => switchCompanyAndReload(id, { setBusy, setMessage });

  const onInput = (name, value) => {
    setValues((v) => ({ ...v, [name]: value }));
    setErrors((e) => (e[name] ? { ...e, [name]: undefined } : e));
  };

  async function save(e) {
    e.preventDefault();
    const changes = {};
    for (const n of NAMES) if ((profile[n] ?? '') !== values[n]) changes[n] = values[n] === '' ? null : values[n];
    if (!Object.keys(changes).length) {
      setMessage({ kind: 'info', text: 'Nothing to save: no field changed.' });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const p = await api('/company', { method: 'PATCH', body: changes });
      setProfile(p);
      setValues(valuesOf(p));
      setErrors({});
      setMessage({ kind: 'success', text: 'Saved. New invoice and quote documents show these details.' });
    } catch (err) {
      const byField = {};
      for (const v of err.violations) byField[v.propertyPath] ??= v.message;
      setErrors(byField);
      const count = Object.keys(byField).length;
      setMessage({ kind: 'error', text: count ? `Please correct ${count === 1 ? 'the field' : `the ${count} fields`} marked below.` : err.message });
      setFocusOn(NAMES.find((n) => byField[n]) ?? null);
    } finally {
      setBusy(false);
    }
  }

  return html`<${Header} me=${me} onSwitch=${switchCompany} switching=${busy} />
    <main class="container narrow" id="main">
      <nav aria-label="Breadcrumb" class="crumbs">
        <ol><li>Settings</li><li aria-current="page">Company</li></ol>
      </nav>
      <div class="page-head">
        <div>
          <h1>Company profile</h1>
          <p class="muted lead">
            The seller on invoices, quotes and e-invoices${me.company ? html` of <strong>${me.company.name}</strong>` : null}.
            ${profile ? html` Default currency: <strong>${profile.currency}</strong>.` : null}
          </p>
        </div>
      </div>
      ${!me.company ? html`<p class="alert" role="alert">You are not a member of any company yet.</p>` : null}
      ${me.company && !admin ? html`<p class="notice" role="status">Only an admin of ${me.company.name} can change these details.</p>` : null}
      <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
      ${values
        ? html`<form class="panel settings-form" onSubmit=${save} novalidate>
            ${SECTIONS.map((s) => html`<fieldset>
              <legend>${s.legend}</legend>
              <div class="field-grid">
                ${s.fields.map((f) => html`<${Field} f=${f} value=${values[f.name]} error=${errors[f.name]} disabled=${!admin || busy} onInput=${onInput} />`)}
              </div>
            </fieldset>`)}
            ${admin
              ? html`<div class="form-actions">
                  <button type="button" class="btn" disabled=${busy} onClick=${() => { setValues(valuesOf(profile)); setErrors({}); }}>Reset</button>
                  <button type="submit" class="btn primary" disabled=${busy}>${busy ? 'Saving…' : 'Save'}</button>
                </div>`
              : null}
          </form>`
        : me.company ? html`<p class="muted" aria-busy="true">Loading…</p>` : null}
    </main>`;
}
