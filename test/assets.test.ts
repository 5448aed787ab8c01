// server/assets.ts from source: every declared root finds its files, reads stay inside the
// declared files, and directory consumers get the real directories.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASSET_ROOTS, assetDir, assetFiles, hashFiles, isSingleExecutable, readAsset, sourceDir } from '../server/assets.ts';

describe('assets from source', () => {
  it('is not the single executable', () => {
    expect(isSingleExecutable()).toBe(false);
  });

  it('finds every declared file of every root, and reads the same bytes as the file on disk', () => {
    for (const root of ASSET_ROOTS) {
      const files = assetFiles(root.name);
      expect(files.length, root.name).toBeGreaterThan(0);
      for (const f of root.include.filter((g) => !g.includes('*'))) expect(files, root.name).toContain(f);
      const first = files[0]!;
      expect(readAsset(root.name, first).equals(readFileSync(join(sourceDir(root.name), first))), `${root.name}/${first}`).toBe(true);
    }
    expect(assetFiles('migrations')).toEqual(expect.arrayContaining(['0000_init.sql', 'meta/_journal.json']));
    expect(assetFiles('swagger-ui')).toEqual(expect.arrayContaining(['swagger-ui-bundle.js', 'logo.svg', 'index.css']));
  });

  it('reads nothing outside the declared files', () => {
    expect(() => readAsset('migrations', '../package.json')).toThrow(/not an asset/);
    expect(() => readAsset('migrations', 'meta/0000_snapshot.json')).toThrow(/not an asset/);
    expect(() => readAsset('graphiql', 'package.json')).toThrow(/not an asset/);
    expect(() => readAsset('nope', 'x')).toThrow(/Unknown asset root/);
  });

  it('gives directory consumers the real directory, and hashes contents', () => {
    expect(assetDir('migrations')).toBe(sourceDir('migrations'));
    expect(readFileSync(join(assetDir('migrations'), 'meta', '_journal.json'), 'utf8')).toContain('"entries"');
    const files = assetFiles('migrations');
    const hash = hashFiles('migrations', files, (f) => readAsset('migrations', f));
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(hashFiles('migrations', files, (f) => Buffer.concat([readAsset('migrations', f), Buffer.from(' ')]))).not.toBe(hash);
  });
});
