/**
 * Owns the auth session. The signed-in user is one query of the query cache (SESSION_QUERY_KEY,
 * `User | null`): its first fetch restores the session on page load (refresh cookie → access
 * token → user; until it answers `loading` is true), and then it is fetched again every 10 s while
 * the tab is visible and at once when the tab comes back (a banned or deleted member's open page
 * ends up on /login within seconds). A visitor without the session hint cookie
 * (SESSION_HINT_COOKIE, set and cleared by the server with the refresh cookie) has no session to
 * restore: the query starts signed out, with no round trip before the first paint. The access
 * token itself stays with its one owner, the auth client. This provider logs in and out and
 * applies the user's preferred theme when a session starts.
 *
 * It sits above the router, so the app hands it a `navigate` function (the router's).
 */
import { hashKey, type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { SESSION_HINT_COOKIE } from '@telerace/protocol';
import { type ReactNode, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { getAccessToken, onSessionExpired, setAccessToken } from '../../lib/auth-client';
import { readCookie } from '../../lib/cookies';
import { useLatest } from '../../lib/use-latest';
import { setTheme } from '../theme/theme';
import { AuthContext, type AuthContextValue, type LoginRouteState } from './auth-context';
import {
  endSession,
  exchangeLoginCode,
  fetchMe,
  postCredentials,
  restoreSession,
  type SignupInput,
} from './session';
import type { User } from './types';

/** How often an open, visible page asks the server whether the session still stands. */
export const SESSION_RECHECK_MS = 10_000;

/** The session's query: the signed-in user, null when signed out, undefined while restoring. */
export const SESSION_QUERY_KEY = ['session'] as const;
const SESSION_QUERY_HASH = hashKey(SESSION_QUERY_KEY);

/** i18n keys of the messages /login shows when the session ended without the user asking. */
export const SESSION_MESSAGES = {
  expired: 'session.expired',
  profileFetchFailed: 'session.profileFetchFailed',
  /** Signed out here, but the server could not record it yet (its database is away). */
  signOutPending: 'session.signOutPending',
} as const;

export type AuthNavigate = (
  to: string,
  options?: { state?: LoginRouteState; replace?: boolean; flushSync?: boolean },
) => unknown;

/** Whether the server left a session to restore (its hint cookie); without one there is none. */
const hasSessionToRestore = () => readCookie(SESSION_HINT_COOKIE) !== undefined;

function startedSession(user: User): User {
  setTheme(user.preferred_theme);
  return user;
}

/**
 * The first fetch restores the session; the later ones re-check it. A re-check without a token
 * (the session is ending) asks nothing; one that fails keeps the user: a dead session is ended by
 * the auth client (refresh failure → expiry), anything else (server unreachable) is tried again at
 * the next tick.
 */
async function loadSession(client: QueryClient): Promise<User | null> {
  const current = client.getQueryData<User | null>(SESSION_QUERY_KEY);
  if (!current) {
    const user = await restoreSession();
    return user && startedSession(user);
  }
  return getAccessToken() ? fetchMe() : current;
}

/**
 * The session query's data, read from the cache as it changes: the cache tells its listeners at
 * once, where a query's observers hear later (the next task). A screen that changes the user then
 * navigates (the completion of a sign-up) reaches the guards with the new user.
 */
function useSessionData(client: QueryClient): User | null | undefined {
  const subscribe = useCallback(
    (onChange: () => void) =>
      client.getQueryCache().subscribe((event) => {
        if (event.query.queryHash === SESSION_QUERY_HASH) onChange();
      }),
    [client],
  );
  const read = () => client.getQueryData<User | null>(SESSION_QUERY_KEY);
  // A page rendered by the server is a signed-out visitor's, as is its hydration (session.ts).
  return useSyncExternalStore(subscribe, read, read);
}

export function AuthProvider({ navigate, children }: { navigate: AuthNavigate; children: ReactNode }) {
  const queryClient = useQueryClient();
  useQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: ({ client }) => loadSession(client),
    initialData: () => (hasSessionToRestore() ? undefined : null),
    // Signed out: nothing to re-check until a login puts a user here.
    enabled: (query) => query.state.data !== null,
    staleTime: SESSION_RECHECK_MS,
    refetchInterval: (query) => (query.state.data ? SESSION_RECHECK_MS : false),
    refetchOnWindowFocus: 'always',
    // Kept whatever the screens shown: it is the session.
    gcTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const [signingOut, setSigningOut] = useState(false);
  const navigateRef = useLatest(navigate);

  const setUser = useCallback(
    (user: User | null) => queryClient.setQueryData<User | null>(SESSION_QUERY_KEY, user),
    [queryClient],
  );

  /**
   * Ends the session locally and opens /login. Until that navigation is on screen the guards of a
   * protected page wait (`signingOut`) instead of redirecting on their own, which would replace
   * the navigation and drop the message; `flushSync` commits the new location before the guards
   * are released (the router otherwise renders it in a transition, after them).
   */
  const signOutTo = useCallback(
    async (message?: string) => {
      setSigningOut(true);
      // A re-check in flight must not bring the user back once signed out.
      await queryClient.cancelQueries({ queryKey: SESSION_QUERY_KEY });
      setUser(null);
      try {
        await navigateRef.current('/login', { state: message ? { message } : undefined, flushSync: true });
      } finally {
        setSigningOut(false);
      }
    },
    [queryClient, setUser],
  );

  useEffect(() => onSessionExpired(() => void signOutTo(SESSION_MESSAGES.expired)), [signOutTo]);

  const logout = useCallback(
    async (message?: string) => {
      const recorded = await endSession();
      setAccessToken(null);
      await signOutTo(message ?? (recorded ? undefined : SESSION_MESSAGES.signOutPending));
    },
    [signOutTo],
  );

  /** Log-in and sign-up alike: the credentials give a token, then the user is loaded and `to` opens. */
  const startSession = useCallback(
    async (credentials: () => Promise<string>, to: string) => {
      await credentials();
      let user: User;
      try {
        user = await fetchMe();
      } catch (error) {
        setAccessToken(null);
        throw error;
      }
      setUser(startedSession(user));
      await navigateRef.current(to);
    },
    [setUser],
  );

  const login = useCallback(
    (email: string, password: string, recaptchaToken: string) =>
      startSession(() => postCredentials('/login', { email, password, recaptchaToken }), '/'),
    [startSession],
  );

  // Signed in at once: the welcome page greets the member (issue 41 point 7).
  const signup = useCallback(
    (input: SignupInput) => startSession(() => postCredentials('/signup', input), '/signup-success'),
    [startSession],
  );

  const loginWithCode = useCallback(
    async (code: string) => {
      try {
        await exchangeLoginCode(code);
      } catch {
        // Used, expired or started in another browser (someone else's link): nobody is signed in.
        await navigateRef.current('/login?error=auth_failed', { replace: true });
        return null;
      }
      try {
        const user = startedSession(await fetchMe());
        setUser(user);
        return user;
      } catch {
        await logout(SESSION_MESSAGES.profileFetchFailed);
        return null;
      }
    },
    [logout, setUser],
  );

  const cached = useSessionData(queryClient);
  const user = cached ?? null;
  const loading = cached === undefined;
  const value = useMemo<AuthContextValue>(
    () => ({ user, loading, signingOut, login, signup, loginWithCode, logout, setUser }),
    [user, loading, signingOut, login, signup, loginWithCode, logout, setUser],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
