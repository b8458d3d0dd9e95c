/** Talks to the server about the session: restore it, log in, load the user, end it. */
import { apiFetch } from '../../lib/api';
import { authFetch, getAccessToken, refreshAccessToken, setAccessToken } from '../../lib/auth-client';
import { parseWith } from '../../lib/schemas';
import { parseMeResponse, type User } from './types';

/** Loads the signed-in user with the auth client's current token. */
export async function fetchMe(): Promise<User> {
  return parseMeResponse(await authFetch('/me'));
}

/**
 * Trades the refresh cookie for an access token (kept by the auth client), then loads the user.
 * Null when either step fails: the visitor is simply signed out.
 */
export async function restoreSession(): Promise<User | null> {
  try {
    await refreshAccessToken();
    return await fetchMe();
  } catch {
    setAccessToken(null);
    return null;
  }
}

/**
 * Trades the one-time code of /auth/callback for a session (the server also sets the refresh
 * cookie); on success the auth client holds the new token. Not through the auth client: a code
 * that does not work is a failed sign-in, not an expired session to renew. Rejects with an
 * `ApiError` (400 errors.loginCodeInvalid: used, expired, or issued to another browser).
 */
export async function exchangeLoginCode(code: string): Promise<string> {
  const { accessToken } = await parseWith(
    'AccessTokenResponse',
    await apiFetch('/auth/exchange', { method: 'POST', json: { code } }),
  );
  setAccessToken(accessToken);
  return accessToken;
}

/** What /signup takes: the new account's fields and the bot-check token. */
export interface SignupInput {
  email: string;
  username: string;
  password: string;
  recaptchaToken: string;
}

/**
 * Posts the credentials to /login, or a new account to /signup (which signs in the same way); on
 * success the auth client holds the new token. Rejects with an `ApiError`.
 */
export async function postCredentials(
  path: '/login' | '/signup',
  json: SignupInput | Omit<SignupInput, 'username'>,
): Promise<string> {
  const { accessToken } = await parseWith(
    'AccessTokenResponse',
    await authFetch(path, { method: 'POST', json }),
  );
  setAccessToken(accessToken);
  return accessToken;
}

/**
 * Tells the server the session ends; a failure is only logged (spec §4 "Logout"). Not through the
 * auth client: an expired token must not start a refresh (or a "session expired") on the way out.
 * False when the server signed this browser out but could not record it yet (its database is
 * away: 202 `recorded: false`, LogoutResponse): the member is told so.
 */
export async function endSession(): Promise<boolean> {
  const token = getAccessToken();
  try {
    // One flag read as it comes: the protocol's schemas stay out of the first download.
    const answer = await apiFetch<{ recorded?: unknown } | undefined>('/logout', {
      method: 'POST',
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    return answer?.recorded !== false;
  } catch (error) {
    console.error('Logout request failed', error);
    return true;
  }
}
