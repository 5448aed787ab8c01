// Hooks let a resource's domain rules run inside the operation's transaction. They receive the
// engine's API for that transaction, so a rule can read or write any resource without leaving
// the tenant's scope.
import type { Principal, Rec, Tx } from './context.ts';
import type { Model, ModelResource } from './model.ts';
import type { AnyTable } from './tables.ts';

export interface HookApi {
  /**
   * The operation's transaction. A create first runs its rules without one, to write everything
   * in a single statement; a hook that uses `tx`, `lock` or `create` then has the whole create
   * run again in a transaction. So a hook does nothing outside the database before that point,
   * and lets errors it does not know pass through.
   */
  readonly tx: Tx;
  readonly principal: Principal;
  readonly model: Model;
  readonly resource: ModelResource;
  table(resource: string): AnyTable;
  /** Reads a record of the principal's company (embedded children included), or null. */
  read(resource: string, id: string): Promise<Rec | null>;
  /** Reads and locks (FOR UPDATE) a record of the principal's company, without children. */
  lock(resource: string, id: string): Promise<Rec | null>;
  /** Creates a record through the engine, with validation and hooks, as the principal. */
  create(resource: string, input: Rec): Promise<Rec>;
  /**
   * Records events of types `types` (declared in the descriptor's `events`) for a record of
   * `resource`, in the transaction, with the record as it is now: for changes a rule makes
   * without the engine (a payment settling its invoice).
   */
  emit(resource: string, id: string, types: readonly string[]): Promise<void>;
}

export interface WriteEvent {
  readonly op: 'create' | 'update';
  /** Values about to be stored (merged with the existing record on update); hooks may change them. */
  readonly data: Rec;
  /** The stored record before this write; null on create. */
  readonly existing: Rec | null;
  /** The fields the caller sent, after normalisation. */
  readonly input: Rec;
}

export interface AfterWriteEvent {
  readonly op: 'create' | 'update';
  readonly id: string;
  readonly data: Rec;
  readonly existing: Rec | null;
  readonly input: Rec;
}

export interface HookSet {
  /** Runs after field validation and before the row is written. Throw ApiError to refuse. */
  beforeWrite?(api: HookApi, e: WriteEvent): Promise<void> | void;
  /** Runs after the row and its embedded children are written, in the same transaction. */
  afterWrite?(api: HookApi, e: AfterWriteEvent): Promise<void> | void;
  /** Runs before a delete; throw ApiError (usually 409) to refuse. */
  beforeDelete?(api: HookApi, existing: Rec): Promise<void> | void;
  /** Runs after the row is deleted, in the same transaction. */
  afterDelete?(api: HookApi, existing: Rec): Promise<void> | void;
}
