/**
 * Test helpers: render the real route table in a memory router with the real providers, with
 * `fetch` answering as the server would for the session calls (the network boundary).
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter } from 'react-router';
// The DOM build, as in main.tsx: it honours `flushSync` navigations (the auth session's logout).
import { RouterProvider } from 'react-router/dom';
import { vi } from 'vitest';
import { AuthProvider } from '../features/auth/AuthProvider';
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

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export interface ServerOptions {
  /** The signed-in user, null when there is no session, 'pending' when the refresh never answers. */
  session: User | null | 'pending';
  /** How GET /api/me wraps the user. */
  meShape?: 'wrapped' | 'bare';
  /** POST /api/logout fails with a network error. */
  logoutFails?: boolean;
  /** Answers other calls first; `undefined` falls through to the session calls and the 404. */
  handle?: (request: {
    method: string;
    url: string;
    auth: string | null;
    body: unknown;
  }) => Response | undefined;
}

/** Answers the session calls like the server; anything else is a 404 with the server's error body. */
export function stubServer({ session, meShape = 'wrapped', logoutFails = false, handle }: ServerOptions) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const auth = new Headers(init?.headers).get('Authorization');
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const answer = handle?.({ method, url, auth, body });
    if (answer) return answer;
    if (method === 'POST' && url === '/api/refresh-token') {
      if (session === 'pending') return new Promise<Response>(() => {});
      if (!session) return json(401, { error: 'No session', errorKey: 'errors.unauthorized' });
      return json(200, { accessToken: ACCESS_TOKEN });
    }
    if (method === 'GET' && url === '/api/me') {
      if (!session || session === 'pending' || auth !== `Bearer ${ACCESS_TOKEN}`) {
        return json(401, { error: 'Unauthorized', errorKey: 'errors.unauthorized' });
      }
      return json(200, meShape === 'wrapped' ? { user: session } : session);
    }
    if (method === 'POST' && url === '/api/logout') {
      if (logoutFails) throw new TypeError('Failed to fetch');
      return new Response(null, { status: 204 });
    }
    return json(404, { error: 'Not found', errorKey: 'errors.notFound' });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

export function renderApp(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={queryClient}>
      <AuthProvider navigate={(to, options) => router.navigate(to, options)}>
        <RouterProvider router={router} />
      </AuthProvider>
    </QueryClientProvider>,
  );
  return { router, ...view };
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
