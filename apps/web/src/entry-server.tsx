/**
 * The server's renderer of the public pages (issue 45; built by `vite build --ssr` into dist-ssr/,
 * loaded by apps/server/src/http/page-render.ts). It draws a page as a signed-out visitor sees it,
 * in the language asked for, with the answers its screens fetch: a first render lets the screens
 * declare their queries (TanStack Query builds them; nothing fetches on a server), those are
 * fetched through the server's own router (`setApiTransport`), and the page is drawn again with
 * them, up to MAX_PASSES times for queries that only appear once others answered. The answers go
 * to the browser with the HTML (ssr/page-state.ts): hydration fetches none of them again.
 */
import { dehydrate, type QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { isServerRenderedPath, type Language } from '@telerace/protocol';
import type { i18n as I18n } from 'i18next';
import { prerender } from 'react-dom/static';
import { I18nextProvider } from 'react-i18next';
import { createStaticHandler, createStaticRouter, matchRoutes, StaticRouterProvider } from 'react-router';
import { documentTitle } from './components/layout/AppLayout';
import { AuthProvider, SESSION_QUERY_KEY } from './features/auth/AuthProvider';
import i18n from './i18n';
import { setApiTransport } from './lib/api';
import { RenderTime } from './lib/use-now';
import { preloadPage, routes } from './router';
import type { PageState } from './ssr/page-state';

export { setApiTransport };

/** Renders of one page before giving up on queries that keep appearing (two suffice today). */
const MAX_PASSES = 3;
const ORIGIN = 'http://telerace.invalid';

export interface RenderedPage {
  /** The page's <html lang>. */
  language: Language;
  title: string;
  /** What goes inside `<div id="root">`. */
  html: string;
  state: PageState;
}

const translators = new Map<Language, Promise<I18n>>();
/**
 * The texts in `language`: a clone of the one instance (its texts shared), its language set — and
 * awaited — before its first page, so that no page is ever drawn while the clone still speaks the
 * instance's language.
 */
function translatorFor(language: Language): Promise<I18n> {
  let translator = translators.get(language);
  if (!translator) {
    const clone = i18n.cloneInstance({ lng: language, initAsync: false });
    translator = clone.changeLanguage(language).then(() => clone);
    translators.set(language, translator);
  }
  return translator;
}

type Query = ReturnType<QueryCache['getAll']>[number];
/** A query's `enabled`: an observer's option, kept in the options the query was built with. */
type Enabled = boolean | ((query: Query) => boolean) | undefined;

function isEnabled(query: Query): boolean {
  const { enabled } = query.options as { enabled?: Enabled };
  return typeof enabled === 'function' ? enabled(query) : enabled !== false;
}

/** The queries the screens declared and that nobody fetched yet (a disabled one is left alone). */
function unfetched(client: QueryClient): Query[] {
  return client
    .getQueryCache()
    .getAll()
    .filter(
      (query) =>
        query.state.status === 'pending' &&
        query.state.fetchStatus === 'idle' &&
        typeof query.options.queryFn === 'function' &&
        isEnabled(query),
    );
}

/**
 * The page at `url` (path and query) in `language`, or null when the browser should draw it
 * itself: a redirect, or an answer that failed (the browser's screen shows that error, with its
 * retry, better than a frozen copy of it).
 */
export async function renderPage(url: string, language: Language, now: number): Promise<RenderedPage | null> {
  const { pathname } = new URL(url, ORIGIN);
  if (!isServerRenderedPath(pathname)) return null;
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(new URL(url, ORIGIN)));
  if (context instanceof Response || context.errors) return null;
  await preloadPage(pathname);
  const router = createStaticRouter(handler.dataRoutes, context);
  const translator = await translatorFor(language);
  if (translator.resolvedLanguage !== language) return null;
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } },
  });

  // An error anywhere in the page (React would draw that part in the browser, with the error's
  // text in the HTML) gives the whole page back to the browser.
  let failed = false;
  const draw = async () => {
    const { prelude } = await prerender(
      <QueryClientProvider client={client}>
        <I18nextProvider i18n={translator}>
          <AuthProvider navigate={() => undefined}>
            <RenderTime value={now}>
              <StaticRouterProvider router={router} context={context} hydrate={false} />
            </RenderTime>
          </AuthProvider>
        </I18nextProvider>
      </QueryClientProvider>,
      {
        onError: () => {
          failed = true;
        },
        // Every boundary inline, in order: React would otherwise move a large one after its fallback
        // and reveal it with an inline script, which the page's CSP (and a browser without
        // JavaScript) would never run.
        progressiveChunkSize: Number.POSITIVE_INFINITY,
      },
    );
    return new Response(prelude).text();
  };

  let html = await draw();
  for (let pass = 1; pass < MAX_PASSES && !failed; pass += 1) {
    const queries = unfetched(client);
    if (queries.length === 0) break;
    await Promise.all(queries.map((query) => query.fetch().catch(() => undefined)));
    html = await draw();
  }
  if (failed) return null;
  const queries = client.getQueryCache().getAll();
  if (queries.some((query) => query.state.status === 'error')) return null;
  if (unfetched(client).length > 0) return null;

  const matches = matchRoutes(routes, pathname) ?? [];
  return {
    language,
    title: documentTitle(
      translator.t,
      matches.map((match) => ({ handle: match.route.handle })),
    ),
    html,
    state: {
      language,
      renderedAt: now,
      queries: dehydrate(client, {
        // The session is the browser's own: signed out here as there (no session cookie, AuthProvider).
        shouldDehydrateQuery: (query) =>
          query.state.status === 'success' && query.queryKey[0] !== SESSION_QUERY_KEY[0],
      }),
      router: { loaderData: context.loaderData, actionData: null, errors: null },
    },
  };
}
