import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each file gets its own database; two at a time keeps a 2-core machine responsive.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
