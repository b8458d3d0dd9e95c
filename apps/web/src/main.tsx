/**
 * Entry point: translations, styles, then the providers around the router once the texts are there.
 * A page the server drew (entry-server.tsx: its state is in the HTML) is hydrated — in the language
 * it was drawn in, from the answers it was drawn with, once its page's code is here — so that the
 * visitor keeps the HTML they already see; any other page is rendered by the browser.
 */
import i18n, { i18nReady, loadLaterEnglish } from './i18n';
import './styles.css';
import { hydrate, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, StrictMode, startTransition, useEffect } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { AuthProvider } from './features/auth/AuthProvider';
import { onTokenChange } from './lib/auth-client';
import { drawnAt } from './lib/use-now';
import { createAppRouter, preloadPage } from './router';
import { preloadHomePhoto } from './routes/home-photo';
import { type PageState, readPageState } from './ssr/page-state';

// The page the server drew, if any, and if this browser shows the language it was drawn in (the
// server reads the language cookie and Accept-Language; a choice kept only in localStorage differs:
// the browser then draws the page itself, in the visitor's language).
const pageState = readPageState();
// The page's own code (and the landing page's photo) is fetched now, beside the session restore,
// not once the session is known and the page renders.
const pageCode = preloadPage(window.location.pathname);
if (window.location.pathname === '/') preloadHomePhoto();
// A control page needs janus.js for its first frame: fetch it now, not once the route renders.
if (window.location.pathname.startsWith('/control/')) {
  import('./lib/janus-stream').then(({ loadJanus }) => loadJanus()).catch(() => undefined);
}

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1 } },
});
// The first render waits for the shown language's texts (a chunk of their own in the build).
await i18nReady();
const drawn = pageState?.language === i18n.resolvedLanguage ? pageState : null;
const router = createAppRouter(drawn?.router);
// The race event socket follows the session for the page's whole life. Its code (with the schemas it
// checks messages with, and the English texts of its alerts) is fetched when a session first starts:
// a signed-out visitor never needs it. Once bound, it follows the token itself; a failed fetch is
// tried again at the next token.
let eventSession: Promise<unknown> | null = null;
onTokenChange((token) => {
  if (!token || eventSession) return;
  eventSession = Promise.all([import('./features/events/event-session'), loadLaterEnglish()])
    .then(([{ bindEventSocketToSession }]) =>
      bindEventSocketToSession({
        navigate: (to) => router.navigate(to),
        notify: (message) => window.alert(message),
        translate: (key, options) => i18n.t(key, options),
      }),
    )
    .catch((error: unknown) => {
      eventSession = null;
      console.error('Race event socket unavailable', error);
    });
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** How long the answers a page was drawn with count as fresh: its screens do not fetch them again. */
const DRAWN_ANSWERS_FRESH_MS = 10_000;

/**
 * The answers the server drew the page with, in the query cache as just fetched and fresh for
 * DRAWN_ANSWERS_FRESH_MS (a query's default `staleTime` of 0 would fetch each again as its screen
 * mounts, or at the first focus). Polls keep their own rhythm.
 */
function keepDrawnAnswers(state: PageState): void {
  for (const query of state.queries.queries) {
    query.state.dataUpdatedAt = Date.now();
    queryClient.setQueryDefaults(query.queryKey, { staleTime: DRAWN_ANSWERS_FRESH_MS });
  }
  hydrate(queryClient, state.queries);
}

/** Once the page is live, its buttons take taps again (styles.css). */
function HydratedAnswers({ children }: { children: ReactNode }) {
  useEffect(() => {
    document.documentElement.removeAttribute('data-hydrating');
  }, []);
  return children;
}

const app = (
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <HydratedAnswers>
        <AuthProvider navigate={(to, options) => router.navigate(to, options)}>
          <RouterProvider router={router} />
        </AuthProvider>
      </HydratedAnswers>
    </QueryClientProvider>
  </StrictMode>
);

if (drawn) {
  // Drawn as the server drew it: its time, its answers, its page's code. Not awaited at the top
  // level: a page's chunk may import this module's own, which must first finish evaluating.
  void pageCode.then(() => {
    keepDrawnAnswers(drawn);
    drawnAt(drawn.renderedAt);
    startTransition(() => {
      hydrateRoot(root, app, {
        onRecoverableError: (error) => console.error('Hydration error', error),
      });
    });
  });
} else {
  // As a transition, React renders the app in slices and yields to the browser between them instead
  // of one long task (a phone's main thread stays responsive: Lighthouse's Total Blocking Time).
  startTransition(() => createRoot(root).render(app));
}
