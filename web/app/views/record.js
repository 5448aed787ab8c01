// A record's page: its fields, lines and related records, its state changes and operations.
import { useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { Dialog } from './dialog.js';
import { download, graphql, rest } from '../api.js';
import { OperationPanel, Related } from './related.js';
import { actionViews } from './index.js';
import { can, choiceLabel, deletable as mayDelete, lineFields, meets, operationsFor, pageOf, titleOf, titlesQuery, transitionAction, transitionsOf, writes } from '../lib.js';
import { go, Loading, Problem, useLoad, Value } from './common.js';
import { inSentence, nounOf, t } from '../lib.js';

// ---- records --------------------------------------------------------------------------------

/** The IRIs a record refers to (its references and its lines'). */
function referencesOf(ctx, r, rec) {
  const out = new Set();
  for (const f of r.fields) {
    if (f.kind === 'ref' && typeof rec[f.name] === 'string') out.add(rec[f.name]);
    if ((f.kind === 'children' && f.embedded) || f.kind === 'list') {
      const members = lineFields(ctx.desc, f);
      for (const line of rec[f.name] ?? []) for (const m of members) if (m.kind === 'ref' && typeof line[m.name] === 'string') out.add(line[m.name]);
    }
  }
  return [...out];
}

export async function loadRecord(ctx, r, id) {
  const rec = await rest(`${r.iri}/${encodeURIComponent(id)}`);
  const titles = new Map();
  const iris = referencesOf(ctx, r, rec);
  const q = titlesQuery(ctx.desc, iris);
  if (q) {
    const data = await graphql(q).catch(() => ({}));
    iris.forEach((iri, i) => {
      const node = data[`r${i}`];
      const t = ctx.desc.ofIri(iri);
      if (node && t) titles.set(iri, titleOf(t, node));
    });
  }
  return { rec, titles };
}

export function RecordView({ ctx, r, id }) {
  const { data, error, loading, reload } = useLoad(() => loadRecord(ctx, r, id), id);
  const [problem, setProblem] = useState(null);
  const [notice, setNotice] = useState(null);
  const [busy, setBusy] = useState(false);
  // The action waiting for its confirmation: { title, text, label, run } (delete, and what cannot be undone).
  const [confirming, setConfirming] = useState(null);
  // The action view open: `send` { View, x, op, f }, or an item operation's (`credit`) { View, op, item }.
  const [acting, setActing] = useState(null);
  if (loading && !data) return html`<${Loading} />`;
  if (error) return html`<h1>${r.singular}</h1><${Problem} error=${error} />`;
  const { rec, titles } = data;
  const iri = `${r.iri}/${id}`;
  const mayWrite = writes(r, ctx.role);
  const state = r.states ? rec[r.states.field] : null;
  // What the description says the API would refuse (a state's targets, less those its guards
  // refuse for this record; operations whose `when` it does not meet) is not offered.
  const targets = r.states && mayWrite && can(r, 'update') ? transitionsOf(r, rec) : [];
  const deletable = can(r, 'delete') && mayWrite && mayDelete(r, rec);
  const editable = can(r, 'update') && mayWrite && !(r.states?.editable?.[state] && r.states.editable[state].length === 0);
  const ops = operationsFor(r, rec, ctx.role);
  const name = titleOf(r, rec);
  /** Runs `run`, after a confirmation naming its consequence when it has one. */
  const ask = (o) => (o.text ? setConfirming(o) : o.run());

  async function act(fn, done) {
    setBusy(true);
    setProblem(null);
    setNotice(null);
    try {
      const out = await fn();
      if (done) done(out);
    } catch (e) {
      setProblem(e);
    } finally {
      setBusy(false);
    }
  }
  const transition = (to) => act(() => rest(iri, { method: 'PATCH', body: { [r.states.field]: to } }), () => {
    setNotice(t('record.nowState', { name: r.singular, state: inSentence(choiceLabel(to, r.byField.get(r.states.field))) }));
    reload();
  });
  /** After an operation: the record it made, when of another resource; else this one again. */
  const landed = (op, out) => {
    const target = op.resource && ctx.desc.get(op.resource);
    const made = out && (out['@id'] ?? (target && out.id ? `${target.iri}/${out.id}` : null));
    if (target && made && target.name !== r.name) go(pageOf(made));
    else {
      setNotice(t('record.done', { label: op.label ?? choiceLabel(op.name) }));
      reload();
    }
  };
  const operate = (op) => act(() => rest(`${iri}/${op.path}`, { method: 'POST', body: {} }), (out) => landed(op, out));
  const remove = () => act(() => rest(iri, { method: 'DELETE' }), () => go(r.path));

  // A document (its descriptor declares its totals) reads as one: its details, its lines, then its
  // tax groups and totals with what was paid and what is left; empty read-only fields are left out.
  const spec = r.totals;
  const summed = spec ? r.fields.filter((f) => f.kind === 'money' && f.readOnly && !spec.fields.includes(f.name)) : [];
  const inTotals = new Set(spec ? [...spec.fields, spec.groups, ...summed.map((f) => f.name)] : []);
  const shown = r.fields.filter((f) => f.kind !== 'children' && f.kind !== 'list' && f.name !== r.states?.field && !inTotals.has(f.name) && !(spec && f.readOnly && (rec[f.name] === null || rec[f.name] === undefined || rec[f.name] === '')));
  const lines = r.fields.filter((f) => ((f.kind === 'children' && f.embedded) || f.kind === 'list') && !inTotals.has(f.name));
  const related = r.fields.filter((f) => f.kind === 'children' && !f.embedded && ctx.desc.get(f.target)?.byField.get(f.via)?.filter && !ctx.desc.get(f.target)?.owner);
  // Records of other resources that name this one by IRI (`refersTo`: an e-mail sending it, a
  // client link to it), offered as a create prefilled with this record.
  const referring = ctx.desc.resources.flatMap((x) =>
    can(x, 'create') && writes(x, ctx.role) ? x.fields.filter((f) => f.refersTo?.includes(r.name) && !f.readOnly).map((f) => ({ x, f })) : [],
  );
  // Actions with a view of their own (views/index.js): a collection operation of such a resource
  // that registers one ("Send", with its preview), offered where its `when` holds for this record;
  // it takes the place of that resource's plain "New …" link.
  const viewed = referring.flatMap(({ x, f }) =>
    x.operations.filter((op) => op.on === 'collection' && op.view && actionViews[op.view] && op.roles.includes(ctx.role)).map((op) => ({ x, f, op })),
  );
  const actions = viewed.filter(({ op }) => meets(rec, op.when));
  // Item operations that ask for their input in a view of their own ("Credit": what to credit).
  const asking = r.operations.filter((op) => op.on === 'item' && op.method === 'POST' && op.input && op.view && actionViews[op.view] && op.roles.includes(ctx.role) && meets(rec, op.when));
  return html`<nav class="crumbs" aria-label=${t('common.breadcrumb')}><ol><li><a href=${r.path}>${r.label}</a></li><li><span aria-current="page">${titleOf(r, rec)}</span></li></ol></nav>
    <div class="page-head">
      <h1>${r.singular} ${titleOf(r, rec) !== `${r.singular} ${String(rec.id).slice(-6)}` ? titleOf(r, rec) : ''} ${state && html`<span class=${`badge badge-${state}`}>${choiceLabel(state, r.byField.get(r.states.field))}</span>`}</h1>
    </div>
    <div class="actions" role="group" aria-label=${t('common.actions')}>
      ${editable && html`<a class="btn" href=${`${r.path}/${id}/edit`}>${t('record.editButton')}</a>`}
      ${targets.map((to) => {
        const a = transitionAction(r, to);
        return html`<button type="button" class="btn" disabled=${busy} onClick=${() => ask({ title: t('record.askTitle', { label: a.label, name }), text: a.confirm, label: a.label, run: () => transition(to) })}>${a.label}</button>`;
      })}
      ${r.documents.map((d) => html`<button type="button" class="btn" disabled=${busy} onClick=${() => act(() => download(iri, d.mediaType, `${titleOf(r, rec)}.${d.extension}`))}>${t('record.download', { kind: d.extension === 'pdf' ? 'pdf' : d.mediaType.includes('ubl') ? 'ubl' : 'other', ext: d.extension.toUpperCase() })}</button>`)}
      ${ops.map((op) => {
        const label = op.label ?? choiceLabel(op.name.replace(/([A-Z])/g, ' $1').toLowerCase());
        return html`<button type="button" class="btn" disabled=${busy} title=${op.summary} onClick=${() => ask({ title: t('record.askTitle', { label, name }), text: op.confirm, label, run: () => operate(op) })}>${label}</button>`;
      })}
      ${asking.map((op) => html`<button type="button" class="btn" disabled=${busy} title=${op.summary} onClick=${() => act(() => actionViews[op.view]().then((View) => setActing({ View, op, item: true })))}>${op.label ?? choiceLabel(op.name)}</button>`)}
      ${actions.map(({ x, f, op }) => html`<button type="button" class="btn primary" disabled=${busy} onClick=${() => act(() => actionViews[op.view]().then((View) => setActing({ View, x, f, op })))}>${op.label ?? choiceLabel(op.name)}</button>`)}
      ${referring.filter(({ x }) => !viewed.some((v) => v.x === x)).map(({ x, f }) => html`<a class="btn" href=${`${x.path}/new?${new URLSearchParams({ [f.name]: iri })}`}>${t('record.new', nounOf(x))}</a>`)}
      ${deletable && html`<button type="button" class="btn danger" disabled=${busy} onClick=${() => setConfirming({ title: t('record.deleteTitle', nounOf(r)), text: t('record.deleteText', { name }), label: t('record.delete'), danger: true, run: remove })}>${t('record.delete')}</button>`}
    </div>
    ${problem && html`<p class="alert" role="alert">${problem.message}</p>`}
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    <section class="panel pad" aria-label=${t('record.details')}>
      <dl class="record">
        ${shown.map((f) => html`<div><dt>${f.label}</dt><dd data-field=${f.name}><${Value} ctx=${ctx} r=${r} f=${f} v=${rec[f.name]} rec=${rec} titles=${titles} /></dd></div>`)}
      </dl>
    </section>
    ${lines.map((f) => html`<${LinesTable} ctx=${ctx} r=${r} f=${f} rec=${rec} titles=${titles} />`)}
    ${spec &&
    html`<section class="panel pad document-totals" aria-labelledby="record-totals">
      <h2 id="record-totals">${t('record.totals')}</h2>
      ${(rec[spec.groups] ?? []).length > 0 && html`<${LinesTable} ctx=${ctx} r=${r} f=${r.byField.get(spec.groups)} rec=${rec} titles=${titles} bare=${true} />`}
      <dl class="totals">
        ${[...spec.fields.map((n) => r.byField.get(n)), ...summed].filter(Boolean).map(
          (f) => html`<div class=${f.name === spec.fields.at(-1) ? 'grand' : ''}><dt>${f.label}</dt><dd class="num" data-field=${f.name}><${Value} ctx=${ctx} r=${r} f=${f} v=${rec[f.name]} rec=${rec} /></dd></div>`,
        )}
      </dl>
    </section>`}
    ${r.operations.filter((op) => op.panel && op.on === 'item' && op.method === 'GET' && !op.params && op.roles.includes(ctx.role)).map((op) => html`<${OperationPanel} ctx=${ctx} op=${op} iri=${iri} />`)}
    ${related.map((f) => html`<${Related} ctx=${ctx} t=${ctx.desc.get(f.target)} via=${f.via} iri=${iri} label=${f.label} mayAdd=${meets(rec, f.addWhen)} />`)}
    ${ctx.desc.resources
      .flatMap((x) => (x.rest.includes('list') ? x.fields.filter((f) => f.refersTo?.includes(r.name) && f.filter).map((f) => ({ x, f })) : []))
      .map(({ x, f }) => html`<${Related} ctx=${ctx} t=${x} via=${f.name} iri=${iri} label=${x.label} mayAdd=${false} />`)}
    ${acting?.item &&
    html`<${acting.View} ctx=${ctx} r=${r} rec=${rec} op=${acting.op} iri=${iri} title=${name} onClose=${() => setActing(null)} onDone=${(out) => {
      setActing(null);
      landed(acting.op, out);
    }} />`}
    ${acting && !acting.item &&
    html`<${acting.View} ctx=${ctx} x=${acting.x} op=${acting.op} field=${acting.f.name} iri=${iri} title=${name} onClose=${() => setActing(null)} onSent=${(made) => {
      setActing(null);
      setNotice(made?.to?.length ? t('record.doneTo', { label: acting.op.label ?? choiceLabel(acting.op.name), to: made.to.join(', ') }) : t('record.done', { label: acting.op.label ?? choiceLabel(acting.op.name) }));
      reload();
    }} />`}
    ${confirming &&
    html`<${Dialog} title=${confirming.title} closeLabel=${t('common.close')} onClose=${() => setConfirming(null)}>
      <p>${confirming.text}</p>
      <div class="dialog-actions">
        <button type="button" class="btn" data-autofocus onClick=${() => setConfirming(null)}>${t('common.notNow')}</button>
        <button type="button" class=${confirming.danger ? 'btn danger' : 'btn primary'} disabled=${busy} onClick=${() => {
          const run = confirming.run;
          setConfirming(null);
          run();
        }}>${confirming.label}</button>
      </div>
    <//>`}`;
}

function LinesTable({ ctx, r, f, rec, titles, bare = false }) {
  const child = f.kind === 'children' ? ctx.desc.get(f.target) : null;
  const members = child ? child.fields.filter((c) => c.name !== f.via && c.name !== f.orderBy && c.kind !== 'children' && c.kind !== 'list') : f.of;
  // The members a person typed, and the first computed amount (a line's total); the other
  // read-only members are the engine's bookkeeping, shown on nothing but the API.
  const amount = members.find((m) => m.readOnly && m.kind === 'money');
  const shown = members.filter((m) => !m.readOnly || m === amount);
  const items = rec[f.name] ?? [];
  if (bare) {
    return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${f.label}><table class="table compact">
      <caption class="visually-hidden">${f.label}</caption>
      <thead><tr>${shown.map((m) => html`<th scope="col" class="num">${m.label}</th>`)}</tr></thead>
      <tbody>${items.map((line) => html`<tr>${shown.map((m) => html`<td class="num" data-label=${m.label}><${Value} ctx=${ctx} r=${r} f=${m} v=${line[m.name]} rec=${rec} /></td>`)}</tr>`)}</tbody>
    </table></div>`;
  }
  return html`<section class="panel pad" aria-labelledby=${`lines-${f.name}`}>
    <h2 id=${`lines-${f.name}`}>${f.label}</h2>
    <div class="table-wrap"><table class="table">
      <thead><tr>${shown.map((m) => html`<th scope="col" class=${m.kind === 'money' ? 'num' : ''}>${m.label}</th>`)}</tr></thead>
      <tbody>
        ${items.length === 0 && html`<tr><td colspan=${shown.length} class="empty">${t('record.none')}</td></tr>`}
        ${items.map((line) => html`<tr>${shown.map((m) => html`<td class=${m.kind === 'money' ? 'num' : ''} data-label=${m.label}><${Value} ctx=${ctx} r=${r} f=${m} v=${line[m.name]} rec=${rec} titles=${titles} /></td>`)}</tr>`)}
      </tbody>
    </table></div>
  </section>`;
}
