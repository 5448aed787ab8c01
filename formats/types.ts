// What a format module provides. Formats know the model's shape, never a resource by name.
import type { Rec } from '../engine/context.ts';
import type { Model, ModelResource } from '../engine/model.ts';

export interface CollectionView {
  readonly resource: ModelResource;
  readonly items: readonly Rec[];
  readonly total: number;
  readonly page: number;
  readonly itemsPerPage: number;
  /** Request path without query string, and the query parameters as sent. */
  readonly path: string;
  readonly query: URLSearchParams;
}

export interface Rendered {
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export interface Format {
  /** Short name (jsonld, json, …). */
  readonly name: string;
  /** Content-Type of responses in this format. */
  readonly mediaType: string;
  /** Accept values that select this format (the first is canonical). */
  readonly accepts: readonly string[];
  item(model: Model, r: ModelResource, rec: Rec): Rendered;
  collection(model: Model, view: CollectionView): Rendered;
  /** Turns a request document of this format into a plain field object; plain JSON when absent. */
  readBody?(model: Model, r: ModelResource, body: unknown): Record<string, unknown>;
  /** Serialises a rendered body to text; JSON when absent. */
  stringify?(body: unknown): string;
}
