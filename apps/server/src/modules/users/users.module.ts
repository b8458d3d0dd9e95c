/** Members' rows for the member check, held in memory and dropped by the writers' events. */
import { defineModule } from '../../module.js';
import { type AccessTokenKeys, accessTokenKeys } from '../auth/access-token.js';
import { TokenAuthenticator } from './authenticator.js';
import { UserCache } from './user-cache.js';

declare module '../../module.js' {
  interface Services {
    /** Members' rows for the member check, in memory and dropped by `user.changed` (user-cache.ts). */
    userCache: UserCache;
    /**
     * The access tokens' signing key, derived once, and the clock they are issued and expire by:
     * the REST member check, the auth service and every socket's admission verify with it (jose
     * keeps the imported WebCrypto key per KeyObject).
     */
    tokenKeys: AccessTokenKeys;
    /** The member behind an access token: REST's member check and every socket's admission (authenticator.ts). */
    authenticator: TokenAuthenticator;
  }
}

export const usersModule = defineModule({
  name: 'users',
  provides: ['userCache', 'tokenKeys', 'authenticator'],
  services: ({ db, config, clock }) => {
    const userCache = new UserCache({ db });
    const tokenKeys = accessTokenKeys(config.jwtSecret, config.accessTokenTtlSeconds, clock);
    return {
      userCache,
      tokenKeys,
      authenticator: new TokenAuthenticator({ users: userCache, keys: tokenKeys }),
    };
  },
  // `user.changed` is the one every writer emits; the others come with the same changes and are
  // listened to as well so that no order of listeners can leave a stale row behind.
  on: ({ userCache }) => ({
    'user.changed': ({ userId }) => userCache.drop(userId),
    'user.sessions-revoked': ({ userId }) => userCache.drop(userId),
    'user.role-changed': ({ userId }) => userCache.drop(userId),
  }),
  // The facts another instance published while this one was away from Redis never came: every
  // row is read again once it is back (the revocations among them come late: redis-transport.ts).
  ready: ({ userCache }, { redis }) => {
    redis?.onStateChange((connected) => {
      if (connected) userCache.clear();
    });
  },
  // Seeding and the username fill write users rows without events: nothing read before them stays.
  start: async ({ userCache }) => userCache.clear(),
});
