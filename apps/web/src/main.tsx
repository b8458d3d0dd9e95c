/** Entry point: translations, styles, then the providers around the router once the texts are there. */
import i18n, { i18nReady } from './i18n';
import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { AuthProvider } from './features/auth/AuthProvider';
import { bindEventSocketToSession } from './features/events/event-session';
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
// The race event socket follows the session for the page's whole life.
bindEventSocketToSession({
  navigate: (to) => router.navigate(to),
  notify: (message) => window.alert(message),
  translate: (key, options) => i18n.t(key, options),
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The first render waits for the shown language's texts (a chunk of their own in the build).
await i18nReady();
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <AuthProvider navigate={(to, options) => router.navigate(to, options)}>
        <RouterProvider router={router} />
      </AuthProvider>
    </QueryClientProvider>
  </StrictMode>,
);
