// Declared operations (a descriptor's `operations.item` and `.collection`), run the same way for
// every adapter: the role check, the record read as the principal (404, 403), the body checked
// against the declared input schema (422), then the operation's provider or processor, a POST
// in one transaction with the engine's API for it. The adapters only translate.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
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

/**
 * The declared query parameters of a call, read from the query string as the body is from its
 * document: each declared name (an array schema takes every occurrence; another, one), converted
 * to its schema's type and checked against it (types, bounds, patterns, choices). A bad value, or
 * a single-valued parameter given twice, is a 400 naming each parameter; undeclared names are
 * ignored. Operations read the result (`ctx.args`), never the query string.
 */
export function readQuery(schema: TSchema, q: URLSearchParams): Record<string, unknown> {
  const props = (schema as { properties?: Record<string, TSchema & { type?: unknown }> }).properties ?? {};
  const raw: Record<string, unknown> = {};
  const twice: { propertyPath: string; message: string; code: string }[] = [];
  for (const [name, s] of Object.entries(props)) {
    const values = q.getAll(name);
    if (!values.length) continue;
    if (s.type === 'array') raw[name] = values;
    else if (values.length > 1) twice.push({ propertyPath: name, message: `Given ${values.length} times: give it once.`, code: ViolationCode.format });
    else raw[name] = values[0];
  }
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)));
  const args = Value.Convert(schema, raw) as Record<string, unknown>;
  const violations = [...twice];
  if (!check.Check(args)) {
    for (const e of [...check.Errors(args)].slice(0, 20)) {
      const what = (e.schema as { description?: string }).description;
      const propertyPath = e.path.replace(/^\//, '').replace(/\/\d+$/, '').replace(/~1/g, '/').replace(/~0/g, '~') || '(query)';
      violations.push({ propertyPath, message: what ? `${e.message} (${what}).` : `${e.message}.`, code: ViolationCode.format });
    }
  }
  if (violations.length) throw new ApiError(400, violations.map((v) => `${v.propertyPath}: ${v.message}`).join('\n'), { violations });
  return args;
}

/** The body against the declared schema: 422 naming each wrong member. */
export function checkInput(schema: TSchema, input: unknown): unknown {
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(input)) return input;
  // Paths as the engine's other violations write them: `lines[0].quantity`.
  const pathOf = (p: string) => p.split('/').filter(Boolean).map((x, i) => (/^\d+$/.test(x) ? `[${x}]` : `${i ? '.' : ''}${x.replace(/~1/g, '/').replace(/~0/g, '~')}`)).join('');
  // One violation per member (a missing one is also "not a string").
  const violations = [...new Map([...check.Errors(input)].reverse().map((e) => [pathOf(e.path) || '(body)', e.message])).entries()].reverse().slice(0, 20).map(([propertyPath, message]) => ({ propertyPath, message, code: ViolationCode.format }));
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
    const args = op.def.query ? readQuery(op.def.query, call.query ?? new URLSearchParams()) : {};
    const input = op.def.input ? checkInput(op.def.input, call.input ?? null) : op.def.body ? call.input : undefined; // a text body is a member of the input
    const params = { ...(call.params ?? {}), ...(call.id !== undefined ? { id: call.id } : {}) };
    const base = { principal: p, resource: r, model: engine.model, db, record, params, args, input, services };
    // A processor of the engine's own records writes in one transaction, with the engine's API.
    if (op.method !== 'GET' && op.def.transaction !== false && !r.provider && engine.transaction && engine.bind) {
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

