// Content negotiation: Accept (with q-values and wildcards) picks the response format; no Accept
// or */* gives JSON-LD; nothing acceptable is a 406.
import Negotiator from 'negotiator';
import { ApiError } from '../engine/errors.ts';
import { hal } from './hal.ts';
import { json } from './json.ts';
import { jsonapi } from './jsonapi.ts';
import { jsonld } from './jsonld.ts';
import type { Format } from './types.ts';
import { xml } from './xml.ts';

const notAcceptable = (accept: string, types: readonly string[]) =>
  new ApiError(406, `Requested format "${accept.slice(0, 100)}" is not supported. Supported MIME types are "${types.join('", "')}".`);

/**
 * The media type of `types` that an Accept header prefers (the first of `types` when there is no
 * header); a 406 when none is acceptable. For routes with fixed media types (contexts, docs).
 */
export function negotiateType(accept: string | undefined, types: readonly string[]): string {
  if (!accept) return types[0]!;
  // The answers for a route's list of types, by Accept header (clients send few distinct ones).
  let answers = typeAnswers.get(types);
  if (!answers) typeAnswers.set(types, (answers = new Map()));
  let t = answers.get(accept);
  if (t === undefined) {
    t = new Negotiator({ headers: { accept } }).mediaType(types as string[]) ?? null;
    if (answers.size < 500) answers.set(accept, t);
  }
  if (!t) throw notAcceptable(accept, types);
  return t;
}
const typeAnswers = new WeakMap<readonly string[], Map<string, string | null>>();

export class Formats {
  private readonly byType = new Map<string, Format>();
  private readonly types: string[] = [];
  private readonly cache = new Map<string, Format | null>();

  constructor(readonly all: readonly Format[]) {
    for (const f of all) for (const t of f.accepts) {
      this.byType.set(t, f);
      this.types.push(t);
    }
  }

  get default(): Format {
    return this.all[0]!;
  }

  /** Every media type a response can be asked for, the default first. */
  get mediaTypes(): readonly string[] {
    return this.types;
  }

  /** The format for an Accept header; throws 406 when none is acceptable. */
  negotiate(accept: string | undefined): Format {
    if (!accept) return this.default;
    let f = this.cache.get(accept);
    if (f === undefined) {
      const t = new Negotiator({ headers: { accept } }).mediaType(this.types);
      f = t ? this.byType.get(t)! : null;
      if (this.cache.size < 500) this.cache.set(accept, f);
    }
    if (!f) throw notAcceptable(accept, this.types);
    return f;
  }

  private readonly documentFormats: (Formats | undefined)[] = [];
  /** The formats that write documents of declared operations; JSON-LD only for those with a type. */
  forDocuments(typed: boolean): Formats {
    const i = typed ? 1 : 0;
    return (this.documentFormats[i] ??= new Formats(this.all.filter((f) => f.document && (typed || !f.document.needsType))));
  }

  /** The format a request body is written in, by media type (parameters ignored). */
  forContentType(mediaType: string): Format | undefined {
    return this.byType.get(mediaType);
  }
}

// JSON-LD first: it answers Accept */* and requests without Accept.
export const defaultFormats = (): Formats => new Formats([jsonld, json, hal, jsonapi, xml]);
