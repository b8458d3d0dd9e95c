/**
 * Test helpers of the account screens: a signed-in session in context, a query client, a memory
 * router, and `fetch` answered per "METHOD /path" at the network boundary.
 */

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { AdminUser, User } from '@telerace/protocol';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { vi } from 'vitest';
import { setAccessToken } from '../../lib/auth-client';
import { AuthContext, type AuthContextValue } from '../auth/auth-context';

export const member: User = {
  id: 12,
  username: 'speedy#12',
  email: 'speedy@example.com',
  bio: 'Fast on the straights.',
  avatar_url: null,
  preferred_theme: 'dark',
  youtube_id: null,
  twitch_id: 'tw-777',
  discord_id: null,
  has_password: true,
  is_admin: false,
  is_banned: false,
  registration_complete: true,
  last_login_at: '2026-11-25T21:00:00.000Z',
  created_at: '2026-11-01T12:00:00.000Z',
};

export const adminUser: User = {
  ...member,
  id: 1,
  username: 'marshal#1',
  email: 'marshal@example.com',
  is_admin: true,
};

export function asAdminUser(user: User, tickets = 100, ticket_adjustment = 0): AdminUser {
  return { ...user, tickets, ticket_adjustment };
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export type Route = (request: { body: unknown; url: URL }) => Response | Promise<Response>;

/** Answers `fetch` from a table of "METHOD /api/path" routes; anything else is a 404. */
export function stubFetch(routes: Record<string, Route>) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = init?.method ?? 'GET';
    const route = routes[`${method} ${url.pathname}`];
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (!route) return json(404, { error: 'Not found', errorKey: 'errors.notFound' });
    return route({ body, url });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** The calls made to one "METHOD /api/path", with their JSON bodies. */
export function callsTo(fetchMock: ReturnType<typeof stubFetch>, method: string, path: string): unknown[] {
  return fetchMock.mock.calls
    .filter(([input, init]) => {
      const url = new URL(String(input), 'http://localhost');
      return (init?.method ?? 'GET') === method && url.pathname === path;
    })
    .map(([, init]) => (typeof init?.body === 'string' ? JSON.parse(init.body) : undefined));
}

export function renderSignedIn(
  ui: ReactNode,
  user: User = member,
  overrides: Partial<AuthContextValue> = {},
) {
  setAccessToken('access-token-1');
  const auth: AuthContextValue = {
    accessToken: 'access-token-1',
    user,
    loading: false,
    login: vi.fn(),
    loginWithCode: vi.fn(),
    logout: vi.fn(async () => {}),
    refreshUser: vi.fn(),
    setUser: vi.fn(),
    ...overrides,
  };
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={queryClient}>
      <AuthContext.Provider value={auth}>
        <MemoryRouter>{ui}</MemoryRouter>
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  return { auth, queryClient, ...view };
}
