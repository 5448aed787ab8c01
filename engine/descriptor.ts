// The descriptor language: a resource is one plain, typed object built with these helpers.
// Everything else (tables, routes, schemas, formats) is derived from it by the engine.
import type { TSchema } from '@sinclair/typebox';
import type { HookApi, HookSet } from './hooks.ts';
import type { Db, FieldValues, Principal, Role, Tx } from './types.ts';
import type { Model } from './model.ts';
import type { Processor, Provider } from './custom.ts';
// Presentation for people (labels, columns, sections, totals as typed): engine/presentation.ts.
import type { FieldPresentation, ResourcePresentation } from './presentation.ts';
export type { FieldPresentation, ResourcePresentation, RulePresentation } from './presentation.ts';

export type TextFormat = 'email' | 'url' | 'currency' | 'country';

interface Common {
  /** Never accepted from input; computed by the engine or a hook. */
  readOnly?: boolean;
  /** Accepted on create, ignored-with-422 afterwards (e.g. the parent of a line). */
  writeOnce?: boolean;
  required?: boolean;
  /** Documentation shown in OpenAPI and GraphQL. */
  description?: string;
  /**
   * Read-only and never stored: a value a processor returns only in the response to the create
   * that made it (a secret shown once); left out of every other representation.
   */
  shownOnce?: boolean;
  /** How people read and type the field (the web application's description; CONTRACT §20). */
  present?: FieldPresentation;
}

export interface TextField extends Common {
  kind: 'text';
  /**
   * The resources whose records' IRIs the value names (a document of several kinds): described
   * for clients such as the web application, which offers to create such a record from theirs.
   */
  refersTo?: readonly string[];
  min?: number;
  max?: number;
  /** Leading and trailing white space is removed before validation (default true). */
  trim?: boolean;
  format?: TextFormat;
  /** Unique per company; 'ci' ignores case. */
  unique?: 'company' | 'company-ci';
  filter?: 'exact' | 'partial';
  order?: boolean;
  default?: string;
  /**
   * When omitted on create, the next value of a per-company sequence: prefix + zero-padded counter.
   * `when`: only once the record's `field` holds one of `in` (a credit note is numbered when issued).
   */
  sequence?: { prefix: string; pad: number; when?: { field: string; in: readonly string[] } };
  /** Read-only value derived from another field of the same record at write time. */
  derive?: { from: string; fn: (value: unknown) => string | null };
  /**
   * A secret: every read shows it masked as `<prefix>…<last characters>`; only the response of
   * the write that set it (a create) carries it whole.
   */
  mask?: { prefix: string; last: number };
  /** Rewrites a valid value before it is checked and stored (e.g. removes the spaces of an IBAN). */
  normalise?: (value: string) => string;
  /** A rule of the value's own (e.g. an IBAN's check digits): the problem, or null when it is valid. */
  check?: (value: string) => string | null;
}

export interface IntegerField extends Common {
  kind: 'integer';
  min?: number;
  max?: number;
  default?: number;
  filter?: 'exact';
  order?: boolean;
  /** An amount in the currency's smallest unit (documented as such). */
  money?: boolean;
}

export interface DecimalField extends Common {
  kind: 'decimal';
  /** Digits after the decimal point; values are exact, stored as numeric. */
  scale: number;
  min?: number;
  max?: number;
  /** Value must be strictly greater than this. */
  above?: number;
  default?: number;
  order?: boolean;
}

export interface EnumField<V extends string = string> extends Common {
  kind: 'enum';
  values: readonly V[];
  default?: V;
  filter?: 'exact';
  order?: boolean;
}

export interface BooleanField extends Common {
  kind: 'boolean';
  default?: boolean;
}

export interface DateField extends Common {
  kind: 'date';
  default?: 'today';
  filter?: 'date';
  order?: boolean;
  /** The value must be on or after this other date field, when both are set. */
  notBefore?: string;
}

export interface TimestampField extends Common {
  kind: 'timestamp';
  default?: 'now';
  filter?: 'date';
  order?: boolean;
}

export interface RefField extends Common {
  kind: 'ref';
  /** Name of the target resource. */
  target: string;
  /** What deleting the target does: 'restrict' makes it a 409 conflict. */
  onDelete?: 'cascade' | 'restrict' | 'set null';
  filter?: 'exact';
}

/** A to-many relation: the records of `target` whose `via` field points here. Not stored. */
export interface ChildrenField extends Common {
  kind: 'children';
  target: string;
  via: string;
  /** Embedded in REST reads and writes (sending the array replaces all children). */
  embedded?: boolean;
  /** Field of the child that orders it. */
  orderBy?: string;
  /**
   * Written with the record, not embedded in its reads (a client's contacts and addresses): its
   * create and update take the children as an array; an item with the `id` of one of this
   * record's children changes it, one without creates it, and on update the children left out
   * are deleted — all in the record's transaction, through the engine (their own validation,
   * rules and events); a violation names the item (`contacts[1].email`). Omitted: unchanged.
   * The children keep their own routes and pages.
   */
  nested?: boolean;
}

/** An embedded list of small objects, stored with the record (jsonb). */
export interface ListField extends Common {
  kind: 'list';
  of: Record<string, ScalarField>;
  /**
   * The GraphQL type of an item, shared by every list field naming it (they must declare the same
   * members); `<Resource><Field>Item` when omitted.
   */
  typeName?: string;
}

/** A list of short texts (stored as a jsonb array), e.g. tags or event types. */
export interface TextListField extends Common {
  kind: 'textList';
  /** Required means non-empty. */
  maxItems?: number;
  /** Longest item, in characters. */
  itemMax?: number;
  /** The values an item may take, derived from the model (e.g. the event types); any when omitted. */
  choices?: (model: Model) => readonly string[];
}

/**
 * A JSON value of a fixed shape (a settings object), stored as jsonb. Its TypeBox schema documents
 * it (OpenAPI, JSON Schema), checks it (422 naming the member) and gives its GraphQL types (an
 * object schema names its type with `title`). `check`: rules beyond the schema, as problems by
 * member path (`invoice.subject`; '' for the value itself).
 */
export interface JsonField extends Common {
  kind: 'json';
  schema: TSchema;
  default?: unknown;
  check?: (value: unknown) => readonly { path: string; message: string }[];
}

export type ScalarField = TextField | IntegerField | DecimalField | EnumField | BooleanField | DateField | TimestampField | RefField;
export type Field = ScalarField | ChildrenField | ListField | TextListField | JsonField;
export type Fields = Record<string, Field>;

export type RestOperation = 'list' | 'read' | 'create' | 'update' | 'replace' | 'delete';
export type GraphqlOperation = 'query' | 'create' | 'update' | 'delete';

type EnumValues<F extends Fields, K extends keyof F> = F[K] extends EnumField<infer V> ? V : never;
type EnumKeys<F extends Fields> = { [K in keyof F]: F[K] extends EnumField<string> ? K : never }[keyof F];

/** A state machine over one enum field: which targets each state may move to by a write. */
export interface StateMachine<F extends Fields, K extends EnumKeys<F> = EnumKeys<F>> {
  field: K;
  initial: EnumValues<F, K>;
  transitions: { [S in EnumValues<F, K>]?: readonly EnumValues<F, K>[] };
  /**
   * Fields a write may change while the record is in a state (the state field itself always
   * may); a state not listed allows every field. Changing another field is a 422 on it. An
   * embedded children field not listed also refuses direct writes to those children (422 on
   * their owner field); sending the children unchanged is accepted and changes nothing.
   */
  editable?: { [S in EnumValues<F, K>]?: readonly (keyof F & string)[] };
  /** States in which the record may be deleted (409 otherwise); every state when omitted. */
  deletable?: readonly EnumValues<F, K>[];
  /**
   * What the rules (hooks) ask of a transition besides its source state, declared so that a
   * client offers it only where it can succeed (the hooks still decide): `{ to: 'draft', from:
   * ['pending'], when: { amountPaid: { eq: 0 } }, because: '…' }`.
   */
  guards?: readonly TransitionGuard<EnumValues<F, K>>[];
  /** What the rules ask of a delete besides `deletable` (an invoice without payments). */
  deleteWhen?: Condition;
  /**
   * How people see each transition, by target state: the button's label ("Issue") and, for one
   * that cannot be undone, the consequence a confirmation states before it is done.
   */
  actions?: { [S in EnumValues<F, K>]?: { label: string; confirm?: string } };
}

/**
 * A condition on a record's own fields, every member true: `{ amountPaid: { eq: 0 } }`,
 * `{ status: { in: ['pending', 'overdue'] }, balance: { gt: 0 } }`.
 */
export type Condition = Readonly<Record<string, { eq: string | number | boolean | null } | { in: readonly (string | number)[] } | { gt: number }>>;

export interface TransitionGuard<S extends string = string> {
  to: S;
  /** The source states it applies to; every one when omitted. */
  from?: readonly S[];
  when: Condition;
  /** Why it is not offered otherwise (for people). */
  because: string;
}

/** Read-only fields kept up to date by a function, in the transaction of the write that changed their inputs. */
export interface Computed<F extends Fields = Fields> {
  /** The read-only fields `compute` sets. */
  fields: readonly (keyof F & string)[];
  /**
   * Fields (or embedded children) whose change re-runs `compute` on update. It also runs after
   * every create, and after any create, update or delete of an embedded child through the engine.
   */
  on: readonly (keyof F & string)[];
  compute(api: HookApi, id: string): Promise<void>;
  /**
   * For a new record: sets the computed fields on the values about to be inserted (and on its
   * embedded children), so no recompute runs after the insert. Must agree with `compute`. It
   * receives the create hooks' API (see HookSet.create): with `'references'`, it reads only the
   * records the new record refers to.
   */
  computeNew?(api: HookApi, data: FieldValues, children: ReadonlyMap<string, FieldValues[]>): Promise<void> | void;
}

/** Several fields whose values together are unique within a company (rows with a null never clash). */
export interface UniqueTogether<F extends Fields = Fields> {
  fields: readonly (keyof F & string)[];
  /** The field a violation names; the last of `fields` when omitted. */
  path?: keyof F & string;
  message?: string;
}

export interface ResourceDescriptor<F extends Fields = Fields> {
  /** Type name: JSON-LD @type, GraphQL type, OpenAPI schema. */
  name: string;
  /** Lower-camel plural: the GraphQL collection query. */
  plural: string;
  /** REST path segment; defaults to the kebab-case plural. */
  path?: string;
  description?: string;
  fields: F;
  operations: {
    rest: readonly RestOperation[] | 'all' | 'none';
    graphql: readonly GraphqlOperation[] | 'all' | 'none';
    /** Operations on one record, below `/<path>/{id}` (API Platform's custom item operations). */
    item?: Record<string, OperationDescriptor>;
    /** Operations on the collection, below `/<path>`. */
    collection?: Record<string, OperationDescriptor>;
  };
  /**
   * One record per company (Payload's "globals"): `GET` and `PATCH` on `/<path>` itself, a
   * GraphQL query named after the resource and an `update<Name>` mutation. Its provider's `read`
   * and processor's `update` get the company's id as the record's id.
   */
  singleton?: boolean;
  /**
   * Documents an item is also rendered as (a PDF, an e-invoice), by media type: the read route
   * offers them beside the formats, negotiated by Accept.
   */
  documents?: Record<string, DocumentDescriptor>;
  /** Fields a REST PATCH/PUT may change; all writable ones when omitted. */
  updatable?: readonly (keyof F & string)[];
  states?: StateMachine<F>;
  computed?: Computed<F>;
  unique?: readonly UniqueTogether<F>[];
  hooks?: HookSet;
  /** Event types beyond `<resource>.created|updated|deleted` (engine/events.ts). */
  events?: ResourceEvents;
  /** Roles that may create, change and delete records; admins and members when omitted. */
  writers?: readonly Role[];
  /** How people see it (the web application): declared, never guessed from names (CONTRACT §20). */
  present?: ResourcePresentation<F>;
  /**
   * Reads (list, read) answered by this provider instead of the engine's tables, as API
   * Platform's state providers: the resource then has no table, migration or GraphQL type.
   */
  provider?: Provider;
  /** Writes (create, update, delete) done by this processor, after the engine's validation. */
  processor?: Processor;
}

/**
 * A declared operation besides CRUD: the engine derives its REST route (405, 406 and 415
 * answers included), its GraphQL field, its OpenAPI entry and its role check from this.
 */
export interface OperationDescriptor {
  /** PUT and DELETE: an operation with a raw `body` or a binary or empty output (not GraphQL). */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the resource (collection) or the record (item); `{name}` segments are parameters. */
  path: string;
  summary: string;
  description?: string;
  /** Roles allowed; every role for GET, the resource's writers for POST when omitted. */
  roles?: readonly Role[];
  /** The JSON body a POST takes (validated before `run`); none when omitted. */
  input?: TSchema;
  /**
   * A body that is a file rather than JSON, at most `maxBytes` (a 413 before `run`):
   * - without `text`, raw bytes: `run` gets `input` as `{ mediaType, bytes }` whatever its media
   *   type (refusing one it does not take with a 422 of its own); `mediaTypes` are those
   *   documented; no `input` schema, no GraphQL field;
   * - with `text` (a member of `input`), a text file of `mediaTypes[0]` (a CSV file): its UTF-8
   *   text (415 for another type, 422 for bytes that are not UTF-8) becomes that member of the
   *   input, which `input` describes and checks; GraphQL sends it as that member.
   */
  body?: { mediaTypes: readonly string[]; maxBytes: number; text?: string };
  /**
   * Query parameters a GET reads: documented (OpenAPI, Hydra, GraphQL arguments) and read, converted
   * and checked by the runner (400 naming them) into `ctx.args`. An array schema takes a repeated
   * parameter (`status[]`).
   */
  query?: TSchema;
  /** Success status; 200 when omitted. */
  status?: number;
  /**
   * What it answers: `'record'`, a record of the resource in every format (with its ETag);
   * `{ record: '<Resource>' }`, a record of another resource, likewise (a POST answering 201 gives
   * its Location: the credit note an invoice's `credit` makes); or a document described by
   * `schema`, in plain JSON, and in JSON-LD too when it names a `type`.
   */
  output: 'record' | { record: string } | OperationOutput | BinaryOutput | EmptyOutput;
  /** Event types the operation emits (listed with the resource's, for webhooks). */
  events?: readonly string[];
  /** The GraphQL field (a query for GET, a mutation for POST); derived when omitted, none when false. */
  graphql?: string | false;
  /** OpenAPI operationId; derived from the resource and the path when omitted. */
  operationId?: string;
  /** A POST runs in a transaction (ctx.tx, ctx.api) unless this is false. */
  transaction?: boolean;
  /** What the rules ask of the record for an item operation to succeed (a client offers it only then). */
  when?: Condition;
  /** How people see it: the button's label and, when it cannot be undone, the consequence to confirm. */
  present?: {
    label?: string;
    confirm?: string;
    /**
     * A custom view of the application: for a GET, the view that shows its answer (`dashboard`: the
     * home page); for an item POST with an input, the dialog that asks for it (`credit`).
     */
    view?: string;
    /** The record's amount an item operation takes whole when given no input, and at most otherwise (`balance`): its view shows it. */
    whole?: string;
    /**
     * An item GET answering a list whose items the record's page shows in a panel with this
     * title (a client's open balance per currency); its schema marks amounts (`x-money`) and
     * the member giving their currency (`x-currency`).
     */
    panel?: string;
  };
  /** The provider (GET) or processor (POST): what the operation does. */
  run(ctx: OperationContext): Promise<unknown>;
}

export interface OperationOutput {
  schema: TSchema;
  /** A list: `run` returns `{ items, total?, next? }`; `next` is the cursor of the following page. */
  many?: boolean;
  /** A type name: JSON-LD `@type` (and offered in JSON-LD), GraphQL object type. */
  type?: string;
}

/** A file: `run` returns `{ body, contentType }` (one of `mediaTypes`), or null for a 404. */
export interface BinaryOutput {
  binary: readonly string[];
}

/** Nothing: 204 (a DELETE). */
export interface EmptyOutput {
  empty: true;
}

/** A raw body as `run` gets it (operations with `body`). */
export interface RawBody {
  mediaType: string;
  bytes: Buffer;
}

/** What an operation's `run` gets. */
export interface OperationContext {
  readonly principal: Principal;
  readonly resource: import('./model.ts').ModelResource;
  readonly model: Model;
  /** The engine's database; `tx` the operation's transaction (POST on an engine-stored resource). */
  readonly db: Db;
  readonly tx: Tx | undefined;
  /** Item operations: the record, read as the principal (404 and 403 answered before). */
  readonly record: FieldValues | undefined;
  /** Path parameters (`id` and the operation's own). */
  readonly params: Readonly<Record<string, string>>;
  /**
   * The declared query parameters (`query`), converted and checked: all an operation gets of the
   * query string (it has no access to the raw one, so none parses its own).
   */
  readonly args: Readonly<Record<string, unknown>>;
  /** The validated body (POST with `input`). */
  readonly input: unknown;
  /** What the layer above provides (queues, clocks): see OperationServices. */
  readonly services: OperationServices;
  /** The engine's API in `tx`, as the principal (POST on an engine-stored resource). */
  readonly api: HookApi | undefined;
  /** Runs `fn` once the operation's transaction has committed (at once when there is none). */
  afterCommit(fn: () => void): void;
}

/**
 * Services the layer above provides to operations (a delivery queue, a clock). Modules declare
 * what they need by augmenting this interface; the server passes the implementations.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface OperationServices {}

/** A document rendering of one record (PDF, e-invoice). */
export interface DocumentDescriptor {
  /** What the document is, for the OpenAPI description. */
  description: string;
  /**
   * Query parameters that choose a variant of a record's documents, by name: the values this
   * document answers to, each with what it gives (OpenAPI). A request naming a parameter is
   * answered by the document that takes its value (Accept choosing when several do: none is a
   * 406); a value no document takes is a 400. Without the parameter, the document chooses.
   */
  variants?: Record<string, Record<string, string>>;
  /**
   * Renders the record `id` as seen by `principal` (the same checks as a read: 404, 403); a 422
   * naming what is missing when it cannot be made. `variant`: the parameters of `variants` the
   * request named.
   */
  render(ctx: { principal: Principal; resource: import('./model.ts').ModelResource; id: string; services: OperationServices; variant: Readonly<Record<string, string>> }): Promise<{ body: Buffer | string; contentType?: string; headers?: Record<string, string> }>;
}

/** The events a resource declares besides `<resource>.created`, `.updated` and `.deleted`. */
export interface ResourceEvents {
  /** Emitted when a write moves the record into state `to` (from one of `from`, when given). */
  states?: readonly { to: string; from?: readonly string[]; type: string }[];
  /** Emitted along with `<resource>.deleted`. */
  deleted?: readonly string[];
  /** Emitted by the resource's own rules (HookApi.emit), declared so that they are listed. */
  emitted?: readonly string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResourceDescriptor = ResourceDescriptor<any>;

/** An operation declaration (typed helper). */
export const operation = (o: OperationDescriptor): OperationDescriptor => o;

export function defineResource<const F extends Fields>(d: ResourceDescriptor<F>): ResourceDescriptor<F> {
  return d;
}

// Field helpers: they only fill in `kind`, so a descriptor reads like the contract.
type Opts<T> = Omit<T, 'kind'>;
export const text = (o: Opts<TextField> = {}): TextField => ({ kind: 'text', ...o });
export const integer = (o: Opts<IntegerField> = {}): IntegerField => ({ kind: 'integer', ...o });
export const money = (o: Opts<IntegerField> = {}): IntegerField => ({ kind: 'integer', money: true, ...o });
export const decimal = (o: Opts<DecimalField>): DecimalField => ({ kind: 'decimal', ...o });
export const oneOf = <const V extends string>(values: readonly V[], o: Opts<Omit<EnumField<V>, 'values'>> = {}): EnumField<V> => ({ kind: 'enum', values, ...o });
export const boolean = (o: Opts<BooleanField> = {}): BooleanField => ({ kind: 'boolean', ...o });
export const date = (o: Opts<DateField> = {}): DateField => ({ kind: 'date', ...o });
export const timestamp = (o: Opts<TimestampField> = {}): TimestampField => ({ kind: 'timestamp', ...o });
export const ref = (target: string, o: Opts<Omit<RefField, 'target'>> = {}): RefField => ({ kind: 'ref', target, ...o });
export const children = (target: string, via: string, o: Opts<Omit<ChildrenField, 'target' | 'via'>> = {}): ChildrenField => ({ kind: 'children', target, via, ...o });
export const textList = (o: Opts<TextListField> = {}): TextListField => ({ kind: 'textList', ...o });
export const json = (schema: TSchema, o: Opts<Omit<JsonField, 'schema'>> = {}): JsonField => ({ kind: 'json', schema, ...o });
export const list = (of: Record<string, ScalarField>, o: Opts<Omit<ListField, 'of'>> = {}): ListField => ({ kind: 'list', of, ...o });
