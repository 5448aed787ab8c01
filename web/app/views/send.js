// "Send" as one action (CONTRACT §20): the dialog of an operation whose description registers the
// view `send` — a collection POST that takes the same input as its resource's create and answers
// what that create would send ({to, cc, bcc, subject, body, attachments, offered}), writing
// nothing. The record page offers it for a record that a reference field of that resource may name
// (`refersTo`) and that meets the operation's `when`. The dialog asks the operation once with the
// record alone (the recipients, subject and body it prefills), lists what may be attached (all
// checked), shows the preview of what will be sent as it is edited, and "Send" creates the record.
// Subject and body left as the preview made them are not sent: the create fills the template in
// itself (and makes what the template links to); edited, they are sent as written.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { t } from '../lib.js';
import { Dialog } from './dialog.js';
import { rest } from '../api.js';

const lines = (text) => text.split(/[\n,;]+/).map((s) => s.trim()).filter(Boolean);
const attachmentLabel = (kind) => t('send.attachment', { kind });

export function SendDialog({ ctx, x, op, field, iri, title, onClose, onSent }) {
  const labelOf = (name, fallback) => x.fields.find((f) => f.name === name)?.label ?? fallback;
  const [form, setForm] = useState(null);
  // The template's subject and body as first rendered: sent as null (the template) while unchanged.
  const initial = useRef(null);
  const [preview, setPreview] = useState(null);
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);

  const inputOf = (f) => ({
    [field]: iri,
    to: lines(f.to),
    cc: lines(f.cc),
    subject: f.subject === initial.current.subject ? null : f.subject,
    body: f.body === initial.current.body ? null : f.body,
    attach: f.attach,
  });

  // First: what the record alone would send (the client's contacts, the company's template).
  useEffect(() => {
    rest(`${x.iri}/${op.path}`, { method: 'POST', body: { [field]: iri } })
      .then((p) => {
        initial.current = { subject: p.subject, body: p.body };
        setForm({ to: p.to.join('\n'), cc: p.cc.join(', '), subject: p.subject, body: p.body, attach: [...p.offered], offered: p.offered });
      })
      .catch((e) => setProblem(e));
  }, [iri]);

  // Then the preview follows the form, a moment after typing stops.
  useEffect(() => {
    if (!form) return undefined;
    let stale = false;
    const timer = setTimeout(() => {
      rest(`${x.iri}/${op.path}`, { method: 'POST', body: inputOf(form) })
        .then((p) => {
          if (stale) return;
          setPreview(p);
          setProblem(null);
        })
        .catch((e) => {
          if (stale) return;
          setPreview(null);
          setProblem(e);
        });
    }, 250);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [form]);

  async function send() {
    setBusy(true);
    setProblem(null);
    try {
      const made = await rest(x.iri, { method: 'POST', body: inputOf(form) });
      onSent(made);
    } catch (e) {
      setProblem(e);
      setBusy(false);
    }
  }

  const set = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  const toggle = (kind) => (e) => setForm({ ...form, attach: e.currentTarget.checked ? form.offered.filter((k) => k === kind || form.attach.includes(k)) : form.attach.filter((k) => k !== kind) });
  const errorOf = (name) => (problem?.violations ?? []).filter((v) => v.propertyPath === name || String(v.propertyPath).startsWith(`${name}[`)).map((v) => v.message);
  const fieldError = (name) => {
    const es = errorOf(name);
    return es.length ? html`<p class="field-error" id=${`send-${name}-error`}>${es.join(' ')}</p>` : '';
  };
  const described = (name) => (errorOf(name).length ? `send-${name}-error` : undefined);
  const otherProblem = problem && !['to', 'cc', 'subject', 'body', 'attach'].some((n) => errorOf(n).length);

  return html`<${Dialog} title=${t('send.title', { label: op.label ?? t('send.send'), title })} wide=${true} closeLabel=${t('common.close')} onClose=${onClose}>
    ${!form && !problem && html`<p role="status">${t('send.preparing')}</p>`}
    ${otherProblem && html`<p class="alert" role="alert">${problem.message}</p>`}
    ${form &&
    html`<div class="send-grid">
      <form class="send-form" onSubmit=${(e) => e.preventDefault()}>
        <div class="field">
          <label for="send-to">${labelOf('to', t('send.to'))}</label>
          <textarea id="send-to" rows="2" aria-describedby=${['send-to-hint', described('to')].filter(Boolean).join(' ')} aria-invalid=${errorOf('to').length > 0} value=${form.to} onInput=${set('to')}></textarea>
          <p class="hint" id="send-to-hint">${t('send.toHint')}</p>
          ${fieldError('to')}
        </div>
        <div class="field">
          <label for="send-cc">${labelOf('cc', t('send.cc'))}</label>
          <input id="send-cc" type="text" aria-describedby=${described('cc')} aria-invalid=${errorOf('cc').length > 0} value=${form.cc} onInput=${set('cc')} />
          ${fieldError('cc')}
        </div>
        <div class="field">
          <label for="send-subject">${labelOf('subject', t('send.subject'))}</label>
          <input id="send-subject" type="text" aria-describedby=${described('subject')} aria-invalid=${errorOf('subject').length > 0} value=${form.subject} onInput=${set('subject')} />
          ${fieldError('subject')}
        </div>
        <div class="field">
          <label for="send-body">${labelOf('body', t('send.message'))}</label>
          <textarea id="send-body" rows="7" aria-describedby=${['send-body-hint', described('body')].filter(Boolean).join(' ')} value=${form.body} onInput=${set('body')}></textarea>
          <p class="hint" id="send-body-hint">${t('send.bodyHint')}</p>
          ${fieldError('body')}
        </div>
        <fieldset class="field" aria-describedby=${described('attach')}>
          <legend>${labelOf('attach', t('send.attach'))}</legend>
          ${form.offered.map(
            (kind) => html`<label class="check-row"><input type="checkbox" checked=${form.attach.includes(kind)} onChange=${toggle(kind)} /> ${attachmentLabel(kind)}</label>`,
          )}
          ${fieldError('attach')}
        </fieldset>
      </form>
      <section class="send-preview" aria-labelledby="send-preview-title" aria-live="polite" data-testid="send-preview">
        <h3 id="send-preview-title">${t('send.preview')}</h3>
        ${preview
          ? html`<dl class="record">
                <div><dt>${labelOf('to', t('send.to'))}</dt><dd data-preview="to">${preview.to.join(', ')}</dd></div>
                ${preview.cc.length > 0 && html`<div><dt>${labelOf('cc', t('send.cc'))}</dt><dd>${preview.cc.join(', ')}</dd></div>`}
                <div><dt>${labelOf('subject', t('send.subject'))}</dt><dd data-preview="subject">${preview.subject}</dd></div>
                <div><dt>${t('send.attached')}</dt><dd data-preview="attachments">${preview.attachments.length ? preview.attachments.map((a) => a.filename).join(', ') : t('send.nothing')}</dd></div>
              </dl>
              <pre class="send-body" data-preview="body" tabindex="0" aria-label=${t('send.asSent')}>${preview.body}</pre>`
          : html`<p class="hint">${problem ? t('send.correct') : t('send.rendering')}</p>`}
      </section>
    </div>
    <div class="dialog-actions">
      <button type="button" class="btn" onClick=${onClose}>${t('common.notNow')}</button>
      <button type="button" class="btn primary" disabled=${busy || !preview} onClick=${send}>${busy ? t('send.sending') : op.label ?? t('send.send')}</button>
    </div>`}
  <//>`;
}
