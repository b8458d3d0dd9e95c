/** Members' car calls: the list, one car's status, and connecting with a control code. */
import { Car, CarIdParams, CarsResponse, ConnectRequest, ConnectResponse } from '@telerace/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { cachedAnswer, NEW_VALUE, sendAnswer } from '../../http/cached-answer.js';
import type { Services } from '../../module.js';

/** Connect attempts per client IP and 10 minutes. */
const CONNECT_ATTEMPTS_PER_10_MIN = 30;

export const carRoutes =
  ({ cars, drivingSessions }: Pick<Services, 'cars' | 'drivingSessions'>): FastifyPluginAsyncZod =>
  async (app) => {
    const member = { config: { access: 'member' as const } };

    // The same list for every member, polled by all of them: serialized (and compressed) once per
    // list, which the service hands again while nothing it shows changed (cars.service.ts `list`).
    const carList = cachedAnswer(CarsResponse, NEW_VALUE);
    app.get(
      '/cars',
      // Compressed here, once per change: the compression plugin's hooks would only look and pass.
      { ...member, compress: false, schema: { response: { 200: CarsResponse } } },
      async (request, reply) => sendAnswer(request, reply, carList.of(await cars.list())),
    );

    app.get(
      '/cars/:id/status',
      { ...member, schema: { params: CarIdParams, response: { 200: Car } } },
      async (request) =>
        cars.status(request.params.id, {
          id: request.currentUser.id,
          isAdmin: request.currentUser.isAdmin,
        }),
    );

    app.post(
      '/cars/:id/connect',
      {
        config: {
          ...member.config,
          // Codes are short: a per-IP budget of attempts (with the per-member budget and the per-car
          // count in the service) makes guessing one hopeless.
          rateLimit: { max: CONNECT_ATTEMPTS_PER_10_MIN, timeWindow: 10 * 60_000 },
        },
        schema: { params: CarIdParams, body: ConnectRequest, response: { 200: ConnectResponse } },
      },
      async (request) => {
        const { car, controlToken } = await drivingSessions.connect(
          request.currentUser,
          request.params.id,
          request.body.code,
        );
        return { ok: true as const, car, controlToken };
      },
    );
  };
