/**
 * The access token a browser socket lives on. A socket opened with a token closes (tokenExpired)
 * when that token expires, unless the client sends `auth {token}` with a newer valid token of the
 * same member first (after its silent refresh): then the socket lives until the new token's
 * expiry and belongs to the new token's session (a log-out of that session closes it). The expiry
 * is a timer on the server's clock, the one the token was issued and is verified by.
 */
import type { Clock, ClockTimer } from '../clock.js';
import type { AccessTokenClaims } from '../http/authenticate.js';
import type { UserRow } from '../kernel/users.repo.js';

/** Verifies an access token as the upgrade does (signature, expiry, ban, tokens_valid_after). */
export type TokenCheck = (token: string) => Promise<{ user: UserRow; claims: AccessTokenClaims }>;

export class SocketToken {
  #claims: AccessTokenClaims;
  #timer: ClockTimer | undefined;
  #stopped = false;

  constructor(
    claims: AccessTokenClaims,
    readonly clock: Clock,
    readonly onExpired: () => void,
  ) {
    this.#claims = claims;
    this.#arm();
  }

  get userId(): number {
    return this.#claims.userId;
  }

  /** The session (refresh-token family) of the token that opened or last re-authenticated the socket. */
  get sessionId(): string | null {
    return this.#claims.sessionId;
  }

  get expiresAt(): Date {
    return new Date(this.#claims.expiresAt * 1000);
  }

  /**
   * Takes a newer token of the same member: its user row (fresh from the database) or null when
   * it is refused — invalid, expired, banned, issued before a password change, another member's,
   * or expiring before the current one. The caller closes the socket on null.
   */
  async renew(token: string, check: TokenCheck): Promise<UserRow | null> {
    let verified: Awaited<ReturnType<TokenCheck>>;
    try {
      verified = await check(token);
    } catch {
      return null;
    }
    const { user, claims } = verified;
    if (this.#stopped || claims.userId !== this.#claims.userId) return null;
    // The same token again, or one minted in the same second, changes nothing but is harmless.
    if (claims.expiresAt < this.#claims.expiresAt) return null;
    this.#claims = claims;
    this.#arm();
    return user;
  }

  /** The socket closed: no timer may outlive it. */
  stop(): void {
    this.#stopped = true;
    this.clock.clear(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.clock.clear(this.#timer);
    if (this.#stopped) return;
    const delay = Math.max(0, this.#claims.expiresAt * 1000 - this.clock.now().getTime());
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped) this.onExpired();
    }, delay);
  }
}
