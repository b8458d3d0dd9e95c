/** The signed-in member's own account: /me, profile, theme, password, tickets, deletion. */

import {
  ChangePasswordRequest,
  DeleteAccountRequest,
  DisconnectPlatformRequest,
  MessageResponse,
  TicketsResponse,
  UpdateDetailsRequest,
  UpdateProfileRequest,
  UpdateThemeRequest,
  UserMessageResponse,
  UserResponse,
} from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';
import { unauthorized } from '../../http/authenticate.js';
import { cachedAnswer, NEW_VALUE, sendAnswer } from '../../http/cached-answer.js';
import type { Services } from '../../module.js';
import { REFRESH_COOKIE, sessionCookies } from '../auth/session-cookies.js';
import { presentUser } from '../users/user.presenter.js';

export const accountRoutes =
  ({ account, tickets }: Pick<Services, 'account' | 'tickets'>, config: Config): FastifyPluginAsyncZod =>
  async (app) => {
    const auth = { config: { access: 'member' as const } };
    // Also open to a social sign-up that has not accepted the terms yet (authenticate.ts).
    const authBeforeTerms = { config: { access: 'member-before-terms' as const } };
    // Same attributes as the auth module sets them with, so browsers drop those very cookies.
    const cookies = sessionCookies(config.publicUrl.startsWith('https://'));

    /** The session family of the caller's own refresh cookie, if it is theirs. */
    const ownFamily = async (request: FastifyRequest): Promise<string | undefined> => {
      const token = request.cookies?.[REFRESH_COOKIE];
      return token ? account.sessionFamilyOf(request.currentUser.id, token) : undefined;
    };

    // Read on every page load and poll: the answer is made once per users row (the member check's
    // cached row is replaced, never changed, when the member changes) and sent as it is.
    const meAnswers = cachedAnswer(UserResponse, NEW_VALUE);
    app.get(
      '/me',
      { ...authBeforeTerms, schema: { response: { 200: UserResponse } } },
      async (request, reply) => {
        const member = request.currentUser;
        return sendAnswer(
          request,
          reply,
          meAnswers.of(member, () => ({ user: presentUser(member) })),
        );
      },
    );

    app.patch(
      '/me/details',
      { ...auth, schema: { body: UpdateDetailsRequest, response: { 200: UserMessageResponse } } },
      async (request) => {
        const user = await account.updateDetails(request.currentUser, request.body, request.ip);
        return { user: presentUser(user), message: 'Your details were updated.' };
      },
    );

    app.patch(
      '/me',
      { ...auth, schema: { body: UpdateProfileRequest, response: { 200: UserResponse } } },
      async (request) => ({
        user: presentUser(await account.updateProfile(request.currentUser.id, request.body)),
      }),
    );

    app.patch(
      '/me/theme',
      { ...auth, schema: { body: UpdateThemeRequest, response: { 200: UserResponse } } },
      async (request) => ({
        user: presentUser(await account.updateTheme(request.currentUser.id, request.body.preferred_theme)),
      }),
    );

    app.post(
      '/me/password',
      { ...auth, schema: { body: ChangePasswordRequest, response: { 200: UserMessageResponse } } },
      async (request) => {
        const user = await account.changePassword(
          request.currentUser,
          request.body,
          await ownFamily(request),
        );
        return { user: presentUser(user), message: 'Your password was changed.' };
      },
    );

    app.post(
      '/me/disconnect',
      { ...auth, schema: { body: DisconnectPlatformRequest, response: { 200: UserResponse } } },
      async (request) => ({
        user: presentUser(await account.disconnectPlatform(request.currentUser, request.body.platform)),
      }),
    );

    app.delete(
      '/me',
      { ...authBeforeTerms, schema: { body: DeleteAccountRequest, response: { 200: MessageResponse } } },
      async (request, reply) => {
        await account.assertDeletionConsent(
          request.currentUser,
          request.accessClaims,
          request.body.currentPassword,
        );
        // Lost a race with another deletion (or a ban-and-delete by an admin): the account is gone.
        if (!(await account.deleteAccount(request.currentUser.id))) throw unauthorized();
        cookies.clear(reply);
        return { message: 'Your account was deleted.' };
      },
    );

    app.get('/me/tickets', { ...auth, schema: { response: { 200: TicketsResponse } } }, async (request) => {
      const counted = await tickets.forUser(request.currentUser.id);
      if (!counted) throw unauthorized();
      return counted;
    });
  };
