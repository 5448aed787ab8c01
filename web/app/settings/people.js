// Settings › People (CONTRACT §2, §20): the people of the company with their roles (admins change a
// role or remove a person; the last admin can be neither demoted nor removed, which the server
// refuses with a 422 shown here), the invitations (invite by e-mail with a role, list, revoke;
// while e-mail is held the link is shown to the admin to hand over), and one's own password.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { postForm, rest, restPage } from '../api.js';
import { Banner, byField, Confirm, CopyValue, dateTime, Dialog, inLanguage } from './ui.js';

// People are served beside the model /app is described from.
const MEMBERS = '/api/members';
const INVITATIONS = '/api/invitations';
const PASSWORD = '/profile/password';
const ROLES = ['admin', 'member', 'viewer'];

/** The page's words in English; German and French below (ui.js inLanguage). */
const EN = {
  title: 'People',
  lead: (c) => html`The people who work in <strong>${c}</strong>, and their roles.`,
  readOnly: (c) => `Only an admin of ${c} can invite people or change roles.`,
  roles: { admin: 'Admin', member: 'Member', viewer: 'Viewer' },
  roleHelp: 'Admins do everything; members read and write the business records; viewers read only.',
  members: 'Members',
  columns: { name: 'Name', email: 'Email', role: 'Role', since: 'Since' },
  actions: 'Actions',
  you: '(you)',
  roleOf: (n) => `Role of ${n}`,
  remove: 'Remove',
  removeOf: (n) => `Remove ${n}`,
  removeTitle: (n) => `Remove ${n}?`,
  removeText: (n) => `${n} can no longer sign in to this company, and their API tokens for it are revoked.`,
  removed: (n) => `${n} is removed from the company.`,
  roleSaved: (n, r) => `${n} is now ${r.toLowerCase()}.`,
  invitations: 'Invitations',
  invite: 'Invite',
  inviteTitle: 'Invite someone',
  email: 'Email',
  role: 'Role',
  send: 'Send the invitation',
  sending: 'Sending…',
  invited: (e) => `Invitation sent to ${e}. The link works for 7 days, once.`,
  heldTitle: 'Hand over this link',
  held: (e) => html`<strong>E-mail is not being sent</strong> by this server: give this link to ${e} yourself. It is shown only this once, works for 7 days, once.`,
  linkFor: (e) => `Invitation link for ${e}`,
  done: 'Done',
  cancel: 'Cancel',
  noInvitations: 'No invitations.',
  invColumns: { email: 'Email', role: 'Role', status: 'Status', expires: 'Expires' },
  statuses: { pending: 'Pending', accepted: 'Accepted', expired: 'Expired' },
  revoke: 'Revoke',
  revokeOf: (e) => `Revoke the invitation of ${e}`,
  revokeTitle: 'Revoke the invitation?',
  revokeText: (e) => `The link sent to ${e} stops working.`,
  revoked: (e) => `The invitation of ${e} is revoked.`,
  loading: 'Loading…',
  password: 'Your password',
  passwordLead: (e) => `Change the password you sign in with as ${e}.`,
  current: 'Current password',
  next: 'New password',
  nextHint: 'At least 8 characters.',
  changePassword: 'Change the password',
  passwordSaved: 'Your password is changed.',
};
const T = inLanguage({
  en: EN,
  de: {
    title: 'Personen',
    lead: (c) => html`Die Personen, die in <strong>${c}</strong> arbeiten, und ihre Rollen.`,
    readOnly: (c) => `Nur ein Administrator von ${c} kann Personen einladen oder Rollen ändern.`,
    roles: { admin: 'Administrator', member: 'Mitglied', viewer: 'Betrachter' },
    roleHelp: 'Administratoren dürfen alles; Mitglieder lesen und schreiben die Geschäftsdaten; Betrachter lesen nur.',
    members: 'Mitglieder',
    columns: { name: 'Name', email: 'E-Mail', role: 'Rolle', since: 'Seit' },
    actions: 'Aktionen',
    you: '(Sie)',
    roleOf: (n) => `Rolle von ${n}`,
    remove: 'Entfernen',
    removeOf: (n) => `${n} entfernen`,
    removeTitle: (n) => `${n} entfernen?`,
    removeText: (n) => `${n} kann sich nicht mehr bei diesem Unternehmen anmelden, und die API-Tokens dafür werden widerrufen.`,
    removed: (n) => `${n} ist aus dem Unternehmen entfernt.`,
    roleSaved: (n, r) => `${n} ist jetzt ${r}.`,
    invitations: 'Einladungen',
    invite: 'Einladen',
    inviteTitle: 'Jemanden einladen',
    email: 'E-Mail',
    role: 'Rolle',
    send: 'Einladung senden',
    sending: 'Wird gesendet …',
    invited: (e) => `Einladung an ${e} gesendet. Der Link gilt 7 Tage, einmal.`,
    heldTitle: 'Diesen Link weitergeben',
    held: (e) => html`<strong>E-Mails werden</strong> von diesem Server <strong>nicht gesendet</strong>: Geben Sie diesen Link selbst an ${e} weiter. Er wird nur dieses eine Mal gezeigt und gilt 7 Tage, einmal.`,
    linkFor: (e) => `Einladungslink für ${e}`,
    done: 'Fertig',
    cancel: 'Abbrechen',
    noInvitations: 'Keine Einladungen.',
    invColumns: { email: 'E-Mail', role: 'Rolle', status: 'Status', expires: 'Läuft ab' },
    statuses: { pending: 'Offen', accepted: 'Angenommen', expired: 'Abgelaufen' },
    revoke: 'Widerrufen',
    revokeOf: (e) => `Die Einladung von ${e} widerrufen`,
    revokeTitle: 'Die Einladung widerrufen?',
    revokeText: (e) => `Der an ${e} gesendete Link funktioniert nicht mehr.`,
    revoked: (e) => `Die Einladung von ${e} ist widerrufen.`,
    loading: 'Wird geladen …',
    password: 'Ihr Passwort',
    passwordLead: (e) => `Ändern Sie das Passwort, mit dem Sie sich als ${e} anmelden.`,
    current: 'Aktuelles Passwort',
    next: 'Neues Passwort',
    nextHint: 'Mindestens 8 Zeichen.',
    changePassword: 'Passwort ändern',
    passwordSaved: 'Ihr Passwort ist geändert.',
  },
  fr: {
    title: 'Personnes',
    lead: (c) => html`Les personnes qui travaillent dans <strong>${c}</strong>, et leurs rôles.`,
    readOnly: (c) => `Seul un administrateur de ${c} peut inviter des personnes ou changer des rôles.`,
    roles: { admin: 'Administrateur', member: 'Membre', viewer: 'Lecteur' },
    roleHelp: 'Les administrateurs font tout ; les membres lisent et écrivent les données ; les lecteurs lisent seulement.',
    members: 'Membres',
    columns: { name: 'Nom', email: 'E-mail', role: 'Rôle', since: 'Depuis' },
    actions: 'Actions',
    you: '(vous)',
    roleOf: (n) => `Rôle de ${n}`,
    remove: 'Retirer',
    removeOf: (n) => `Retirer ${n}`,
    removeTitle: (n) => `Retirer ${n} ?`,
    removeText: (n) => `${n} ne pourra plus se connecter à cette entreprise, et ses jetons d’API pour elle sont révoqués.`,
    removed: (n) => `${n} est retiré(e) de l’entreprise.`,
    roleSaved: (n, r) => `${n} est maintenant ${r.toLowerCase()}.`,
    invitations: 'Invitations',
    invite: 'Inviter',
    inviteTitle: 'Inviter quelqu’un',
    email: 'E-mail',
    role: 'Rôle',
    send: 'Envoyer l’invitation',
    sending: 'Envoi…',
    invited: (e) => `Invitation envoyée à ${e}. Le lien est valable 7 jours, une seule fois.`,
    heldTitle: 'Transmettre ce lien',
    held: (e) => html`<strong>Ce serveur n’envoie pas d’e-mails</strong> : transmettez vous-même ce lien à ${e}. Il n’est affiché qu’une fois et reste valable 7 jours, une seule fois.`,
    linkFor: (e) => `Lien d’invitation pour ${e}`,
    done: 'Terminé',
    cancel: 'Annuler',
    noInvitations: 'Aucune invitation.',
    invColumns: { email: 'E-mail', role: 'Rôle', status: 'Statut', expires: 'Expire le' },
    statuses: { pending: 'En attente', accepted: 'Acceptée', expired: 'Expirée' },
    revoke: 'Révoquer',
    revokeOf: (e) => `Révoquer l’invitation de ${e}`,
    revokeTitle: 'Révoquer l’invitation ?',
    revokeText: (e) => `Le lien envoyé à ${e} cesse de fonctionner.`,
    revoked: (e) => `L’invitation de ${e} est révoquée.`,
    loading: 'Chargement…',
    password: 'Votre mot de passe',
    passwordLead: (e) => `Changez le mot de passe avec lequel vous vous connectez en tant que ${e}.`,
    current: 'Mot de passe actuel',
    next: 'Nouveau mot de passe',
    nextHint: 'Au moins 8 caractères.',
    changePassword: 'Changer le mot de passe',
    passwordSaved: 'Votre mot de passe est changé.',
  },
});

export function PeoplePage({ ctx }) {
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
    restPage(`${MEMBERS}?itemsPerPage=100`).then((l) => setMembers(l.items), fail);
    restPage(`${INVITATIONS}?itemsPerPage=100`).then((l) => setInvitations(l.items), fail);
  }, [reloads]);
  const nameOf = (m) => m.name || m.email;

  async function setRole(m, role) {
    try {
      await rest(`${MEMBERS}/${m.id}`, { method: 'PATCH', body: { role } });
      setMessage({ kind: 'success', text: T.roleSaved(nameOf(m), T.roles[role]) });
    } catch (e) {
      fail(e);
    }
    reload();
  }
  async function remove(m) {
    setDialog(null);
    try {
      await rest(`${MEMBERS}/${m.id}`, { method: 'DELETE' });
      setMessage({ kind: 'success', text: T.removed(nameOf(m)) });
    } catch (e) {
      fail(e);
    }
    reload();
  }
  async function revoke(inv) {
    setDialog(null);
    try {
      await rest(`${INVITATIONS}/${inv.id}`, { method: 'DELETE' });
      setMessage({ kind: 'success', text: T.revoked(inv.email) });
    } catch (e) {
      fail(e);
    }
    reload();
  }

  return html`<div class="page-head">
      <div><h1>${T.title}</h1><p class="muted lead">${T.lead(ctx.company?.name ?? '')}</p></div>
      ${admin && html`<button type="button" class="btn primary" onClick=${() => setDialog({ kind: 'invite' })}>${T.invite}</button>`}
    </div>
    ${!admin && html`<p class="notice" role="status">${T.readOnly(ctx.company?.name ?? '')}</p>`}
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <section class="panel" aria-labelledby="members-title">
      <div class="panel-head"><h2 id="members-title" class="panel-title">${T.members} ${members && html`<span class="count">${members.length}</span>`}</h2></div>
      <p class="hint pad">${T.roleHelp}</p>
      ${!members
        ? html`<p class="pad muted" aria-busy="true">${T.loading}</p>`
        : html`<div class="table-wrap"><table class="table members-table">
          <caption class="visually-hidden">${T.members}</caption>
          <thead><tr>${Object.values(T.columns).map((c) => html`<th scope="col">${c}</th>`)}${admin && html`<th scope="col"><span class="visually-hidden">${T.actions}</span></th>`}</tr></thead>
          <tbody>
            ${members.map((m) => html`<tr key=${m.id} data-member=${m.email}>
              <td data-label=${T.columns.name} class="name">${m.name || '—'} ${m.email === ctx.user?.email && html`<span class="muted small">${T.you}</span>`}</td>
              <td data-label=${T.columns.email}>${m.email}</td>
              <td data-label=${T.columns.role}>
                ${admin
                  ? html`<select aria-label=${T.roleOf(nameOf(m))} value=${m.role} onChange=${(e) => setRole(m, e.currentTarget.value)}>${ROLES.map((r) => html`<option value=${r}>${T.roles[r]}</option>`)}</select>`
                  : T.roles[m.role]}
              </td>
              <td data-label=${T.columns.since}>${m.createdAt && html`<time datetime=${m.createdAt}>${dateTime(m.createdAt, ctx.locale)}</time>`}</td>
              ${admin && html`<td class="actions"><button type="button" class="btn small danger" aria-label=${T.removeOf(nameOf(m))} onClick=${() => setDialog({ kind: 'remove', member: m })}>${T.remove}</button></td>`}
            </tr>`)}
          </tbody>
        </table></div>`}
    </section>
    <section class="panel" aria-labelledby="invitations-title">
      <div class="panel-head"><h2 id="invitations-title" class="panel-title">${T.invitations} ${invitations && html`<span class="count">${invitations.length}</span>`}</h2></div>
      ${!invitations && html`<p class="pad muted" aria-busy="true">${T.loading}</p>`}
      ${invitations?.length === 0 && html`<p class="pad muted">${T.noInvitations}</p>`}
      ${invitations?.length > 0 &&
      html`<div class="table-wrap"><table class="table invitations-table">
        <caption class="visually-hidden">${T.invitations}</caption>
        <thead><tr>${Object.values(T.invColumns).map((c) => html`<th scope="col">${c}</th>`)}${admin && html`<th scope="col"><span class="visually-hidden">${T.actions}</span></th>`}</tr></thead>
        <tbody>
          ${invitations.map((inv) => html`<tr key=${inv.id} data-invitation=${inv.email}>
            <td data-label=${T.invColumns.email}>${inv.email}</td>
            <td data-label=${T.invColumns.role}>${T.roles[inv.role]}</td>
            <td data-label=${T.invColumns.status}><span class=${`state ${inv.status === 'accepted' ? 'state-ok' : inv.status === 'expired' ? 'state-failed' : 'state-pending'}`}>${T.statuses[inv.status] ?? inv.status}</span></td>
            <td data-label=${T.invColumns.expires}>${inv.expiresAt && html`<time datetime=${inv.expiresAt}>${dateTime(inv.expiresAt, ctx.locale)}</time>`}</td>
            ${admin && html`<td class="actions">${inv.status === 'pending' && html`<button type="button" class="btn small danger" aria-label=${T.revokeOf(inv.email)} onClick=${() => setDialog({ kind: 'revoke', invitation: inv })}>${T.revoke}</button>`}</td>`}
          </tr>`)}
        </tbody>
      </table></div>`}
    </section>
    <${PasswordForm} ctx=${ctx} />
    ${dialog?.kind === 'invite' && html`<${InviteDialog} onClose=${() => setDialog(null)} onSent=${(inv) => {
      reload();
      if (inv.link) setDialog({ kind: 'link', invitation: inv });
      else {
        setDialog(null);
        setMessage({ kind: 'success', text: T.invited(inv.email) });
      }
    }} />`}
    ${dialog?.kind === 'link' && html`<${LinkDialog} invitation=${dialog.invitation} onClose=${() => setDialog(null)} />`}
    ${dialog?.kind === 'remove' && html`<${Confirm} title=${T.removeTitle(nameOf(dialog.member))} text=${T.removeText(nameOf(dialog.member))} action=${T.remove} cancel=${T.cancel} onConfirm=${() => remove(dialog.member)} onClose=${() => setDialog(null)} />`}
    ${dialog?.kind === 'revoke' && html`<${Confirm} title=${T.revokeTitle} text=${T.revokeText(dialog.invitation.email)} action=${T.revoke} cancel=${T.cancel} onConfirm=${() => revoke(dialog.invitation)} onClose=${() => setDialog(null)} />`}`;
}

function InviteDialog({ onClose, onSent }) {
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
      onSent(await rest(INVITATIONS, { method: 'POST', body: { email: email.trim(), role } }));
    } catch (err) {
      const found = byField(err);
      setErrors(found);
      setFailure(Object.keys(found).length ? '' : err.message);
      setBusy(false);
    }
  }
  return html`<${Dialog} title=${T.inviteTitle} onClose=${onClose}>
    <form onSubmit=${send} novalidate>
      <div class="field">
        <label for="invite-email">${T.email}</label>
        <input id="invite-email" type="email" autocomplete="off" data-autofocus value=${email} aria-invalid=${errors.email ? 'true' : undefined}
          aria-describedby=${errors.email ? 'invite-email-error' : undefined} onInput=${(e) => setEmail(e.currentTarget.value)} />
        ${errors.email && html`<p class="field-error" id="invite-email-error">${errors.email}</p>`}
      </div>
      <div class="field">
        <label for="invite-role">${T.role}</label>
        <select id="invite-role" value=${role} onChange=${(e) => setRole(e.currentTarget.value)}>${ROLES.map((r) => html`<option value=${r}>${T.roles[r]}</option>`)}</select>
        <p class="hint">${T.roleHelp}</p>
        ${errors.role && html`<p class="field-error">${errors.role}</p>`}
      </div>
      ${failure && html`<p class="alert" role="alert">${failure}</p>`}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>${T.cancel}</button>
        <button type="submit" class="btn primary" disabled=${busy}>${busy ? T.sending : T.send}</button>
      </div>
    </form>
  <//>`;
}

/** While e-mail is held: the invitation's link, shown this once, to hand over. */
function LinkDialog({ invitation, onClose }) {
  const [note, setNote] = useState('');
  return html`<${Dialog} title=${T.heldTitle} onClose=${onClose}>
    <div class="warning" role="alert">${T.held(invitation.email)}</div>
    <${CopyValue} id="invitation-link" label=${T.linkFor(invitation.email)} value=${invitation.link} note=${note} setNote=${setNote} />
    <div class="dialog-actions"><button type="button" class="btn" onClick=${onClose}>${T.done}</button></div>
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
      setMessage({ kind: 'success', text: T.passwordSaved });
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
    <h2 id="password-title" class="panel-title">${T.password}</h2>
    <p class="muted">${T.passwordLead(ctx.user?.email ?? '')}</p>
    <${Banner} message=${message} onDismiss=${() => setMessage(null)} />
    <form ref=${form} onSubmit=${save} novalidate>
      <input type="text" name="username" autocomplete="username" value=${ctx.user?.email ?? ''} hidden readonly />
      <div class="field-grid">
      <div class="field">
        <label for="password-current">${T.current}</label>
        <input id="password-current" name="current" type="password" autocomplete="current-password" aria-invalid=${errors.current ? 'true' : undefined} aria-describedby=${described('password-current')} />
        ${errors.current && html`<p class="field-error" id="password-current-error">${errors.current}</p>`}
      </div>
      <div class="field">
        <label for="password-new">${T.next}</label>
        <input id="password-new" name="password" type="password" autocomplete="new-password" minlength="8" aria-invalid=${errors.password ? 'true' : undefined} aria-describedby=${described('password-new', 'password-new-hint')} />
        <p class="hint" id="password-new-hint">${T.nextHint}</p>
        ${errors.password && html`<p class="field-error" id="password-new-error">${errors.password}</p>`}
      </div>
      </div>
      <div class="form-actions"><button type="submit" class="btn primary" disabled=${busy}>${T.changePassword}</button></div>
    </form>
  </section>`;
}
