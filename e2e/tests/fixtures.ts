/**
 * `test` and `expect` for every browser test: Playwright's, plus a check that no page of the test
 * failed to hydrate (issue 45). A page the server drew that the browser cannot hydrate as it is
 * logs "Hydration error" (apps/web/src/main.tsx's onRecoverableError: React then throws the
 * server's HTML away and draws the page again, a flash a visitor sees): such a test fails, in
 * whatever browser context of the test it happened.
 */
import { type BrowserContext, test as base, type ConsoleMessage } from '@playwright/test';

export * from '@playwright/test';

/** What main.tsx logs when React gives up on the server's HTML. */
const HYDRATION_ERROR = /^Hydration error/;

const errors: string[] = [];
const watched = new WeakSet<BrowserContext>();

function watch(context: BrowserContext): void {
  if (watched.has(context)) return;
  watched.add(context);
  context.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error' && HYDRATION_ERROR.test(message.text())) {
      errors.push(`${message.page()?.url() ?? '?'}: ${message.text()}`);
    }
  });
}

export const test = base.extend<{ failOnHydrationErrors: undefined }, { watchNewContexts: undefined }>({
  // Contexts a test makes itself (`browser.newContext()`) are watched as well.
  watchNewContexts: [
    async ({ browser }, use) => {
      const newContext = browser.newContext.bind(browser);
      const newPage = browser.newPage.bind(browser);
      browser.newContext = async (...args) => {
        const context = await newContext(...args);
        watch(context);
        return context;
      };
      browser.newPage = async (...args) => {
        const page = await newPage(...args);
        watch(page.context());
        return page;
      };
      await use(undefined);
    },
    { scope: 'worker', auto: true },
  ],
  failOnHydrationErrors: [
    async ({ context }, use) => {
      watch(context);
      errors.length = 0;
      await use(undefined);
      const found = errors.splice(0);
      if (found.length > 0) throw new Error(`a page failed to hydrate:\n${found.join('\n')}`);
    },
    { auto: true },
  ],
});
