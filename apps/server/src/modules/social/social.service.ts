/**
 * Social sign-in (docs/social-sign-in.md): an OAuth 2.0 round trip at Twitch, Google (YouTube)
 * or Discord that signs a member in or up, links a platform to the signed-in member, or claims a
 * raffle prize won by that identity. Every attempt is a stored `state` (hashed) bound to the
 * browser that started it, with its PKCE verifier, used once within 10 minutes. The end of every
 * round trip is a same-origin path to redirect to — never a URL taken from the request.
 */
import type { Platform } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { EventBus } from '../../events.js';
import { findUserById, findUserByIdentity, type UserRow } from '../../kernel/users.repo.js';
import { hashToken, newOpaqueToken } from '../../tokens.js';
import type { LoginCodes } from '../auth/login-codes.js';
import { SIGN_IN_FLOW_SECONDS } from '../auth/login-codes.js';
import type { DrivingSessions } from '../cars/driving-sessions.js';
import { assignUsername } from '../users/usernames.js';
import { authorizationUrl, exchangeCode, grantsScopes, type OAuthApp } from './oauth-client.js';
import { consumeOAuthState, deleteOAuthStatesExpiredBefore, insertOAuthState } from './oauth-states.repo.js';
import type { PrizeClaims } from './prize-claims.js';
import { IdentityUnreadable, MissingPermission, PROVIDERS, type SocialIdentity } from './providers.js';
import type { SocialSettings } from './social.config.js';
import { insertSocialUser, linkIdentity } from './social-accounts.repo.js';

/** What the member asked for: the login and sign-up buttons, the claim page, the profile's Link. */
export const SOCIAL_ACTIONS = ['signup', 'login', 'claim', 'connect'] as const;
export type SocialAction = (typeof SOCIAL_ACTIONS)[number];

/** How long spent or expired attempts stay stored (for whoever looks into a failed sign-in). */
const STALE_STATES_KEPT_MS = 60 * 60_000;
const NAME_ATTEMPTS = 3;

/** The spec's redirect targets (§2, §8). */
export const REDIRECTS = {
  authFailed: '/login?error=auth_failed',
  permission: (platform: Platform) => `/login?auth=failed&reason=${platform}_permission`,
  noWinFound: '/claim?error=no_win_found',
  noCarFree: '/claim?error=no_car_free',
  claimFailed: '/claim?error=server_error',
  linked: (platform: Platform) => `/profile?linked=${platform}`,
  linkFailed: '/profile?error=auth_failed',
  linkPermission: (platform: Platform) => `/profile?error=${platform}_permission`,
  identityTaken: '/profile?error=identity_taken',
  platformAlreadyLinked: '/profile?error=already_linked',
} as const;

function callbackPath(params: Record<string, string>): string {
  return `/auth/callback?${new URLSearchParams(params).toString()}`;
}

/** Why a round trip failed before the identity was known. */
type Failure = 'failed' | 'permission';

export interface SocialServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  settings: SocialSettings;
  publicUrl: string;
  loginCodes: Pick<LoginCodes, 'issueLoginCode'>;
  cars: Pick<DrivingSessions, 'assignFreeCar'>;
  /** The raffles' prizes (the raffles service); null: no raffles, every claim finds no win. */
  prizes: PrizeClaims | null;
}

export class SocialService {
  constructor(private readonly deps: SocialServiceDeps) {}

  /** Whether the provider's app credentials are set (else its buttons are disabled). */
  isConfigured(platform: Platform): boolean {
    return this.deps.settings[platform].credentials !== null;
  }

  #app(platform: Platform): OAuthApp | null {
    const settings = this.deps.settings[platform];
    if (settings.credentials === null) return null;
    return {
      provider: PROVIDERS[platform],
      settings,
      credentials: settings.credentials,
      redirectUri: `${this.deps.publicUrl}/api/auth/${platform}/callback`,
    };
  }

  /**
   * Starts an attempt: stores its state (hashed) bound to the browser's sign-in flow nonce, with a
   * fresh PKCE verifier, and returns the provider's consent URL; null for an unconfigured provider.
   */
  async begin(input: {
    platform: Platform;
    action: SocialAction;
    binding: string;
    userId: number | null;
  }): Promise<string | null> {
    const app = this.#app(input.platform);
    if (app === null) return null;
    const state = newOpaqueToken();
    const codeVerifier = newOpaqueToken();
    const now = this.deps.clock.now();
    await deleteOAuthStatesExpiredBefore(this.deps.db, new Date(now.getTime() - STALE_STATES_KEPT_MS));
    await insertOAuthState(this.deps.db, {
      stateHash: hashToken(state),
      bindingHash: hashToken(input.binding),
      platform: input.platform,
      action: input.action,
      codeVerifier,
      userId: input.userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SIGN_IN_FLOW_SECONDS * 1000),
    });
    return authorizationUrl(app, state, codeVerifier).toString();
  }

  /**
   * The provider sent the browser back. Returns where to send it: the auth callback page with a
   * one-time login code, the claim or profile page, or the login page with the reason.
   */
  async complete(input: {
    platform: Platform;
    state: string | undefined;
    code: string | undefined;
    error: string | undefined;
    binding: string | null;
  }): Promise<string> {
    const { platform, binding } = input;
    const app = this.#app(platform);
    if (app === null || binding === null || !input.state) return REDIRECTS.authFailed;
    const attempt = await consumeOAuthState(
      this.deps.db,
      { stateHash: hashToken(input.state), bindingHash: hashToken(binding), platform },
      this.deps.clock.now(),
    );
    if (attempt === null) return REDIRECTS.authFailed;
    const action = attempt.action as SocialAction;
    const failed = (why: Failure) => this.#failure(action, platform, why);

    // The member declined at the provider (or the provider refused): a consent problem is told
    // as the platform's permission reason, anything else as a failed sign-in.
    if (input.error !== undefined) return failed(input.error === 'access_denied' ? 'permission' : 'failed');
    if (!input.code) return failed('failed');

    let identity: SocialIdentity;
    try {
      const tokens = await exchangeCode(app, input.code, attempt.codeVerifier);
      if (!grantsScopes(tokens, app.provider.scopes)) return failed('permission');
      identity = await app.provider.readIdentity(
        app.settings.apiUrl,
        tokens.accessToken(),
        app.credentials.clientId,
      );
    } catch (error) {
      if (error instanceof MissingPermission) return failed('permission');
      this.deps.log.warn(
        { err: error instanceof IdentityUnreadable ? error.message : error, platform },
        'social sign-in failed at the provider',
      );
      return failed('failed');
    }

    switch (action) {
      case 'connect':
        return this.#link(attempt.userId, identity);
      case 'claim':
        return this.#claim(identity, binding);
      default:
        return this.#signIn(identity, binding);
    }
  }

  #failure(action: SocialAction, platform: Platform, why: Failure): string {
    if (action === 'connect') {
      return why === 'permission' ? REDIRECTS.linkPermission(platform) : REDIRECTS.linkFailed;
    }
    return why === 'permission' ? REDIRECTS.permission(platform) : REDIRECTS.authFailed;
  }

  /** Sign-up and login: a known identity signs in, a new one becomes an account first. */
  async #signIn(identity: SocialIdentity, binding: string): Promise<string> {
    const member = await this.#memberFor(identity);
    if (member.isBanned) return REDIRECTS.authFailed;
    const token = await this.deps.loginCodes.issueLoginCode(member.id, binding);
    // The terms come before anything else (authenticate.ts refuses the rest until then).
    const destination = member.termsAcceptedAt === null ? '/complete-registration' : '/';
    return callbackPath({ token, destination });
  }

  /**
   * The member holding the identity, or a new one made from it: the platform's name as the base
   * of the username (with the `#` suffix rule), its picture, no password, no e-mail — accounts
   * are never matched by e-mail — and the terms not yet accepted.
   */
  async #memberFor(identity: SocialIdentity): Promise<UserRow> {
    const { db, bus } = this.deps;
    const known = await findUserByIdentity(db, identity.platform, identity.platformUserId);
    if (known) return known;
    for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt += 1) {
      const name = await assignUsername(db, identity.displayName);
      try {
        const created = await insertSocialUser(db, { ...name, ...identity });
        bus.emit('user.created', { userId: created.id, username: created.username });
        return created;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The same identity signed up in another tab at the same instant: that account is theirs.
        const raced = await findUserByIdentity(db, identity.platform, identity.platformUserId);
        if (raced) return raced;
        // Otherwise the name was taken meanwhile: pick another.
      }
    }
    throw new Error('no account could be created for a social identity');
  }

  /** Links the identity to the member who started the attempt (GET /api/connect/{platform}). */
  async #link(userId: number | null, identity: SocialIdentity): Promise<string> {
    const { db, bus } = this.deps;
    const member = userId === null ? undefined : await findUserById(db, userId);
    if (!member || member.isBanned) return REDIRECTS.linkFailed;
    const holder = await findUserByIdentity(db, identity.platform, identity.platformUserId);
    if (holder && holder.id !== member.id) return REDIRECTS.identityTaken;
    let linked: UserRow | undefined;
    try {
      linked = await linkIdentity(db, member.id, identity.platform, identity.platformUserId);
    } catch (error) {
      // Another account took the identity between the check and the write.
      if (isUniqueViolation(error)) return REDIRECTS.identityTaken;
      throw error;
    }
    // The member's slot for this platform holds another account of it: unlink that one first.
    if (!linked) return REDIRECTS.platformAlreadyLinked;
    // The ticket total counts linked accounts (+25 each): it follows the row.
    bus.emit('user.changed', { userId: linked.id, username: linked.username });
    return REDIRECTS.linked(identity.platform);
  }

  /**
   * A raffle winner claims with the identity that won: the prize is claimed atomically, the
   * member signed in (or signed up, terms first) and given a free online car. No car free: the
   * prize goes back to pending, to be claimed again.
   */
  async #claim(identity: SocialIdentity, binding: string): Promise<string> {
    const { prizes, cars, loginCodes, log } = this.deps;
    const key = { platform: identity.platform, platformUserId: identity.platformUserId };
    let claimedPrize: number | null = null;
    try {
      if (prizes === null || !(await prizes.hasPendingPrize(key))) return REDIRECTS.noWinFound;
      const member = await this.#memberFor(identity);
      if (member.isBanned) return REDIRECTS.authFailed;
      const claimed = await prizes.claimPrize(key, member.id);
      if (claimed === null) return REDIRECTS.noWinFound;
      claimedPrize = claimed.prizeId;
      const assigned = await cars.assignFreeCar(member);
      if (assigned === null) {
        claimedPrize = null;
        await prizes.releasePrize(claimed.prizeId);
        return REDIRECTS.noCarFree;
      }
      const token = await loginCodes.issueLoginCode(member.id, binding);
      const control = `/control/${assigned.car.id}/${assigned.car.stream_id}`;
      const carId = String(assigned.car.id);
      const { controlToken } = assigned;
      if (member.termsAcceptedAt === null) {
        return callbackPath({
          token,
          destination: '/complete-registration',
          final_destination: control,
          controlToken,
          carId,
        });
      }
      return callbackPath({ token, destination: control, controlToken, carId });
    } catch (error) {
      log.error({ err: error, platform: identity.platform }, 'prize claim failed');
      if (claimedPrize !== null && prizes !== null) {
        await prizes.releasePrize(claimedPrize).catch((releaseError: unknown) => {
          log.error({ err: releaseError, prizeId: claimedPrize }, 'claimed prize could not be released');
        });
      }
      return REDIRECTS.claimFailed;
    }
  }
}
