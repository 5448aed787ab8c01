// Resources whose records live elsewhere: a descriptor's `provider` answers reads (list, read)
// and its `processor` does writes (create, update, delete), as API Platform's state providers
// and processors. The engine still does everything around them (roles, input validation with
// its 400s and 422s, 404s) and the adapters still do negotiation, formats, errors and the
// OpenAPI document; no table, migration, SQL projection or GraphQL type is derived for them.
import type { Db, Principal, FieldValues } from './types.ts';
import type { OperationServices } from './descriptor.ts';
import { ApiError } from './errors.ts';
import type { Model, ModelResource } from './model.ts';
import type { Engine, Page } from './operations.ts';
import type { ListQuery } from './query.ts';
import { assertWriter } from './roles.ts';
import { compileValidator, type ResourceValidator } from './validate.ts';

/** What a provider or processor is called with. */
export interface CustomContext {
  readonly principal: Principal;
  readonly resource: ModelResource;
  /** The operation being served (a provider also reads the record an update or delete changes). */
  readonly operation: 'list' | 'read' | 'update' | 'replace' | 'delete' | 'create';
  /** The engine's database. */
  readonly db: Db;
  /** What the layer above provides (EngineOptions.services): a resource's storage among them (`storedBy`). */
  readonly services: OperationServices;
}

export interface Provider {
  /**
   * A page of the collection. `q.where` holds the resource's declared filters and `q.order` its
   * declared orders, parsed and validated; `q.offset` and `q.limit` the page.
   */
  list(ctx: CustomContext, q: ListQuery): Promise<Page>;
  /** One record, or null when there is none (404). Throw `ApiError.forbidden()` for one the caller may not see. */
  read(ctx: CustomContext, id: string): Promise<FieldValues | null>;
}

export interface Processor {
  /** `data`: every writable field, validated, defaults applied. Returns the record as read (plus its `shownOnce` fields). */
  create(ctx: CustomContext, data: FieldValues): Promise<FieldValues>;
  /** `changes`: the validated fields the request sets (PATCH: those sent; PUT: every writable one). */
  update(ctx: CustomContext, existing: FieldValues, changes: FieldValues): Promise<FieldValues>;
  remove(ctx: CustomContext, existing: FieldValues): Promise<void>;
}

/** The engine's operations on resources with a provider (engine.ts dispatches to these). */
export type CustomOperations = Pick<Engine, 'list' | 'read' | 'find' | 'create' | 'update' | 'remove'>;

export const isCustom = (r: ModelResource): boolean => r.provider !== undefined;

export function customOperations(db: Db, model: Model, validators = new Map<string, ResourceValidator>(), services = {} as OperationServices): CustomOperations {
  const ctx = (p: Principal, r: ModelResource, operation: CustomContext['operation']): CustomContext => ({ principal: p, resource: r, operation, db, services });
  const provider = (r: ModelResource) => r.provider ?? fail(r, 'provider');
  const processor = (r: ModelResource) => r.processor ?? fail(r, 'processor');
  const validator = (r: ModelResource) => compileValidator(model, r, validators);

  async function read(c: CustomContext, id: string): Promise<FieldValues> {
    const rec = await provider(c.resource).read(c, id);
    if (!rec) throw ApiError.notFound();
    return rec;
  }
  return {
    list: (p, r, q) => provider(r).list(ctx(p, r, 'list'), q),
    read: (p, r, id) => read(ctx(p, r, 'read'), id),
    // Like read, but null for a missing record or one the caller may not see.
    async find(p, r, id) {
      try {
        return await provider(r).read(ctx(p, r, 'read'), id);
      } catch (e) {
        if (e instanceof ApiError && e.status === 403) return null;
        throw e;
      }
    },
    async create(p, r, input) {
      assertWriter(p, r);
      const { data } = validator(r).normalise(input, 'create', null);
      return processor(r).create(ctx(p, r, 'create'), data);
    },
    async update(p, r, id, input, mode) {
      assertWriter(p, r);
      const c = ctx(p, r, mode);
      const existing = await read(c, id);
      const { data } = validator(r).normalise(input, mode, existing);
      return processor(r).update(c, existing, data);
    },
    async remove(p, r, id) {
      assertWriter(p, r);
      const c = ctx(p, r, 'delete');
      const existing = await read(c, id);
      await processor(r).remove(c, existing);
      return existing;
    },
  };
}

/** The engine's operations, those on resources with a provider handed to `custom`. */
export function withCustomResources(engine: Engine, custom: CustomOperations): Engine {
  if (!engine.model.resources.some(isCustom)) return engine;
  return {
    ...engine,
    list: (p, r, q, o) => (isCustom(r) ? custom.list(p, r, q) : engine.list(p, r, q, o)),
    read: (p, r, id) => (isCustom(r) ? custom : engine).read(p, r, id),
    find: (p, r, id) => (isCustom(r) ? custom : engine).find(p, r, id),
    // Write options (preconditions, kept results) belong to the engine's own records.
    create: (p, r, input, o) => (isCustom(r) ? custom.create(p, r, input) : engine.create(p, r, input, o)),
    update: (p, r, id, input, mode, o) => (isCustom(r) ? custom.update(p, r, id, input, mode) : engine.update(p, r, id, input, mode, o)),
    remove: (p, r, id, o) => (isCustom(r) ? custom.remove(p, r, id) : engine.remove(p, r, id, o)),
  };
}

/**
 * An engine for a model whose resources all have a provider: nothing is derived for tables,
 * so it needs none (what the REST adapter uses of an engine).
 */
export function customEngine(db: Db, model: Model, services?: OperationServices): CustomOperations & { readonly model: Model; readonly json: undefined } {
  return { model, json: undefined, ...customOperations(db, model, undefined, services) };
}

/** A resource's storage: its provider and processor. */
export interface ResourceStorage {
  readonly provider: Provider;
  readonly processor: Processor;
}

/** The services (OperationServices) that are a resource's storage. */
export type StorageService = { [K in keyof OperationServices]-?: OperationServices[K] extends ResourceStorage ? K : never }[keyof OperationServices];

/**
 * A provider and processor that hand every call to the storage the layer above passes in as
 * the service `key` (EngineOptions.services): a descriptor whose records live in the server's
 * own tables (the company's row, users, API tokens) stays a descriptor like any other, and the
 * server brings where its records are.
 */
export function storedBy(key: StorageService): ResourceStorage {
  const of = (c: CustomContext): ResourceStorage => (c.services[key] as ResourceStorage | undefined) ?? fail(c.resource, `storage (service "${String(key)}")`);
  return {
    provider: {
      list: (c, q) => of(c).provider.list(c, q),
      read: (c, id) => of(c).provider.read(c, id),
    },
    processor: {
      create: (c, data) => of(c).processor.create(c, data),
      update: (c, existing, changes) => of(c).processor.update(c, existing, changes),
      remove: (c, existing) => of(c).processor.remove(c, existing),
    },
  };
}

function fail(r: ModelResource, what: string): never {
  throw new ApiError(405, `${r.name} has no ${what}.`);
}
