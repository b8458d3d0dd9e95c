/** Sign-up, log-in, sessions (refresh rotation), log-out, password reset. */
import {
  AccessTokenResponse,
  ERROR_KEYS,
  ForgotPasswordRequest,
  LoginRequest,
  LogoutResponse,
  MessageResponse,
  ResetPasswordRequest,
  SignupRequest,
  UserResponse,
} from '@telerace/protocol';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { DomainError } from '../../domain-error.js';
import { HttpError } from '../../http/errors.js';
import type { Services } from '../../module.js';
import { type IssuedSession, MESSAGES } from './auth.service.js';
import { botVerifierFor } from './bot-check.js';
import { loginCodeRoutes } from './login-codes.routes.js';
import { REFRESH_COOKIE, sessionCookies } from './session-cookies.js';

export { REFRESH_COOKIE } from './session-cookies.js';

const HOUR_MS = 60 * 60_000;

export const authRoutes =
  (
    { auth: service, loginCodes }: Pick<Services, 'auth' | 'loginCodes'>,
    { config, clock }: { config: Config; clock: Clock },
  ): FastifyPluginAsyncZod =>
  async (app) => {
    const secure = config.publicUrl.startsWith('https://');
    const botVerifier = botVerifierFor(config, app.log);

    const cookies = sessionCookies(secure);

    function setSessionCookie(reply: FastifyReply, session: IssuedSession): void {
      const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - clock.now().getTime()) / 1000));
      cookies.set(reply, session.refreshToken, maxAge);
    }

    function clearSessionCookie(reply: FastifyReply): void {
      cookies.clear(reply);
    }

    // Sign-ins finished elsewhere (social) end here, with the same sessions as /login.
    await app.register(loginCodeRoutes({ auth: service, loginCodes, setSessionCookie }));

    async function requireHuman(token: string, ip: string): Promise<void> {
      if (!(await botVerifier.verify(token, ip))) {
        throw new HttpError(400, 'The bot check failed. Please try again.', ERROR_KEYS.botCheckFailed);
      }
    }

    app.post(
      '/signup',
      {
        config: { rateLimit: { max: config.signupRateLimitPerHour, timeWindow: HOUR_MS } },
        schema: { body: SignupRequest, response: { 201: AccessTokenResponse } },
      },
      async (request, reply) => {
        await requireHuman(request.body.recaptchaToken, request.ip);
        // Signed in at once, with the session a log-in gives (cookie and access token).
        const session = await service.signup(request.body, request.ip);
        setSessionCookie(reply, session);
        return reply.code(201).send({ accessToken: session.accessToken });
      },
    );

    app.post(
      '/login',
      { schema: { body: LoginRequest, response: { 200: AccessTokenResponse } } },
      async (request, reply) => {
        await requireHuman(request.body.recaptchaToken, request.ip);
        // Too many attempts: the error handler sets Retry-After from the refusal.
        const session = await service.login(request.body, request.ip);
        setSessionCookie(reply, session);
        return { accessToken: session.accessToken };
      },
    );

    app.post(
      '/refresh-token',
      { schema: { response: { 200: AccessTokenResponse } } },
      async (request, reply) => {
        try {
          const session = await service.refresh(request.cookies[REFRESH_COOKIE]);
          setSessionCookie(reply, session);
          return { accessToken: session.accessToken };
        } catch (error) {
          // Only a refused session ends it; a database that is away or a full disk (503) must not
          // sign the member out: the page keeps its session and the next refresh succeeds.
          if (error instanceof DomainError) clearSessionCookie(reply);
          throw error;
        }
      },
    );

    app.post(
      '/logout',
      { schema: { response: { 200: LogoutResponse, 202: LogoutResponse } } },
      async (request, reply) => {
        // Whatever happens next, this browser holds the session no more.
        clearSessionCookie(reply);
        if ((await service.logout(request.cookies[REFRESH_COOKIE])) === 'recorded')
          return { message: MESSAGES.loggedOut, recorded: true };
        // The database is away: the log-out is held and written once it is back; the page says so.
        return reply.code(202).send({ message: MESSAGES.loggedOutPending, recorded: false });
      },
    );

    app.post(
      '/forgot-password',
      {
        config: { rateLimit: { max: 10, timeWindow: HOUR_MS } },
        schema: { body: ForgotPasswordRequest, response: { 200: MessageResponse } },
      },
      async (request) => {
        await service.requestPasswordReset(request.body.email);
        return { message: MESSAGES.resetRequested };
      },
    );

    app.post(
      '/reset-password',
      {
        config: { rateLimit: { max: 20, timeWindow: HOUR_MS } },
        schema: { body: ResetPasswordRequest, response: { 200: MessageResponse } },
      },
      async (request) => {
        await service.resetPassword(request.body.token, request.body.newPassword);
        return { message: MESSAGES.passwordReset };
      },
    );

    app.post(
      '/auth/complete-registration',
      { config: { access: 'member-before-terms' }, schema: { response: { 200: UserResponse } } },
      async (request) => ({ user: await service.completeRegistration(request.currentUser) }),
    );
  };
