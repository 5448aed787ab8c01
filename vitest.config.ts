import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql ships CommonJS (main) and ESM (module) builds; Node and mercurius load the
    // CommonJS one, so our imports must too, or the schema is built by another graphql copy.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One migrated database per run, which each file's own database copies (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each file gets its own database; two at a time keeps a 2-core machine responsive.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
