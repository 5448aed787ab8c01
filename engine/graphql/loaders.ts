// Per-request batching: every record or child window a GraphQL request asks for during one turn
// of the event loop is read in one statement per kind (resource, or parent field and arguments).
// The number of statements therefore follows the query's shape, never the number of rows.
import type { Principal, FieldValues } from '../types.ts';
import type { ModelResource } from '../model.ts';
import type { Engine } from '../operations.ts';
import type { Slice, SliceQuery } from '../query.ts';

/** The resource a record belongs to, for the `Node` interface and union-free type resolution. */
export const TYPE = Symbol('graphql.type');

export type Tagged = FieldValues & { [TYPE]?: string };

export function tag<T extends FieldValues>(r: ModelResource, rec: T): T {
  (rec as Tagged)[TYPE] = r.name;
  return rec;
}

interface Batch<V> {
  keys: Map<string, { resolve(v: V): void; reject(e: unknown): void }[]>;
  run(keys: string[]): Promise<Map<string, V>>;
  miss: V;
}

const EMPTY: Slice = Object.freeze({ items: [], total: 0, hasPreviousPage: false, hasNextPage: false }) as Slice;

export class Loaders {
  private readonly batches = new Map<string, Batch<unknown>>();
  private readonly cache = new Map<string, Promise<unknown>>();
  private scheduled = false;

  constructor(
    private readonly engine: Engine,
    private readonly principal: Principal,
  ) {}

  /** A record of `r` by id, or null when it is missing or belongs to another company. */
  record(r: ModelResource, id: string): Promise<FieldValues | null> {
    return this.load<FieldValues | null>(`record:${r.name}`, id.toLowerCase(), null, async (ids) => {
      const recs = await this.engine.findMany(this.principal, r, ids, { embedded: false });
      return new Map(recs.map((rec) => [String(rec.id), tag(r, rec)]));
    });
  }

  /**
   * A window of the records of `r` whose ref `via` points at `parent`. `batch` names the
   * parent field and its arguments: parents asking with the same one share a statement.
   */
  children(r: ModelResource, via: string, parent: string, q: SliceQuery, batch: string): Promise<Slice> {
    return this.load<Slice>(`children:${batch}`, parent, EMPTY, async (parents) => {
      const slices = await this.engine.sliceMany(this.principal, r, via, parents, q);
      for (const s of slices.values()) for (const rec of s.items) tag(r, rec);
      return slices;
    });
  }

  /** Forgets what was read: after a write, later reads in the same request see the change. */
  clear(): void {
    this.cache.clear();
  }

  private load<V>(batchKey: string, key: string, miss: V, run: (keys: string[]) => Promise<Map<string, V>>): Promise<V> {
    const cacheKey = `${batchKey}\u0000${key}`;
    const hit = this.cache.get(cacheKey);
    if (hit) return hit as Promise<V>;
    let b = this.batches.get(batchKey) as Batch<V> | undefined;
    if (!b) {
      b = { keys: new Map(), run, miss };
      this.batches.set(batchKey, b as Batch<unknown>);
    }
    const batch = b;
    const promise = new Promise<V>((resolve, reject) => {
      const waiting = batch.keys.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else batch.keys.set(key, [{ resolve, reject }]);
    });
    this.cache.set(cacheKey, promise);
    if (!this.scheduled) {
      this.scheduled = true;
      // setImmediate runs after every pending promise continuation, so all resolvers of one
      // level have asked before the batch is read.
      setImmediate(() => this.flush());
    }
    return promise;
  }

  private flush(): void {
    this.scheduled = false;
    const batches = [...this.batches.values()];
    this.batches.clear();
    for (const b of batches) {
      const keys = [...b.keys.keys()];
      b.run(keys).then(
        (found) => {
          for (const [k, waiters] of b.keys) {
            const v = found.has(k) ? found.get(k) : b.miss;
            for (const w of waiters) w.resolve(v);
          }
        },
        (err) => {
          for (const waiters of b.keys.values()) for (const w of waiters) w.reject(err);
        },
      );
    }
  }
}
