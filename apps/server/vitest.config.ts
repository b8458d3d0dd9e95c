/**
 * The server suite runs twice on the same files: against embedded PGlite and against a real
 * PostgreSQL (TEST_DB=postgres; admin URL from TEST_PG_ADMIN_URL, see src/test/app.ts).
 */
import { configDefaults, defineConfig } from 'vitest/config';
import SlowFilesFirst from './src/test/sequencer.js';

export default defineConfig({
  // `source`: workspace packages (@telerace/protocol) resolve to their TypeScript, no build needed.
  // Node tests resolve through the ssr environment, which has its own conditions. Vitest hands
  // them to Node (`--conditions`) for every require too, so they are the server's own (no
  // `module`: @opentelemetry/api, under prom-client, has an extensionless ESM build there).
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source', 'node', 'development|production'] } },
  test: {
    include: ['src/**/*.test.ts'],
    // Many files wait on real processes, sockets or PostgreSQL while PGlite tests use the CPU:
    // three files at once on two cores (Vitest's default there is one). Measured on this 2-core
    // machine: 413 s with two, 330 s with three.
    maxWorkers: 3,
    // One worker runs many files, each importing the app once per worker instead of once per
    // file (that import was a third of the suite's CPU). Tests share no module state: every test
    // builds its own app, clock and database (test/app.ts).
    isolate: false,
    sequence: { sequencer: SlowFilesFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          env: { TEST_DB: 'pglite' },
          globalSetup: ['src/test/migrated-databases.ts'],
          // Several server instances share one PostgreSQL (test/instances.ts), and what only PostgreSQL
          // does (a server of the test's own, killed and restarted): those tests run once, on postgres.
          exclude: [...configDefaults.exclude, 'src/**/*.instances.test.ts', 'src/**/*.postgres.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          env: { TEST_DB: 'postgres' },
          globalSetup: ['src/test/migrated-databases.ts'],
          // Two queries at once on one connection fail the test (pg 9 refuses them).
          setupFiles: ['src/test/one-query-at-a-time.ts'],
          // What only the embedded database has (backup and restore of DATA_DIR/db), and what the
          // database plays no part in (a car's safety timers, its network): once, on pglite.
          exclude: [...configDefaults.exclude, 'src/**/*.embedded.test.ts', 'src/**/*.once.test.ts'],
        },
      },
    ],
  },
});
