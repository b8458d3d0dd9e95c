/**
 * Who is calling. A route says who may call it in its options (`config: { access: 'admin' }`), and
 * this plugin alone turns that into a check in the route's `onRequest`: after the rate limiter,
 * before the body is parsed and the schemas validate it, so a caller who may not use a route gets
 * 401 or 403 and learns nothing about its input. The bearer token names the user; their row says
 * whether they still may act. Which member a token belongs to is the `Authenticator`'s answer,
 * given to this plugin and to the socket kit by the composition root (the users module provides
 * it: modules/users/authenticator.ts); the HTTP layer imports no module.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { UserRow } from '../kernel/users.repo.js';
import { HttpError } from './errors.js';

/**
 * Who may call a route: `member` (signed in, not banned, terms accepted), `member-before-terms`
 * (the same, terms not yet needed: a social sign-up may read /me, finish its registration or
 * delete the account) or `admin`. A route without it is open to anyone.
 */
export type Access = 'member' | 'member-before-terms' | 'admin';

/** What a valid access token says (modules/auth/access-token.ts signs and verifies them). */
export interface AccessTokenClaims {
  userId: number;
  /** The refresh-token family (session) it was issued for; null for tokens minted without one. */
  sessionId: string | null;
  /** Seconds since the epoch. */
  issuedAt: number;
  /**
   * When it was issued, in milliseconds, by the server's clock (the one `tokens_valid_after` is
   * written with); a token without it (from before it existed) counts from the start of its second.
   */
  issuedAtMs: number;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** A member behind an access token, with the token's claims. */
export interface Member {
  user: UserRow;
  claims: AccessTokenClaims;
}

/** The port the HTTP layer and the socket kit check access tokens through. */
export interface Authenticator {
  /**
   * The member behind an access token and the token's claims, or an HttpError (401) saying why
   * not. `remember`: a verified token's claims are kept for its next presentation (REST, where
   * a page presents the same token on every call).
   */
  member(token: string | null, options?: { remember?: boolean }): Promise<Member>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (checked before its input is read); absent: anyone. */
    access?: Access;
  }
  interface FastifyRequest {
    /** The caller, on routes with an `access`; only read it there. */
    currentUser: UserRow;
    /** The claims of the caller's access token (its session, when it was issued), on routes with an `access`. */
    accessClaims: AccessTokenClaims;
  }
}

export const unauthorized = (): HttpError => new HttpError(401, 'Unauthorized', ERROR_KEYS.unauthorized);
export const bannedError = (): HttpError => new HttpError(401, 'This account is banned', ERROR_KEYS.banned);

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  return match?.[1] ?? null;
}

const registrationIncomplete = (): HttpError =>
  new HttpError(
    403,
    'Please accept the terms to finish your registration.',
    ERROR_KEYS.registrationIncomplete,
  );

/**
 * A member made by a social sign-up may do nothing but finish the registration (accept the
 * terms), read /me and delete the account: everything else answers 403 `registrationIncomplete`.
 */
export function assertRegistrationComplete(user: UserRow): void {
  if (user.termsAcceptedAt === null) throw registrationIncomplete();
}

export const authenticatePlugin = fp<{ authenticator: Authenticator }>(
  async (app: FastifyInstance, { authenticator }) => {
    app.decorateRequest('currentUser', null as unknown as UserRow);
    app.decorateRequest('accessClaims', null as unknown as AccessTokenClaims);
    const signedIn = async (request: FastifyRequest) => {
      const { user, claims } = await authenticator.member(bearerToken(request), { remember: true });
      request.currentUser = user;
      request.accessClaims = claims;
    };
    const checks: Record<Access, (request: FastifyRequest) => Promise<void>> = {
      'member-before-terms': signedIn,
      member: async (request) => {
        await signedIn(request);
        assertRegistrationComplete(request.currentUser);
      },
      admin: async (request) => {
        await checks.member(request);
        if (!request.currentUser.isAdmin) throw new HttpError(403, 'Admins only', ERROR_KEYS.forbidden);
      },
    };
    // Added last to the route's own onRequest hooks, so after the rate limiter's (registered
    // before this plugin), and before anything reads the request's input.
    app.addHook('onRoute', (route) => {
      const access = route.config?.access;
      if (access === undefined) return;
      const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
      route.onRequest = [...own, checks[access]];
    });
  },
  { name: 'authenticate' },
);
