/** The auth session (spec §3 "Auth session") shared through React context. */
import { createContext, useContext } from 'react';
import type { AuthState } from './types';

export interface AuthContextValue extends AuthState {
  /** Tells the server, then forgets the session locally even if the server could not be reached. */
  logout: () => Promise<void>;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}
