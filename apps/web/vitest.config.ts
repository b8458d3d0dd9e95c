/** Unit and component tests: jsdom, Testing Library, workspace packages from their sources. */
import react from '@vitejs/plugin-react';
import { defaultClientConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { splitEnglishTexts } from './src/i18n/split-texts.js';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), splitEnglishTexts()],
  resolve: {
    conditions: ['source', ...defaultClientConditions],
  },
  test: {
    // happy-dom sets up a file's window in a third of jsdom's time (75 s → 30 s of the suite on
    // this 2-core machine); the few files that rely on jsdom's behaviour say so at their top.
    environment: 'happy-dom',
    // Vitest's default is one worker per core less one: a single worker on this 2-core machine,
    // with the main process idle while it runs.
    maxWorkers: 2,
    // Worker threads rather than child processes: 76 s against 81–88 s for the suite in the same
    // hour on this 2-core machine (CPU 131 s against 138–152 s), every test green both ways.
    pool: 'threads',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    // Above Testing Library's 5 s wait (src/test/setup.ts): on a loaded 2-core machine a test that
    // renders the app and waits for a page must fail on its assertion, not on the test's clock.
    testTimeout: 15_000,
    unstubGlobals: true,
  },
});
