import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Three kinds of test file, which CI runs selectively (`--project`):
// - `browser`: pages driven in Chromium (*.browser.test.ts). They drive the same /api whatever the
//   database, so CI runs them on PostgreSQL (directly and through PgBouncer), not on PGlite.
// - `embedded`: files whose processes run on the embedded database whatever DATABASE_URL says (the
//   CLI's tests, the trace-level log check); CI runs them with PGlite only.
// - `api`: every other file: all of them run on PostgreSQL, through PgBouncer and on PGlite.
// The api and embedded files share their worker's modules with the files before them (isolate:
// false): the server's module graph is imported once per worker, not once per file (≈ 2 s of CPU
// each), and PGlite's WebAssembly is compiled once. They share no state through them: each file
// starts its own servers on its own database. The browser files are isolated: one replaces a module
// of the service for itself (vi.mock).
const browser = ['test/**/*.browser.test.ts'];
const embedded = ['test/cli.test.ts', 'test/log-redaction.test.ts'];

// Every project's settings (the run's global setup and worker count are the root's).
const common = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' } as const;

// graphql ships CommonJS (main) and ESM (module) builds; Node and mercurius load the CommonJS one,
// so our imports must too, or the schema is built by another graphql copy.
const resolve = { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] };

export default defineConfig({
  resolve,
  test: {
    // Each file gets its own database; two at a time keeps a 2-core machine responsive.
    maxWorkers: 2,
    // One migrated database per run, which each file's own database copies (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { resolve, test: { ...common, name: 'api', include: ['test/**/*.test.ts'], exclude: [...browser, ...embedded], isolate: false } },
      { resolve, test: { ...common, name: 'browser', include: browser, isolate: true } },
      { resolve, test: { ...common, name: 'embedded', include: embedded, isolate: false } },
    ],
  },
});
