/**
 * The control socket /rcsocket (outside /api: upgrades are not rate-limited like REST calls), two
 * sockets on one path. `type=car`: the car agent, with `Authorization: Bearer <car secret>`; not
 * counted per address or member (one socket per car, authenticated by the car's secret).
 * `type=controller`: a driver's browser, with its access token and the control token of the
 * session holding the car, saying its protocol version in `hello` (sockets/browser-hello.ts);
 * counted per address and per member. Declared with the socket kit
 * (sockets/define-socket.ts): every check runs before the upgrade, the member check (a member
 * who accepted the terms: driving is for them) by the kit itself.
 */
import {
  CarAgentMessage,
  CONTROL_LIMITS,
  ControllerMessage,
  DRIVE_CHANNEL,
  ERROR_KEYS,
  IdText,
} from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { unauthorized } from '../../http/authenticate.js';
import { HttpError } from '../../http/errors.js';
import type { LimitWindow } from '../../limit-window.js';
import type { Services } from '../../module.js';
import type { LimitStores } from '../../scale-out/limit-stores.js';
import { answerBrowserHello } from '../../sockets/browser-hello.js';
import { defineSocket, type SocketRoute } from '../../sockets/define-socket.js';
import { messageTable } from '../../sockets/message-table.js';
import { queryOf } from '../../sockets/socket-auth.js';
import type { CarLink } from './car-link.js';
import type { ControllerLink } from './controller-link.js';
import { QUICK_DRIVE } from './drive-text.js';

/** The car hears the server at least every driveHeartbeatMs; it is pinged each second and dropped after 5 s of silence. */
export const CAR_KEEPALIVE = { pingMs: 1_000, silenceMs: 5_000 };
export const CONTROLLER_KEEPALIVE = {
  pingMs: CONTROL_LIMITS.controllerPingMs,
  silenceMs: CONTROL_LIMITS.controllerSilenceMs,
};

const forbidden = (message: string) => new HttpError(403, message, ERROR_KEYS.forbidden);

function carIdOf(request: FastifyRequest): number {
  const id = IdText.safeParse(queryOf(request).car);
  if (!id.success) throw new HttpError(400, 'query.car: a car id is required', ERROR_KEYS.validation);
  return id.data;
}

/** What the two sockets are given (control.module.ts). */
type ControlDeps = Pick<Services, 'cars' | 'carRelay' | 'drivingSessions'> & {
  clock: Clock;
  config: Config;
  limitStores: LimitStores;
};

function carSocket({ cars, carRelay, clock, config }: ControlDeps, offers: LimitWindow<string>) {
  return defineSocket({
    name: 'car',
    path: '/rcsocket',
    queryType: 'car',
    ownOrigin: false,
    // The agent's own secret, checked in `admit`.
    access: 'custom',
    limits: { perAddress: false },
    admit: async (request) => {
      const carId = carIdOf(request);
      const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
      const car = match?.[1] ? await cars.carForSecret(carId, match[1]) : null;
      if (!car) throw unauthorized();
      return { carId };
    },
    open: (connection, { carId }) =>
      carRelay.attachCar(carId, connection, {
        clock,
        driveChannel: config.driveChannel,
        offers,
      }),
    messages: messageTable<CarLink, CarAgentMessage>(CarAgentMessage, {
      hello: (link, message) =>
        link.hello(message.protocolVersion, message.agentVersion, message.capabilities),
      telemetry: (link, { type: _type, ...telemetry }) => link.telemetry(telemetry),
      pass: (link, { at }) => link.pass(at),
      rtc_offer: (link, { sdp }) => link.offerDriveChannel(sdp),
      'link-ping': (link, { t }) => link.send({ type: 'link-pong', t }),
    }),
    keepalive: CAR_KEEPALIVE,
    dropped: carRelay.dropped.car,
  });
}

function controllerSocket(
  { carRelay, drivingSessions, clock, config }: ControlDeps,
  driveChannelOffers: LimitWindow<string>,
) {
  return defineSocket({
    name: 'controller',
    path: '/rcsocket',
    queryType: 'controller',
    ownOrigin: true,
    // Driving is for members who accepted the terms (a social sign-up finishes its registration first).
    access: 'member',
    limits: {
      perAddress: true,
      perMember: {
        kind: 'controller',
        max: CONTROL_LIMITS.controllerSocketsPerMember,
        memberOf: ({ user }) => user.id,
      },
    },
    admit: async (request, { user, claims }) => {
      const carId = carIdOf(request);
      const query = queryOf(request);
      const session = query.control_token
        ? await drivingSessions.sessionForControlToken(user.id, carId, query.control_token)
        : null;
      if (!session) throw forbidden('This control token does not open this car.');
      return { carId, sessionId: session.id, user, claims };
    },
    open: (connection, { carId, sessionId, user, claims }, request, check) =>
      carRelay.attachController(
        carId,
        sessionId,
        connection,
        { user, claims, check, clock, driveChannel: config.driveChannel, driveChannelOffers },
        request,
      ),
    messages: messageTable<ControllerLink, ControllerMessage>(
      ControllerMessage,
      {
        hello: (link, { protocolVersion }) => answerBrowserHello(link.connection, protocolVersion),
        drive: (link, { throttle, steer, seq }) => link.drive(throttle, steer, seq),
        'controller-ping': (link, { timestamp }) => link.ping(timestamp),
        auth: (link, { token }) => link.auth(token),
        rtc_offer: (link, { sdp }) => link.offerDriveChannel(sdp),
        rtc_candidate: (link, { type: _type, ...candidate }) => link.driveChannelCandidate(candidate),
      },
      QUICK_DRIVE,
    ),
    keepalive: CONTROLLER_KEEPALIVE,
    dropped: carRelay.dropped.controller,
  });
}

export function controlSockets(deps: ControlDeps): SocketRoute[] {
  const driveChannelOffers = deps.limitStores.window<string>(
    'drive-channel-offers',
    DRIVE_CHANNEL.offersPerMinute,
    60_000,
  );
  return [carSocket(deps, driveChannelOffers), controllerSocket(deps, driveChannelOffers)];
}
