/**
 * Accounts' sign-up, log-in, sessions (refresh rotation), log-out and password reset, and the
 * one-time sign-in codes that social sign-in ends with.
 */
import { defineModule } from '../../module.js';
import { mailerFor } from '../mail/mailer.js';
import { authRoutes } from './auth.routes.js';
import { AuthService } from './auth.service.js';
import { LoginCodes } from './login-codes.js';
import { PendingLogouts } from './pending-logouts.js';

declare module '../../module.js' {
  interface Services {
    auth: AuthService;
    /** One-time sign-in codes bound to the browser that started the flow (social sign-in). */
    loginCodes: LoginCodes;
  }
}

export const authModule = defineModule({
  name: 'auth',
  needs: ['tokenKeys'],
  provides: ['auth', 'loginCodes'],
  services: ({ config, db, bus, clock, log, services, redis, limitStores }) => ({
    auth: new AuthService({
      db,
      bus,
      clock,
      log,
      keys: services.tokenKeys,
      mailer: mailerFor(config, log),
      // Shared by every instance with REDIS_URL (scale-out/limit-stores.ts).
      limiter: limitStores.loginThrottle(),
      // Shared by every instance with REDIS_URL, as the log-out may be taken by any.
      pendingLogouts: new PendingLogouts({
        redis: redis?.commands ?? null,
        namespace: config.redisNamespace,
        log,
      }),
      publicUrl: config.publicUrl,
    }),
    loginCodes: new LoginCodes({ db, clock, secure: config.publicUrl.startsWith('https://') }),
  }),
  routes: (services, context) => [{ plugin: authRoutes(services, context) }],
  start: async ({ auth }) => auth.start(),
  stop: ({ auth }) => auth.close(),
});
