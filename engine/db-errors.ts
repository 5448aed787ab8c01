// Database errors as API errors: a unique index names the field whose value is taken (422), a
// foreign key either a reference whose target went away (422) or a record still referenced
// (409), a serialisation failure or deadlock a conflict to retry (409).
import { ApiError, ViolationCode as C } from './errors.ts';
import type { Model, ModelField, ModelResource } from './model.ts';
import { IDEMPOTENCY_PKEY, keyTaken } from './idempotency.ts';

/** The driver's error behind drizzle's wrapper, if any. */
export function driverError(e: unknown): { code?: string; constraint?: string; detail?: string } | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const o = cur as { code?: unknown; constraint?: string; constraint_name?: string; detail?: string; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) return { code: o.code, constraint: o.constraint ?? o.constraint_name, detail: o.detail };
    cur = o.cause;
  }
  return undefined;
}

interface ForeignKey {
  from: ModelResource;
  field: ModelField;
  to: string;
}

/** Turns errors of the model's constraints into API errors; others pass through unchanged. */
export type DbErrorTranslator = (e: unknown) => unknown;

export function dbErrorTranslator(model: Model): DbErrorTranslator {
  // Constraint names → what they mean.
  const uniqueIndexes = new Map<string, { path: string; message: string }>();
  const foreignKeys = new Map<string, ForeignKey>();
  for (const r of model.resources) {
    for (const u of r.unique) uniqueIndexes.set(u.constraint, { path: u.path, message: u.message });
    for (const f of r.stored) {
      if (f.def.kind === 'text' && f.def.unique) uniqueIndexes.set(`${r.table}_${f.column}_unique`, { path: f.name, message: 'This value is already used.' });
      if (f.kind === 'ref') foreignKeys.set(`${r.table}_${f.column}_${model.get(f.target!).table}_id_fk`, { from: r, field: f, to: f.target! });
    }
  }
  return (e) => {
    if (e instanceof ApiError) return e;
    const d = driverError(e);
    if (!d) return e;
    if (d.code === '23505' && d.constraint === IDEMPOTENCY_PKEY) return keyTaken();
    if (d.code === '23505') {
      const u = d.constraint ? uniqueIndexes.get(d.constraint) : undefined;
      return ApiError.validation([{ propertyPath: u?.path ?? 'id', message: u?.message ?? 'This value is already used.', code: C.unique }]);
    }
    // 23503: a foreign key (NO ACTION) is violated; 23001: a RESTRICT one is.
    if (d.code === '23503' || d.code === '23001') {
      const fk = d.constraint ? foreignKeys.get(d.constraint) : undefined;
      // The referencing side: a record written with a reference whose target went away after the
      // check (another request deleted it in between).
      if (fk && d.detail?.includes('is not present in table')) {
        return ApiError.validation([{ propertyPath: fk.field.name, message: 'Item not found: it was deleted meanwhile.', code: C.notFound }]);
      }
      return ApiError.conflict(fk ? `This ${fk.to} cannot be deleted: ${fk.from.name} records still refer to it.` : 'This record is still referenced by other records.');
    }
    if (d.code === '40001' || d.code === '40P01') return new ApiError(409, 'The record was changed by another request at the same time; retry.');
    return e;
  };
}
