// IRIs in GraphQL arguments: an IRI (or a bare id) of the expected resource names a record.
import { ApiError } from '../errors.ts';
import type { Model, ModelResource } from '../model.ts';
import { isUuid } from '../validate.ts';

/** Resolves an IRI (or a bare id) of `r` to its id; null when it names no record of `r`. */
export function idFromIri(model: Model, r: ModelResource, value: unknown): string | null {
  if (isUuid(value)) return value.toLowerCase();
  if (typeof value !== 'string') return null;
  if (value.startsWith(`${r.iri}/`)) {
    const id = value.slice(r.iri.length + 1);
    return isUuid(id) ? id.toLowerCase() : null;
  }
  const other = resourceOfIri(model, value);
  if (other) throw ApiError.badRequest(`Item "${value.slice(0, 200)}" did not match expected type "${r.name}".`);
  throw ApiError.badRequest(`No route matches "${value.slice(0, 200)}".`);
}

/** The resource an IRI names, by its path. */
export function resourceOfIri(model: Model, iri: string): ModelResource | undefined {
  const m = /^\/api\/([^/]+)\/[^/]+$/.exec(iri);
  return m ? model.byPath(m[1]!) : undefined;
}
