/**
 * The auth client (spec §7): every `/api` call made on behalf of the signed-in user. It is the one
 * owner of the current access token (nothing else keeps a copy: sockets, the video and React ask
 * `getAccessToken`/`useAccessToken` when they need it), sends it as a bearer header, and on a 401 renews it ONCE for all the
 * requests that hit the expiry together (refresh tokens rotate: a second concurrent refresh would
 * fail), then retries each of them once. When the renewal fails the session is over and the
 * AuthProvider is told (`onSessionExpired`). A refresh that could not reach the server does not
 * end the session: the request fails and the next one tries again.
 */
import { useSyncExternalStore } from 'react';
import type { z } from 'zod';
import { ApiError, type ApiFetchInit, apiFetch } from './api';
import { parseWith } from './schemas';

export type { ApiFetchInit } from './api';
export { ApiError } from './api';

/** Calls that must never trigger a refresh: a 401 there is the answer itself. */
const NO_REFRESH_PATHS = new Set(['/login', '/refresh-token']);

let accessToken: string | null = null;
let refreshing: Promise<string> | null = null;
/** The refresh whose failure already ended the session, so N waiting requests end it once. */
let expiredBy: Promise<string> | null = null;
const tokenListeners = new Set<(token: string | null) => void>();
const expiryListeners = new Set<() => void>();

export function getAccessToken(): string | null {
  return accessToken;
}

/** Sets (or clears with null) the token sent with every request; listeners hear of real changes. */
export function setAccessToken(token: string | null): void {
  if (token === accessToken) return;
  accessToken = token;
  for (const listener of tokenListeners) listener(token);
}

/**
 * Called with the new token whenever it changes (login, refresh, logout, expiry); the hook point
 * for what follows the session, like the race event socket. Returns an unsubscribe.
 */
export function onTokenChange(listener: (token: string | null) => void): () => void {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
}

/** The current access token for a component, which renders again when it changes. */
export function useAccessToken(): string | null {
  return useSyncExternalStore(onTokenChange, getAccessToken, getAccessToken);
}

/** Called once each time a failed refresh ends the session (the token is already cleared). */
export function onSessionExpired(listener: () => void): () => void {
  expiryListeners.add(listener);
  return () => expiryListeners.delete(listener);
}

/** Forgets the token, any refresh in flight and every listener (a fresh page, for tests). */
export function resetAuthClient(): void {
  accessToken = null;
  refreshing = null;
  expiredBy = null;
  tokenListeners.clear();
  expiryListeners.clear();
}

/**
 * Trades the httpOnly refresh cookie for a new access token and stores it. Concurrent callers
 * share the same request.
 */
export function refreshAccessToken(): Promise<string> {
  if (!refreshing) {
    const pending = apiFetch('/refresh-token', { method: 'POST' })
      .then(async (body) => {
        const { accessToken: token } = await parseWith('AccessTokenResponse', body);
        if (token === '') throw new ApiError(401, 'Empty access token');
        setAccessToken(token);
        return token;
      })
      .finally(() => {
        if (refreshing === pending) refreshing = null;
      });
    refreshing = pending;
  }
  return refreshing;
}

/** The token to retry with after a 401, or null when the session could not be renewed. */
async function renewAfter401(sentToken: string): Promise<string | null> {
  if (!refreshing) {
    // The session ended (logout, expiry) while this request was in flight: nothing to renew.
    if (accessToken === null) return null;
    // Another request already renewed the token while this one was in flight: no second refresh.
    if (accessToken !== sentToken) return accessToken;
  }
  const pending = refreshAccessToken();
  try {
    return await pending;
  } catch (error) {
    // Only the server's refusal ends the session; an unreachable or busy server (network, 5xx,
    // 429) may answer the next time.
    const refused =
      error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429;
    if (!refused) return null;
    if (expiredBy !== pending) {
      expiredBy = pending;
      setAccessToken(null);
      for (const listener of expiryListeners) listener();
    }
    return null;
  }
}

function withBearer(init: ApiFetchInit, token: string | null): ApiFetchInit {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/**
 * Calls `/api{path}` as the current user and resolves with the body, parsed by `schema` when one
 * is given. Rejects with an `ApiError` (`status`, `error`, `errorKey`) on a non-2xx answer.
 */
export async function authFetch<T = unknown>(
  path: string,
  init: ApiFetchInit = {},
  schema?: z.ZodType<T>,
): Promise<T> {
  const sentToken = accessToken;
  let body: unknown;
  try {
    body = await apiFetch(path, withBearer(init, sentToken));
  } catch (error) {
    // Without a token there is no session to renew: the 401 is the answer.
    const renewable =
      error instanceof ApiError && error.status === 401 && sentToken !== null && !NO_REFRESH_PATHS.has(path);
    if (!renewable) throw error;
    const renewed = await renewAfter401(sentToken);
    if (!renewed) throw error;
    // Retried once only: a second 401 is returned to the caller as it is.
    body = await apiFetch(path, withBearer(init, renewed));
  }
  return schema ? schema.parse(body) : (body as T);
}
