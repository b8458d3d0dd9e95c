/** Admin calls on members: list, ban, admin role, ticket adjustment, deletion; login history. */
import {
  AdjustTicketsRequest,
  AdminLoginsResponse,
  AdminUserResponse,
  AdminUsersResponse,
  BanRequest,
  MessageResponse,
  PageQuery,
  ToggleAdminRequest,
  UserIdParams,
} from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/actor.js';
import type { Services } from '../../module.js';

export const adminUserRoutes =
  ({ adminUsers: service }: Pick<Services, 'adminUsers'>): FastifyPluginAsyncZod =>
  async (app) => {
    const admin = { config: { access: 'admin' as const } };

    app.get(
      '/users',
      { ...admin, schema: { querystring: PageQuery, response: { 200: AdminUsersResponse } } },
      async (request) => service.list(request.query),
    );

    app.get(
      '/logins',
      { ...admin, schema: { querystring: PageQuery, response: { 200: AdminLoginsResponse } } },
      async (request) => service.loginHistory(request.query),
    );

    app.post(
      '/users/:id/ban',
      { ...admin, schema: { params: UserIdParams, body: BanRequest, response: { 200: AdminUserResponse } } },
      async (request) => ({
        user: await service.setBanned(actorOf(request), request.params.id, request.body.ban),
      }),
    );

    app.post(
      '/users/:id/toggle-admin',
      {
        ...admin,
        schema: { params: UserIdParams, body: ToggleAdminRequest, response: { 200: AdminUserResponse } },
      },
      async (request) => ({
        user: await service.setAdmin(actorOf(request), request.params.id, request.body.makeAdmin),
      }),
    );

    app.post(
      '/users/:id/adjust-tickets',
      {
        ...admin,
        schema: { params: UserIdParams, body: AdjustTicketsRequest, response: { 200: AdminUserResponse } },
      },
      async (request) => ({
        user: await service.adjustTickets(
          actorOf(request),
          request.params.id,
          request.body.amount,
          request.body.requestId,
        ),
      }),
    );

    app.delete(
      '/users/:id',
      { ...admin, schema: { params: UserIdParams, response: { 200: MessageResponse } } },
      async (request) => {
        await service.deleteMember(actorOf(request), request.params.id);
        return { message: 'The account was deleted.' };
      },
    );
  };
