/** Admin calls on cars and on the driving settings (all audited by the service). */
import {
  AdminCarResponse,
  AdminCarsResponse,
  CarCommandRequest,
  CarConfig,
  CarIdParams,
  CreateCarRequest,
  CreateCarResponse,
  GenerateCodeResponse,
  LapCounterIdRequest,
  MessageResponse,
  RotateSecretResponse,
} from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/actor.js';
import type { Services } from '../../module.js';

export const adminCarRoutes =
  ({ adminCars: cars }: Pick<Services, 'adminCars'>): FastifyPluginAsyncZod =>
  async (app) => {
    const admin = { config: { access: 'admin' as const } };

    app.get('/cars', { ...admin, schema: { response: { 200: AdminCarsResponse } } }, async () =>
      cars.listAdmin(),
    );

    app.post(
      '/cars',
      { ...admin, schema: { body: CreateCarRequest, response: { 201: CreateCarResponse } } },
      async (request, reply) => reply.code(201).send(await cars.create(actorOf(request), request.body)),
    );

    app.post(
      '/cars/:id/rotate-secret',
      { ...admin, schema: { params: CarIdParams, response: { 200: RotateSecretResponse } } },
      async (request) => ({ secret: await cars.rotateSecret(actorOf(request), request.params.id) }),
    );

    app.delete(
      '/cars/:id',
      { ...admin, schema: { params: CarIdParams, response: { 200: MessageResponse } } },
      async (request) => {
        await cars.delete(actorOf(request), request.params.id);
        return { message: 'The car was deleted.' };
      },
    );

    app.post(
      '/cars/:id/generate_code',
      { ...admin, schema: { params: CarIdParams, response: { 200: GenerateCodeResponse } } },
      async (request) => ({ code: await cars.generateCode(actorOf(request), request.params.id) }),
    );

    app.post(
      '/cars/:id/kick',
      { ...admin, schema: { params: CarIdParams, response: { 200: MessageResponse } } },
      async (request) => ({ message: await cars.kick(actorOf(request), request.params.id) }),
    );

    app.post(
      '/cars/:id/command',
      {
        ...admin,
        schema: { params: CarIdParams, body: CarCommandRequest, response: { 200: MessageResponse } },
      },
      async (request) => {
        await cars.command(actorOf(request), request.params.id, request.body.command);
        return { message: `Command ${request.body.command} sent.` };
      },
    );

    app.post(
      '/cars/:id/config',
      {
        ...admin,
        schema: { params: CarIdParams, body: CarConfig, response: { 200: AdminCarResponse } },
      },
      async (request) => ({ car: await cars.saveConfig(actorOf(request), request.params.id, request.body) }),
    );

    app.put(
      '/cars/:id/lap-counter-id',
      {
        ...admin,
        schema: { params: CarIdParams, body: LapCounterIdRequest, response: { 200: AdminCarResponse } },
      },
      async (request) => ({
        car: await cars.setLapCounterId(actorOf(request), request.params.id, request.body.lap_counter_id),
      }),
    );
  };
