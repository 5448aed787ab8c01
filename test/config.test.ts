import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.ts';

describe('configuration', () => {
  it('sizes the PostgreSQL pool at twice the cores (at least 4) unless DATABASE_POOL_SIZE says otherwise', () => {
    const byDefault = Math.max(4, 2 * availableParallelism());
    expect(loadConfig({}).databasePoolSize).toBe(byDefault);
    expect(loadConfig({ DATABASE_POOL_SIZE: '3' }).databasePoolSize).toBe(3);
    expect(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
    for (const bad of ['', '0', '-2', 'many']) expect(loadConfig({ DATABASE_POOL_SIZE: bad }).databasePoolSize, bad).toBe(byDefault);
  });
});
