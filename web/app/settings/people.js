// Settings › People (CONTRACT §2, §20): the people of the company with their roles (admins change a
// role or remove a person; the last admin can be neither demoted nor removed, which the server
// refuses with a 422 shown here), the invitations (invite by e-mail with a role, list, revoke;
// while e-mail is held the link is shown to the admin to hand over), and one's own password.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { postForm, rest, restPage } from '../api.js';
import { t } from '../lib.js';
import { Banner, byField, Confirm, CopyValue, dateTime, Dialog } from './ui.js';

// One's password is the sign-in's (a form post); people and invitations are the description's resources.
const PASSWORD = '/profile/password';
const ROLES = ['admin', 'member', 'viewer'];
const COLUMNS = ['name', 'email', 'role', 'since'];
const INV_COLUMNS = ['email', 'role', 'status', 'expires'];

/** A role in words (the page's words are messages of the catalogue, `settings.people.*`). */
const roleName = (role) => t('settings.people.roleName', { role });
const strong = (text) => html`<strong>${text}</strong>`;

export function PeoplePage({ ctx }) {
  // People and invitations are resources of the description: their addresses are its own.
  const membersIri = ctx.desc.get('Member').iri;
  const invitationsIri = ctx.desc.get('Invitation').iri;
  const admin = ctx.role === 'admin';
  const [members, setMembers] = useState(null);
  const [invitations, setInvitations] = useState(null);
  const [message, setMessage] = useState(null);
  const [dialog, setDialog] = useState(null);
  const [reloads, setReloads] = useState(0);
  const reload = () => setReloads((n) => n + 1);
  // A refusal's reason: its violation (the last admin), else its message.
  const fail = (e) => setMessage({ kind: 'error', text: e.violations?.[0]?.message ?? e.message });
  useEffect(() => {
    restPage(`${membersIri}?itemsPerPage=100`).then((l) => setMembers(l.items), fail);
    restPage(`${invitationsIri}?itemsPerPage=100`).then((l) => setInvitations(l.items), fail);
  }, [reloads]);
  const nameOf = (member) => member.name || member.email;

  async function setRole(member, role) {
    try {
      await rest(`${membersIri}/${member.id}`, { method: 'PATCH', body: { role } });
      setMessage({ kind: 'success', text: t('settings.people.roleSaved', { name: nameOf(member), role }) });
    } catch (e) {
      fail(e);
    }
    reload();
  }
  async function remove(member) {
    setDialog(null);
    try {
      await rest(`${membersIri}/${member.id}`, { method: 'DELETE' });
      setMessage({ kind: 'success', text: t('settings.people.removed', { name: nameOf(member) }) });
    } catch (e) {
      fail(e);
    }
    reload();
  }
  async function revoke(inv) {
    setDialog(null);
    try {
      await rest(`${invitationsIri}/${inv.id}`, { method: 'DELETE' });
      setMessage({ kind: 'success', text: t('settings.people.revoked', { email: inv.email }) });
    } catch (e) {
      fail(e);
    }
    reload();
  }

  return html`<div class="page-head">
      <div><h1>${t('settings.people.title')}</h1><p class="muted lead">${t('settings.people.lead', { company: strong(ctx.company?.name ?? '') })}</p></div>
      ${admin && html`<button type="button" class="btn primary" onClick=${() => setDialog({ kind: 'invite' })}>${t('settings.people.invite')}</button>`}
    </div>
    ${!admin && html`<p class="notice" role="status">${t('settings.people.readOnly', { company: ctx.company?.name ?? '' })}</p>`}
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <section class="panel" aria-labelledby="members-title">
      <div class="panel-head"><h2 id="members-title" class="panel-title">${t('settings.people.members')} ${members && html`<span class="count">${members.length}</span>`}</h2></div>
      <p class="hint pad">${t('settings.people.roleHelp')}</p>
      ${!members
        ? html`<p class="pad muted" aria-busy="true">${t('settings.people.loading')}</p>`
        : html`<div class="table-wrap"><table class="table members-table">
          <caption class="visually-hidden">${t('settings.people.members')}</caption>
          <thead><tr>${COLUMNS.map((c) => html`<th scope="col">${t(`settings.people.column.${c}`)}</th>`)}${admin && html`<th scope="col"><span class="visually-hidden">${t('settings.people.actions')}</span></th>`}</tr></thead>
          <tbody>
            ${members.map((member) => html`<tr key=${member.id} data-member=${member.email}>
              <td data-label=${t('settings.people.column.name')} class="name">${member.name || '—'} ${member.email === ctx.user?.email && html`<span class="muted small">${t('settings.people.you')}</span>`}</td>
              <td data-label=${t('settings.people.column.email')}>${member.email}</td>
              <td data-label=${t('settings.people.column.role')}>
                ${admin
                  ? html`<select aria-label=${t('settings.people.roleOf', { name: nameOf(member) })} value=${member.role} onChange=${(e) => setRole(member, e.currentTarget.value)}>${ROLES.map((r) => html`<option value=${r}>${roleName(r)}</option>`)}</select>`
                  : roleName(member.role)}
              </td>
              <td data-label=${t('settings.people.column.since')}>${member.createdAt && html`<time datetime=${member.createdAt}>${dateTime(member.createdAt, ctx.locale)}</time>`}</td>
              ${admin && html`<td class="actions"><button type="button" class="btn small danger" aria-label=${t('settings.people.removeOf', { name: nameOf(member) })} onClick=${() => setDialog({ kind: 'remove', member })}>${t('settings.people.remove')}</button></td>`}
            </tr>`)}
          </tbody>
        </table></div>`}
    </section>
    <section class="panel" aria-labelledby="invitations-title">
      <div class="panel-head"><h2 id="invitations-title" class="panel-title">${t('settings.people.invitations')} ${invitations && html`<span class="count">${invitations.length}</span>`}</h2></div>
      ${!invitations && html`<p class="pad muted" aria-busy="true">${t('settings.people.loading')}</p>`}
      ${invitations?.length === 0 && html`<p class="pad muted">${t('settings.people.noInvitations')}</p>`}
      ${invitations?.length > 0 &&
      html`<div class="table-wrap"><table class="table invitations-table">
        <caption class="visually-hidden">${t('settings.people.invitations')}</caption>
        <thead><tr>${INV_COLUMNS.map((c) => html`<th scope="col">${t(`settings.people.invColumn.${c}`)}</th>`)}${admin && html`<th scope="col"><span class="visually-hidden">${t('settings.people.actions')}</span></th>`}</tr></thead>
        <tbody>
          ${invitations.map((inv) => html`<tr key=${inv.id} data-invitation=${inv.email}>
            <td data-label=${t('settings.people.invColumn.email')}>${inv.email}</td>
            <td data-label=${t('settings.people.invColumn.role')}>${roleName(inv.role)}</td>
            <td data-label=${t('settings.people.invColumn.status')}><span class=${`state ${inv.status === 'accepted' ? 'state-ok' : inv.status === 'expired' ? 'state-failed' : 'state-pending'}`}>${t('settings.people.status', { status: inv.status })}</span></td>
            <td data-label=${t('settings.people.invColumn.expires')}>${inv.expiresAt && html`<time datetime=${inv.expiresAt}>${dateTime(inv.expiresAt, ctx.locale)}</time>`}</td>
            ${admin && html`<td class="actions">${inv.status === 'pending' && html`<button type="button" class="btn small danger" aria-label=${t('settings.people.revokeOf', { email: inv.email })} onClick=${() => setDialog({ kind: 'revoke', invitation: inv })}>${t('settings.people.revoke')}</button>`}</td>`}
          </tr>`)}
        </tbody>
      </table></div>`}
    </section>
    <${PasswordForm} ctx=${ctx} />
    ${dialog?.kind === 'invite' && html`<${InviteDialog} iri=${invitationsIri} onClose=${() => setDialog(null)} onSent=${(inv) => {
      reload();
      if (inv.link) setDialog({ kind: 'link', invitation: inv });
      else {
        setDialog(null);
        setMessage({ kind: 'success', text: t('settings.people.invited', { email: inv.email }) });
      }
    }} />`}
    ${dialog?.kind === 'link' && html`<${LinkDialog} invitation=${dialog.invitation} onClose=${() => setDialog(null)} />`}
    ${dialog?.kind === 'remove' && html`<${Confirm} title=${t('settings.people.removeTitle', { name: nameOf(dialog.member) })} text=${t('settings.people.removeText', { name: nameOf(dialog.member) })} action=${t('settings.people.remove')} cancel=${t('settings.people.cancel')} onConfirm=${() => remove(dialog.member)} onClose=${() => setDialog(null)} />`}
    ${dialog?.kind === 'revoke' && html`<${Confirm} title=${t('settings.people.revokeTitle')} text=${t('settings.people.revokeText', { email: dialog.invitation.email })} action=${t('settings.people.revoke')} cancel=${t('settings.people.cancel')} onConfirm=${() => revoke(dialog.invitation)} onClose=${() => setDialog(null)} />`}`;
}

function InviteDialog({ iri, onClose, onSent }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [errors, setErrors] = useState({});
  const [failure, setFailure] = useState('');
  const [busy, setBusy] = useState(false);
  async function send(e) {
    e.preventDefault();
    setBusy(true);
    setFailure('');
    try {
      onSent(await rest(iri, { method: 'POST', body: { email: email.trim(), role } }));
    } catch (err) {
      const found = byField(err);
      setErrors(found);
      setFailure(Object.keys(found).length ? '' : err.message);
      setBusy(false);
    }
  }
  return html`<${Dialog} title=${t('settings.people.inviteTitle')} onClose=${onClose}>
    <form onSubmit=${send} novalidate>
      <div class="field">
        <label for="invite-email">${t('settings.people.email')}</label>
        <input id="invite-email" type="email" autocomplete="off" data-autofocus value=${email} aria-invalid=${errors.email ? 'true' : undefined}
          aria-describedby=${errors.email ? 'invite-email-error' : undefined} onInput=${(e) => setEmail(e.currentTarget.value)} />
        ${errors.email && html`<p class="field-error" id="invite-email-error">${errors.email}</p>`}
      </div>
      <div class="field">
        <label for="invite-role">${t('settings.people.role')}</label>
        <select id="invite-role" value=${role} onChange=${(e) => setRole(e.currentTarget.value)}>${ROLES.map((r) => html`<option value=${r}>${roleName(r)}</option>`)}</select>
        <p class="hint">${t('settings.people.roleHelp')}</p>
        ${errors.role && html`<p class="field-error">${errors.role}</p>`}
      </div>
      ${failure && html`<p class="alert" role="alert">${failure}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${t('settings.people.cancel')}</button>
        <button type="submit" class="btn primary" disabled=${busy}>${busy ? t('settings.people.sending') : t('settings.people.send')}</button>
      </div>
    </form>
  <//>`;
}

/** While e-mail is held: the invitation's link, shown this once, to hand over. */
function LinkDialog({ invitation, onClose }) {
  const [note, setNote] = useState('');
  return html`<${Dialog} title=${t('settings.people.heldTitle')} onClose=${onClose}>
    <div class="warning" role="alert">${t('settings.people.held', { notSent: strong(t('settings.people.heldNotSent')), email: invitation.email })}</div>
    <${CopyValue} id="invitation-link" label=${t('settings.people.linkFor', { email: invitation.email })} value=${invitation.link} note=${note} setNote=${setNote} />
    <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${t('settings.people.done')}</button></div>
  <//>`;
}

function PasswordForm({ ctx }) {
  const [errors, setErrors] = useState({});
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const form = useRef(null);
  async function save(e) {
    e.preventDefault();
    const data = new FormData(form.current);
    setBusy(true);
    setMessage(null);
    try {
      await postForm(PASSWORD, { _csrf: ctx.csrf, current: String(data.get('current') ?? ''), password: String(data.get('password') ?? '') });
      form.current.reset();
      setErrors({});
      setMessage({ kind: 'success', text: t('settings.people.passwordSaved') });
    } catch (err) {
      const found = byField(err);
      setErrors(found);
      if (!Object.keys(found).length) setMessage({ kind: 'error', text: err.message });
      document.getElementById(found.current ? 'password-current' : 'password-new')?.focus();
    } finally {
      setBusy(false);
    }
  }
  const described = (id, hint) => [hint, errors[id === 'password-current' ? 'current' : 'password'] ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return html`<section class="panel pad" aria-labelledby="password-title">
    <h2 id="password-title" class="panel-title">${t('settings.people.password')}</h2>
    <p class="muted">${t('settings.people.passwordLead', { email: ctx.user?.email ?? '' })}</p>
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <form ref=${form} onSubmit=${save} novalidate>
      <input type="text" name="username" autocomplete="username" value=${ctx.user?.email ?? ''} hidden readonly />
      <div class="field-grid">
      <div class="field">
        <label for="password-current">${t('settings.people.current')}</label>
        <input id="password-current" name="current" type="password" autocomplete="current-password" aria-invalid=${errors.current ? 'true' : undefined} aria-describedby=${described('password-current')} />
        ${errors.current && html`<p class="field-error" id="password-current-error">${errors.current}</p>`}
      </div>
      <div class="field">
        <label for="password-new">${t('settings.people.next')}</label>
        <input id="password-new" name="password" type="password" autocomplete="new-password" minlength="8" aria-invalid=${errors.password ? 'true' : undefined} aria-describedby=${described('password-new', 'password-new-hint')} />
        <p class="hint" id="password-new-hint">${t('settings.people.nextHint')}</p>
        ${errors.password && html`<p class="field-error" id="password-new-error">${errors.password}</p>`}
      </div>
      </div>
      <div class="form-actions"><button type="submit" class="btn primary" disabled=${busy}>${t('settings.people.changePassword')}</button></div>
    </form>
  </section>`;
}
