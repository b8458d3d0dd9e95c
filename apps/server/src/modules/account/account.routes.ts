/** The signed-in member's own account: /me, profile, theme, password, tickets, deletion. */

import { setTimeout as sleepFor } from 'node:timers/promises';
import {
  ChangePasswordRequest,
  DeleteAccountRequest,
  DisconnectPlatformRequest,
  ERROR_KEYS,
  MessageResponse,
  TicketsResponse,
  UpdateDetailsRequest,
  UpdateProfileRequest,
  UpdateThemeRequest,
  UserMessageResponse,
  UserResponse,
} from '@telerace/protocol';
import type { FastifyReply, FastifyRequest, FastifyTypeProviderDefault } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { minutesToWait } from '../../domain-error.js';
import { unauthorized } from '../../http/authenticate.js';
import { JSON_CONTENT_TYPE, JsonPerObject } from '../../http/cached-json.js';
import { HttpError } from '../../http/errors.js';
import { REFRESH_COOKIE, sessionCookies } from '../auth/session-cookies.js';
import { presentUser } from '../users/user.presenter.js';
import { isWrongCurrentPassword } from './account.service.js';
import { ADDRESS_CHANGE_MIN_MS, AddressChangeLimiter } from './address-changes.js';

function sleep(ms: number): Promise<void> {
  return ms > 0 ? sleepFor(ms) : Promise.resolve();
}

/**
 * Wrong current passwords per account and hour (password change, details, deletion): whoever holds
 * a stolen access token must not be able to use these routes to guess the password behind it.
 */
const WRONG_CURRENT_PASSWORDS_PER_HOUR = 10;

function tooManyPasswordChecks(waitMs: number): HttpError {
  return new HttpError(
    429,
    `Too many wrong passwords. Try again in ${minutesToWait(waitMs)}.`,
    ERROR_KEYS.tooManyRequests,
  );
}

function tooManyAddressChanges(waitMs: number): HttpError {
  return new HttpError(
    429,
    `Too many address changes. Try again in ${minutesToWait(waitMs)}.`,
    ERROR_KEYS.tooManyRequests,
  );
}

export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const { account, tickets } = app;
  const auth = { config: { access: 'member' as const } };
  // Also open to a social sign-up that has not accepted the terms yet (authenticate.ts).
  const authBeforeTerms = { config: { access: 'member-before-terms' as const } };
  // Same attributes as the auth module sets them with, so browsers drop those very cookies.
  const cookies = sessionCookies(app.config.publicUrl.startsWith('https://'));

  /** The session family of the caller's own refresh cookie, if it is theirs. */
  const ownFamily = async (request: FastifyRequest): Promise<string | undefined> => {
    const token = request.cookies?.[REFRESH_COOKIE];
    return token ? account.sessionFamilyOf(request.currentUser.id, token) : undefined;
  };

  // Shared by every instance with REDIS_URL (scale-out/limit-stores.ts).
  const wrongPasswords = app.limitStores.window<number>(
    'wrong-current-passwords',
    WRONG_CURRENT_PASSWORDS_PER_HOUR,
    60 * 60_000,
  );
  /** Runs an action that checks the current password, counting the member's wrong ones. */
  async function checkingPassword<T>(request: FastifyRequest, reply: FastifyReply, action: () => Promise<T>) {
    const userId = request.currentUser.id;
    const waitMs = await wrongPasswords.retryAfterMs(userId);
    if (waitMs > 0) {
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw tooManyPasswordChecks(waitMs);
    }
    try {
      return await action();
    } catch (error) {
      if (isWrongCurrentPassword(error)) await wrongPasswords.record(userId);
      throw error;
    }
  }

  // Read on every page load and poll: the answer is made once per users row (the member check's
  // cached row is replaced, never changed, when the member changes) and sent as it is.
  const meAnswers = new JsonPerObject(UserResponse);
  app
    .withTypeProvider<FastifyTypeProviderDefault>()
    .get(
      '/me',
      { ...authBeforeTerms, schema: { response: { 200: UserResponse } } },
      async (request, reply) => {
        const member = request.currentUser;
        reply.type(JSON_CONTENT_TYPE);
        return meAnswers.json(member, () => ({ user: presentUser(member) }));
      },
    );

  const addressChanges = new AddressChangeLimiter(undefined, app.limitStores.window);

  app.patch(
    '/me/details',
    { ...auth, schema: { body: UpdateDetailsRequest, response: { 200: UserMessageResponse } } },
    async (request, reply) =>
      checkingPassword(request, reply, async () => {
        const member = request.currentUser;
        const { email } = request.body;
        const changesAddress = email !== null && email !== undefined && email !== member.email?.toLowerCase();
        if (!changesAddress) {
          const user = await account.updateDetails(member, request.body);
          return { user: presentUser(user), message: 'Your details were updated.' };
        }
        const waitMs = await addressChanges.take(member.id, request.ip);
        if (waitMs > 0) {
          reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
          throw tooManyAddressChanges(waitMs);
        }
        const started = performance.now();
        try {
          const user = await account.updateDetails(member, request.body);
          return { user: presentUser(user), message: 'Your details were updated.' };
        } catch (error) {
          // A wrong current password told nothing about the address: it does not use the budget.
          if (isWrongCurrentPassword(error)) {
            await addressChanges.refund(member.id, request.ip);
          }
          throw error;
        } finally {
          // Taken (409) or free (200): both answers leave at the same moment.
          await sleep(ADDRESS_CHANGE_MIN_MS - (performance.now() - started));
        }
      }),
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
    async (request, reply) =>
      checkingPassword(request, reply, async () => {
        const user = await account.changePassword(
          request.currentUser,
          request.body,
          await ownFamily(request),
        );
        return { user: presentUser(user), message: 'Your password was changed.' };
      }),
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
      await checkingPassword(request, reply, () =>
        account.assertDeletionConsent(
          request.currentUser,
          request.accessClaims,
          request.body.currentPassword,
        ),
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
