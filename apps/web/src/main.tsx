/** Entry point: translations, styles, then the providers around the router once the texts are there. */
import i18n, { i18nReady, loadLaterEnglish } from './i18n';
import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { AuthProvider } from './features/auth/AuthProvider';
import { onTokenChange } from './lib/auth-client';
import { createAppRouter, preloadPage } from './router';
import { preloadHomePhoto } from './routes/home-photo';

// The page's own code (and the landing page's photo) is fetched now, beside the session restore,
// not once the session is known and the page renders.
preloadPage(window.location.pathname);
if (window.location.pathname === '/') preloadHomePhoto();
// A control page needs janus.js for its first frame: fetch it now, not once the route renders.
if (window.location.pathname.startsWith('/control/')) {
  import('./lib/janus-stream').then(({ loadJanus }) => loadJanus()).catch(() => undefined);
}

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1 } },
});
const router = createAppRouter();
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

// The first render waits for the shown language's texts (a chunk of their own in the build).
await i18nReady();
const reactRoot = createRoot(root);
// As a transition, React renders the app in slices and yields to the browser between them instead
// of one long task (a phone's main thread stays responsive: Lighthouse's Total Blocking Time).
startTransition(() => {
  reactRoot.render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <AuthProvider navigate={(to, options) => router.navigate(to, options)}>
          <RouterProvider router={router} />
        </AuthProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
});
