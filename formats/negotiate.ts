// Content negotiation: Accept (with q-values and wildcards) picks the response format; no Accept
// or */* gives JSON-LD; nothing acceptable is a 406.
import Negotiator from 'negotiator';
import { ApiError } from '../engine/errors.ts';
import { json } from './json.ts';
import { jsonld } from './jsonld.ts';
import type { Format } from './types.ts';

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

  /** The format for an Accept header; throws 406 when none is acceptable. */
  negotiate(accept: string | undefined): Format {
    if (!accept) return this.default;
    let f = this.cache.get(accept);
    if (f === undefined) {
      const t = new Negotiator({ headers: { accept } }).mediaType(this.types);
      f = t ? this.byType.get(t)! : null;
      if (this.cache.size < 500) this.cache.set(accept, f);
    }
    if (!f) throw new ApiError(406, `Requested format "${accept.slice(0, 100)}" is not supported. Supported MIME types are "${this.types.join('", "')}".`);
    return f;
  }

  /** The format a request body is written in, by media type (parameters ignored). */
  forContentType(mediaType: string): Format | undefined {
    return this.byType.get(mediaType);
  }
}

export const defaultFormats = (): Formats => new Formats([jsonld, json]);
