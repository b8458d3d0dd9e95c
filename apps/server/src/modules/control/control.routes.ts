/**
 * The control socket /rcsocket (outside /api: upgrades are not rate-limited like REST calls).
 * `type=car`: the car agent, with `Authorization: Bearer <car secret>`. `type=controller`: a
 * driver's browser, with its access token and the control token of the session holding the car.
 * Every check runs in preValidation, so a refusal is a real HTTP 401/403/429 instead of an
 * upgrade. Controllers count against the per-address and per-member caps (socket-admission.ts);
 * car agents do not (one socket per car, authenticated by the car's secret).
 */
import { CONTROL_LIMITS, ERROR_KEYS } from '@telerace/protocol';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { memberFromAccessToken, unauthorized } from '../../http/authenticate.js';
import { HttpError } from '../../http/errors.js';
import { type AccessTokenClaims, accessTokenKeys } from '../auth/access-token.js';
import { findUserById, type UserRow } from '../users/users.repo.js';
import { assertOwnOrigin, queryOf } from './socket-auth.js';
import type { TokenCheck } from './socket-token.js';

type Admitted =
  | { type: 'car'; carId: number }
  | { type: 'controller'; carId: number; sessionId: number; user: UserRow; claims: AccessTokenClaims };

const forbidden = (message: string) => new HttpError(403, message, ERROR_KEYS.forbidden);

function carIdOf(value: string | undefined): number {
  const id = Number(value);
  if (!Number.isInteger(id) || id <= 0) throw new HttpError(400, 'query.car: a car id is required');
  return id;
}

export const controlRoutes: FastifyPluginAsync = async (app) => {
  const keys = accessTokenKeys(app.config.jwtSecret, app.config.accessTokenTtlSeconds);
  const check: TokenCheck = (token) => memberFromAccessToken(app.database.db, keys, token);
  const admitted = new WeakMap<FastifyRequest, Admitted>();

  app.get(
    '/rcsocket',
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (request) => {
        const query = queryOf(request);
        const carId = carIdOf(query.car);
        if (query.type === 'car') {
          const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
          const car = match?.[1] ? await app.cars.carForSecret(carId, match[1]) : null;
          if (!car) throw unauthorized();
          admitted.set(request, { type: 'car', carId });
          return;
        }
        if (query.type === 'controller') {
          assertOwnOrigin(request, app.config.publicUrl);
          app.socketAdmission.admitAddress(request);
          const { user, claims } = await check(query.token ?? '');
          const session = query.control_token
            ? await app.cars.sessionForControlToken(user.id, carId, query.control_token)
            : null;
          if (!session) throw forbidden('This control token does not open this car.');
          app.socketAdmission.admitMember(
            request,
            'controller',
            user.id,
            CONTROL_LIMITS.controllerSocketsPerMember,
          );
          admitted.set(request, { type: 'controller', carId, sessionId: session.id, user, claims });
          return;
        }
        throw new HttpError(400, 'query.type: must be car or controller');
      },
    },
    (socket, request) => {
      const who = admitted.get(request);
      if (!who) {
        socket.close(1011, 'not admitted');
        return;
      }
      if (who.type === 'car') app.carRelay.attachCar(who.carId, socket);
      else
        app.carRelay.attachController(who.carId, who.sessionId, socket, {
          user: who.user,
          claims: who.claims,
          check,
          currentUser: () => findUserById(app.database.db, who.user.id).then((row) => row ?? null),
        });
    },
  );
};
