/** Talks to the server about the session: restore it from the refresh cookie, end it. */
import { apiFetch } from '../../lib/api';
import { parseMeResponse, type User } from './types';

export interface Session {
  accessToken: string;
  user: User;
}

export function bearer(accessToken: string): HeadersInit {
  return { Authorization: `Bearer ${accessToken}` };
}

/** Trades the refresh cookie for an access token, then loads the user. Null when either step fails. */
export async function restoreSession(): Promise<Session | null> {
  try {
    const { accessToken } = await apiFetch<{ accessToken?: unknown }>('/refresh-token', { method: 'POST' });
    if (typeof accessToken !== 'string' || accessToken === '') return null;
    const user = parseMeResponse(await apiFetch('/me', { headers: bearer(accessToken) }));
    return { accessToken, user };
  } catch {
    // No session (or an unreachable server): the visitor is simply signed out.
    return null;
  }
}

export async function endSession(accessToken: string | null): Promise<void> {
  try {
    await apiFetch('/logout', { method: 'POST', headers: accessToken ? bearer(accessToken) : undefined });
  } catch (error) {
    console.error('Logout request failed', error);
  }
}
