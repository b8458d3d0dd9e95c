/**
 * The member behind an access token (the `Authenticator` port of http/authenticate.ts): the
 * token's signature and claims, then the member's row from the user cache (memory, dropped at once
 * by `user.changed` and the revocation events), so bans and deletions apply to the very next
 * request or handshake. REST's member check and every socket's admission ask here.
 */
import { LRUCache } from 'lru-cache';
import {
  type AccessTokenClaims,
  type Authenticator,
  bannedError,
  type Member,
  unauthorized,
} from '../../http/authenticate.js';
import { type AccessTokenKeys, verifyAccessTokenClaims } from '../auth/access-token.js';
import type { UserCache } from './user-cache.js';

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

export class TokenAuthenticator implements Authenticator {
  readonly #users: UserCache;
  readonly #keys: AccessTokenKeys;
  readonly #verified = new VerifiedTokens();

  constructor(deps: { users: UserCache; keys: AccessTokenKeys }) {
    this.#users = deps.users;
    this.#keys = deps.keys;
  }

  async member(token: string | null, { remember = false }: { remember?: boolean } = {}): Promise<Member> {
    const claims = !token
      ? null
      : remember
        ? await this.#verified.verify(this.#keys, token)
        : await verifyAccessTokenClaims(this.#keys, token);
    if (claims === null) throw unauthorized();
    const user = await this.#users.find(claims.userId);
    if (!user) throw unauthorized();
    if (user.isBanned) throw bannedError();
    // A password change or reset ends every token issued before it, to the millisecond: another
    // session's token from the same second dies too, while the kept session's refresh, issued from
    // the change's instant on, passes.
    if (user.tokensValidAfter !== null && claims.issuedAtMs < user.tokensValidAfter.getTime())
      throw unauthorized();
    return { user, claims };
  }
}
