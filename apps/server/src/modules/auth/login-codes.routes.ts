/**
 * `POST /api/auth/exchange {code}`: the page at /auth/callback trades the one-time code it was
 * sent for a session, like /api/login (refresh cookie + `{accessToken}`). Registered by
 * authRoutes, whose AuthService issues the session; the codes themselves are the `loginCodes` service.
 */
import { AccessTokenResponse, ERROR_KEYS, ExchangeLoginCodeRequest } from '@telerace/protocol';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError } from '../../http/errors.js';
import type { AuthService, IssuedSession } from './auth.service.js';
import type { LoginCodes } from './login-codes.js';

export interface LoginCodeRoutesOptions {
  auth: Pick<AuthService, 'signInVerified'>;
  loginCodes: LoginCodes;
  setSessionCookie(reply: FastifyReply, session: IssuedSession): void;
}

/** One answer for every failure: which one it was would only help someone probing codes. */
const loginCodeInvalid = (): HttpError =>
  new HttpError(
    400,
    'This sign-in link is invalid, was already used or comes from another browser. Please sign in again.',
    ERROR_KEYS.loginCodeInvalid,
  );

export const loginCodeRoutes =
  (options: LoginCodeRoutesOptions): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/auth/exchange',
      { schema: { body: ExchangeLoginCodeRequest, response: { 200: AccessTokenResponse } } },
      async (request, reply) => {
        const userId = await options.loginCodes.exchange(
          request.body.code,
          options.loginCodes.flowNonce(request),
        );
        if (userId === null) throw loginCodeInvalid();
        const session = await options.auth.signInVerified(userId, request.ip);
        if (session === null) throw loginCodeInvalid();
        options.setSessionCookie(reply, session);
        options.loginCodes.endSignInFlow(reply);
        return { accessToken: session.accessToken };
      },
    );
  };
