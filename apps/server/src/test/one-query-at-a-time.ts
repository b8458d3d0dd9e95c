/**
 * Fails the test during which pg warned that a query was sent to a connection still busy with
 * another (concurrent-query.ts). A setup file of the postgres project (vitest.config.ts; PGlite
 * has no such queue). Node says a deprecation once per process, so the first offender of a worker
 * fails its test, with the warning's stack.
 */
import { afterEach } from 'vitest';
import { CONCURRENT_QUERY_WARNING } from './concurrent-query.js';

const HEARD = Symbol.for('telerace.concurrent-query-warnings');

/** Listened for once per process: the setup file runs again before each test file. */
function heard(): Error[] {
  const holder = globalThis as { [HEARD]?: Error[] };
  if (!holder[HEARD]) {
    const warnings: Error[] = [];
    process.on('warning', (warning) => {
      if (warning.message.includes(CONCURRENT_QUERY_WARNING)) warnings.push(warning);
    });
    holder[HEARD] = warnings;
  }
  return holder[HEARD];
}

const warnings = heard();

afterEach(() => {
  const [first] = warnings.splice(0);
  if (first) throw new Error(`two queries at once on one PostgreSQL connection:\n${first.stack}`);
});
