// Static files of the web pages, served by one route, GET /assets/<root>/<path>, from the asset
// roots named in STATIC_ROOTS (declared in server/assets.ts, so the single executable embeds
// them). Files are read once and kept in memory; responses carry an ETag so browsers revalidate.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../engine/errors.ts';
import { readAsset } from '../assets.ts';

/** URL prefix of every static file. */
export const ASSETS_PREFIX = '/assets';

/** `/assets/<name>/…` → asset root (server/assets.ts). */
export const STATIC_ROOTS = {
  /** The pages' own code, styles and icon (web/). */
  app: 'web',
  /** Preact and its hooks, as ES modules (preact/dist/preact.mjs, preact/hooks/dist/hooks.mjs). */
  preact: 'preact',
  /** htm: tagged templates for Preact, so the pages need no build step. */
  htm: 'htm',
} as const satisfies Record<string, string>;

/** The module specifiers the pages import, for the import map in each page. */
export const IMPORT_MAP = {
  imports: {
    preact: `${ASSETS_PREFIX}/preact/dist/preact.mjs`,
    'preact/hooks': `${ASSETS_PREFIX}/preact/hooks/dist/hooks.mjs`,
    htm: `${ASSETS_PREFIX}/htm/htm.mjs`,
  },
};

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
};

const ROOTS = new Map<string, string>(Object.entries(STATIC_ROOTS));

/** The asset for a path under /assets/, or null when it is outside every root or of a type not served. */
export function staticFile(path: string): { root: string; file: string; type: string } | null {
  const [name, ...rest] = path.split('/');
  const root = ROOTS.get(name ?? '');
  if (!root || !rest.length || rest.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.') || s.includes('\\') || s.includes('\0'))) return null;
  const type = TYPES[rest.at(-1)!.split('.').pop()!.toLowerCase()];
  if (!type) return null;
  return { root, file: rest.join('/'), type };
}

interface Cached {
  body: Buffer;
  etag: string;
}

export function registerStatic(app: FastifyInstance): void {
  const cache = new Map<string, Promise<Cached | null>>();
  const load = async (root: string, file: string): Promise<Cached | null> => {
    try {
      const body = readAsset(root, file);
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    } catch {
      return null;
    }
  };

  app.get<{ Params: { '*': string } }>(`${ASSETS_PREFIX}/*`, async (req, reply) => {
    const path = req.params['*'];
    const found = staticFile(path);
    const notFound = () => ApiError.notFound(`No route found for "GET ${ASSETS_PREFIX}/${path.slice(0, 100)}"`);
    if (!found) throw notFound();
    const key = `${found.root}/${found.file}`;
    let entry = cache.get(key);
    if (!entry) {
      entry = load(found.root, found.file);
      cache.set(key, entry);
    }
    const hit = await entry;
    if (!hit) {
      cache.delete(key);
      throw notFound();
    }
    reply.header('etag', hit.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === hit.etag) return reply.code(304).send();
    return reply.type(found.type).send(hit.body);
  });
}
