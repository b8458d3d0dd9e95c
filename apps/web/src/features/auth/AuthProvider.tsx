/**
 * Owns the auth session. On page load it tries to restore the session once (refresh cookie →
 * access token → user); until that ends `loading` is true. A visitor without the session hint
 * cookie (SESSION_HINT_COOKIE, set and cleared by the server with the refresh cookie) has no
 * session to restore: they are signed out at once, with no round trip before the first paint. It logs in and out, keeps the token in
 * step with the auth client, re-checks the session every 10 s while the tab is visible (a banned
 * or deleted member's open page ends up on /login within seconds) and applies the user's
 * preferred theme when a session starts.
 *
 * It sits above the router, so the app hands it a `navigate` function (the router's).
 */
import { SESSION_HINT_COOKIE } from '@telerace/protocol';
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getAccessToken, onSessionExpired, onTokenChange, setAccessToken } from '../../lib/auth-client';
import { readCookie } from '../../lib/cookies';
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
import type { AuthState, User } from './types';

/** How often an open, visible page asks the server whether the session still stands. */
export const SESSION_RECHECK_MS = 10_000;

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

const SIGNED_OUT: AuthState = { accessToken: null, user: null, loading: false };

/** Whether the server left a session to restore (its hint cookie); without one there is none. */
const hasSessionToRestore = () => readCookie(SESSION_HINT_COOKIE) !== undefined;

function startedSession(user: User): User {
  setTheme(user.preferred_theme);
  return user;
}

export function AuthProvider({ navigate, children }: { navigate: AuthNavigate; children: ReactNode }) {
  const [state, setState] = useState<AuthState>(() =>
    hasSessionToRestore() ? { accessToken: null, user: null, loading: true } : SIGNED_OUT,
  );
  const [signingOut, setSigningOut] = useState(false);
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  // Refresh tokens rotate: a second concurrent refresh (StrictMode runs effects twice) would fail.
  const restoreStarted = useRef(false);

  /**
   * Ends the session locally and opens /login. Until that navigation is on screen the guards of a
   * protected page wait (`signingOut`) instead of redirecting on their own, which would replace
   * the navigation and drop the message; `flushSync` commits the new location before the guards
   * are released (the router otherwise renders it in a transition, after them).
   */
  const signOutTo = useCallback(async (message?: string) => {
    setSigningOut(true);
    setState(SIGNED_OUT);
    try {
      await navigateRef.current('/login', { state: message ? { message } : undefined, flushSync: true });
    } finally {
      setSigningOut(false);
    }
  }, []);

  useEffect(() => {
    if (restoreStarted.current) return;
    restoreStarted.current = true;
    if (!hasSessionToRestore()) return;
    void restoreSession().then((session) => {
      if (!session) {
        setState(SIGNED_OUT);
        return;
      }
      setState({ accessToken: session.accessToken, user: startedSession(session.user), loading: false });
    });
  }, []);

  // The auth client renews the token on its own; the context follows.
  useEffect(() => onTokenChange((accessToken) => setState((current) => ({ ...current, accessToken }))), []);

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
  const startSession = useCallback(async (credentials: () => Promise<string>, to: string) => {
    const accessToken = await credentials();
    let user: User;
    try {
      user = await fetchMe();
    } catch (error) {
      setAccessToken(null);
      throw error;
    }
    setState({ accessToken, user: startedSession(user), loading: false });
    await navigateRef.current(to);
  }, []);

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
      let accessToken: string;
      try {
        accessToken = await exchangeLoginCode(code);
      } catch {
        // Used, expired or started in another browser (someone else's link): nobody is signed in.
        await navigateRef.current('/login?error=auth_failed', { replace: true });
        return null;
      }
      try {
        const user = startedSession(await fetchMe());
        setState({ accessToken, user, loading: false });
        return user;
      } catch {
        await logout(SESSION_MESSAGES.profileFetchFailed);
        return null;
      }
    },
    [logout],
  );

  const setUser = useCallback((user: User) => setState((current) => ({ ...current, user })), []);

  const refreshUser = useCallback(async () => {
    const user = await fetchMe();
    setUser(user);
    return user;
  }, [setUser]);

  const signedIn = state.user !== null;
  useEffect(() => {
    if (!signedIn) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const recheck = async () => {
      if (!getAccessToken()) return;
      try {
        const user = await fetchMe();
        // Same user as before: no new object, so nothing re-renders every 10 s.
        setState((current) =>
          current.user && JSON.stringify(current.user) === JSON.stringify(user)
            ? current
            : { ...current, user },
        );
      } catch {
        // A dead session is handled by the auth client (refresh failure → expiry); anything
        // else (server unreachable) is tried again at the next tick.
      }
    };
    const sync = () => {
      clearInterval(timer);
      timer = undefined;
      if (document.visibilityState !== 'visible') return;
      timer = setInterval(() => void recheck(), SESSION_RECHECK_MS);
    };
    const onVisibilityChange = () => {
      sync();
      if (document.visibilityState === 'visible') void recheck();
    };
    sync();
    document.addEventListener('visibilitychange', onVisibilityChange);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibilityChange);
    };
  }, [signedIn]);

  const value = useMemo<AuthContextValue>(
    () => ({ ...state, signingOut, login, signup, loginWithCode, logout, refreshUser, setUser }),
    [state, signingOut, login, signup, loginWithCode, logout, refreshUser, setUser],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
