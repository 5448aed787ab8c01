// What a format module provides. Formats know the model's shape, never a resource by name.
import type { TSchema } from '@sinclair/typebox';
import type { Principal, FieldValues } from '../engine/types.ts';
import { documentOutput, type Model, type ModelOperation, type ModelResource } from '../engine/model.ts';
import { upperFirst } from '../engine/names.ts';
import type { Projection } from '../engine/projection.ts';
import type { WriteMode } from '../engine/json-schemas.ts';
import { memo } from '../engine/memo.ts';

export interface CollectionView {
  readonly resource: ModelResource;
  readonly items: readonly FieldValues[];
  /**
   * The page's records as a JSON array text built by the database with the format's projection;
   * when given, `items` is empty and the format puts this text where the records go.
   */
  readonly membersText?: string;
  /** Null when unknown: a partial-match filter matching more than MAX_COUNTED_MATCHES records. */
  readonly total: number | null;
  readonly page: number;
  readonly itemsPerPage: number;
  /** Request path without query string, and the query parameters (canonical names, see readQuery). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Absent for collections that page by `page` alone (a provider's). */
  readonly cursors?: CursorView;
}

/**
 * What the links of a collection that can be read through keyset cursors (CONTRACT §10) need:
 * in cursor mode (`after`/`before`) every link is a cursor link; in page mode a link whose page
 * number would pass `maxOffset` (next, last) becomes one.
 */
export interface CursorView {
  /** The request's cursor parameter; undefined in page mode. */
  readonly side?: 'after' | 'before';
  /** Whether that cursor was the edge cursor (after it: the first page; before it: the last). */
  readonly fromEdge: boolean;
  /** The edge cursor of the collection's order. */
  readonly edge: string;
  /** The cursors of the page's first and last records, when read (absent on an empty page). */
  readonly first?: string;
  readonly last?: string;
  /** Cursor mode: whether records follow the page in the direction it was read. */
  readonly more: boolean;
  /** Cursor mode: whether records lie behind the page, at or beyond its cursor the other way (false from the edge). */
  readonly behind: boolean;
  /** The largest offset ((page − 1) × itemsPerPage) a page number may name. */
  readonly maxOffset: number;
}

export interface Rendered {
  readonly body: unknown;
  /** The body already serialised (used instead of `body` when present). */
  readonly text?: string;
  readonly headers?: Record<string, string>;
}

export interface Format {
  /** Short name (jsonld, json, …). */
  readonly name: string;
  /** Content-Type of responses in this format. */
  readonly mediaType: string;
  /** Accept values that select this format (the first is canonical). */
  readonly accepts: readonly string[];
  item(model: Model, r: ModelResource, rec: FieldValues): Rendered;
  /**
   * When set, the database may build this format's records as JSON text (engine/projection.ts):
   * an item response is that text as it is, and `collection` gets a page as `membersText`.
   */
  readonly projection?: Projection;
  collection(model: Model, view: CollectionView): Rendered;
  /** The API entrypoint (`GET /api`): a link to every collection. */
  entrypoint(model: Model): Rendered;
  /** Turns a request document of this format into a plain field object; plain JSON when absent. */
  readBody?(model: Model, r: ModelResource, body: unknown): Record<string, unknown>;
  /**
   * Translates the format's own collection query parameters (e.g. JSON:API's `page[page]`,
   * `filter[x]`, `sort`) into the canonical ones (`page`, `x`, `order[x]`); identity when absent.
   */
  readQuery?(query: URLSearchParams): URLSearchParams;
  /** Serialises a rendered body to text; JSON when absent. */
  stringify?(body: unknown): string;
  /** How this format's bodies look, for the OpenAPI document. */
  readonly docs: FormatDocs;
  /** Documents answered by declared operations (engine/declared.ts), when the format offers them. */
  readonly document?: DocumentFormat;
}

/** A declared operation's document output, as a format writes it. */
export interface DocumentView {
  /** The output's type name (JSON-LD @type), if it has one. */
  readonly type?: string;
  /** The request path (JSON-LD @id). */
  readonly path: string;
  readonly schema: TSchema;
  /** The document, or the list's items. */
  readonly body: unknown;
  readonly many: boolean;
  /** Whether the document (or each item) is an object (see DocumentShape). */
  readonly objects?: boolean;
  /** A list's size, when known. */
  readonly total?: number | null;
}

export interface DocumentFormat {
  /** Offered only for outputs with a type name; every format of the engine does without (CONTRACT §22). */
  readonly needsType: boolean;
  render(model: Model, view: DocumentView): Rendered;
  /** The body's JSON Schema, for the OpenAPI document. */
  schema(view: Pick<DocumentView, 'type' | 'schema' | 'many' | 'objects'>): TSchema;
}

/** JSON Schemas of a format's bodies; shared shapes come from engine/json-schemas.ts. */
export interface FormatDocs {
  /** Named component schemas this format adds for a resource (e.g. `<Type>.jsonld`). */
  components?(model: Model, r: ModelResource): Record<string, TSchema>;
  item(r: ModelResource): TSchema;
  collection(r: ModelResource): TSchema;
  /** The request document, for formats that read bodies (readBody). */
  body?(r: ModelResource, mode: WriteMode): TSchema;
}

/**
 * A representation of one record that is a document rather than a serialisation of its fields
 * (a PDF, an e-invoice): the layer above builds it, loading what it needs, and the REST read
 * route offers it under its media type next to the formats.
 */
export interface ItemDocument {
  readonly mediaType: string;
  /** What the document is, for the OpenAPI description. */
  readonly description: string;
  /** Query parameters choosing among variants: the values this document takes (DocumentDescriptor.variants). */
  readonly variants?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Renders the record `id` as seen by `principal` (the same checks as a read: 404, 403), in the `variant` asked for. */
  render(principal: Principal, id: string, variant: Readonly<Record<string, string>>): Promise<{ body: Buffer | string; contentType?: string; headers?: Record<string, string> }>;
}

/**
 * The Content-Type of a response in `mediaType` (UTF-8), one string per media type made once:
 * fastify looks each Content-Type value up in a cache, which hashes a new string every time.
 */
export const contentTypeOf = memo((mediaType: string) => `${mediaType}; charset=utf-8`);

/** The shape of a declared operation's document output, as every format writes it. */
export interface DocumentShape {
  /**
   * Its type name (JSON-LD @type and @context, JSON:API type): the declared `type`, else the
   * schema's `title`, else `<Resource><Operation>` (`WebhookEventTypes`).
   */
  readonly type: string;
  /** A list's item schema, or the document's schema. */
  readonly schema: TSchema;
  /** A list: declared `many`, or an output whose schema is an array. */
  readonly many: boolean;
  /** Whether the document (or each item) is an object, whose members a format can spread. */
  readonly objects: boolean;
}

const shapes = new WeakMap<ModelOperation, DocumentShape | null>();

/** The document shape of a declared operation that answers a document (not a record); undefined otherwise. */
export function documentShape(r: ModelResource, op: ModelOperation): DocumentShape | undefined {
  let s = shapes.get(op);
  if (s === undefined) {
    const out = documentOutput(op);
    if (!out) s = null;
    else {
      const array = !out.many && (out.schema as { type?: unknown }).type === 'array';
      const schema = array ? ((out.schema as { items?: TSchema }).items ?? out.schema) : out.schema;
      const type = out.type ?? (out.schema as { title?: string }).title ?? (schema as { title?: string }).title ?? `${r.name}${upperFirst(op.name)}`;
      const objects = (schema as { type?: unknown }).type === 'object' || 'properties' in schema;
      s = { type, schema, many: Boolean(out.many) || array, objects };
    }
    shapes.set(op, s);
  }
  return s ?? undefined;
}
