// The web application's pure functions: addresses (routes), money in a currency's decimals, the
// API requests a view makes (a GraphQL query for a list, REST bodies for writes), and where the
// API's violations belong. Nothing here touches the page, so test/app-model.test.ts runs it in Node.

import { minorToDecimal, moneyInput, parseMoney, parseNumber, parsePercent, percentInput } from './money.js';
import { IntlMessageFormat } from 'intl-messageformat';

// ---- the words of /app in the person's language ------------------------------------------------
// CONTRACT §20: English, German, French, chosen by the server from Accept-Language (`boot.language`).
// Every string the application shows is a message of the catalogue (web/app/messages/<language>.js):
// ICU MessageFormat, formatted by intl-messageformat (FormatJS) as the server's documents are
// (server/documents/messages.ts), so plurals and the nouns' genders follow each language's rules.
// The page gets its language's catalogue in the description's module (`messages`, server/web/routes.ts),
// with the descriptors' words already translated (http/describe-i18n.ts): no request of its own.
// Its messages come parsed, as ICU ASTs (http/describe-i18n.ts `appCatalogue`): the page's
// intl-messageformat is built without its parser (vendor/intl-messageformat) and formats ASTs
// only. In Node (the tests) the package has its parser, and a catalogue of strings works too.

let language = 'en';
let locale = 'en';
let catalogue = {};
const compiled = new Map();

/** Sets the catalogue (`messages`: key → the message's AST) of `lang` (en, de, fr) before the first render; `tag` is the BCP 47 locale of numbers and dates. */
export function setLanguage(lang, tag, messages) {
  language = lang === 'de' || lang === 'fr' ? lang : 'en';
  locale = tag || language;
  catalogue = messages ?? {};
  compiled.clear();
}

/** The application's language (en, de, fr). */
export const currentLanguage = () => language;

/** The application's locale (BCP 47), for Intl's numbers and dates. */
export const currentLocale = () => locale;

/**
 * A message of the catalogue with its values (its key when the catalogue lacks it). A value may be
 * a rendered part (html`<strong>${name}</strong>`), so that no markup lives in the catalogue: the
 * message is then its pieces, strings and those parts, for html`…` to render.
 */
export function t(key, values) {
  let f = compiled.get(key);
  if (!f) {
    const message = catalogue[key];
    if (message === undefined) return key;
    f = new IntlMessageFormat(message, locale);
    compiled.set(key, f);
  }
  const out = f.format(values);
  return out !== null && typeof out === 'object' ? out : String(out);
}

/** A word inside a sentence: lower case, but German nouns keep their capital. */
export const inSentence = (s) => (language === 'de' ? s : s.toLowerCase());

/**
 * The values a message needs to speak of a resource's records: its name as a word in a sentence,
 * its plural, and its grammatical gender (the description's `gender`, `elided`).
 */
export function nounOf(r) {
  return { one: inSentence(r.singular), many: inSentence(r.label), gender: r.gender ?? 'other', elided: r.elided ? 'yes' : 'no' };
}

/** The words for a value of a choice: the description's (`valueLabels`, translated), else the value in words. */
function choiceWords(v, f) {
  const given = f?.valueLabels?.[v];
  if (given) return given;
  const s = String(v).replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export const EDGE_CURSOR = 'WyJlZGdlIl0';
export const PAGE_SIZE = 30;

// ---- the description ----------------------------------------------------------------------

/** Lookups over the server's description (engine/describe.ts). */
export function indexDescription(d) {
  const byName = new Map(d.resources.map((r) => [r.name, r]));
  const byPath = new Map(d.resources.map((r) => [r.path.slice('/app/'.length), r]));
  const byIri = new Map(d.resources.map((r) => [r.iri, r]));
  for (const r of d.resources) r.byField = new Map(r.fields.map((f) => [f.name, f]));
  return {
    ...d,
    get: (name) => byName.get(name),
    atPath: (path) => byPath.get(path),
    /** The resource an IRI names (`/api/clients/<id>`). */
    ofIri: (iri) => (typeof iri === 'string' ? byIri.get(iri.slice(0, iri.lastIndexOf('/'))) : undefined),
  };
}

export const can = (r, op) => r.rest.includes(op);
export const writes = (r, role) => r.writers.includes(role);
export const idOf = (iri) => (typeof iri === 'string' ? iri.slice(iri.lastIndexOf('/') + 1) : '');
/** The page of a record: `/api/clients/<id>` → `/app/clients/<id>`. */
export const pageOf = (iri) => (typeof iri === 'string' && iri.startsWith('/api/') ? `/app/${iri.slice(5)}` : null);

/** A record's name: its title field, else its kind and the end of its id. */
export function titleOf(r, rec) {
  if (!rec) return '';
  const v = rec[r.title];
  if (v !== undefined && v !== null && v !== '' && r.title !== 'id') return String(v);
  const id = rec._id ?? rec.id ?? idOf(rec['@id'] ?? '');
  return `${r.singular} ${String(id).slice(-6)}`;
}

// ---- addresses ----------------------------------------------------------------------------

/**
 * The view an address shows: `/app` the dashboard, `/app/<path>` a list, `/app/<path>/new` a
 * create form, `/app/<path>/<id>` a record, `/app/<path>/<id>/edit` its edit form.
 */
export function route(desc, pathname, search = '') {
  const parts = pathname.replace(/\/+$/, '').split('/').filter(Boolean).slice(1).map(decodeURIComponent);
  if (parts.length === 0) return { view: 'dashboard' };
  const r = desc.atPath(parts[0]);
  if (!r || r.owner || r.singleton) return { view: 'missing' };
  const q = new URLSearchParams(search);
  if (parts.length === 1) return { view: 'list', resource: r, query: q };
  if (parts[1] === 'new' && parts.length === 2) return { view: 'form', resource: r, query: q };
  if (parts.length === 2) return { view: 'record', resource: r, id: parts[1] };
  if (parts.length === 3 && parts[2] === 'edit') return { view: 'form', resource: r, id: parts[1] };
  return { view: 'missing' };
}

// ---- money and numbers ----------------------------------------------------------------------

// Amounts and percentages as people type and read them: one module (money.js) for every field.
export { currencyDigits, minorToDecimal, formatMoney, parseMoney, parsePercent, formatPercent } from './money.js';

/**
 * How a field's value is typed and read: 'money' (an amount in the currency's major units),
 * 'percent', or its kind. A field whose unit another field chooses (a discount's value: a
 * percentage or a fixed amount, by its type) reads that field of `values`.
 */
export function unitOf(f, values) {
  if (f.kind === 'money') return 'money';
  const u = f.unit;
  if (!u) return f.kind;
  if (typeof u === 'string') return u;
  return u.values[values?.[u.field]] ?? f.kind;
}

/** A decimal typed in a form (qty): a number with at most `scale` places ("1,5" or "1.5"), or null. */
export function parseDecimal(text, scale) {
  return parseNumber(text, scale);
}

// ---- lists ----------------------------------------------------------------------------------

/** The filters an address carries, by field: `status=paid`, `invoiceDate[after]=…`. */
export function filtersOf(r, q) {
  const out = [];
  for (const f of r.fields) {
    if (!f.filter) continue;
    if (f.filter === 'date') {
      for (const op of ['after', 'before', 'strictly_after', 'strictly_before']) {
        const v = q.get(`${f.name}[${op}]`);
        if (v) out.push({ field: f, op, value: v });
      }
    } else {
      const v = q.get(f.name);
      if (v) out.push({ field: f, op: f.filter === 'partial' ? 'partial' : 'eq', value: v });
    }
  }
  return out;
}

/** The order an address names (`order=total:desc`), when the resource orders by it; else the declared default. */
export function orderOf(r, q) {
  const [field, dir] = (q.get('order') ?? '').split(':');
  if (field && r.orders.includes(field)) return { field, dir: dir === 'asc' ? 'asc' : 'desc' };
  return r.defaultOrder ?? null;
}

/** The field holding a record's currency (descriptor `present.currency`), or null. */
export const currencyField = (r) => r?.currency?.field ?? null;

const gqlString = (s) => JSON.stringify(String(s));
const lowerFirst = (s) => s.charAt(0).toLowerCase() + s.slice(1);

/** The GraphQL selection of a field in a list or a title lookup. */
function selection(desc, f) {
  if (f.kind === 'ref') {
    const t = desc.get(f.target);
    return `${f.name} { id${t && t.title !== 'id' ? ` ${t.title}` : ''} }`;
  }
  if (f.kind === 'list') return `${f.name} { ${f.of.map((m) => (m.kind === 'ref' ? `${m.name} { id }` : m.name)).join(' ')} }`;
  if (f.kind === 'children') return null;
  return f.name;
}

/**
 * The one GraphQL request of a list page: its columns (references with their names), the exact
 * total and the cursors, under the address's filters and order. `q.after`/`q.before` are the
 * cursors; `last=1` asks for the last page.
 */
export function listQuery(desc, r, q) {
  const args = [];
  const before = q.get('before');
  const after = q.get('after');
  if (before) args.push(`last: ${PAGE_SIZE}`, `before: ${gqlString(before)}`);
  else if (q.get('last')) args.push(`last: ${PAGE_SIZE}`);
  else {
    args.push(`first: ${PAGE_SIZE}`);
    if (after) args.push(`after: ${gqlString(after)}`);
  }
  const dates = new Map();
  for (const { field, op, value } of filtersOf(r, q)) {
    if (op === 'eq' || op === 'partial') args.push(`${field.name}: ${gqlString(value)}`);
    else dates.set(field.name, [...(dates.get(field.name) ?? []), `{${op}: ${gqlString(value)}}`]);
  }
  for (const [name, bounds] of dates) args.push(`${name}: [${bounds.join(', ')}]`);
  const order = orderOf(r, q);
  if (order) args.push(`order: [{${order.field}: ${gqlString(order.dir.toUpperCase())}}]`);
  const fields = new Set(['id', '_id', r.title !== 'id' ? r.title : null, ...r.columns, currencyField(r)].filter(Boolean));
  const selections = [...fields].map((n) => (n === 'id' || n === '_id' ? n : selection(desc, r.byField.get(n)))).filter(Boolean);
  return `{ ${r.plural}(${args.join(', ')}) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { node { ${selections.join(' ')} } } } }`;
}

/** The REST address of a list (for resources without a GraphQL query): cursor paging from the edge. */
export function listUrl(r, q) {
  const p = new URLSearchParams();
  p.set('itemsPerPage', String(PAGE_SIZE));
  for (const { field, op, value } of filtersOf(r, q)) p.set(op === 'eq' || op === 'partial' ? field.name : `${field.name}[${op}]`, value);
  const order = orderOf(r, q);
  if (order) p.set(`order[${order.field}]`, order.dir);
  if (q.get('before')) p.set('before', q.get('before'));
  else if (q.get('last')) p.set('before', EDGE_CURSOR);
  else p.set('after', q.get('after') || EDGE_CURSOR);
  return `${r.iri}?${p}`;
}

/** The address of a list view with `changes` applied (null removes); paging starts over unless given. */
export function listAddress(r, q, changes) {
  const p = new URLSearchParams(q);
  if (!('after' in changes) && !('before' in changes) && !('last' in changes)) ['after', 'before', 'last'].forEach((k) => p.delete(k));
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined || v === '') p.delete(k);
    else p.set(k, v);
  }
  const s = p.toString();
  return `${r.path}${s ? `?${s}` : ''}`;
}

/** One GraphQL request naming every record of `iris` (references on a record page). */
export function titlesQuery(desc, iris) {
  const parts = [];
  iris.forEach((iri, i) => {
    const t = desc.ofIri(iri);
    if (!t || !t.gql) return;
    parts.push(`r${i}: node(id: ${gqlString(iri)}) { id ... on ${t.name} { ${t.title !== 'id' ? t.title : '_id'} } }`);
  });
  return parts.length ? `{ ${parts.join(' ')} }` : null;
}

/** The GraphQL request of a reference picker: records whose searched field matches `text`. */
/**
 * The first choices of a list's reference filters (those a reference picker shows before any
 * search), as members of the list's own GraphQL query: `choices_<field>: <plural>(first: 20 …)`.
 * Empty when the list has none.
 */
export function filterChoices(desc, r) {
  return r.fields
    .filter((f) => f.filter && f.kind === 'ref' && desc.get(f.target)?.gql)
    .map((f) => `choices_${f.name}: ${pickerQuery(desc.get(f.target), '').slice(2, -2)}`)
    .join(' ');
}

export function pickerQuery(r, text) {
  const args = ['first: 20'];
  if (text && r.search) args.push(`${r.search}: ${gqlString(text)}`);
  if (r.orders.includes(r.title)) args.push(`order: [{${r.title}: "ASC"}]`);
  const extra = currencyField(r) ? ` ${currencyField(r)}` : '';
  return `{ ${r.plural}(${args.join(', ')}) { totalCount edges { node { id ${r.title !== 'id' ? r.title : '_id'}${extra} } } } }`;
}

export const gqlItem = (r) => lowerFirst(r.name);

// ---- forms ----------------------------------------------------------------------------------

/** The fields a form shows: writable ones (create), or updatable ones (edit); never the state field. */
export function formFields(r, mode) {
  const state = r.states?.field;
  return r.fields.filter((f) => !f.readOnly && f.name !== state && f.kind !== 'children' && (mode === 'create' || f.updatable)).concat(r.fields.filter((f) => f.kind === 'children' && (f.embedded || f.nested) && (mode === 'create' || f.updatable)));
}

/** Fields a record in its current state may not change (the state machine's `editable`). */
export function lockedFields(r, rec) {
  const s = r.states;
  if (!s || !s.editable || !rec) return new Set();
  const allowed = s.editable[rec[s.field]];
  if (!allowed) return new Set();
  return new Set(r.fields.map((f) => f.name).filter((n) => !allowed.includes(n)));
}

/** The members of a line (an embedded child's writable fields, or a list field's members). */
export function lineFields(desc, f) {
  if (f.kind === 'list') return f.of;
  const child = desc.get(f.target);
  if (!child) return [];
  return child.fields.filter((c) => !c.readOnly && c.name !== f.via && c.name !== f.orderBy && c.kind !== 'children');
}

/** What a form shows for a value of the API; `values` are the record's (a unit chosen by another field). */
export function toInput(f, v, currency, values, locale) {
  if (v === null || v === undefined) return f.kind === 'boolean' ? false : f.kind === 'textList' ? [] : '';
  switch (unitOf(f, values)) {
    case 'money': {
      // A decimal whose unit is an amount (a fixed discount) holds whole minor units.
      const minor = f.kind === 'money' ? v : Math.round(Number(v));
      return locale ? moneyInput(minor, currency, locale) : minorToDecimal(minor, currency);
    }
    case 'percent':
      return percentInput(v, locale);
    case 'integer':
    case 'decimal':
      return String(v);
    case 'timestamp':
      return String(v).slice(0, 16);
    case 'ref':
      return typeof v === 'object' ? (v['@id'] ?? v.id) : v;
    default:
      return v;
  }
}

/**
 * The API's value for what a form holds; `{error}` when it cannot be one (shown at the field
 * before anything is sent): an amount in major units of `currency` is sent in minor units.
 */
export function fromInput(f, v, currency, values) {
  if (f.kind === 'boolean') return { value: Boolean(v) };
  if (f.kind === 'textList') return { value: Array.isArray(v) ? v : String(v).split('\n').map((s) => s.trim()).filter(Boolean) };
  if (v === '' || v === null || v === undefined) return { value: null };
  switch (unitOf(f, values)) {
    case 'money': {
      const p = parseMoney(v, currency);
      return p.error ? { error: p.error } : { value: p.empty ? null : p.minor };
    }
    case 'percent': {
      const p = parsePercent(v, f.scale ?? 4);
      return p.error ? { error: p.error } : { value: p.empty ? null : p.value };
    }
    case 'integer':
      return /^-?\d+$/.test(String(v).trim()) ? { value: Number(v) } : { error: t('input.wholeNumber') };
    case 'decimal': {
      const n = parseDecimal(v, f.scale ?? 4);
      return n === null ? { error: t('input.decimals', { count: f.scale ?? 4 }) } : { value: n };
    }
    case 'timestamp': {
      const d = new Date(String(v).length === 16 ? `${v}:00Z` : v);
      return Number.isNaN(d.getTime()) ? { error: t('input.dateTime') } : { value: d.toISOString() };
    }
    default:
      return { value: v };
  }
}

/** The violations of a 422 by field; a line's (`lines[2].price`) under `lines` → 2 → `price`. */
export function violationsByField(violations) {
  const out = { fields: {}, lines: {}, other: [] };
  for (const v of violations ?? []) {
    const path = v.propertyPath ?? v.path ?? '';
    const m = /^(\w+)\[(\d+)\]\.?(\w+)?/.exec(path);
    if (m) {
      const lines = (out.lines[m[1]] ??= {});
      const row = (lines[m[2]] ??= {});
      row[m[3] ?? '_'] = [...(row[m[3] ?? '_'] ?? []), v.message];
    } else if (/^\w+$/.test(path)) out.fields[path] = [...(out.fields[path] ?? []), v.message];
    else out.other.push(v.message);
  }
  return out;
}

// ---- what can be done to a record ----------------------------------------------------------

/** Whether a record meets a declared condition (`{ amountPaid: { eq: 0 }, status: { in: [...] } }`). */
export function meets(rec, cond) {
  if (!cond) return true;
  return Object.entries(cond).every(([name, test]) => {
    const v = rec?.[name];
    if ('eq' in test) return test.eq === null ? v === null || v === undefined : Number.isFinite(Number(test.eq)) && typeof test.eq === 'number' ? Number(v) === test.eq : v === test.eq;
    if ('in' in test) return test.in.includes(v);
    if ('gt' in test) return Number(v) > test.gt;
    return false;
  });
}

/**
 * The state changes a record may make, as the description declares them: its state's targets,
 * less those a guard refuses for this record (`Back to draft` on an invoice with payments).
 */
export function transitionsOf(r, rec) {
  const s = r.states;
  if (!s || !rec) return [];
  const from = rec[s.field];
  return (s.transitions[from] ?? []).filter((to) => (s.guards ?? []).every((g) => g.to !== to || (g.from && !g.from.includes(from)) || meets(rec, g.when)));
}

/** Whether a record may be deleted: its state is deletable and it meets `deleteWhen`. */
export function deletable(r, rec) {
  const s = r.states;
  if (!s) return true;
  return (!s.deletable || s.deletable.includes(rec?.[s.field])) && meets(rec, s.deleteWhen);
}

/** The item operations a record can take (their `when` met). */
export const operationsFor = (r, rec, role) => r.operations.filter((o) => o.on === 'item' && o.method === 'POST' && !o.input && !o.params && o.roles.includes(role) && meets(rec, o.when));

/** A transition's button: its declared label and confirmation, else "Mark as <state>". */
export function transitionAction(r, state) {
  const declared = r.states?.actions?.[state];
  return { label: declared?.label ?? t('record.markAs', { state: inSentence(choiceLabel(state, r.byField?.get(r.states?.field))) }), confirm: declared?.confirm ?? null };
}

/** The custom views the description registers for operations (`dashboard`), with their resource. */
export function viewsOf(desc) {
  return desc.resources.flatMap((r) => r.operations.filter((o) => o.view).map((o) => ({ view: o.view, resource: r, operation: o })));
}

/** Words for a value of a choice (`bank_transfer` → `Bank transfer`), in the person's language when the field's description gives them (`valueLabels`). */
export const choiceLabel = (v, f) => choiceWords(v, f);

// ---- the dashboard's chart --------------------------------------------------------------------

/** Bars of payments per month for one currency: heights scaled to the largest month. */
export function chartBars(months, payments, currency, height = 160) {
  const amounts = months.map((m) => payments.filter((p) => p.month === m && p.currency === currency).reduce((s, p) => s + p.amount, 0));
  const max = Math.max(0, ...amounts);
  return months.map((month, i) => ({ month, amount: amounts[i], height: max ? Math.round((amounts[i] / max) * height) : 0 }));
}

/** "2026-03" → "Mar", "juin", "juil." (a chart's tick). */
export function monthTick(m) {
  const [y, mo] = m.split('-').map(Number);
  return new Intl.DateTimeFormat(currentLocale(), { month: 'short', timeZone: 'UTC' }).format(Date.UTC(y, mo - 1, 1));
}

/** "2026-03" → "Mar 2026". */
export function monthLabel(m) {
  const [y, mo] = m.split('-').map(Number);
  return new Intl.DateTimeFormat(currentLocale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(y, mo - 1, 1));
}

// ---- the settings pages (CONTRACT §20): company, people, API tokens, webhooks at /app/settings/<page> ----
// Each page is a module of web/app/settings/, loaded when first opened; a viewer sees them read-only.

/** The pages of what the description does not have (yet): the company, its people, the API tokens. */
const PAGES = [
  { path: 'company', get label() { return t('nav.company'); }, load: () => import('./settings/company.js').then((m) => m.CompanyPage) },
  { path: 'people', get label() { return t('nav.people'); }, load: () => import('./settings/people.js').then((m) => m.PeoplePage) },
  { path: 'api-tokens', get label() { return t('nav.apiTokens'); }, load: () => import('./settings/tokens.js').then((m) => m.TokensPage) },
];

/**
 * Pages of a settings resource, by the view one of its operations declares (`present.view`), as
 * views/shell.js registers the home page's: `deliveries` (a webhook's delivery log) makes the
 * webhooks' page, with the log, in place of their plain list.
 */
export const resourceViews = { deliveries: () => import('./settings/webhooks.js').then((m) => m.WebhooksPage) };

export const SETTINGS_PREFIX = '/app/settings';
export const settingsHref = (p) => `${SETTINGS_PREFIX}/${p.path}`;

/** The page of a settings resource whose operation declares a registered view, or null. */
function resourcePage(r) {
  const op = r.operations.find((o) => o.view && resourceViews[o.view]);
  return op ? { path: r.path.slice('/app/'.length), label: r.label, resource: r, load: resourceViews[op.view] } : null;
}

/**
 * The navigation's Settings, in order: the pages above, then each settings resource of the
 * description — its page when it has one, else its plain list — as `{ href, label, key }`.
 */
export function settingsLinks(desc) {
  const pages = PAGES.map((p) => ({ href: settingsHref(p), label: p.label, key: `settings:${p.path}` }));
  const resources = (desc.settings ?? []).map((name) => {
    const r = desc.get(name);
    const page = resourcePage(r);
    return page ? { href: settingsHref(page), label: page.label, key: `settings:${page.path}` } : { href: r.path, label: r.label, key: r.name };
  });
  return [...pages, ...resources];
}

/** The view of an address under /app/settings, or null. */
export function settingsRoute(desc, pathname) {
  const m = /^\/app\/settings\/([a-z0-9-]+)\/?$/.exec(pathname);
  if (!m) return pathname.replace(/\/+$/, '') === SETTINGS_PREFIX ? { view: 'settings', page: PAGES[0] } : null;
  const page = PAGES.find((p) => p.path === m[1]) ?? (desc.settings ?? []).map((n) => resourcePage(desc.get(n))).find((p) => p?.path === m[1]);
  return page ? { view: 'settings', page } : { view: 'missing' };
}
