// Descriptors are normalised once, at start-up, into a complete frozen model. Request-time code
// reads the model and never re-derives anything from descriptors.
import type { AnyResourceDescriptor, Computed, DocumentDescriptor, Field, OperationDescriptor, OperationOutput, GraphqlOperation, RestOperation, ResourceEvents, StateMachine, Fields, ResourcePresentation } from './descriptor.ts';
import type { Role } from './types.ts';
import type { Processor, Provider } from './custom.ts';
import type { HookSet } from './hooks.ts';
import { kebab, snake, lowerFirst } from './names.ts';

export interface ModelField {
  readonly name: string;
  /** Database column; refs get an `_id` suffix. Empty for fields that are not stored. */
  readonly column: string;
  readonly def: Field;
  readonly kind: Field['kind'];
  readonly stored: boolean;
  readonly readOnly: boolean;
  readonly writeOnce: boolean;
  readonly required: boolean;
  readonly filter: 'exact' | 'partial' | 'date' | undefined;
  readonly order: boolean;
  /** Target resource name of a ref or children field. */
  readonly target: string | undefined;
}

export interface ModelResource {
  readonly name: string;
  readonly plural: string;
  readonly path: string;
  /** IRI prefix, `/api/<path>`. */
  readonly iri: string;
  readonly table: string;
  readonly description: string;
  readonly fields: readonly ModelField[];
  readonly byName: ReadonlyMap<string, ModelField>;
  /** Stored scalar fields (columns besides id, company and timestamps). */
  readonly stored: readonly ModelField[];
  /** Fields accepted in a create body. */
  readonly creatable: readonly ModelField[];
  /** Fields accepted in an update body. */
  readonly updatable: readonly ModelField[];
  readonly embedded: readonly ModelField[];
  /** Children written with the record but not embedded in it (descriptor `nested`). */
  readonly nested: readonly ModelField[];
  readonly filters: readonly ModelField[];
  readonly orders: readonly string[];
  readonly rest: ReadonlySet<RestOperation>;
  readonly graphql: ReadonlySet<GraphqlOperation>;
  readonly states: StateMachine<Fields> | undefined;
  readonly computed: Computed | undefined;
  /** Composite unique constraints, with their database index names. */
  readonly unique: readonly ModelUnique[];
  readonly hooks: HookSet;
  /** Event types beyond created/updated/deleted (engine/events.ts). */
  readonly events: ResourceEvents | undefined;
  /**
   * For a resource embedded in another (a line): the ref field pointing at its owner, and the
   * owner's children field that embeds it.
   */
  readonly owner: { readonly field: ModelField; readonly resource: string; readonly children: string } | undefined;
  /** Roles that may write. */
  readonly writers: readonly Role[];
  /** Fields given only in the response to the create that made them (`shownOnce`). */
  readonly shownOnce: readonly ModelField[];
  /** Own storage (engine/custom.ts): reads from `provider`, writes through `processor`; no table. */
  readonly provider: Provider | undefined;
  readonly processor: Processor | undefined;
  /** Declared operations besides CRUD (descriptor `operations.item` and `.collection`). */
  readonly operations: readonly ModelOperation[];
  /** One record per company, at `/<path>` itself. */
  readonly singleton: boolean;
  /** Document renderings of an item, by media type. */
  readonly documents: readonly ModelDocument[];
  /** How people see it (descriptor `present`): for the web application's description. */
  readonly present: ResourcePresentation | undefined;
}

/** The resource whose record a declared operation answers with (`'record'`: its own), or undefined for a document. */
export function recordOutput(model: Model, r: ModelResource, op: ModelOperation): ModelResource | undefined {
  const output = op.def.output;
  if (output === 'record') return r;
  return 'record' in output ? model.get(output.record) : undefined;
}

/** A declared operation's document output (not a record, a file or nothing). */
export const documentOutput = (op: ModelOperation): OperationOutput | undefined => {
  const output = op.def.output;
  return output === 'record' || 'record' in output || 'binary' in output || 'empty' in output ? undefined : output;
};

/** The media types of a declared operation's file output, or undefined. */
export const binaryOutput = (op: ModelOperation): readonly string[] | undefined => {
  const output = op.def.output;
  return output !== 'record' && 'binary' in output ? output.binary : undefined;
};

/** A declared operation that answers 204 with nothing. */
export const emptyOutput = (op: ModelOperation): boolean => op.def.output !== 'record' && 'empty' in op.def.output;

export interface ModelOperation {
  readonly name: string;
  readonly on: 'item' | 'collection';
  readonly method: OperationDescriptor['method'];
  /** The fastify route, relative to the API prefix (`/webhooks/:id/rotate-secret`). */
  readonly url: string;
  /** The OpenAPI path (`/api/webhooks/{id}/rotate-secret`). */
  readonly template: string;
  /** The operation's own path parameters (besides `id`). */
  readonly params: readonly string[];
  readonly roles: readonly Role[];
  /** The GraphQL field, or undefined for none. */
  readonly graphql: string | undefined;
  readonly operationId: string;
  readonly def: OperationDescriptor;
}

export interface ModelDocument {
  readonly mediaType: string;
  readonly def: DocumentDescriptor;
}

export interface ModelUnique {
  readonly fields: readonly ModelField[];
  /** Index name, as the database reports it in a unique violation. */
  readonly constraint: string;
  readonly path: string;
  readonly message: string;
}

export interface Model {
  readonly resources: readonly ModelResource[];
  get(name: string): ModelResource;
  find(name: string): ModelResource | undefined;
  byPath(path: string): ModelResource | undefined;
}

const ALL_REST: RestOperation[] = ['list', 'read', 'create', 'update', 'replace', 'delete'];
const ALL_GQL: GraphqlOperation[] = ['query', 'create', 'update', 'delete'];

function normaliseField(name: string, def: Field): ModelField {
  const stored = def.kind !== 'children' && !def.shownOnce;
  const filter = 'filter' in def ? def.filter : undefined;
  return {
    name,
    column: !stored ? '' : def.kind === 'ref' ? `${snake(name)}_id` : snake(name),
    def,
    kind: def.kind,
    stored,
    readOnly: Boolean(def.readOnly) || Boolean(def.shownOnce) || ('derive' in def && Boolean(def.derive)) || (def.kind === 'children' && !def.embedded && !def.nested),
    writeOnce: Boolean(def.writeOnce),
    required: Boolean(def.required),
    filter: filter as ModelField['filter'],
    order: 'order' in def ? Boolean(def.order) : false,
    target: def.kind === 'ref' || def.kind === 'children' ? def.target : undefined,
  };
}

export function buildModel(descriptors: readonly AnyResourceDescriptor[]): Model {
  const problems: string[] = [];
  const names = new Set(descriptors.map((d) => d.name));
  const resources = descriptors.map((d): ModelResource => {
    const fields = Object.entries(d.fields as Fields).map(([n, f]) => normaliseField(n, f));
    const byName = new Map(fields.map((f) => [f.name, f]));
    for (const f of fields) {
      if (f.target && !names.has(f.target)) problems.push(`${d.name}.${f.name}: unknown resource "${f.target}"`);
      if (['id', 'createdAt', 'updatedAt', 'company'].includes(f.name)) problems.push(`${d.name}.${f.name}: reserved field name`);
    }
    const writable = fields.filter((f) => !f.readOnly);
    const updatableNames = d.updatable ? new Set<string>(d.updatable) : null;
    const path = d.path ?? kebab(d.plural);
    const rest = d.operations.rest === 'all' ? ALL_REST : d.operations.rest === 'none' ? [] : d.operations.rest;
    const graphql = d.operations.graphql === 'all' ? ALL_GQL : d.operations.graphql === 'none' ? [] : d.operations.graphql;
    if (d.states && !byName.has(String(d.states.field))) problems.push(`${d.name}: states on unknown field`);
    // A presentation names fields of the resource (createdAt too, for an order).
    const p = d.present as ResourcePresentation | undefined;
    const named = [p?.title, ...(p?.columns ?? []), p?.order?.field, p?.currency?.field, p?.currency?.from, ...(p?.sections ?? []).flatMap((x) => x.fields)];
    for (const n of named) if (n !== undefined && n !== 'createdAt' && !byName.has(n)) problems.push(`${d.name}: present names unknown field "${n}"`);
    for (const names of Object.values(d.states?.editable ?? {}) as string[][]) {
      for (const n of names) if (!byName.has(n)) problems.push(`${d.name}: states.editable names unknown field "${n}"`);
    }
    const computed = d.computed as Computed | undefined;
    for (const n of computed?.fields ?? []) if (!byName.get(n)?.readOnly) problems.push(`${d.name}: computed field "${n}" must be a read-only field`);
    for (const n of computed?.on ?? []) if (!byName.has(n)) problems.push(`${d.name}: computed.on names unknown field "${n}"`);
    const table = snake(d.plural);
    problems.push(...customProblems(d, rest, graphql));
    const unique = ((d.unique ?? []) as { fields: readonly string[]; path?: string; message?: string }[]).map((u): ModelUnique => {
      const fs = u.fields.map((n) => byName.get(n)).filter((f): f is ModelField => Boolean(f?.stored && f.kind !== 'list'));
      if (fs.length !== u.fields.length || !fs.length) problems.push(`${d.name}: unique names unknown or unstored fields ${u.fields.join(', ')}`);
      let constraint = `${table}_${fs.map((f) => f.column).join('_')}_unique`;
      if (constraint.length > 63) constraint = `${constraint.slice(0, 50)}_${hash(constraint)}_unique`.slice(0, 63);
      const path = u.path ?? u.fields.at(-1) ?? 'id';
      return { fields: fs, constraint, path, message: u.message ?? 'This value is already used.' };
    });
    return {
      name: d.name,
      plural: d.plural,
      path,
      iri: `/api/${path}`,
      table,
      description: d.description ?? d.name,
      fields,
      byName,
      stored: fields.filter((f) => f.stored),
      creatable: writable,
      updatable: writable.filter((f) => !f.writeOnce && (!updatableNames || updatableNames.has(f.name))),
      embedded: fields.filter((f) => f.kind === 'children' && f.def.kind === 'children' && f.def.embedded),
      nested: fields.filter((f) => f.kind === 'children' && f.def.kind === 'children' && !f.def.embedded && f.def.nested),
      filters: fields.filter((f) => f.filter),
      orders: [...fields.filter((f) => f.order).map((f) => f.name), 'createdAt'],
      rest: new Set(rest),
      graphql: new Set(graphql),
      states: d.states as StateMachine<Fields> | undefined,
      computed,
      unique,
      hooks: d.hooks ?? {},
      events: d.events,
      owner: undefined,
      writers: d.writers ?? ['admin', 'member'],
      shownOnce: fields.filter((f) => f.def.shownOnce),
      provider: d.provider,
      processor: d.processor,
      operations: operationsOf(d, path, problems),
      singleton: Boolean(d.singleton),
      documents: Object.entries(d.documents ?? {}).map(([mediaType, def]) => ({ mediaType, def: def as DocumentDescriptor })),
      present: d.present as ResourcePresentation | undefined,
    };
  });
  // A resource embedded in another one is "owned" through the children field's `via`.
  const byName = new Map(resources.map((r) => [r.name, r]));
  for (const r of resources) {
    for (const c of r.embedded) {
      const child = byName.get(c.target!);
      const via = child?.byName.get((c.def as { via: string }).via);
      if (!child || !via) {
        problems.push(`${r.name}.${c.name}: children via unknown field`);
        continue;
      }
      (child as { owner: ModelResource['owner'] }).owner = { field: via, resource: r.name, children: c.name };
    }
  }
  if (problems.length) throw new Error(`Invalid resource descriptors:\n  ${problems.join('\n  ')}`);
  const byPath = new Map(resources.map((r) => [r.path, r]));
  for (const r of resources) deepFreeze(r);
  return Object.freeze({
    resources: Object.freeze(resources),
    get(name: string) {
      const r = byName.get(name);
      if (!r) throw new Error(`Unknown resource ${name}`);
      return r;
    },
    find: (name: string) => byName.get(name),
    byPath: (path: string) => byPath.get(path),
  });
}

const ALL_ROLES: readonly Role[] = ['admin', 'member', 'viewer'];

/** The declared operations of a descriptor, with their routes and names worked out once. */
function operationsOf(d: AnyResourceDescriptor, path: string, problems: string[]): ModelOperation[] {
  const out: ModelOperation[] = [];
  for (const on of ['collection', 'item'] as const) {
    for (const [name, def] of Object.entries((d.operations[on] ?? {}) as Record<string, OperationDescriptor>)) {
      const segments = def.path.split('/').filter(Boolean);
      const params = segments.filter((s) => /^\{\w+\}$/.test(s)).map((s) => s.slice(1, -1));
      if (params.includes('id') || segments.some((s) => !/^(\{\w+\}|[a-z0-9-]+)$/.test(s))) problems.push(`${d.name}.${name}: path "${def.path}" must be lower-case segments and {parameters} other than {id}`);
      const raw = (def.body !== undefined && !def.body.text) || (def.output !== 'record' && ('binary' in def.output || 'empty' in def.output)) || def.method === 'PUT' || def.method === 'DELETE';
      if (raw && def.graphql !== false) problems.push(`${d.name}.${name}: an operation with a raw body, a file or empty output, or PUT or DELETE has no GraphQL field (graphql: false)`);
      if (def.body && !def.body.text && def.input) problems.push(`${d.name}.${name}: a raw body or a JSON input, not both`);
      if (def.body?.text && !def.input) problems.push(`${d.name}.${name}: a text body fills a member of its input: declare the input`);
      const below = segments.map((s) => (s.startsWith('{') ? `:${s.slice(1, -1)}` : s)).join('/');
      const base = on === 'item' ? `/${path}/:id` : `/${path}`;
      const url = `${base}/${below}`;
      const snakePath = `${path}${on === 'item' ? '/id' : ''}/${segments.map((s) => s.replace(/[{}]/g, '')).join('/')}`.replace(/[-/]/g, '_');
      out.push({
        name,
        on,
        method: def.method,
        url,
        template: `/api${url.replace(/:(\w+)/g, '{$1}')}`,
        params,
        roles: def.roles ?? (def.method === 'GET' ? ALL_ROLES : (d.writers ?? ['admin', 'member'])),
        graphql: def.graphql === false ? undefined : (def.graphql ?? `${name}${d.name}`),
        operationId: def.operationId ?? `api_${snakePath}_${def.method.toLowerCase()}`,
        def,
      });
    }
  }
  return out;
}

/** What a resource with its own provider and processor (engine/custom.ts) cannot declare. */
function customProblems(d: AnyResourceDescriptor, rest: readonly RestOperation[], graphql: readonly GraphqlOperation[]): string[] {
  const out: string[] = [];
  const writes = rest.some((op) => op !== 'list' && op !== 'read');
  if (d.processor && !d.provider) out.push(`${d.name}: a processor needs a provider`);
  if (d.provider && writes && !d.processor) out.push(`${d.name}: REST writes need a processor`);
  if (d.provider && graphql.length && !d.singleton) out.push(`${d.name}: no GraphQL is derived for a resource with a provider`);
  if (d.singleton && !d.provider) out.push(`${d.name}: a singleton needs a provider (and a processor to be changed)`);
  if (d.singleton && rest.some((op) => op !== 'read' && op !== 'update')) out.push(`${d.name}: a singleton is read and updated only`);
  if (d.provider && (d.states || d.computed || d.hooks || d.unique)) out.push(`${d.name}: states, computed fields, hooks and unique constraints are the processor's business`);
  return out;
}

/** A short, stable hash to keep long index names within PostgreSQL's 63 characters. */
function hash(s: string): string {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

function deepFreeze(o: unknown): void {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return;
  if (o instanceof Map || o instanceof Set) {
    Object.freeze(o);
    return;
  }
  Object.freeze(o);
  for (const v of Object.values(o)) if (typeof v !== 'function') deepFreeze(v);
}

export const typeKey = (r: ModelResource): string => lowerFirst(r.name);
