/** GET/PATCH /api/admin/settings: the run-time settings (admins; every save audited). */
import { AdminSettings, AdminSettingsPatch } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/actor.js';
import type { Services } from '../../module.js';

export const settingsRoutes =
  ({ settings }: Pick<Services, 'settings'>): FastifyPluginAsyncZod =>
  async (app) => {
    const admin = { config: { access: 'admin' as const } };

    app.get('/admin/settings', { ...admin, schema: { response: { 200: AdminSettings } } }, async () =>
      settings.get(),
    );

    app.patch(
      '/admin/settings',
      { ...admin, schema: { body: AdminSettingsPatch, response: { 200: AdminSettings } } },
      async (request) => settings.update(actorOf(request), request.body),
    );
  };
