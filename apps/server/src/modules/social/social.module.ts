/**
 * Social sign-in with Twitch, Google (YouTube) and Discord: sign-up and login, linking a platform
 * to the signed-in member, and the claim of a raffle prize by the identity that won it.
 */
import { defineModule } from '../../module.js';
import { socialRoutes } from './social.routes.js';
import { SocialService } from './social.service.js';

declare module '../../module.js' {
  interface Services {
    /** The OAuth round trips and what they end in (sign-in, link, claim). */
    social: SocialService;
  }
}

export const socialModule = defineModule({
  name: 'social',
  needs: ['loginCodes', 'drivingSessions', 'raffles'],
  uses: ['auth', 'authenticator'],
  provides: ['social'],
  services: ({ config, db, bus, clock, log, services }) => ({
    social: new SocialService({
      db,
      bus,
      clock,
      log,
      settings: config.social,
      publicUrl: config.publicUrl,
      loginCodes: services.loginCodes,
      cars: services.drivingSessions,
      prizes: services.raffles,
    }),
  }),
  routes: (services) => [{ plugin: socialRoutes(services) }],
});
