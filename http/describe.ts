// The description of the model that the web application (/app) is built from, published at
// /app/description.json beside the other documents of http/ (the OpenAPI document, the Hydra
// documentation): every resource with REST operations, its fields (types, money, decimals,
// choices, references, read-only), embedded lines, filters, orders, states and transitions with
// their guards, documents and declared operations, and its presentation as the descriptor
// declares it (title, columns, default order, sections, labels, help, currency: `present`).
// Nothing is guessed from a name. It is derived from the same model as /api's routes, so a
// resource added by a descriptor gets its pages with no code of its own. Plain JSON, no functions.
import type { Condition, Field, FieldPresentation, ScalarField, RulePresentation, TransitionGuard } from '../engine/descriptor.ts';
import type { Model, ModelField, ModelResource } from '../engine/model.ts';
import type { Role } from '../engine/types.ts';
import { describeOperationPages, type OperationPage } from './describe-pages.ts';

export interface FieldDescription {
  name: string;
  label: string;
  kind: 'text' | 'integer' | 'money' | 'decimal' | 'enum' | 'boolean' | 'date' | 'timestamp' | 'ref' | 'children' | 'list' | 'textList' | 'json';
  required?: true;
  /** Never written by the pages (computed, derived, set by the server). */
  readOnly?: true;
  /** Sent on create only. */
  writeOnce?: true;
  /** Accepted by an update (PATCH). */
  updatable?: true;
  description?: string;
  min?: number;
  max?: number;
  /** Decimal places of a decimal. */
  scale?: number;
  /** Text format (email, url, currency, country). */
  format?: string;
  multiline?: true;
  values?: readonly string[];
  default?: string | number | boolean;
  /** Referenced or child resource. */
  target?: string;
  /** Children embedded in the record (lines), written with it. */
  embedded?: true;
  /** Children written with the record (its form edits them as rows) but read on their own (descriptor `nested`). */
  nested?: true;
  /** The children's field that orders them. */
  orderBy?: string;
  /** The children's field that points back at this record. */
  via?: string;
  /** Members of a list field. */
  of?: FieldDescription[];
  filter?: 'exact' | 'partial' | 'date';
  order?: true;
  /** A text field naming records of these resources by IRI (descriptor `refersTo`). */
  refersTo?: readonly string[];
  /** Help for people under its input (descriptor `present.help`). */
  help?: string;
  /** The words for each value of a choice, in the description's language (http/describe-i18n.ts), or as declared (`present.valueLabels`). */
  valueLabels?: Record<string, string>;
  /** The input's autocomplete token (descriptor `present.autocomplete`). */
  autocomplete?: string;
  /** A JSON object's members (a json field whose schema is an object): their names and labels, in order. */
  members?: { name: string; label: string }[];
  /** The unit a decimal is typed and read in (descriptor `present.unit`): a percentage, or chosen by another field. */
  unit?: FieldPresentation['unit'];
  /** Children: a record of them is made from this record only when it meets this. */
  addWhen?: Condition;
  /** A new record's value from the company's profile (descriptor `present.defaultFrom`). */
  defaultFrom?: FieldPresentation['defaultFrom'];
}

export interface OperationDescription {
  name: string;
  on: 'item' | 'collection';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to the record (`credit`) or the collection (`dashboard`). */
  path: string;
  summary: string;
  roles: readonly Role[];
  /** A POST with a JSON body. */
  input?: true;
  /** That body's JSON Schema (its members, types, bounds and descriptions), for a view that asks for it. */
  schema?: unknown;
  /** The record's amount it takes whole when given no input, and at most otherwise. */
  whole?: string;
  /** Answers a record of `resource` (the page goes there). */
  resource?: string;
  /** Has path parameters besides the record's id: not offered as a button. */
  params?: true;
  /** What the record must meet for it to succeed (offered only then). */
  when?: Condition;
  label?: string;
  /** The consequence a confirmation states before it is done (it cannot be undone). */
  confirm?: string;
  /** The custom view of the application that shows its answer (`dashboard`). */
  view?: string;
  /** A POST whose body is a file of this media type (a CSV import), not JSON. */
  text?: string;
  /** An item GET whose list the record's page shows under this title (descriptor `present.panel`). */
  panel?: string;
  /** The members of its items (a panel's): amounts, and the member that gives their currency. */
  columns?: { name: string; label: string; money?: true; currency?: true }[];
}

export interface ResourceDescription {
  name: string;
  plural: string;
  /** `/api/<path>` */
  iri: string;
  /** `/app/<path>` */
  path: string;
  label: string;
  singular: string;
  /** The noun's grammatical gender in the description's language (de: m/f/n, fr: m/f), and whether a French article elides. */
  gender?: 'm' | 'f' | 'n';
  elided?: true;
  description: string;
  rest: string[];
  /** Has GraphQL queries (`<plural>` and `<name>`): lists are read through them. */
  gql?: true;
  writers: readonly Role[];
  /** The field that names a record (in links, titles and pickers): declared (`present.title`), else `id`. */
  title: string;
  /** The list's columns: declared, else the title and the filtered and sorted fields. */
  columns: string[];
  /** The list's order when the address names none. */
  defaultOrder?: { field: string; dir: 'asc' | 'desc' };
  /** The form's sections, each with its help when declared. */
  sections?: { label: string; help?: string; fields: readonly string[] }[];
  /** One record per company (the company profile): read and changed at its collection's address, with no list or record pages. */
  singleton?: true;
  /** The field holding the currency of its amounts, and the reference that gives it while the record is made. */
  currency?: { field: string; from?: string };
  /** Found by the application's search box (by `search`). */
  searchable?: true;
  /** The form totals as it is typed with a shared rule (descriptor `present.totals`). */
  totals?: RulePresentation;
  /** A partial text filter to search by in reference pickers. */
  search?: string;
  fields: FieldDescription[];
  /** Fields the create response alone carries. */
  shownOnce: string[];
  orders: string[];
  states?: {
    field: string;
    initial: string;
    transitions: Record<string, readonly string[]>;
    editable?: Record<string, readonly string[]>;
    deletable?: readonly string[];
    /** What the rules ask of a transition besides its source state. */
    guards?: readonly TransitionGuard[];
    /** What the rules ask of a delete besides `deletable`. */
    deleteWhen?: Condition;
    /** Labels and confirmations of the transitions, by target state. */
    actions?: Record<string, { label: string; confirm?: string }>;
  };
  documents: { mediaType: string; description: string; extension: string }[];
  operations: OperationDescription[];
  /** Lines of another resource: no page of their own. */
  owner?: { resource: string; field: string };
}

export interface ModelDescription {
  resources: ResourceDescription[];
  /** The resources in the navigation, in order: the business's first. */
  navigation: string[];
  /** The resources under Settings (developer resources: webhooks, document links, e-mails). */
  settings: string[];
  /** Pages of declared operations only (the reports; http/describe-pages.ts). */
  pages?: OperationPage[];
}

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'application/xml': 'xml', 'application/vnd.oasis.ubl+xml': 'xml' };
const MAX_COLUMNS = 7;

/** `invoiceDate` → `Invoice date`, `vatNumber` → `VAT number`. */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase()
    .split(' ')
    .map((w) => ({ vat: 'VAT', url: 'URL', id: 'ID', pdf: 'PDF', ubl: 'UBL', iban: 'IBAN', bic: 'BIC' })[w] ?? w);
  const s = words.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function scalar(name: string, def: ScalarField | Field, f?: ModelField): FieldDescription {
  const d: FieldDescription = { name, label: def.present?.label ?? labelOf(name), kind: def.kind === 'integer' && def.money ? 'money' : def.kind };
  if (def.required) d.required = true;
  if (def.description) d.description = def.description;
  if (def.present?.help) d.help = def.present.help;
  if (def.present?.unit) d.unit = def.present.unit;
  if (def.present?.addWhen) d.addWhen = def.present.addWhen;
  if (def.present?.defaultFrom) d.defaultFrom = def.present.defaultFrom;
  if (def.present?.autocomplete) d.autocomplete = def.present.autocomplete;
  if (def.present?.valueLabels) d.valueLabels = { ...def.present.valueLabels };
  switch (def.kind) {
    case 'text':
      if (def.min !== undefined) d.min = def.min;
      if (def.max !== undefined) d.max = def.max;
      if (def.format) d.format = def.format;
      if (!def.format && (def.max === undefined || def.max > 255)) d.multiline = true;
      if (def.default !== undefined) d.default = def.default;
      break;
    case 'integer':
    case 'decimal':
      if (def.min !== undefined) d.min = def.min;
      if (def.max !== undefined) d.max = def.max;
      if (def.kind === 'decimal') d.scale = def.scale;
      if (def.default !== undefined) d.default = def.default;
      break;
    case 'enum':
      d.values = def.values;
      if (def.default !== undefined) d.default = def.default;
      break;
    case 'boolean':
      if (def.default !== undefined) d.default = def.default;
      break;
    case 'ref':
      d.target = def.target;
      break;
    case 'date':
    case 'timestamp':
      // 'today' or 'now': a new record's form starts with it.
      if (def.default !== undefined) d.default = def.default;
      break;
    default:
  }
  if (f?.filter) d.filter = f.filter;
  if (f?.order) d.order = true;
  return d;
}

function fieldOf(model: Model, r: ModelResource, f: ModelField): FieldDescription {
  const d = scalar(f.name, f.def, f);
  if (f.readOnly) d.readOnly = true;
  if (f.writeOnce) d.writeOnce = true;
  if (!f.readOnly && r.updatable.includes(f)) d.updatable = true;
  if (f.def.kind === 'text' && f.def.refersTo) d.refersTo = f.def.refersTo;
  if (f.def.kind === 'children') {
    d.target = f.def.target;
    d.via = f.def.via;
    if (f.def.embedded) d.embedded = true;
    if (f.def.nested && !f.def.embedded) d.nested = true;
    if (f.def.orderBy) d.orderBy = f.def.orderBy;
  } else if (f.def.kind === 'list') {
    d.of = Object.entries(f.def.of).map(([n, m]) => scalar(n, m));
  } else if (f.def.kind === 'textList') {
    const choices = f.def.choices?.(model);
    if (choices) d.values = choices;
    if (f.def.maxItems) d.max = f.def.maxItems;
  } else if (f.def.kind === 'json') {
    const props = (f.def.schema as { type?: string; properties?: Record<string, unknown> }).properties;
    if (props) d.members = Object.keys(props).map((name) => ({ name, label: labelOf(name) }));
  }
  return d;
}

function columnsOf(r: ModelResource, title: string): string[] {
  if (r.present?.columns) return [...r.present.columns];
  const scalarKinds = new Set(['text', 'integer', 'decimal', 'enum', 'boolean', 'date', 'timestamp', 'ref']);
  const usable = r.fields.filter((f) => scalarKinds.has(f.kind) && !f.def.shownOnce && !('mask' in f.def && f.def.mask));
  const long = (f: ModelField) => f.def.kind === 'text' && !f.def.format && (f.def.max === undefined || f.def.max > 255);
  const cols: string[] = [];
  const add = (n: string) => {
    if (!cols.includes(n) && cols.length < MAX_COLUMNS) cols.push(n);
  };
  if (r.byName.has(title)) add(title);
  // What a person filters or sorts by is what they look for in a list; then amounts that are sorted.
  for (const f of usable) if ((f.filter || f.order) && !long(f)) add(f.name);
  // The amount of a record, when no column shows one yet.
  const money = usable.filter((f) => f.def.kind === 'integer' && f.def.money);
  if (money[0] && !money.some((f) => cols.includes(f.name))) add(money[0].name);
  // Short lists get the record's other short fields.
  for (const f of usable) {
    if (cols.length >= 4) break;
    if (long(f)) continue;
    add(f.name);
  }
  return cols;
}

/** The columns a resource declares, else the title and what a person filters or sorts by (see columnsOf). */
/** The description of every resource of `model` that has REST operations. */
export function describeModel(model: Model): ModelDescription {
  const resources: ResourceDescription[] = [];
  for (const r of model.resources) {
    // Lines (owned, embedded in their owner) are described for the line editor, with no page.
    if (r.rest.size === 0 && !r.owner) continue;
    const present = r.present ?? {};
    const title = present.title ?? 'id';
    const search = r.byName.get(title)?.filter === 'partial' ? title : r.fields.find((f) => f.filter === 'partial')?.name;
    const operations: OperationDescription[] = r.operations.map((op) => {
      const o: OperationDescription = { name: op.name, on: op.on, method: op.method, path: op.def.path, summary: op.def.summary, roles: op.roles };
      if (op.def.input) {
        o.input = true;
        o.schema = JSON.parse(JSON.stringify(op.def.input)) as unknown; // plain JSON (TypeBox marks its schemas with symbols)
      }
      if (op.def.present?.whole) o.whole = op.def.present.whole;
      if (op.def.output === 'record') o.resource = r.name;
      else if ('record' in op.def.output) o.resource = op.def.output.record;
      if (op.params.length) o.params = true;
      if (op.def.when) o.when = op.def.when;
      if (op.def.present?.label) o.label = op.def.present.label;
      if (op.def.present?.confirm) o.confirm = op.def.present.confirm;
      if (op.def.present?.view) o.view = op.def.present.view;
      if (op.def.body?.text) o.text = op.def.body.mediaTypes[0];
      if (op.def.present?.panel && op.method === 'GET' && typeof op.def.output === 'object' && 'schema' in op.def.output) {
        o.panel = op.def.present.panel;
        const props = (op.def.output.schema as { properties?: Record<string, { 'x-money'?: boolean; 'x-currency'?: boolean }> }).properties ?? {};
        o.columns = Object.entries(props).map(([name, p]) => ({ name, label: labelOf(name), ...(p['x-money'] ? { money: true as const } : {}), ...(p['x-currency'] ? { currency: true as const } : {}) }));
      }
      return o;
    });
    const d: ResourceDescription = {
      name: r.name,
      plural: r.plural,
      iri: r.iri,
      path: `/app/${r.path}`,
      label: labelOf(r.plural),
      singular: labelOf(r.name),
      description: r.description,
      rest: [...r.rest],
      writers: r.writers,
      title,
      columns: columnsOf(r, title),
      fields: r.fields.filter((f) => !f.def.shownOnce && !f.def.present?.hidden).map((f) => fieldOf(model, r, f)),
      // Values the create response alone carries (a client link's URL): shown once after creating.
      shownOnce: r.fields.filter((f) => f.def.shownOnce).map((f) => f.name),
      orders: [...r.orders],
      documents: r.documents.map((doc) => ({ mediaType: doc.mediaType, description: doc.def.description, extension: EXTENSIONS[doc.mediaType] ?? doc.mediaType.split(/[/+]/).pop()! })),
      operations,
    };
    if (search) d.search = search;
    if (present.order) d.defaultOrder = { ...present.order };
    if (present.sections) d.sections = present.sections.map((x) => ({ label: x.label, ...(x.help ? { help: x.help } : {}), fields: [...x.fields] }));
    if (r.singleton) d.singleton = true;
    if (present.currency) d.currency = { ...present.currency };
    if (present.search && search) d.searchable = true;
    if (present.totals) d.totals = present.totals;
    if (r.graphql.has('query')) d.gql = true;
    if (r.states) {
      d.states = {
        field: String(r.states.field),
        initial: String(r.states.initial),
        transitions: r.states.transitions as Record<string, readonly string[]>,
        ...(r.states.editable ? { editable: r.states.editable as Record<string, readonly string[]> } : {}),
        ...(r.states.deletable ? { deletable: r.states.deletable as readonly string[] } : {}),
        ...(r.states.guards ? { guards: r.states.guards as readonly TransitionGuard[] } : {}),
        ...(r.states.deleteWhen ? { deleteWhen: r.states.deleteWhen } : {}),
        ...(r.states.actions ? { actions: r.states.actions as Record<string, { label: string; confirm?: string }> } : {}),
      };
    }
    if (r.owner) d.owner = { resource: r.owner.resource, field: r.owner.field.name };
    resources.push(d);
  }
  const listed = resources.filter((d) => !d.owner && !d.singleton && d.rest.includes('list'));
  const group = (d: ResourceDescription) => model.get(d.name).present?.group ?? 'business';
  return { resources, navigation: listed.filter((d) => group(d) === 'business').map((d) => d.name), settings: listed.filter((d) => group(d) === 'settings').map((d) => d.name), pages: describeOperationPages(model) };
}
