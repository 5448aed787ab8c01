// `npm run build:binary`: dist/invoicing, one executable file — Node's single executable
// application (SEA) with the whole program bundled by esbuild into one CommonJS script, and every
// file it reads at run time (server/assets.ts: ASSET_ROOTS) embedded as SEA assets.
//   1. esbuild: server/cli/cli.ts → dist/invoicing.cjs
//   2. the asset manifest and dist/sea-config.json, from ASSET_ROOTS
//   3. node --experimental-sea-config → dist/sea-prep.blob
//   4. a copy of this node binary (stripped), the blob injected with postject → dist/invoicing
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ASSET_ROOTS, MANIFEST_KEY, PROJECT_DIR, assetFiles, assetKey, hashFiles, readAsset, sourceDir, type Manifest } from '../server/assets.ts';

const DIST = join(PROJECT_DIR, 'dist');
const BUNDLE = join(DIST, 'invoicing.cjs');
const BLOB = join(DIST, 'sea-prep.blob');
const OUT = join(DIST, 'invoicing');
const started = Date.now();
const step = (what: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${what}\n`);

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
if (major < 20 || (major === 20 && minor < 12)) throw new Error(`Node ${process.versions.node}: SEA assets need Node ≥ 20.12.`);

rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST, { recursive: true });

step('bundling server/cli/cli.ts with esbuild');
await build({
  entryPoints: [join(PROJECT_DIR, 'server', 'cli', 'cli.ts')],
  outfile: BUNDLE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${process.versions.node}`,
  // A SEA's main script is CommonJS whose require() loads built-in modules only (import() of
  // built-ins works). import.meta.url, from which libraries build paths and require functions,
  // becomes the script's own file URL (process.execPath in the binary).
  define: {
    'import.meta.url': '__invoicing_import_meta_url',
    // ws (from mercurius) would try its optional native add-ons, which are not bundled.
    'process.env.WS_NO_BUFFER_UTIL': '"1"',
    'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
  },
  banner: { js: 'var __invoicing_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
  // The bundled libraries' license notices stay in the binary.
  legalComments: 'eof',
  logLevel: 'warning',
});
step(`bundle: ${(statSync(BUNDLE).size / 1e6).toFixed(1)} MB`);

step('collecting assets');
const manifest: Manifest = {};
const assets: Record<string, string> = {};
for (const root of ASSET_ROOTS) {
  const files = assetFiles(root.name);
  if (files.length === 0) throw new Error(`Asset root ${root.name} (${sourceDir(root.name)}) matched no file.`);
  manifest[root.name] = { files, hash: hashFiles(root.name, files, (f) => readAsset(root.name, f)) };
  for (const f of files) assets[assetKey(root.name, f)] = join(sourceDir(root.name), ...f.split('/'));
}
const manifestPath = join(DIST, 'manifest.json');
writeFileSync(manifestPath, JSON.stringify(manifest));
assets[MANIFEST_KEY] = manifestPath;
const seaConfig = join(DIST, 'sea-config.json');
writeFileSync(
  seaConfig,
  JSON.stringify({ main: BUNDLE, output: BLOB, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: false, assets }, null, 2),
);
const bytes = Object.values(assets).reduce((n, p) => n + statSync(p).size, 0);
step(`${Object.keys(assets).length} assets, ${(bytes / 1e6).toFixed(1)} MB`);

step('preparing the SEA blob');
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });

step('injecting it into a copy of node');
copyFileSync(process.execPath, OUT);
chmodSync(OUT, 0o755);
// Without symbols and debug information (about 12 MB less), when binutils' strip is there.
const stripped = spawnSync('strip', ['--strip-all', OUT], { encoding: 'utf8' });
step(stripped.status === 0 ? 'stripped the copy' : 'strip not available: the copy keeps its symbols');
const postject = createRequire(join(PROJECT_DIR, 'package.json')).resolve('postject/dist/cli.js');
const injected = spawnSync(process.execPath, [postject, OUT, 'NODE_SEA_BLOB', BLOB, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { encoding: 'utf8' });
if (injected.status !== 0) {
  // Without LIEF's harmless "Can't find string offset for section name '.note…'" warnings.
  const noise = /^warning: Can't find string offset for section name/;
  process.stderr.write(`${injected.stdout}${injected.stderr}`.split('\n').filter((l) => l && !noise.test(l)).join('\n'));
  throw new Error(`postject failed (exit ${injected.status}).`);
}
rmSync(BLOB);

step(`dist/invoicing: ${(statSync(OUT).size / 1e6).toFixed(1)} MB`);
