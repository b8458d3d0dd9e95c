/**
 * The auth session (spec §3 "Auth session") shared through React context: the user (the session
 * query's data, AuthProvider) and the actions that start and end it. The access token is not here:
 * the auth client owns it (`useAccessToken`).
 */
import { createContext, useContext } from 'react';
import type { SignupInput } from './session';
import type { AuthState, User } from './types';

export interface AuthContextValue extends AuthState {
  /** True while a logout or an expiry is on its way to /login (guards wait instead of redirecting). */
  signingOut?: boolean;
  /** Posts the credentials, loads the user and goes to `/`. Rejects with an `ApiError` on failure. */
  login: (email: string, password: string, recaptchaToken: string) => Promise<void>;
  /** Creates the account, signs the new member in and opens the welcome page. Rejects with an `ApiError`. */
  signup: (input: SignupInput) => Promise<void>;
  /**
   * Starts a session from the one-time code the server sent to /auth/callback (social sign-in):
   * the code is exchanged for a session, which only works in the browser that started the flow.
   * A refused code goes to /login?error=auth_failed; when the user cannot be loaded the session
   * ends with "There was an issue fetching your profile.". Resolves with the user, or null.
   */
  loginWithCode: (code: string) => Promise<User | null>;
  /**
   * Tells the server, forgets the session locally even if the server could not be reached, then
   * goes to /login showing `message` (an i18n key or a text) when given.
   */
  logout: (message?: string) => Promise<void>;
  /** Replaces the user after an action answered with the updated one (profile, theme…). */
  setUser: (user: User) => void;
}

/** Navigation state /login reads to show why the session ended. */
export interface LoginRouteState {
  message?: string;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}
