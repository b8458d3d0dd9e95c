import { defineConfig } from 'vitest/config';

export default defineConfig({
  // `source`: @telerace/protocol resolves to its TypeScript, no build needed.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: { include: ['src/**/*.test.ts'], testTimeout: 15_000 },
});
