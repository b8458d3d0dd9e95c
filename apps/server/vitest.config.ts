/**
 * The server suite runs twice on the same files: against embedded PGlite and against a real
 * PostgreSQL (TEST_DB=postgres; admin URL from TEST_PG_ADMIN_URL, see src/test/app.ts).
 */
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // `source`: workspace packages (@telerace/protocol) resolve to their TypeScript, no build needed.
  // Node tests resolve through the ssr environment, which has its own conditions. Vitest hands
  // them to Node (`--conditions`) for every require too, so they are the server's own (no
  // `module`: @opentelemetry/api, under prom-client, has an extensionless ESM build there).
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source', 'node', 'development|production'] } },
  test: {
    include: ['src/**/*.test.ts'],
    // PGlite tests use the CPU while PostgreSQL tests mostly wait: run two files at once even on
    // two cores (Vitest's default there is one).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          env: { TEST_DB: 'pglite' },
          globalSetup: ['src/test/pglite-snapshot.ts'],
          // Several server instances share one PostgreSQL (test/instances.ts): those tests run once, on postgres.
          exclude: [...configDefaults.exclude, 'src/**/*.instances.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          env: { TEST_DB: 'postgres' },
          // What only the embedded database has (backup and restore of DATA_DIR/db) runs once, on pglite.
          exclude: [...configDefaults.exclude, 'src/**/*.embedded.test.ts'],
        },
      },
    ],
  },
});
