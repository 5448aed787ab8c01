// Static files of the web pages, served by one route, GET /assets/<root>/<path>, from the asset
// roots named in STATIC_ROOTS (declared in server/assets.ts, so the single executable embeds
// them). Files are read once and kept in memory; responses carry an ETag so browsers revalidate.
// The pages ask for them under a versioned address, /assets/@<hash>/<root>/<path>, whose hash is
// the content hash of the whole root (assetUrl): those answers are cached for a year as
// immutable, so a warm load fetches nothing but the page, and a new version is a new address.
// A root's hash covers every file of it, so relative imports between its ES modules keep
// working under the versioned prefix.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../engine/errors.ts';
import { assetFiles, hashFiles, readAsset } from '../assets.ts';

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
  /** intl-messageformat (FormatJS): the catalogue's ICU messages in /app, as on the server; without its parser (vendor/intl-messageformat, scripts/app-formatter.ts): the page gets the messages parsed. */
  'intl-messageformat': 'intl-messageformat',
} as const satisfies Record<string, string>;

const versions = new Map<string, string>();
/** The content hash of a static root's files (computed once: the files do not change while the server runs). */
export function assetVersion(name: keyof typeof STATIC_ROOTS): string {
  let v = versions.get(name);
  if (v === undefined) {
    const root = STATIC_ROOTS[name];
    v = hashFiles(root, assetFiles(root), (f) => readAsset(root, f));
    versions.set(name, v);
  }
  return v;
}

/** The versioned, long-cached address of a static file: /assets/@<root's hash>/<root>/<file>. */
export const assetUrl = (name: keyof typeof STATIC_ROOTS, file: string): string => `${ASSETS_PREFIX}/@${assetVersion(name)}/${name}/${file}`;

/** The module specifiers the pages import, for the import map in each page (versioned addresses). */
export const IMPORT_MAP = {
  imports: {
    preact: assetUrl('preact', 'dist/preact.mjs'),
    'preact/hooks': assetUrl('preact', 'hooks/dist/hooks.mjs'),
    htm: assetUrl('htm', 'htm.mjs'),
    'intl-messageformat': assetUrl('intl-messageformat', 'intl-messageformat.js'),
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

/**
 * Style sheets made of others, so that a page loads one (the first page of /app has a budget of
 * requests: bench/results/app.md): the site's styles, then the application's. Under the `app`
 * root, whose hash covers their parts.
 */
export const COMBINED: Record<string, readonly string[]> = { 'app/page.css': ['styles.css', 'app/app.css'] };

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
      const parts = root === STATIC_ROOTS.app ? COMBINED[file] : undefined;
      const body = parts ? Buffer.concat(parts.map((f) => readAsset(root, f))) : readAsset(root, file);
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    } catch {
      return null;
    }
  };

  app.get<{ Params: { '*': string } }>(`${ASSETS_PREFIX}/*`, async (req, reply) => {
    let path = req.params['*'];
    // A versioned address: immutable when its hash is the root's current one.
    const versioned = /^@([0-9a-f]{16})\/(.*)$/.exec(path);
    if (versioned) path = versioned[2]!;
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
    const name = path.split('/')[0] as keyof typeof STATIC_ROOTS;
    const current = versioned !== null && versioned[1] === assetVersion(name);
    reply.header('etag', hit.etag).header('cache-control', current ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (req.headers['if-none-match'] === hit.etag) return reply.code(304).send();
    return reply.type(found.type).send(hit.body);
  });
}
