// Create and edit forms: fields, amounts as people type them, references picked by search, lines.
import { Component } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { ApiProblem, graphql, rest } from '../api.js';
import { choiceLabel, currencyDigits, currencyField, formatMoney, formatPercent, formFields, fromInput, idOf, lineFields, lockedFields, pickerQuery, titleOf, toInput, unitOf, violationsByField, writes } from '../lib.js';
import { currencyOf, go, Loading, Notice, Problem, RefPicker, useLoad } from './common.js';
import { loadRecord } from './record.js';
import { TotalsPreview, totalsOf, useTaxes } from './totals.js';
import { inSentence, nounOf, t } from '../lib.js';

// ---- forms ----------------------------------------------------------------------------------

/** A viewer's form address: the API's own refusal, asked with a write that changes nothing. */
async function refusal(r) {
  try {
    await rest(r.iri, { method: 'POST', body: { '(viewer check)': true } });
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 403) return e;
  }
  return new ApiProblem(403, { detail: t('form.readOnly') });
}

async function loadForm(ctx, r, id) {
  if (!writes(r, ctx.role)) return { refused: await refusal(r) };
  if (!id) {
    // A new record's defaults from the company's profile (descriptor present.defaultFrom).
    const wants = r.fields.some((f) => f.defaultFrom || ((f.kind === 'children' || f.kind === 'list') && lineFields(ctx.desc, f).some((m) => m.defaultFrom)));
    const company = wants ? await rest('/api/company').catch(() => null) : null;
    return { rec: null, titles: new Map(), company };
  }
  const loaded = await loadRecord(ctx, r, id);
  // Children the form edits with the record but that its reads do not embed (descriptor `nested`): read as their own list.
  const nested = r.fields.filter((f) => f.kind === 'children' && f.nested && ctx.desc.get(f.target));
  const lists = await Promise.all(
    nested.map((f) => rest(`${ctx.desc.get(f.target).iri}?${new URLSearchParams({ [f.via]: `${r.iri}/${id}`, itemsPerPage: '100' })}`, { accept: 'application/ld+json' })),
  );
  if (!lists.length) return loaded;
  // More than a page of them: not edited here (sending a part would delete the others).
  const partial = nested.filter((f, i) => (lists[i].totalItems ?? 0) > lists[i].member.length).map((f) => f.name);
  return { ...loaded, partial, rec: { ...loaded.rec, ...Object.fromEntries(nested.map((f, i) => [f.name, lists[i].member])) } };
}

/** Today in the person's calendar, as a date input holds it. */
const today = () => {
  const d = new Date();
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
};

/** `date` plus `days`, as a date input holds it. */
const addDays = (date, days) => new Date(Date.parse(`${date}T00:00:00Z`) + Number(days) * 86_400_000).toISOString().slice(0, 10);

/** A new record's first value of a field: the address's, the company's default, the declared default. */
function initial(f, query, company, values) {
  const given = query?.get(f.name);
  if (given !== null && given !== undefined) return given;
  const from = f.defaultFrom;
  if (from && company && company[from.company] !== undefined && company[from.company] !== null) {
    if (!from.addDaysTo) return company[from.company];
    const base = values[from.addDaysTo];
    return base ? addDays(base, company[from.company]) : null;
  }
  if (f.kind === 'date' && f.default === 'today') return today();
  // 'now' is the server's to give (left empty, it is the moment of the write).
  if (f.kind === 'timestamp') return null;
  return f.default ?? null;
}

function emptyLine(ctx, f, currency, company) {
  return Object.fromEntries(lineFields(ctx.desc, f).map((m) => [m.name, toInput(m, initial(m, null, company, {}), currency, null, ctx.locale)]));
}

export function FormView({ ctx, r, id, query }) {
  const { data, error, loading } = useLoad(() => loadForm(ctx, r, id), `${r.name}/${id}`);
  if (loading) return html`<${Loading} />`;
  const title = t(id ? 'record.edit' : 'record.new', nounOf(r));
  if (error) return html`<h1>${title}</h1><${Problem} error=${error} />`;
  if (data.refused) return html`<h1>${title}</h1><p class="alert" role="alert">${data.refused.message}</p><p><a href=${r.path}>${t('common.backTo', nounOf(r))}</a></p>`;
  return html`<${Form} ctx=${ctx} r=${r} id=${id} rec=${data.rec} company=${data.company} titles=${data.titles} title=${title} query=${query} partial=${data.partial} />`;
}

function Form({ ctx, r, id, rec, company, titles, title, query, partial = [] }) {
  const mode = id ? 'update' : 'create';
  const fields = formFields(r, mode);
  const locked = new Set([...lockedFields(r, rec), ...partial]);
  const [currency, setCurrency] = useState(currencyOf(rec, ctx, r));
  const [values, setValues] = useState(() => {
    const v = {};
    for (const f of fields) {
      // A nested child keeps its id (`_id`): sent back, it names the child to change.
      if (f.kind === 'children' || f.kind === 'list') v[f.name] = (rec?.[f.name] ?? []).map((line) => Object.fromEntries([...lineFields(ctx.desc, f).map((m) => [m.name, toInput(m, line[m.name], currency, line, ctx.locale)]), ...(f.nested ? [['_id', line.id ?? line['@id']]] : [])]));
    }
    // Scalars in order, so that a default computed from another field (a due date) sees it.
    const raw = {};
    for (const f of fields) {
      if (f.kind === 'children' || f.kind === 'list') continue;
      raw[f.name] = rec ? rec[f.name] : initial(f, query, company, raw);
    }
    for (const f of fields) if (!(f.kind === 'children' || f.kind === 'list')) v[f.name] = toInput(f, raw[f.name], currency, rec ?? raw, ctx.locale);
    return v;
  });
  const taxes = useTaxes(ctx, r, values);
  const computed = r.totals ? totalsOf(ctx, r, values, currency, taxes) : null;
  const [errors, setErrors] = useState({ fields: {}, lines: {}, other: [] });
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState(null);
  const formRef = useRef(null);
  const onceRef = useRef(null);
  useEffect(() => onceRef.current?.focus(), [created]);
  const set = (name, value) => setValues((v) => ({ ...v, [name]: value }));

  async function submit(e) {
    e.preventDefault();
    const body = {};
    const local = { fields: {}, lines: {}, other: [] };
    for (const f of fields) {
      if (locked.has(f.name)) continue;
      if (f.kind === 'children' || f.kind === 'list') {
        body[f.name] = values[f.name].map((line, i) => {
          const out = line._id ? { id: line._id } : {};
          for (const m of lineFields(ctx.desc, f)) {
            const c = fromInput(m, line[m.name], currency, line);
            if (c.error) ((local.lines[f.name] ??= {})[i] ??= {})[m.name] = [c.error];
            else if (c.value !== null || m.kind === 'ref') out[m.name] = c.value;
          }
          return out;
        });
        continue;
      }
      const c = fromInput(f, values[f.name], currency, values);
      if (c.error) local.fields[f.name] = [c.error];
      else if (c.value !== null || mode === 'update') body[f.name] = c.value;
    }
    setProblem(null);
    if (Object.keys(local.fields).length || Object.keys(local.lines).length) {
      setErrors(local);
      setProblem(new Error(t('form.correct', { count: Object.keys(local.fields).length + Object.keys(local.lines).length })));
      focusFirstInvalid();
      return;
    }
    setBusy(true);
    try {
      const out = await rest(mode === 'create' ? r.iri : `${r.iri}/${id}`, { method: mode === 'create' ? 'POST' : 'PATCH', body });
      const address = `${r.path}/${out.id ?? idOf(out['@id'])}`;
      // A value the create response alone carries (a client link's URL) is shown here, this once.
      const once = (r.shownOnce ?? []).filter((n) => out[n]);
      if (mode === 'create' && once.length) setCreated({ address, values: once.map((n) => ({ name: n, value: String(out[n]) })) });
      else go(address);
    } catch (err) {
      const v = violationsByField(err.violations);
      setErrors(v);
      setProblem(err.violations?.length ? new Error(`${t('form.correct', { count: err.violations.length })}${v.other.length ? ` ${v.other.join(' ')}` : ''}`) : err);
      focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  }
  function focusFirstInvalid() {
    setTimeout(() => {
      const el = formRef.current?.querySelector('[aria-invalid="true"]');
      if (el) el.focus();
      else formRef.current?.querySelector('[role="alert"]')?.focus();
    });
  }

  return html`<nav class="crumbs" aria-label=${t('common.breadcrumb')}><ol><li><a href=${r.path}>${r.label}</a></li>${rec && html`<li><a href=${`${r.path}/${id}`}>${titleOf(r, rec)}</a></li>`}<li><span aria-current="page">${id ? t('form.crumbEdit') : t('form.crumbNew')}</span></li></ol></nav>
    <h1>${title}</h1>
    <${Notice} ctx=${ctx} r=${r} />
    ${created &&
    html`<section class="panel pad" aria-label=${t('form.shownOnce')} data-testid="shown-once">
      <p class="warning" role="status"><strong>${t('form.copyNow')}</strong> ${t('form.onlyOnce')}</p>
      ${created.values.map(
        (v, i) => html`<div class="field"><label for=${`once-${v.name}`}>${v.name === 'url' ? t('form.link') : v.name}</label>
          <input id=${`once-${v.name}`} ref=${i === 0 ? onceRef : undefined} class="mono" readonly value=${v.value} onFocus=${(e) => e.currentTarget.select()} /></div>`,
      )}
      <p><a class="btn primary" href=${created.address}>${t('form.continue')}</a></p>
    </section>`}
    <form ref=${formRef} hidden=${Boolean(created)} class="app-form panel pad" novalidate onSubmit=${submit}>
      ${problem && html`<p class="alert" role="alert" tabindex="-1">${problem.message}</p>`}
      ${sectionsOf(r, fields.filter((f) => f.kind !== 'children' && f.kind !== 'list')).map(
        (section) => html`<${Section} label=${section.label}><div class="field-grid">
        ${section.fields.map(
          (f) => html`<${Input} ctx=${ctx} f=${f} value=${values[f.name]} values=${values} currency=${currency} locked=${locked.has(f.name)} errors=${errors.fields[f.name]} titles=${titles}
            onChange=${(v, option) => {
              set(f.name, v);
              // The reference that gives the record its currency (descriptor present.currency.from) gives it from the pick.
              const t = f.kind === 'ref' && r.currency?.from === f.name ? ctx.desc.get(f.target) : null;
              if (t && option?.[currencyField(t)]) setCurrency(option[currencyField(t)]);
            }} />`,
        )}
      </div><//>`,
      )}
      ${fields.filter((f) => f.kind === 'children' || f.kind === 'list').map(
        (f) => html`<${LineEditor} ctx=${ctx} f=${f} lines=${values[f.name]} currency=${currency} company=${company} totals=${computed && r.totals.lines === f.name ? computed.lines : null} locked=${locked.has(f.name)} errors=${errors.lines[f.name] ?? {}} titles=${titles} onChange=${(lines) => set(f.name, lines)} />`,
      )}
      ${computed && html`<${TotalsPreview} ctx=${ctx} r=${r} result=${computed} currency=${currency} />`}
      <div class="form-actions">
        ${/* Pressing the button leaves the focus where it is: the field's own check on leaving it
           would otherwise move the button away between the press and the release. */ ''}
        <button type="submit" class="btn primary" disabled=${busy} onMouseDown=${(e) => e.preventDefault()}>${mode === 'create' ? t('form.create', nounOf(r)) : t('form.save')}</button>
        <a class="btn ghost" href=${id ? `${r.path}/${id}` : r.path}>${t('common.cancel')}</a>
      </div>
    </form>`;
}

/** The form's fields by the sections the descriptor declares (`present.sections`); the others after them. */
function sectionsOf(r, fields) {
  if (!r.sections?.length) return [{ label: null, fields }];
  const placed = new Set(r.sections.flatMap((x) => x.fields));
  const out = r.sections.map((x) => ({ label: x.label, fields: x.fields.map((n) => fields.find((f) => f.name === n)).filter(Boolean) })).filter((x) => x.fields.length);
  const rest = fields.filter((f) => !placed.has(f.name));
  if (rest.length) out.push({ label: out.length ? t('form.more') : null, fields: rest });
  return out;
}

function Section({ label, children }) {
  return label ? html`<fieldset class="form-section"><legend>${label}</legend>${children}</fieldset>` : children;
}

/** Every ISO 3166-1 alpha-2 country the browser can name in `locale`, by name (one list per locale). */
const countryLists = new Map();
function countries(locale) {
  let list = countryLists.get(locale);
  if (list) return list;
  const names = new Intl.DisplayNames([locale ?? 'en'], { type: 'region', fallback: 'none' });
  list = [];
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(65 + i, 65 + j);
      let name;
      try {
        name = names.of(code);
      } catch {
        name = undefined;
      }
      if (name && name !== code && name !== 'Unknown Region') list.push({ code, name });
    }
  }
  list.sort((a, b) => a.name.localeCompare(b.name, locale));
  countryLists.set(locale, list);
  return list;
}

/** One field's labelled input, as the description describes it (used by the forms, the line editor and the settings pages). */
export function Input({ ctx, f, value, currency, locked, lockedHint = true, errors, onChange, titles, idPrefix = 'f', label, compact = false, values }) {
  const id = `${idPrefix}-${f.name}`;
  const errId = `${id}-error`;
  const hintId = `${id}-hint`;
  const unit = unitOf(f, values);
  // An amount or a percentage is read as it is typed; leaving the field shows what was
  // understood, or why it cannot be (CONTRACT §20), before anything is sent.
  const [left, setLeft] = useState(false);
  const read = (unit === 'money' || unit === 'percent') && left && value !== '' && value !== null && value !== undefined ? fromInput(f, value, currency, values) : null;
  const shownErrors = errors?.length ? errors : read?.error ? [read.error] : null;
  errors = shownErrors;
  const understood = !compact && read && !read.error && read.value !== null ? (unit === 'money' ? formatMoney(read.value, currency, ctx.locale) : formatPercent(read.value, ctx.locale)) : null;
  const hint = compact
    ? null
    : unit === 'money'
      ? `${t('form.moneyHint', { currency: currency || 'none', digits: currencyDigits(currency) })}${understood ? ` ${t('form.readAs', { value: understood })}` : ''}`
      : unit === 'percent'
        ? `${t('form.percentHint')}${understood ? ` ${t('form.readAs', { value: understood })}` : ''}`
        : f.help ?? (f.description && !f.unit && f.description.length < 120 ? f.description : null);
  const described = [hint ? hintId : '', errors?.length ? errId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-invalid': errors?.length ? 'true' : undefined, 'aria-describedby': described, disabled: locked, required: f.required };
  const name = label ?? f.label;
  const labelEl = compact ? html`<label for=${id} class="visually-hidden">${name}</label>` : html`<label for=${id}>${f.label}${f.required ? html` <span class="required" aria-hidden="true">*</span>` : ''}</label>`;
  let control;
  switch (unit === 'money' || unit === 'percent' ? unit : f.kind) {
    case 'money':
    case 'percent':
      control = html`<div class="money-input"><input type="text" inputmode="decimal" autocomplete="off" ...${common} value=${value ?? ''}
        onInput=${(e) => {
          setLeft(false);
          onChange(e.currentTarget.value);
        }} onBlur=${() => setLeft(true)} />${!compact && html`<span class="unit" aria-hidden="true">${unit === 'percent' ? '%' : (currency ?? '')}</span>`}</div>`;
      break;
    case 'enum':
      control = html`<select ...${common} value=${value ?? ''} onChange=${(e) => onChange(e.currentTarget.value)}>
        ${f.default === undefined && html`<option value="">${f.required ? t('common.choose') : '—'}</option>`}
        ${f.values.map((v) => html`<option value=${v}>${choiceLabel(v, f)}</option>`)}
      </select>`;
      break;
    case 'boolean':
      return html`<div class="field bool-field"><input type="checkbox" ...${common} checked=${Boolean(value)} onChange=${(e) => onChange(e.currentTarget.checked)} /> <label for=${id}>${name}</label>
        ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}</div>`;
    case 'ref': {
      const t = ctx.desc.get(f.target);
      return html`<${RefPicker} ctx=${ctx} id=${id} label=${name} target=${t} value=${value ?? ''} required=${f.required} disabled=${locked} errors=${errors} titles=${titles} compact=${compact} onChange=${onChange} />`;
    }
    case 'textList':
      if (f.values) {
        return html`<fieldset class="field wide events" aria-describedby=${described}>
          <legend>${f.label}</legend>
          ${hint && html`<p class="hint" id=${hintId}>${hint}</p>`}
          <div class="event-grid">${f.values.map((v) => html`<label class="check-row"><input type="checkbox" checked=${(value ?? []).includes(v)} disabled=${locked}
            onChange=${(e) => onChange(e.currentTarget.checked ? [...(value ?? []), v] : (value ?? []).filter((x) => x !== v))} /> <span class="mono-label">${v}</span></label>`)}</div>
          ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
        </fieldset>`;
      }
      control = html`<textarea ...${common} value=${(value ?? []).join('\n')} onInput=${(e) => onChange(e.currentTarget.value.split('\n'))} />`;
      break;
    case 'text': {
      // A text naming a record of one resource by IRI (descriptor `refersTo`: a company's default tax) is picked as a reference is.
      const target = f.refersTo?.length === 1 ? ctx.desc.get(f.refersTo[0]) : null;
      if (target?.gql) {
        return html`<${RefPicker} ctx=${ctx} id=${id} label=${name} target=${target} value=${value ?? ''} required=${f.required} disabled=${locked} errors=${errors} titles=${titles} compact=${compact} onChange=${onChange} />`;
      }
      if (f.format === 'country') {
        control = html`<select ...${common} autocomplete=${f.autocomplete ?? 'country'} value=${value ?? ''} onChange=${(e) => onChange(e.currentTarget.value)}>
          <option value="">${f.required ? t('common.choose') : '—'}</option>
          ${countries(ctx.locale).map((c) => html`<option value=${c.code}>${c.name}</option>`)}
          ${value && !countries(ctx.locale).some((c) => c.code === value) && html`<option value=${value}>${value}</option>`}
        </select>`;
        break;
      }
      control = f.multiline && !compact
        ? html`<textarea ...${common} rows="3" value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`
        : html`<input type=${f.format === 'email' ? 'email' : f.format === 'url' ? 'url' : f.autocomplete === 'tel' ? 'tel' : 'text'} ...${common} autocomplete=${f.autocomplete} maxlength=${f.max} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
      break;
    }
    case 'date':
      control = html`<input type="date" ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
      break;
    case 'timestamp':
      control = html`<input type="datetime-local" ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
      break;
    default:
      control = html`<input type="text" inputmode=${f.kind === 'integer' ? 'numeric' : 'decimal'} ...${common} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />`;
  }
  return html`<div class=${`field${f.multiline && !compact ? ' wide' : ''}`}>
    ${labelEl}
    ${hint && html`<p class="hint" id=${hintId}>${hint}</p>`}
    ${control}
    ${locked && lockedHint && !compact && html`<p class="hint">${t('form.locked')}</p>`}
    ${errors?.length ? html`<p class="field-error" id=${errId}>${errors.join(' ')}</p>` : ''}
  </div>`;
}


/** Lines of a record: added, removed and moved; each member a labelled input. */
function LineEditor({ ctx, f, lines, currency, company, totals, locked, errors, titles, onChange }) {
  const members = useMemo(() => lineFields(ctx.desc, f), [ctx.desc, f]);
  // The word for a row in sentences ("Add line", "Remove contact 1"), with its gender where the language asks it.
  const noun = useMemo(() => {
    const target = f.nested && ctx.desc.get(f.target);
    return target ? nounOf(target) : { one: t('form.line'), many: t('form.lines'), gender: 'f', elided: 'no' };
  }, [ctx.desc, f]);
  const one = noun.one;
  // What a row changes goes through these, the same functions at every render (they read the
  // lines of the latest one), so that typing in one line renders that line, not all of them.
  const latest = useRef(null);
  latest.current = { lines, onChange };
  const actions = useRef(null);
  actions.current ??= {
    set: (i, name, v) => latest.current.onChange(latest.current.lines.map((l, j) => (j === i ? { ...l, [name]: v } : l))),
    move: (i, d) => {
      const next = [...latest.current.lines];
      [next[i], next[i + d]] = [next[i + d], next[i]];
      latest.current.onChange(next);
    },
    remove: (i) => latest.current.onChange(latest.current.lines.filter((_, j) => j !== i)),
  };
  const span = members.length + (totals ? 3 : 2);
  return html`<fieldset class="lines" disabled=${locked}>
    <legend>${f.label}</legend>
    ${locked && html`<p class="hint">${t('form.locked')}</p>`}
    <div class="table-wrap"><table class="table line-table">
      <thead><tr><th scope="col">#</th>${members.map((m) => html`<th scope="col">${m.label}${m.kind === 'money' && currency ? ` (${currency})` : ''}</th>`)}${totals && html`<th scope="col" class="num">${t('form.amount')}</th>`}<th scope="col"><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>
        ${lines.length === 0 && html`<tr><td colspan=${span} class="empty">${t('form.noLines', noun)}</td></tr>`}
        ${lines.map(
          (line, i) =>
            html`<${LineRow} ctx=${ctx} f=${f} members=${members} one=${one} noun=${noun} line=${line} i=${i} last=${i === lines.length - 1} currency=${currency} titles=${titles} errors=${errors[i] ?? NO_ERRORS}
              totalled=${Boolean(totals)} total=${totals ? totals[i] : null} span=${span} actions=${actions.current} />`,
        )}
      </tbody>
    </table></div>
    <button type="button" class="btn" onClick=${() => onChange([...lines, emptyLine(ctx, f, currency, company)])}>${t('form.addLine', noun)}</button>
  </fieldset>`;
}

const NO_ERRORS = Object.freeze({});

/** One line of the editor: rendered again only when one of its own props changes. */
class LineRow extends Component {
  shouldComponentUpdate(next) {
    for (const k in next) if (next[k] !== this.props[k]) return true;
    return false;
  }

  render({ ctx, f, members, one, noun, line, i, last, currency, titles, errors, totalled, total, span, actions }) {
    return html`<tr>
        <td data-label=${f.nested ? `${one[0].toUpperCase()}${one.slice(1)}` : t('form.lineNumber')}>${i + 1}</td>
        ${members.map((m) => html`<td data-label=${`${m.label}${m.kind === 'money' && currency ? ` (${currency})` : ''}`}><${Input} ctx=${ctx} f=${m} idPrefix=${`${f.name}-${i}`} compact=${true} label=${t('form.lineMember', { label: m.label, one, n: i + 1 })} value=${line[m.name]} values=${line} currency=${currency} errors=${errors[m.name]} titles=${titles} onChange=${(v) => actions.set(i, m.name, v)} /></td>`)}
        ${totalled && html`<td class="num line-total" data-label=${t('form.amount')} data-testid=${`line-total-${i + 1}`}>${total === null || total === undefined ? '—' : formatMoney(total, currency, ctx.locale)}</td>`}
        <td class="line-actions">
          ${!f.nested && html`<button type="button" class="btn small ghost" aria-label=${t('form.moveUp', { ...noun, n: i + 1 })} disabled=${i === 0} onClick=${() => actions.move(i, -1)}>↑</button>
          <button type="button" class="btn small ghost" aria-label=${t('form.moveDown', { ...noun, n: i + 1 })} disabled=${last} onClick=${() => actions.move(i, 1)}>↓</button>`}
          <button type="button" class="btn small ghost" aria-label=${t('form.removeLine', { ...noun, n: i + 1 })} onClick=${() => actions.remove(i)}>${t('form.remove')}</button>
        </td>
      </tr>
      ${errors._ && html`<tr><td colspan=${span}><p class="field-error">${errors._.join(' ')}</p></td></tr>`}`;
  }
}
