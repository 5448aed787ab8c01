// Declared operations (a descriptor's `operations.item` and `.collection`), run the same way for
// every adapter: the role check, the record read as the principal (404, 403), the body checked
// against the declared input schema (422), then the operation's provider or processor, a POST
// in one transaction with the engine's API for it. The adapters only translate.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { OperationServices } from './descriptor.ts';
import { ApiError, ViolationCode } from './errors.ts';
import type { ModelOperation, ModelResource } from './model.ts';
import type { Engine } from './operations.ts';
import type { Db, FieldValues, Principal } from './types.ts';

/** What one call of a declared operation carries, whichever adapter made it. */
export interface OperationCall {
  /** The record's id (item operations). */
  id?: string;
  /** The operation's own path parameters. */
  params?: Record<string, string>;
  query?: URLSearchParams;
  input?: unknown;
}

/** What the runner uses of an engine (a provider-only model's engine has no transaction). */
export type DeclaredEngine = Pick<Engine, 'model' | 'read'> & Partial<Pick<Engine, 'transaction' | 'bind'>>;

export type RunOperation = (p: Principal, r: ModelResource, op: ModelOperation, call: OperationCall) => Promise<unknown>;

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The body against the declared schema: 422 naming each wrong member. */
export function checkInput(schema: TSchema, input: unknown): unknown {
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(input)) return input;
  const violations = [...check.Errors(input)].slice(0, 20).map((e) => ({ propertyPath: e.path.replace(/^\//, '').replace(/\//g, '.') || '(body)', message: e.message, code: ViolationCode.format }));
  throw ApiError.validation(violations);
}

export function operationRunner(engine: DeclaredEngine, db: Db, services: OperationServices): RunOperation {
  return async (p, r, op, call) => {
    if (!op.roles.includes(p.role)) throw ApiError.forbidden(p.role === 'viewer' ? 'A viewer may only read.' : `A ${p.role} may not use ${op.name} of ${r.name} resources.`);
    let record: FieldValues | undefined;
    if (op.on === 'item') {
      if (call.id === undefined) throw ApiError.notFound();
      record = await engine.read(p, r, call.id);
    }
    const input = op.def.input ? checkInput(op.def.input, call.input ?? null) : undefined;
    const params = { ...(call.params ?? {}), ...(call.id !== undefined ? { id: call.id } : {}) };
    const base = { principal: p, resource: r, model: engine.model, db, record, params, query: call.query ?? new URLSearchParams(), input, services };
    // A processor of the engine's own records writes in one transaction, with the engine's API.
    if (op.method === 'POST' && op.def.transaction !== false && !r.provider && engine.transaction && engine.bind) {
      const { transaction, bind } = engine as Engine;
      const committed: (() => void)[] = [];
      const result = await transaction((tx) => op.def.run({ ...base, tx, api: bind(tx, p, r), afterCommit: (fn) => void committed.push(fn) }));
      for (const fn of committed) fn();
      return result;
    }
    return op.def.run({ ...base, tx: undefined, api: undefined, afterCommit: (fn) => fn() });
  };
}

/** The declared operation of `r` called `name`. */
export function operationOf(r: ModelResource, name: string): ModelOperation {
  const op = r.operations.find((o) => o.name === name);
  if (!op) throw new Error(`${r.name} declares no operation ${name}`);
  return op;
}

/**
 * A GET's query string against its declared `query` schema (each member a string, or a list for
 * a `name[]` member): the values by name, or a 422 naming each wrong parameter. Parameters the
 * schema does not declare are ignored, as a collection's unknown filters are.
 */
export function checkQuery(schema: TSchema, query: URLSearchParams): Record<string, unknown> {
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const values: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(props)) {
    if (p.type === 'array') {
      const all = query.getAll(name);
      if (all.length) values[name] = all;
    } else {
      const v = query.get(name);
      if (v !== null) values[name] = v;
    }
  }
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(values)) return values;
  const violations = [...check.Errors(values)].slice(0, 20).map((e) => ({ propertyPath: e.path.replace(/^\//, '').replace(/\//g, '.') || '(query)', message: e.message, code: ViolationCode.format }));
  throw ApiError.validation(violations);
}
