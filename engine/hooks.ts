// Hooks let a resource's domain rules run inside the operation's transaction. They receive the
// engine's API for that transaction, so a rule can read or write any resource without leaving
// the tenant's scope.
import type { Principal, FieldValues, Tx } from './types.ts';
import type { Model, ModelResource } from './model.ts';
import type { AnyTable } from './tables.ts';
import type { OperationServices } from './descriptor.ts';

export interface HookApi {
  /**
   * The operation's transaction. Not available to the create hooks of a resource whose hooks
   * declare `create: 'references'` (see HookSet): that create runs without one.
   */
  readonly tx: Tx;
  readonly principal: Principal;
  readonly model: Model;
  readonly resource: ModelResource;
  table(resource: string): AnyTable;
  /**
   * Reads a record of the principal's company (embedded children included), or null. The records
   * the write refers to were loaded by its reference check: reading them costs no statement.
   */
  read(resource: string, id: string): Promise<FieldValues | null>;
  /** Reads and locks (FOR UPDATE) a record of the principal's company, without children. */
  lock(resource: string, id: string): Promise<FieldValues | null>;
  /** Creates a record through the engine, with validation and hooks, as the principal. */
  create(resource: string, input: FieldValues): Promise<FieldValues>;
  /**
   * Changes a record through the engine (a merge, as PATCH: validation, state rules, hooks,
   * events), as the principal, in the transaction: an e-mail issuing its draft invoice.
   */
  update(resource: string, id: string, input: FieldValues): Promise<FieldValues>;
  /** What the layer above provides (EngineOptions.services): a mail queue, a clock. */
  readonly services: OperationServices;
  /**
   * Records events of types `types` (declared in the descriptor's `events`) for a record of
   * `resource`, in the transaction, with the record as it is now: for changes a rule makes
   * without the engine (a payment settling its invoice).
   */
  emit(resource: string, id: string | readonly string[], types: readonly string[]): Promise<void>;
}

export interface WriteEvent {
  readonly op: 'create' | 'update';
  /** Values about to be stored (merged with the existing record on update); hooks may change them. */
  readonly data: FieldValues;
  /** The stored record before this write; null on create. */
  readonly existing: FieldValues | null;
  /** The fields the caller sent, after normalisation. */
  readonly input: FieldValues;
}

export interface AfterWriteEvent {
  readonly op: 'create' | 'update';
  readonly id: string;
  readonly data: FieldValues;
  readonly existing: FieldValues | null;
  readonly input: FieldValues;
}

/**
 * What the create hooks of a resource use, besides the values they are given (beforeWrite and
 * afterWrite on create, and the resource's `computed.computeNew`):
 * - `'references'`: nothing but `read` of the records the new record refers to (loaded by the
 *   reference check). The create is then written as one statement, with no transaction; using
 *   `tx`, `lock` or `create` there is a programming error. What afterWrite changes in `data` is
 *   not written (it runs before the statement, on values already taken).
 * - `'transaction'`: the operation's transaction (`tx`, `lock`, `create`, reads of any record).
 *   The create runs in a transaction; afterWrite runs after the insert.
 * Chosen once at start-up from the descriptor: a resource with create hooks and no declaration
 * is `'transaction'`; one without hooks, computed fields or an owner is written in one statement.
 */
export type CreateNeeds = 'references' | 'transaction';

export interface HookSet {
  /** What the create hooks use (see CreateNeeds); `'transaction'` when omitted. */
  readonly create?: CreateNeeds;
  /** Runs after field validation and before the row is written. Throw ApiError to refuse. */
  beforeWrite?(api: HookApi, e: WriteEvent): Promise<void> | void;
  /** Runs after the row and its embedded children are written, in the same transaction. */
  afterWrite?(api: HookApi, e: AfterWriteEvent): Promise<void> | void;
  /** Runs before a delete; throw ApiError (usually 409) to refuse. */
  beforeDelete?(api: HookApi, existing: FieldValues): Promise<void> | void;
  /** Runs after the row is deleted, in the same transaction. */
  afterDelete?(api: HookApi, existing: FieldValues): Promise<void> | void;
}
