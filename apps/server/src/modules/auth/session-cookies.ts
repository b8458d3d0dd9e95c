/**
 * The session's cookies: the refresh token (HttpOnly, only sent to /api) and the session hint
 * beside it (`SESSION_HINT_COOKIE`, readable by the page, no secret), set and cleared together so
 * the web app can skip the restore round trip when there is nothing to restore.
 */
import { SESSION_HINT_COOKIE } from '@telerace/protocol';
import type { FastifyReply } from 'fastify';

export const REFRESH_COOKIE = 'telerace_refresh';

export interface SessionCookies {
  set(reply: FastifyReply, refreshToken: string, maxAgeSeconds: number): void;
  clear(reply: FastifyReply): void;
}

export function sessionCookies(secure: boolean): SessionCookies {
  const refresh = { httpOnly: true, secure, sameSite: 'strict', path: '/api' } as const;
  const hint = { httpOnly: false, secure, sameSite: 'lax', path: '/' } as const;
  return {
    set(reply, refreshToken, maxAge) {
      reply.setCookie(REFRESH_COOKIE, refreshToken, { ...refresh, maxAge });
      reply.setCookie(SESSION_HINT_COOKIE, '1', { ...hint, maxAge });
    },
    clear(reply) {
      reply.clearCookie(REFRESH_COOKIE, refresh);
      reply.clearCookie(SESSION_HINT_COOKIE, hint);
    },
  };
}
