// The files the server reads at run time — migrations, PGlite's WebAssembly and file-system
// bundle, the static files of the GraphiQL and Swagger UI pages, package.json — named by one list
// of roots. Run from source, they are read from the project and node_modules; in the single
// executable (`npm run build:binary`) they are SEA assets inside the binary, listed in a manifest.
// A new static directory is one line in ASSET_ROOTS.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface AssetRoot {
  /** The name code asks for, and the first segment of the files' asset keys. */
  name: string;
  /** The npm package the files come from; none: the project itself. */
  package?: string;
  /** Directory inside the package (or project). */
  dir?: string;
  /** Paths relative to `dir`: `*` matches within one path segment, `**` across segments. */
  include: string[];
}

export const ASSET_ROOTS: readonly AssetRoot[] = [
  { name: 'app', include: ['package.json'] },
  { name: 'migrations', dir: 'drizzle', include: ['*.sql', 'meta/_journal.json'] },
  { name: 'pglite', package: '@electric-sql/pglite', dir: 'dist', include: ['pglite.wasm', 'pglite.data', 'initdb.wasm'] },
  // PGlite's contrib extensions the migrations create (read by PGlite from a file path).
  { name: 'pglite-extensions', package: '@electric-sql/pglite', dir: 'dist', include: ['pg_trgm.tar.gz'] },
  { name: 'graphiql', package: 'graphiql', include: ['graphiql.min.js', 'graphiql.min.css'] },
  { name: 'react', package: 'react', include: ['umd/react.production.min.js'] },
  { name: 'react-dom', package: 'react-dom', include: ['umd/react-dom.production.min.js'] },
  { name: 'swagger-ui', package: '@fastify/swagger-ui', dir: 'static', include: ['**'] },
  // The web pages (server/web/static.ts serves these under /assets/<name>/).
  { name: 'web', dir: 'web', include: ['**'] },
  { name: 'preact', package: 'preact', include: ['dist/preact.mjs', 'hooks/dist/hooks.mjs'] },
  { name: 'htm', package: 'htm', dir: 'dist', include: ['htm.mjs'] },
  // FormatJS's message formatter for /app's catalogue, without its ICU parser (the server parses the
  // messages): one ES module bundled by scripts/app-formatter.ts, checked in, with its packages' licences.
  { name: 'intl-messageformat', dir: 'vendor/intl-messageformat', include: ['intl-messageformat.js', 'LICENSE.md'] },
  // The fonts of the PDF documents (server/documents/pdf.ts): Latin, Greek and Cyrillic, with their licence.
  { name: 'fonts', package: 'dejavu-fonts-ttf', include: ['ttf/DejaVuSans.ttf', 'ttf/DejaVuSans-Bold.ttf', 'LICENSE'] },
  // The sRGB colour profile of the Factur-X PDFs' output intent (server/documents/facturx.ts): the
  // ICC's sRGB2014.icc, which PDFKit's package carries (free to use, copy and distribute).
  { name: 'icc', package: 'pdfkit', dir: 'js/data', include: ['sRGB_IEC61966_2_1.icc'] },
];

/** What the build writes as the asset `manifest.json`: each root's files and a hash of their contents. */
export type Manifest = Record<string, { files: string[]; hash: string }>;
export const MANIFEST_KEY = 'manifest.json';
export const assetKey = (root: string, file: string): string => `${root}/${file}`;

/**
 * The project directory when running from source. The one place that reads import.meta.url:
 * in the CommonJS bundle the build defines it as the bundle's own URL (dist/, one level down,
 * like server/), where it only serves to run the bundle from a checkout.
 */
export const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));

interface Sea {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

/** `node:sea` when this process is a single executable application (Node ≥ 20.12). */
const sea: Sea | undefined = (() => {
  try {
    const mod = createRequire(join(PROJECT_DIR, 'package.json'))('node:sea') as Sea;
    return mod.isSea() ? mod : undefined;
  } catch {
    return undefined;
  }
})();

export const isSingleExecutable = (): boolean => sea !== undefined;

let manifest: Manifest | undefined;
function embedded(): Manifest {
  manifest ??= JSON.parse(Buffer.from(sea!.getAsset(MANIFEST_KEY)).toString('utf8')) as Manifest;
  return manifest;
}

function rootOf(name: string): AssetRoot {
  const root = ASSET_ROOTS.find((r) => r.name === name);
  if (!root) throw new Error(`Unknown asset root "${name}".`);
  return root;
}

/** A package's directory, found as Node finds packages (no `exports` map in the way). */
function packageDir(name: string): string {
  const require = createRequire(join(PROJECT_DIR, 'package.json'));
  for (const base of require.resolve.paths(name) ?? []) {
    if (existsSync(join(base, name, 'package.json'))) return join(base, name);
  }
  throw new Error(`Package ${name} is not installed.`);
}

/** The directory of a root on disk (from source). */
export function sourceDir(name: string): string {
  const root = rootOf(name);
  const base = root.package ? packageDir(root.package) : PROJECT_DIR;
  return root.dir ? join(base, root.dir) : base;
}

function globRegex(glob: string): RegExp {
  const body = glob
    .split('**')
    .map((part) => part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : e.isFile() ? [`${prefix}${e.name}`] : []));
}

/** The files of a root, relative to it, with `/` separators. */
export function assetFiles(name: string): string[] {
  if (sea) return embedded()[name]?.files ?? [];
  const root = rootOf(name);
  const dir = sourceDir(name);
  const patterns = root.include.map(globRegex);
  // Globs without `**` never need a walk below the depth they name.
  const files = root.include.every((g) => !g.includes('*'))
    ? root.include.filter((f) => existsSync(join(dir, f)))
    : walk(dir).filter((f) => patterns.some((p) => p.test(f)));
  // Each name must exist and each glob match something: a package update that moved a file
  // fails here (and the build), not in a browser.
  const missing = root.include.filter((g, i) => !files.some((f) => patterns[i]!.test(f)));
  if (missing.length) throw new Error(`Asset root ${name} (${dir}): nothing matches ${missing.join(', ')}.`);
  return files;
}

/** A file's bytes: from the binary's assets, or from disk. */
export function readAsset(name: string, file: string): Buffer<ArrayBuffer> {
  if (sea) {
    if (!embedded()[name]?.files.includes(file)) throw new Error(`No embedded asset ${assetKey(name, file)}.`);
    return Buffer.from(sea.getAsset(assetKey(name, file)));
  }
  const root = rootOf(name);
  if (!root.include.map(globRegex).some((p) => p.test(file)) || file.split('/').includes('..')) throw new Error(`${file} is not an asset of ${name}.`);
  return readFileSync(join(sourceDir(name), ...file.split('/')));
}

/** A content hash of a root's files (the build stores it in the manifest). */
export function hashFiles(name: string, files: string[], read: (file: string) => Buffer): string {
  const h = createHash('sha256').update(name);
  for (const f of files) h.update('\0').update(f).update('\0').update(read(f));
  return h.digest('hex').slice(0, 16);
}

/** Candidate cache directories, most specific first; the system's temporary directory last. */
function cacheCandidates(): string[] {
  const env = process.env;
  const uid = process.getuid?.() ?? 'user';
  return [
    env.INVOICING_CACHE_DIR,
    env.XDG_CACHE_HOME && join(env.XDG_CACHE_HOME, 'invoicing'),
    env.HOME && join(env.HOME, '.cache', 'invoicing'),
    join(tmpdir(), `invoicing-cache-${uid}`),
  ].filter((d): d is string => !!d);
}

/** The first candidate that is (or can be made) a directory of our own that nobody else may write. */
function privateCache(): string | undefined {
  for (const base of cacheCandidates()) {
    try {
      mkdirSync(base, { recursive: true, mode: 0o700 });
      const st = lstatSync(base);
      const ours = process.getuid ? st.uid === process.getuid() : true;
      if (st.isDirectory() && ours && (st.mode & 0o022) === 0) return base;
    } catch {
      /* not writable here: next candidate */
    }
  }
  return undefined;
}

const extracted = new Map<string, string>();

/**
 * A directory holding a root's files, for libraries that read a directory (drizzle's migrator,
 * @fastify/swagger-ui). From source: the directory itself. In the binary: the files written once
 * to a private cache directory, named by their content hash; a later start of the same binary
 * finds them there. A copy that lost files (a temporary-files cleaner) is not used: this
 * process then writes its own, removed when it exits.
 */
export function assetDir(name: string): string {
  if (!sea) return sourceDir(name);
  const known = extracted.get(name);
  if (known) return known;
  const entry = embedded()[name];
  if (!entry) throw new Error(`No embedded asset root "${name}".`);
  const complete = (dir: string) => entry.files.every((f) => existsSync(join(dir, ...f.split('/'))));
  const cache = privateCache();
  const target = cache ? join(cache, `${name}-${entry.hash}`) : undefined;
  if (target && complete(target)) {
    extracted.set(name, target);
    return target;
  }
  const work = mkdtempSync(join(cache ?? tmpdir(), `${name}-`));
  for (const file of entry.files) {
    const path = join(work, ...file.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, readAsset(name, file));
  }
  let dir = work;
  try {
    if (!target) throw new Error('no cache');
    renameSync(work, target);
    dir = target;
  } catch {
    if (target && complete(target)) {
      // Another process extracted the same files first: use its copy.
      rmSync(work, { recursive: true, force: true });
      dir = target;
    } else {
      process.once('exit', () => rmSync(work, { recursive: true, force: true }));
    }
  }
  extracted.set(name, dir);
  return dir;
}
