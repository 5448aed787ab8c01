// The description of the model that the web application (/app) is built from: every resource
// with REST operations, its fields (types, money, decimals, choices, references, read-only),
// embedded lines, filters, orders, states and transitions, documents and declared operations.
// It is derived from the same model as /api's routes and OpenAPI document, so a resource added
// by a descriptor gets its pages with no code of its own. Plain JSON, no functions.
import { describeOperationPages, type OperationPage } from './describe-pages.ts';
import type { Field, ScalarField } from './descriptor.ts';
import type { Model, ModelField, ModelResource } from './model.ts';
import type { Role } from './types.ts';

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
}

export interface OperationDescription {
  name: string;
  on: 'item' | 'collection';
  method: 'GET' | 'POST';
  /** Relative to the record (`credit`) or the collection (`dashboard`). */
  path: string;
  summary: string;
  roles: readonly Role[];
  /** A POST with a JSON body. */
  input?: true;
  /** Answers a record of `resource` (the page goes there). */
  resource?: string;
  /** Has path parameters besides the record's id: not offered as a button. */
  params?: true;
  /** A POST whose body is a file of this media type (a CSV import), not JSON. */
  text?: string;
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
  description: string;
  rest: string[];
  /** Has GraphQL queries (`<plural>` and `<name>`): lists are read through them. */
  gql?: true;
  writers: readonly Role[];
  /** The field that names a record (in links, titles and pickers). */
  title: string;
  /** The list's columns. */
  columns: string[];
  /** A partial text filter to search by in reference pickers. */
  search?: string;
  fields: FieldDescription[];
  /** Fields the create response alone carries. */
  shownOnce: string[];
  orders: string[];
  states?: { field: string; initial: string; transitions: Record<string, readonly string[]>; editable?: Record<string, readonly string[]>; deletable?: readonly string[] };
  documents: { mediaType: string; description: string; extension: string }[];
  operations: OperationDescription[];
  /** Lines of another resource: no page of their own. */
  owner?: { resource: string; field: string };
}

export interface ModelDescription {
  resources: ResourceDescription[];
  /** The resources in the navigation, in order. */
  navigation: string[];
  /** Pages of declared operations only (the reports; engine/describe-pages.ts). */
  pages?: OperationPage[];
}


const TITLE_FIELDS = ['number', 'name', 'label', 'title', 'url', 'description', 'email', 'reference'];
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
  const d: FieldDescription = { name, label: labelOf(name), kind: def.kind === 'integer' && def.money ? 'money' : def.kind };
  if (def.required) d.required = true;
  if (def.description) d.description = def.description;
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
    if (f.def.orderBy) d.orderBy = f.def.orderBy;
  } else if (f.def.kind === 'list') {
    d.of = Object.entries(f.def.of).map(([n, m]) => scalar(n, m));
  } else if (f.def.kind === 'textList') {
    const choices = f.def.choices?.(model);
    if (choices) d.values = choices;
    if (f.def.maxItems) d.max = f.def.maxItems;
  }
  return d;
}

function columnsOf(r: ModelResource, title: string): string[] {
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
  // The amount of a record, when no column shows one yet; an invoice's balance.
  const money = usable.filter((f) => f.def.kind === 'integer' && f.def.money);
  if (money[0] && !money.some((f) => cols.includes(f.name))) add(money[0].name);
  if (money.some((f) => f.name === 'balance')) add('balance');
  // Short lists get the record's other short fields.
  for (const f of usable) {
    if (cols.length >= 4) break;
    if (long(f)) continue;
    add(f.name);
  }
  return cols;
}

/** The description of every resource of `model` that has REST operations. */
export function describeModel(model: Model): ModelDescription {
  const resources: ResourceDescription[] = [];
  for (const r of model.resources) {
    // Lines (owned, embedded in their owner) are described for the line editor, with no page.
    if ((r.rest.size === 0 && !r.owner) || r.singleton) continue;
    const texts = r.fields.filter((f) => f.def.kind === 'text' && !f.def.shownOnce && !f.def.mask);
    const short = texts.filter((f) => !f.readOnly && f.def.kind === 'text' && f.def.max !== undefined && f.def.max <= 255);
    const title = TITLE_FIELDS.find((n) => texts.some((f) => f.name === n)) ?? short.find((f) => f.required)?.name ?? short[0]?.name ?? 'id';
    const search = r.byName.get(title)?.filter === 'partial' ? title : r.fields.find((f) => f.filter === 'partial')?.name;
    const operations: OperationDescription[] = r.operations.map((op) => {
      const o: OperationDescription = { name: op.name, on: op.on, method: op.method, path: op.def.path, summary: op.def.summary, roles: op.roles };
      if (op.def.input) o.input = true;
      if (op.def.output === 'record') o.resource = r.name;
      else if ('record' in op.def.output) o.resource = op.def.output.record;
      if (op.params.length) o.params = true;
      if (op.def.textInput) o.text = op.def.textInput.mediaType;
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
      fields: r.fields.filter((f) => !f.def.shownOnce).map((f) => fieldOf(model, r, f)),
      // Values the create response alone carries (a client link's URL): shown once after creating.
      shownOnce: r.fields.filter((f) => f.def.shownOnce).map((f) => f.name),
      orders: [...r.orders],
      documents: r.documents.map((doc) => ({ mediaType: doc.mediaType, description: doc.def.description, extension: EXTENSIONS[doc.mediaType] ?? doc.mediaType.split(/[/+]/).pop()! })),
      operations,
    };
    if (search) d.search = search;
    if (r.graphql.has('query')) d.gql = true;
    if (r.states) {
      d.states = {
        field: String(r.states.field),
        initial: String(r.states.initial),
        transitions: r.states.transitions as Record<string, readonly string[]>,
        ...(r.states.editable ? { editable: r.states.editable as Record<string, readonly string[]> } : {}),
        ...(r.states.deletable ? { deletable: r.states.deletable as readonly string[] } : {}),
      };
    }
    if (r.owner) d.owner = { resource: r.owner.resource, field: r.owner.field.name };
    resources.push(d);
  }
  const navigation = resources.filter((d) => !d.owner && d.rest.includes('list')).map((d) => d.name);
  return { resources, navigation, pages: describeOperationPages(model) };
}
