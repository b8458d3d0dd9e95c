import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// `findBy…`/`waitFor` wait for behaviour, not for speed: on a loaded 2-core CI machine a render can
// take longer than Testing Library's 1 s default, so allow more before calling it a failure. A lazy
// page's first import is transformed on demand by Vitest's main process, shared by both workers:
// a clean-clone run once needed more than 5 s for /leaderboards' first render (under the 15 s test limit).
configure({ asyncUtilTimeout: 10_000 });

// jsdom has no layout: scrolling (ScrollRestoration) is a no-op here.
window.scrollTo = vi.fn() as unknown as typeof window.scrollTo;

afterEach(() => {
  cleanup();
});
