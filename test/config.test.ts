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

describe('CORS_ORIGINS', () => {
  it('is a comma-separated list of origins, none by default; anything else refuses to start', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: ' https://admin.example.com, http://127.0.0.1:8080/ ,' }).corsOrigins).toEqual(['https://admin.example.com', 'http://127.0.0.1:8080']);
    for (const bad of ['admin.example.com', 'ftp://admin.example.com', 'https://admin.example.com/path', 'https://admin.example.com?x=1']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });
});
