/**
 * Owns the auth session. On page load it tries to restore the session once (refresh cookie →
 * access token → user); until that ends `loading` is true. A user's preferred theme is applied
 * as soon as the user is known.
 */
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { setTheme } from '../theme/theme';
import { AuthContext, type AuthContextValue } from './auth-context';
import { endSession, restoreSession } from './session';
import type { AuthState } from './types';

const SIGNED_OUT: AuthState = { accessToken: null, user: null, loading: false };

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ accessToken: null, user: null, loading: true });
  const tokenRef = useRef<string | null>(null);
  tokenRef.current = state.accessToken;
  // Refresh tokens rotate: a second concurrent refresh (StrictMode runs effects twice) would fail.
  const restoreStarted = useRef(false);

  useEffect(() => {
    if (restoreStarted.current) return;
    restoreStarted.current = true;
    void restoreSession().then((session) => {
      if (!session) {
        setState(SIGNED_OUT);
        return;
      }
      if (session.user.preferred_theme) setTheme(session.user.preferred_theme);
      setState({ ...session, loading: false });
    });
  }, []);

  const logout = useCallback(async () => {
    await endSession(tokenRef.current);
    setState(SIGNED_OUT);
  }, []);

  const value = useMemo<AuthContextValue>(() => ({ ...state, logout }), [state, logout]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
