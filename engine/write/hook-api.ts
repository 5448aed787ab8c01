// The API hooks receive: reads, locks and creates through the engine in the operation's
// transaction, acting as the caller. A create written as one statement (hooks declared
// `create: 'references'`) gives its hooks an API without a transaction: reads of the records its
// reference check loaded, and reads on the database before the write.
import type { EngineParts } from '../engine-parts.ts';
import type { HookApi } from '../hooks.ts';
import type { ModelResource } from '../model.ts';
import type { FieldValues, Principal, Tx } from '../types.ts';
import type { LoadedRecords } from './references.ts';
import type { OperationServices } from '../descriptor.ts';

export interface HookApis {
  /** The hook API in `tx`; reads look in `loaded` (the write's checked references) first. */
  inTransaction(tx: Tx, p: Principal, r: ModelResource, loaded?: LoadedRecords): HookApi;
  /**
   * The hook API of a create written as one statement. `afterWrite`: for the hook of that name,
   * when the record is not written yet: only the loaded records can be read.
   */
  withoutTransaction(p: Principal, r: ModelResource, loaded: LoadedRecords, afterWrite: boolean): HookApi;
}

type Create = (tx: Tx, p: Principal, r: ModelResource, input: FieldValues) => Promise<FieldValues>;
type Update = (tx: Tx, p: Principal, r: ModelResource, id: string, input: FieldValues) => Promise<FieldValues>;

export function hookApis(parts: EngineParts, create: Create, update: Update, services: OperationServices): HookApis {
  const { db, model, tables, reads } = parts;
  const own = (p: Principal, rec: FieldValues | null) => (rec && rec.companyId === p.company.id ? rec : null);
  return {
    inTransaction(tx, p, r, loaded) {
      return {
        tx,
        principal: p,
        model,
        resource: r,
        table: (name) => tables.get(name),
        read: async (name, id) => {
          const known = loaded?.get(`${name}:${id}`);
          return known ? { ...known } : own(p, await reads.fetch(tx, model.get(name), id));
        },
        lock: async (name, id) => own(p, await reads.fetch(tx, model.get(name), id, true)),
        create: (name, input) => create(tx, p, model.get(name), input),
        update: (name, id, input) => update(tx, p, model.get(name), id, input),
        services,
        emit: (name, id, types) => parts.events.emit(tx, model.get(name), typeof id === 'string' ? [id] : id, types),
      };
    },

    withoutTransaction(p, r, loaded, afterWrite) {
      const refuse = (what: string): never => {
        throw new Error(`The create hooks of ${r.name} declare create: 'references' but use ${what}; declare create: 'transaction' in its HookSet.`);
      };
      return {
        get tx(): Tx {
          return refuse('the transaction');
        },
        principal: p,
        model,
        resource: r,
        table: (name) => tables.get(name),
        read: async (name, id) => {
          const known = loaded.get(`${name}:${id}`);
          if (known) return { ...known };
          if (afterWrite) refuse(`a read of ${name} (not a record it refers to) after the write`);
          return own(p, await reads.fetch(db, model.get(name), id));
        },
        lock: async () => refuse('lock'),
        create: async () => refuse('create'),
        update: async () => refuse('update'),
        services,
        emit: async () => refuse('emit'),
      };
    },
  };
}
