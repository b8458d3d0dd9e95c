/**
 * The access token a socket lives on (spec §7; issue 10). The server closes a socket when the
 * token that opened it expires (SOCKET_CLOSE_CODES.tokenExpired) unless the client sends
 * `auth {token}` with a newer token of the same member first. So each socket asks for a fresh
 * token a little before its token expires (`TokenRenewal`) and hands over every refreshed token
 * it hears of (`SocketTokenLease`, one per socket). The claims are read, not verified: the server
 * does that.
 */

export interface TokenClaims {
  /** The member's id. */
  sub: string;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
}

/** The claims of a JWT access token, or null for anything that does not look like one. */
export function readTokenClaims(token: string | null): TokenClaims | null {
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(json) as Partial<TokenClaims>;
    if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || typeof claims.iat !== 'number')
      return null;
    return { sub: claims.sub, iat: claims.iat, exp: claims.exp };
  } catch {
    return null;
  }
}

/** Whether `next` is a newer token of the same member as `current` (then `auth` carries it over). */
export function isRenewalOf(next: string, current: string | null): boolean {
  const a = readTokenClaims(next);
  const b = readTokenClaims(current);
  return a !== null && b !== null && a.sub === b.sub && a.exp >= b.exp && next !== current;
}

/** Whether the token has expired, or expires within `withinMs`, by this device's clock. */
export function isExpiring(token: string, now: number, withinMs = 0): boolean {
  const claims = readTokenClaims(token);
  return claims !== null && claims.exp * 1000 - withinMs <= now;
}

/** Renew this long before expiry: a quarter of the token's lifetime, between 1 s and 60 s. */
export function renewalMargin(claims: TokenClaims): number {
  return Math.min(60_000, Math.max(1_000, ((claims.exp - claims.iat) * 1000) / 4));
}

/**
 * Calls `onDue` a little before the tracked token expires. Both clocks bound the wait: this
 * device's (against `exp`) and the token's own lifetime counted from when it was first tracked,
 * so a device clock running behind the server's does not let the token lapse.
 */
export class TokenRenewal {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private token: string | null = null;
  private trackedAt = 0;

  constructor(
    private readonly now: () => number,
    private readonly onDue: () => void,
  ) {}

  track(token: string): void {
    if (token === this.token && this.timer !== undefined) return;
    this.cancel();
    const claims = readTokenClaims(token);
    if (!claims) return;
    this.token = token;
    this.trackedAt = this.now();
    const now = this.now();
    const byClock = claims.exp * 1000 - now;
    const byLifetime = (claims.exp - claims.iat) * 1000 - (now - this.trackedAt);
    const delay = Math.max(0, Math.min(byClock, byLifetime) - renewalMargin(claims));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onDue();
    }, delay);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.token = null;
  }
}

export interface SocketTokenLeaseOptions {
  now: () => number;
  /** The auth client's current token. */
  getAccessToken: () => string | null;
  /** Trades the refresh cookie for a new access token. */
  renewToken: () => Promise<string>;
  /** Sends `auth {token}` on the open socket; returns whether it was sent. */
  sendAuth: (token: string) => boolean;
  /** A renewed token is due for the open socket (shortly before its token expires). */
  onRenewed: (token: string) => void;
}

/**
 * The token one socket lives on, for the control and event sockets alike: the one the server
 * knows the socket by (its URL's, or the last `auth`), renewed shortly before it expires, handed
 * over with `auth` when a newer token of the same member comes along, and replaced by a fresh one
 * before a new attempt when the server refused it or it expired.
 */
export class SocketTokenLease {
  private token: string | null = null;
  /** The token of the socket that closed last (the one a tokenExpired close refused). */
  private closedToken: string | null = null;
  private readonly renewal: TokenRenewal;

  constructor(private readonly options: SocketTokenLeaseOptions) {
    this.renewal = new TokenRenewal(options.now, () => void this.renew());
  }

  /** The token the server knows the current socket by, null while there is none. */
  get current(): string | null {
    return this.token;
  }

  /** A new socket is opening with this token in its address. */
  connecting(token: string): void {
    this.token = token;
  }

  /** The socket opened: its token is renewed before it expires. */
  opened(): void {
    if (this.token) this.renewal.track(this.token);
  }

  /** Hands `token` to the open socket (`auth`) if it is a newer token of the same member. */
  offer(token: string): void {
    if (!isRenewalOf(token, this.token) || !this.options.sendAuth(token)) return;
    this.token = token;
    this.renewal.track(token);
  }

  closed(): void {
    this.closedToken = this.token;
    this.token = null;
    this.renewal.cancel();
  }

  /**
   * Whether `token` would only be refused by the next attempt: the server just refused the last
   * socket's (`refused`) and this is it, or there is none, or it has expired by this device's clock.
   */
  isStale(token: string | null, refused: boolean): boolean {
    if (refused) return !token || token === this.closedToken || isExpiring(token, this.options.now(), 1_000);
    return token !== null && isExpiring(token, this.options.now(), 1_000);
  }

  /** A live token other than the last socket's: the auth client's, else a refresh; null if neither. */
  async fresh(): Promise<string | null> {
    const current = this.options.getAccessToken();
    if (current && current !== this.closedToken && !isExpiring(current, this.options.now(), 1_000))
      return current;
    try {
      return await this.options.renewToken();
    } catch {
      return null;
    }
  }

  /** Shortly before the socket's token expires: the auth client's newer token, or a refresh. */
  private async renew(): Promise<void> {
    const current = this.options.getAccessToken();
    if (current && isRenewalOf(current, this.token)) {
      this.options.onRenewed(current);
      return;
    }
    try {
      this.options.onRenewed(await this.options.renewToken());
    } catch {
      // Not renewed (offline, signed out): the server closes the socket at expiry, and the
      // tokenExpired close tries again.
    }
  }
}
