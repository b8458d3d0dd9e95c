/**
 * The web tests' one harness: the real providers (query client, AuthProvider, i18n, a memory
 * router) against a fake `fetch` that answers as the server would. Nothing of the app is mocked:
 * the network is the boundary.
 * - `stubServer` / `stubFetch` install the fake server: the session calls (refresh, me, logout),
 *   the public config, a test's own answers, and 404 with the server's error body for the rest.
 * - `renderApp(path)` renders the real route table; `renderSignedIn(ui)` renders one screen for a
 *   signed-in member, behind the app's own sign-in guard, once the session is restored.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type PublicConfig, SESSION_HINT_COOKIE, type TicketsResponse } from '@telerace/protocol';
import { render, waitFor } from '@testing-library/react';
import { type ReactNode, useState } from 'react';
import { createMemoryRouter, type RouteObject } from 'react-router';
// The DOM build, as in main.tsx: it honours `flushSync` navigations (the auth session's logout).
import { RouterProvider } from 'react-router/dom';
import { vi } from 'vitest';
import { AuthProvider } from '../features/auth/AuthProvider';
import { type AuthContextValue, useAuth } from '../features/auth/auth-context';
import { RequireAuth } from '../features/auth/guards';
import type { User } from '../features/auth/types';
import i18n from '../i18n';
import { resetAuthClient } from '../lib/auth-client';
import { writeCookie } from '../lib/cookies';
import { routes } from '../router';

export const ACCESS_TOKEN = 'access-token-1';

export const member: User = {
  id: 12,
  username: 'speedy#12',
  email: 'speedy@example.com',
  bio: '',
  avatar_url: null,
  preferred_theme: 'dark',
  youtube_id: null,
  twitch_id: null,
  discord_id: null,
  has_password: true,
  is_admin: false,
  is_banned: false,
  registration_complete: true,
  last_login_at: '2026-11-25T20:00:00.000Z',
  created_at: '2026-11-01T12:00:00.000Z',
};

export const admin: User = { ...member, id: 1, username: 'marshal#1', is_admin: true };

/** What the server answers GET /api/public-config with when nothing is configured. */
export const DEFAULT_PUBLIC_CONFIG: PublicConfig = {
  promoVideoUrl: '/media/promo.webm',
  community: { streaming: null, video: null, chat: null },
  recaptchaSiteKey: null,
  socialProviders: { twitch: false, youtube: false, discord: false },
  supportEmail: null,
};

/** What GET /api/me/tickets answers for a member with nothing linked, given or adjusted. */
export const NEWCOMER_TICKETS: TicketsResponse = {
  tickets: 5,
  breakdown: { base: 5, linkedAccounts: 0, loyalty: 0, donations: 0, adjustments: 0 },
};

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** One answer of the fake server's route table ("METHOD /api/path"). */
export type Route = (request: {
  body: unknown;
  url: URL;
  auth: string | null;
}) => Response | Promise<Response>;

export interface ServerOptions {
  /** The signed-in user, null when there is no session, 'pending' when the refresh never answers. */
  session: User | null | 'pending';
  /** POST /api/logout fails with a network error. */
  logoutFails?: boolean;
  /** Answers calls first; `undefined` falls through to the routes, the session calls and the 404. */
  handle?: (request: {
    method: string;
    url: string;
    auth: string | null;
    body: unknown;
  }) => Response | undefined;
  /** Answers by "METHOD /api/path" (query string ignored), before the session calls. */
  routes?: Record<string, Route>;
}

/** The fake server's state; `renderSignedIn` signs its member in after the routes were stubbed. */
let server: Required<Omit<ServerOptions, 'handle'>> & Pick<ServerOptions, 'handle'> = {
  session: null,
  logoutFails: false,
  routes: {},
};

function sessionAnswer(method: string, path: string, auth: string | null): Response | Promise<Response> {
  const { session } = server;
  if (method === 'POST' && path === '/api/refresh-token') {
    if (session === 'pending') return new Promise<Response>(() => {});
    if (!session) return json(401, { error: 'No session', errorKey: 'errors.unauthorized' });
    return json(200, { accessToken: ACCESS_TOKEN });
  }
  if (method === 'GET' && path === '/api/me') {
    if (!session || session === 'pending' || auth !== `Bearer ${ACCESS_TOKEN}`) {
      return json(401, { error: 'Unauthorized', errorKey: 'errors.unauthorized' });
    }
    return json(200, { user: session });
  }
  if (method === 'POST' && path === '/api/logout') {
    if (server.logoutFails) throw new TypeError('Failed to fetch');
    server.session = null;
    return new Response(null, { status: 204 });
  }
  if (method === 'GET' && path === '/api/public-config') return json(200, DEFAULT_PUBLIC_CONFIG);
  // The header's ticket badge of a signed-in member (a newcomer's base tickets).
  if (method === 'GET' && path === '/api/me/tickets' && session && session !== 'pending') {
    if (auth !== `Bearer ${ACCESS_TOKEN}`)
      return json(401, { error: 'Unauthorized', errorKey: 'errors.unauthorized' });
    return json(200, NEWCOMER_TICKETS);
  }
  return json(404, { error: 'Not found', errorKey: 'errors.notFound' });
}

/** What the real server leaves in the browser with a session: the hint the app reads on load. */
function leaveSessionHint() {
  writeCookie(SESSION_HINT_COOKIE, '1', 60 * 60);
}

/** Installs the fake server as `fetch`; returns the mock to inspect the calls made. */
export function stubServer({ session, logoutFails = false, handle, routes = {} }: ServerOptions) {
  server = { session, logoutFails, handle, routes };
  if (session !== null) leaveSessionHint();
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    const { pathname } = new URL(url, 'http://localhost');
    const method = init?.method ?? 'GET';
    const auth = new Headers(init?.headers).get('Authorization');
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const answer = server.handle?.({ method, url, auth, body });
    if (answer) return answer;
    const route = server.routes[`${method} ${pathname}`];
    if (route) return route({ body, url: new URL(url, 'http://localhost'), auth });
    return sessionAnswer(method, pathname, auth);
  });
  vi.stubGlobal('fetch', fetchMock);
  installed = fetchMock;
  return fetchMock;
}

let installed: ReturnType<typeof vi.fn> | undefined;

/** The fake server with no one signed in until POST /api/login, which signs `member` in. */
export function stubLoginServer(routes: Record<string, Route> = {}) {
  let signedIn = false;
  return stubServer({
    session: null,
    handle: ({ method, url, auth }) => {
      if (method === 'POST' && url === '/api/login') {
        signedIn = true;
        return json(200, { accessToken: ACCESS_TOKEN });
      }
      if (url === '/api/me' && signedIn && auth === `Bearer ${ACCESS_TOKEN}`)
        return json(200, { user: member });
      return undefined;
    },
    routes,
  });
}

/** The fake server answering `routes` (by "METHOD /api/path"), with no one signed in yet. */
export function stubFetch(routes: Record<string, Route>) {
  return stubServer({ session: null, routes });
}

/** The calls made to one "METHOD /api/path", with their JSON bodies. */
export function callsTo(fetchMock: ReturnType<typeof stubServer>, method: string, path: string): unknown[] {
  return fetchMock.mock.calls
    .filter(([input, init]) => {
      const url = new URL(String(input), 'http://localhost');
      return (init?.method ?? 'GET') === method && url.pathname === path;
    })
    .map(([, init]) => (typeof init?.body === 'string' ? JSON.parse(init.body) : undefined));
}

function renderWithProviders(router: ReturnType<typeof createMemoryRouter>, extra?: ReactNode) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={queryClient}>
      <AuthProvider navigate={(to, options) => router.navigate(to, options)}>
        <RouterProvider router={router} />
        {extra}
      </AuthProvider>
    </QueryClientProvider>,
  );
  return { router, queryClient, ...view };
}

/** The app at `path`; at the last of several paths, the earlier ones being the visit's history. */
export function renderApp(path: string | string[]) {
  const entries = typeof path === 'string' ? [path] : path;
  return renderWithProviders(
    createMemoryRouter(routes, { initialEntries: entries, initialIndex: entries.length - 1 }),
  );
}

/** Reads the real auth session for the test (what a screen would get from `useAuth`). */
function SessionProbe({ into }: { into: { current: AuthContextValue | null } }) {
  into.current = useAuth();
  return null;
}

/** Calls `onShown` once, as its children first render (before any of their effects ran). */
function Shown({ onShown, children }: { onShown: () => void; children: ReactNode }) {
  useState(onShown);
  return children;
}

export interface SignedInOptions {
  /** The address the memory router opens (default `/`). */
  at?: string;
  /** The route pattern the screen is shown at (default: every address `at` can be). */
  path?: string;
  /** Other routes beside it, e.g. where the screen navigates to. */
  routes?: RouteObject[];
}

/**
 * Renders `ui` for `user`, signed in through the fake server (refresh, then /api/me) by the real
 * AuthProvider, behind the app's RequireAuth guard, and resolves once it is shown, with the fetch
 * calls of the session restore forgotten. Call it after `stubFetch`/`stubServer` (they install the
 * fake server; this signs its member in). `session()`
 * reads the real auth session: its user after an update, null after a log-out.
 */
export async function renderSignedIn(ui: ReactNode, user: User = member, options: SignedInOptions = {}) {
  resetAuthClient();
  // A screen that calls nothing itself still needs the server that restores the session.
  if (!installed || globalThis.fetch !== installed) stubFetch({});
  server.session = user;
  leaveSessionHint();
  let shown = false;
  const session: { current: AuthContextValue | null } = { current: null };
  const router = createMemoryRouter(
    [
      {
        element: <RequireAuth />,
        children: [
          {
            path: options.path ?? '*',
            element: (
              <Shown
                onShown={() => {
                  // The calls the test inspects are the screen's: forget the session restore's.
                  vi.mocked(fetch).mockClear();
                  shown = true;
                }}
              >
                {ui}
              </Shown>
            ),
          },
        ],
      },
      ...(options.routes ?? []),
      { path: '/login', element: <p>login page</p> },
    ],
    { initialEntries: [options.at ?? '/'] },
  );
  const view = renderWithProviders(router, <SessionProbe into={session} />);
  await waitFor(() => {
    if (!shown) throw new Error('the signed-in screen is not shown yet');
  });
  return {
    ...view,
    session: () => {
      if (!session.current) throw new Error('no auth session');
      return session.current;
    },
  };
}

export function clearCookies() {
  for (const part of document.cookie.split(';')) {
    const name = part.split('=')[0]?.trim();
    if (name) writeCookie(name, '', 0);
  }
}

/** A clean browser: no storage, no cookies, English, dark theme. */
export async function resetBrowser() {
  resetAuthClient();
  await i18n.changeLanguage('en');
  // After the language change, which caches its choice in storage and a cookie.
  window.localStorage.clear();
  window.sessionStorage.clear();
  clearCookies();
  document.documentElement.className = 'dark';
}
