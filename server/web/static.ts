// Static files of the web pages, served by one route, GET /assets/<root>/<path>, from the
// directories listed in STATIC_ROOTS (relative to the repository root, resolved once). This list
// is everything the pages load: whoever packages the service embeds exactly these directories.
// Files are read once and kept in memory; responses carry an ETag so browsers revalidate cheaply.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../engine/errors.ts';

/** The repository root: every static root below is relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** URL prefix of every static file. */
export const ASSETS_PREFIX = '/assets';

/** `/assets/<name>/…` → directory (relative to REPO_ROOT). */
export const STATIC_ROOTS = {
  /** The pages' own code, styles and icon. */
  app: 'web',
  /** Preact and its hooks, as ES modules (preact/dist/preact.mjs, preact/hooks/dist/hooks.mjs). */
  preact: 'node_modules/preact',
  /** htm: tagged templates for Preact, so the pages need no build step. */
  htm: 'node_modules/htm/dist',
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

const ROOT_DIRS = new Map(Object.entries(STATIC_ROOTS).map(([name, dir]) => [name, resolve(REPO_ROOT, dir)]));

/** The file for a path under /assets/, or null when it is outside every root or of a type not served. */
export function staticFile(path: string): { file: string; type: string } | null {
  const [root, ...rest] = path.split('/');
  const dir = ROOT_DIRS.get(root ?? '');
  if (!dir || !rest.length || rest.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.') || s.includes('\\') || s.includes('\0'))) return null;
  const type = TYPES[rest.at(-1)!.split('.').pop()!.toLowerCase()];
  if (!type) return null;
  const file = resolve(dir, ...rest);
  if (!file.startsWith(dir + sep)) return null;
  return { file, type };
}

interface Cached {
  body: Buffer;
  etag: string;
}

export function registerStatic(app: FastifyInstance): void {
  const cache = new Map<string, Promise<Cached | null>>();
  const load = (file: string) =>
    readFile(file).then(
      (body) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }),
      () => null,
    );

  app.get<{ Params: { '*': string } }>(`${ASSETS_PREFIX}/*`, async (req, reply) => {
    const path = req.params['*'];
    const found = staticFile(path);
    const notFound = () => ApiError.notFound(`No route found for "GET ${ASSETS_PREFIX}/${path.slice(0, 100)}"`);
    if (!found) throw notFound();
    let entry = cache.get(found.file);
    if (!entry) {
      entry = load(found.file);
      cache.set(found.file, entry);
    }
    const hit = await entry;
    if (!hit) {
      cache.delete(found.file);
      throw notFound();
    }
    reply.header('etag', hit.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === hit.etag) return reply.code(304).send();
    return reply.type(found.type).send(hit.body);
  });
}
