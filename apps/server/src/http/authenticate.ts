/**
 * Who is calling. A route says who may call it in its options (`config: { access: 'admin' }`), and
 * this plugin alone turns that into a check in the route's `onRequest`: after the rate limiter,
 * before the body is parsed and the schemas validate it, so a caller who may not use a route gets
 * 401 or 403 and learns nothing about its input. The bearer token names the user; their row says
 * whether they still may act. REST and the sockets' admissions (`memberFromAccessToken`) read it
 * from the user cache (memory, dropped at once by `user.changed` and the revocation events), so
 * bans and deletions apply to the very next request or handshake.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import type { UserRow } from '../kernel/users.repo.js';
import {
  type AccessTokenClaims,
  type AccessTokenKeys,
  verifyAccessTokenClaims,
} from '../modules/auth/access-token.js';
import type { UserCache } from '../modules/users/user-cache.js';
import { HttpError } from './errors.js';

/**
 * Who may call a route: `member` (signed in, not banned, terms accepted), `member-before-terms`
 * (the same, terms not yet needed: a social sign-up may read /me, finish its registration or
 * delete the account) or `admin`. A route without it is open to anyone.
 */
export type Access = 'member' | 'member-before-terms' | 'admin';

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
const bannedError = (): HttpError => new HttpError(401, 'This account is banned', ERROR_KEYS.banned);

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  return match?.[1] ?? null;
}

/**
 * Access tokens whose signature and claims were checked, by their full text: a member's page
 * presents the same token on every call for its whole life, and an HMAC verification through
 * WebCrypto costs more than the rest of a cached read. Only an exact, already verified token
 * matches (nobody can forge an entry), and its expiry is checked again on every use, by the keys'
 * clock as a first verification would. Bounded (the least recently used go first).
 */
export class VerifiedTokens {
  readonly #claims: LRUCache<string, AccessTokenClaims>;

  constructor(readonly maxTokens = 10_000) {
    this.#claims = new LRUCache({ max: maxTokens });
  }

  get size(): number {
    return this.#claims.size;
  }

  async verify(keys: AccessTokenKeys, token: string): Promise<AccessTokenClaims | null> {
    const known = this.#claims.get(token);
    if (known) {
      if (known.expiresAt * 1000 > keys.clock.now().getTime()) return known;
      this.#claims.delete(token);
    }
    const claims = await verifyAccessTokenClaims(keys, token);
    if (claims) this.#claims.set(token, claims);
    return claims;
  }
}

/** The member behind an access token and the token's claims, or an HttpError (401) saying why not. */
export async function memberFromAccessToken(
  users: UserCache,
  keys: AccessTokenKeys,
  token: string | null,
  verified?: VerifiedTokens,
): Promise<{ user: UserRow; claims: AccessTokenClaims }> {
  const claims = !token
    ? null
    : verified
      ? await verified.verify(keys, token)
      : await verifyAccessTokenClaims(keys, token);
  if (claims === null) throw unauthorized();
  const user = await users.find(claims.userId);
  if (!user) throw unauthorized();
  if (user.isBanned) throw bannedError();
  // A password change or reset ends every token issued before it, to the millisecond: another
  // session's token from the same second dies too, while the kept session's refresh, issued from
  // the change's instant on, passes.
  if (user.tokensValidAfter !== null && claims.issuedAtMs < user.tokensValidAfter.getTime())
    throw unauthorized();
  return { user, claims };
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

export const authenticatePlugin = fp<{ users: UserCache; keys: AccessTokenKeys }>(
  async (app: FastifyInstance, { users, keys }) => {
    const verified = new VerifiedTokens();
    app.decorateRequest('currentUser', null as unknown as UserRow);
    app.decorateRequest('accessClaims', null as unknown as AccessTokenClaims);
    const signedIn = async (request: FastifyRequest) => {
      const { user, claims } = await memberFromAccessToken(users, keys, bearerToken(request), verified);
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
