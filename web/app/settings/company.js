// Settings › Company (CONTRACT §13, §20): the profile printed on invoices, quotes and e-invoices;
// the logo (PNG or JPEG up to 1 MB, on PDFs and client pages); numbering (prefixes and the next
// numbers); a new document's defaults (due days, terms, tax) and the documents' language; the
// e-mail templates and reminders, with a preview. Every role reads it; admins change it (a viewer
// or member sees it read-only). Violations from the server are shown beside their fields.
//
// The page is built from the model's description of the Company resource (resources/company.ts):
// its address, its sections, its fields' kinds, labels, help and autocomplete tokens, the kinds of
// e-mail template (the members of `emailTemplates`), all in the person's language; each field is
// the forms' own input (views/form.js). What is the page's own: the logo, the templates' preview and
// the reminders typed as a list of days. Its sentences are messages of the catalogue (settings.company.*).
import { useEffect, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { rest, upload } from '../api.js';
import { formatMoney } from '../money.js';
import { Banner } from './ui.js';
import { Input } from '../views/form.js';
import { fromInput, inSentence, t, toInput } from '../lib.js';

const LOGO_TYPES = ['image/png', 'image/jpeg'];
const LOGO_MAX = 1024 * 1024;
const PLACEHOLDERS = ['company.name', 'client.name', 'number', 'total', 'balance', 'dueDate', 'link'];
/** The fields the page shows apart from the sections: the templates and the reminders. */
const APART = new Set(['emailTemplates', 'reminders']);

/** The profile's resource in the description, its sections' fields, and the template kinds. */
function modelOf(desc) {
  const r = desc.get('Company');
  const byName = new Map(r.fields.map((f) => [f.name, f]));
  const editable = (f) => f && !f.readOnly && !APART.has(f.name) && f.kind !== 'children' && f.kind !== 'list';
  // The page shows the help declared for people, not the API's documentation of a field.
  const forPeople = (f) => ({ ...f, description: undefined });
  const placed = new Set();
  const sections = (r.sections ?? []).map((s) => {
    const fields = s.fields.map((n) => byName.get(n)).filter(editable).map(forPeople);
    for (const f of fields) placed.add(f.name);
    return { label: s.label, help: s.help, fields };
  });
  const others = r.fields.filter((f) => editable(f) && !placed.has(f.name)).map(forPeople);
  if (others.length) sections.push({ label: t('form.more'), fields: others });
  return { r, sections, fields: sections.flatMap((s) => s.fields), kinds: byName.get('emailTemplates')?.members ?? [], reminders: byName.get('reminders'), templates: byName.get('emailTemplates') };
}

/** What the form holds for a profile: each field as its input holds it, the templates and reminders apart. */
function valuesOf(model, p, locale) {
  const v = {};
  for (const f of model.fields) v[f.name] = toInput(f, p[f.name], p.currency, p, locale);
  for (const k of model.kinds) {
    v[`${k.name}.subject`] = p.emailTemplates?.[k.name]?.subject ?? '';
    v[`${k.name}.body`] = p.emailTemplates?.[k.name]?.body ?? '';
  }
  v.reminders = (p.reminders ?? []).join(', ');
  return v;
}

function templatesOf(model, values) {
  const out = {};
  for (const { name: k } of model.kinds) {
    const one = {};
    if (values[`${k}.subject`]) one.subject = values[`${k}.subject`];
    if (values[`${k}.body`]) one.body = values[`${k}.body`];
    if (Object.keys(one).length) out[k] = one;
  }
  return Object.keys(out).length ? out : null;
}

const remindersOf = (text) => {
  const parts = text.split(/[,;\s]+/).map((s) => s.replace('−', '-')).filter(Boolean);
  if (!parts.every((s) => /^-?\d+$/.test(s) && Math.abs(Number(s)) <= 365)) return { error: t('settings.company.remindersBad') };
  return { value: [...new Set(parts.map(Number))] };
};

export function CompanyPage({ ctx }) {
  const admin = ctx.role === 'admin';
  const model = modelOf(ctx.desc);
  const { r } = model;
  const [profile, setProfile] = useState(null);
  const [values, setValues] = useState(null);
  const [errors, setErrors] = useState({});
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const [focusOn, setFocusOn] = useState(null);
  const load = (p) => {
    setProfile(p);
    setValues(valuesOf(model, p, ctx.locale));
  };
  useEffect(() => {
    if (!ctx.company) return;
    rest(r.iri).then(load, (e) => setMessage({ kind: 'error', text: e.message }));
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
    const before = valuesOf(model, profile, ctx.locale);
    for (const f of model.fields) {
      if (before[f.name] === values[f.name]) continue;
      const v = fromInput(f, values[f.name], profile.currency, values);
      if (v.error) local[f.name] = v.error;
      else changes[f.name] = v.value;
    }
    if (model.kinds.some(({ name: k }) => before[`${k}.subject`] !== values[`${k}.subject`] || before[`${k}.body`] !== values[`${k}.body`])) changes.emailTemplates = templatesOf(model, values);
    if (before.reminders !== values.reminders) {
      const v = remindersOf(values.reminders);
      if (v.error) local.reminders = v.error;
      else changes.reminders = v.value;
    }
    if (Object.keys(local).length) {
      setErrors(local);
      setMessage({ kind: 'error', text: t('form.correct', { count: Object.keys(local).length }) });
      setFocusOn(Object.keys(local)[0]);
      return;
    }
    if (!Object.keys(changes).length) {
      setMessage({ kind: 'info', text: t('settings.company.nothing') });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      load(await rest(r.iri, { method: 'PATCH', body: changes }));
      setErrors({});
      setMessage({ kind: 'success', text: t('settings.company.saved') });
    } catch (err) {
      const found = {};
      for (const v of err.violations ?? []) {
        // emailTemplates.invoice.subject → invoice.subject
        const path = String(v.propertyPath ?? '').replace(/^emailTemplates\./, '').replace(/\[\d+\]$/, '');
        found[path] ??= v.message;
      }
      setErrors(found);
      const count = Object.keys(found).length;
      setMessage({ kind: 'error', text: count ? t('form.correct', { count }) : err.message });
      setFocusOn(Object.keys(found)[0] ?? null);
    } finally {
      setBusy(false);
    }
  }

  const title = t('settings.company.title');
  if (!ctx.company) return html`<h1>${title}</h1><p class="alert" role="alert">${t('settings.company.noCompany')}</p>`;
  const disabled = !admin || busy;
  return html`<div class="page-head">
      <div>
        <h1>${title}</h1>
        <p class="muted lead">${t('settings.company.lead', { name: ctx.company.name })}${profile && ` ${t('settings.company.currency', { currency: profile.currency })}`}</p>
      </div>
    </div>
    ${!admin && html`<p class="notice" role="status">${t('settings.company.readOnly', { name: ctx.company.name })}</p>`}
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <${LogoPanel} ctx=${ctx} admin=${admin} iri=${r.iri} />
    ${values
      ? html`<form class="panel settings-form" onSubmit=${save} novalidate>
          ${model.sections.map((s) => html`<fieldset>
            <legend>${s.label}</legend>
            ${s.help && html`<p class="hint">${s.help}</p>`}
            <div class="field-grid">
              ${s.fields.map(
                (f) => html`<${Input} ctx=${ctx} f=${f} idPrefix="company" value=${values[f.name]} values=${values} currency=${profile.currency} locked=${disabled} lockedHint=${false}
                  errors=${errors[f.name] ? [errors[f.name]] : undefined} onChange=${(v) => onInput(f.name, v)} />`,
              )}
            </div>
          </fieldset>`)}
          <${Templates} ctx=${ctx} model=${model} profile=${profile} values=${values} errors=${errors} disabled=${disabled} onInput=${onInput} />
          ${admin &&
          html`<div class="form-actions">
            <button type="button" class="btn" disabled=${busy} onClick=${() => (load(profile), setErrors({}))}>${t('settings.company.reset')}</button>
            <button type="submit" class="btn primary" disabled=${busy}>${busy ? t('settings.company.saving') : t('settings.company.save')}</button>
          </div>`}
        </form>`
      : html`<p class="muted" aria-busy="true">${t('common.loading')}</p>`}`;
}

/** The e-mails' templates by document (the kinds the description gives), the reminders' days, and a preview with sample values. */
function Templates({ ctx, model, profile, values, errors, disabled, onInput }) {
  const [kind, setKind] = useState(model.kinds[0]?.name);
  const currency = profile?.currency ?? ctx.company?.currency ?? 'EUR';
  const sample = {
    'company.name': values.name || ctx.company.name,
    'client.name': t('settings.company.sampleClient'),
    number: t('settings.company.sampleNumber'),
    total: formatMoney(119000, currency, ctx.locale),
    balance: formatMoney(119000, currency, ctx.locale),
    dueDate: new Intl.DateTimeFormat(ctx.locale, { dateStyle: 'long' }).format(new Date(Date.now() + 14 * 86400_000)),
    link: 'https://…/c/…',
  };
  const fill = (text) => text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (m, name) => sample[name] ?? m);
  const subject = values[`${kind}.subject`];
  const body = values[`${kind}.body`];
  const label = model.kinds.find((k) => k.name === kind)?.label ?? kind;
  const field = (part, rows) => {
    const id = `company-${kind}-${part}`;
    const name = `${kind}.${part}`;
    const error = errors[name];
    const common = { id, disabled, value: values[name], 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': error ? `${id}-error` : undefined, onInput: (e) => onInput(name, e.currentTarget.value) };
    return html`<div class="field wide">
      <label for=${id}>${t(part === 'subject' ? 'settings.company.subject' : 'settings.company.body')}</label>
      ${rows ? html`<textarea ...${common} rows=${rows}></textarea>` : html`<input ...${common} />`}
      ${error && html`<p class="field-error" id=${`${id}-error`}>${error}</p>`}
    </div>`;
  };
  const reminders = model.reminders;
  return html`${model.templates && kind && html`<fieldset>
      <legend>${model.templates.label}</legend>
      <p class="hint">${t('settings.company.templatesHint', { placeholders: PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ') })}</p>
      <div class="report-tabs" role="group" aria-label=${model.templates.label}>
        ${model.kinds.map((k) => html`<button type="button" class=${k.name === kind ? 'btn small primary' : 'btn small'} aria-pressed=${k.name === kind} onClick=${() => setKind(k.name)}>${k.label}</button>`)}
      </div>
      <div class="field-grid">${field('subject')} ${field('body', 7)}</div>
      <section class="panel pad email-preview" aria-label=${t('settings.company.previewOf', { kind: inSentence(label) })}>
        <h3>${t('settings.company.preview')}</h3>
        <p><strong>${subject ? fill(subject) : t('settings.company.previewDefault')}</strong></p>
        <pre class="email-body">${body ? fill(body) : t('settings.company.previewDefault')}</pre>
      </section>
    </fieldset>`}
    ${reminders && html`<fieldset>
      <legend>${reminders.label}</legend>
      <div class="field wide">
        <label for="company-reminders">${t('settings.company.remindersLabel')}</label>
        ${reminders.help && html`<p class="hint" id="company-reminders-hint">${reminders.help}</p>`}
        <input id="company-reminders" value=${values.reminders} disabled=${disabled} aria-invalid=${errors.reminders ? 'true' : undefined}
          aria-describedby=${[reminders.help ? 'company-reminders-hint' : '', errors.reminders ? 'company-reminders-error' : ''].filter(Boolean).join(' ') || undefined} onInput=${(e) => onInput('reminders', e.currentTarget.value)} />
        ${errors.reminders && html`<p class="field-error" id="company-reminders-error">${errors.reminders}</p>`}
      </div>
    </fieldset>`}`;
}

/** The logo: its preview, and for admins an upload (checked here first, then by the server) and removal. */
function LogoPanel({ ctx, admin, iri }) {
  // The logo is the profile's operation (`logo`, `putLogo`, `deleteLogo`) at its address.
  const LOGO = `${iri}/logo`;
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
    if (!LOGO_TYPES.includes(file.type)) return setMessage({ kind: 'error', text: t('settings.company.logoType') });
    if (file.size > LOGO_MAX) return setMessage({ kind: 'error', text: t('settings.company.logoSize') });
    setBusy(true);
    try {
      await upload(LOGO, file);
      setMessage({ kind: 'success', text: t('settings.company.logoSaved') });
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
      setMessage({ kind: 'success', text: t('settings.company.logoRemoved') });
      setVersion((n) => n + 1);
    } catch (err) {
      setMessage({ kind: 'error', text: err.message });
    } finally {
      setBusy(false);
    }
  }
  return html`<section class="panel pad logo-panel" aria-labelledby="logo-title">
    <h2 id="logo-title" class="panel-title">${t('settings.company.logo')}</h2>
    <p class="hint" id="logo-hint">${t('settings.company.logoHint')}</p>
    <div class="logo-row">
      ${present ? html`<img class="logo-preview" src=${`${LOGO}?v=${version}`} alt=${t('settings.company.logoAlt', { name: ctx.company.name })} />` : present === false ? html`<p class="muted">${t('settings.company.noLogo')}</p>` : null}
      ${admin &&
      html`<div class="logo-actions">
        <input id="company-logo" class="visually-hidden logo-input" type="file" accept=${LOGO_TYPES.join(',')} aria-describedby="logo-hint" disabled=${busy} onChange=${choose} />
        <label class=${`btn${busy ? ' disabled' : ''}`} for="company-logo">${t('settings.company.chooseLogo')}</label>
        ${present && html`<button type="button" class="btn danger" disabled=${busy} onClick=${remove}>${t('settings.company.removeLogo')}</button>`}
      </div>`}
    </div>
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
  </section>`;
}
