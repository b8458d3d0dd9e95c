/**
 * The social sign-in round trips (docs/social-sign-in.md). Browser navigations, so every answer
 * is a 302 to a same-origin path or to the provider's consent page, never JSON:
 * - `GET /api/auth/{platform}?action=signup|login|claim` → the provider;
 * - `GET /api/connect/{platform}?token=<access token>` (signed in: a navigation carries no
 *   Authorization header, so the token rides in the query like the sockets'; without it, the
 *   refresh cookie) → the provider, to link;
 * - `GET /api/auth/{platform}/callback?code&state` (or `?error=…`) → where the service says.
 */
import { PLATFORMS, type Platform } from '@telerace/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { UserRow } from '../../kernel/users.repo.js';
import type { Services } from '../../module.js';
import { REFRESH_COOKIE } from '../auth/auth.routes.js';
import { REDIRECTS, SOCIAL_ACTIONS, type SocialAction } from './social.service.js';

/** Query values are only ever compared or hashed; anything longer is nobody's. */
const QueryValue = z.string().max(2048).optional();

const PlatformParams = z.object({ platform: z.string().max(32) });
const StartQuery = z.object({ action: QueryValue });
const ConnectQuery = z.object({ token: QueryValue });
const CallbackQuery = z.object({ code: QueryValue, state: QueryValue, error: QueryValue });

const platformOf = (value: string): Platform | null =>
  (PLATFORMS as readonly string[]).includes(value) ? (value as Platform) : null;

/** Where an action started from (the login page's buttons default to log in). */
const startActionOf = (value: string | undefined): Exclude<SocialAction, 'connect'> | null => {
  const action = value ?? 'login';
  return (SOCIAL_ACTIONS as readonly string[]).includes(action) && action !== 'connect'
    ? (action as Exclude<SocialAction, 'connect'>)
    : null;
};

/** A redirect nobody keeps: the locations carry one-time states and codes. */
function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(location, 302);
}

export const socialRoutes =
  ({
    social,
    loginCodes,
    auth,
    authenticator,
  }: Pick<Services, 'social' | 'loginCodes' | 'auth' | 'authenticator'>): FastifyPluginAsyncZod =>
  async (app) => {
    /** Starts a round trip bound to this browser (the sign-in flow's nonce cookie). */
    async function toProvider(
      reply: FastifyReply,
      platform: Platform,
      action: SocialAction,
      userId: number | null,
      unavailable: string,
    ): Promise<FastifyReply> {
      if (!social.isConfigured(platform)) return redirect(reply, unavailable);
      const binding = loginCodes.startSignInFlow(reply);
      const location = await social.begin({ platform, action, binding, userId });
      return redirect(reply, location ?? unavailable);
    }

    app.get(
      '/auth/:platform',
      { schema: { params: PlatformParams, querystring: StartQuery } },
      async (request, reply) => {
        const platform = platformOf(request.params.platform);
        const action = startActionOf(request.query.action);
        if (platform === null || action === null) return redirect(reply, REDIRECTS.authFailed);
        return toProvider(reply, platform, action, null, REDIRECTS.authFailed);
      },
    );

    /** The signed-in member a navigation comes from: its access token, else its refresh cookie. */
    async function navigatingMember(
      request: FastifyRequest,
      token: string | undefined,
    ): Promise<UserRow | null> {
      if (token === undefined) return auth.memberOfRefreshToken(request.cookies[REFRESH_COOKIE]);
      try {
        return (await authenticator.member(token)).user;
      } catch {
        return null;
      }
    }

    app.get(
      '/connect/:platform',
      { schema: { params: PlatformParams, querystring: ConnectQuery } },
      async (request, reply) => {
        const platform = platformOf(request.params.platform);
        if (platform === null) return redirect(reply, REDIRECTS.linkFailed);
        const member = await navigatingMember(request, request.query.token);
        if (member === null) return redirect(reply, '/login');
        // Linking is one of the things a member does only once the terms are accepted.
        if (member.termsAcceptedAt === null) return redirect(reply, '/complete-registration');
        return toProvider(reply, platform, 'connect', member.id, REDIRECTS.linkFailed);
      },
    );

    app.get(
      '/auth/:platform/callback',
      { schema: { params: PlatformParams, querystring: CallbackQuery } },
      async (request, reply) => {
        const platform = platformOf(request.params.platform);
        if (platform === null) return redirect(reply, REDIRECTS.authFailed);
        const location = await social.complete({
          platform,
          state: request.query.state,
          code: request.query.code,
          error: request.query.error,
          binding: loginCodes.flowNonce(request),
        });
        return redirect(reply, location);
      },
    );
  };
