/**
 * The control socket /rcsocket (outside /api: upgrades are not rate-limited like REST calls), two
 * sockets on one path. `type=car`: the car agent, with `Authorization: Bearer <car secret>`; not
 * counted per address or member (one socket per car, authenticated by the car's secret).
 * `type=controller`: a driver's browser, with its access token and the control token of the
 * session holding the car, saying its protocol version in `hello` (sockets/browser-hello.ts);
 * counted per address and per member. Declared with the socket kit
 * (sockets/define-socket.ts): every check runs before the upgrade.
 */
import {
  CarAgentMessage,
  CONTROL_LIMITS,
  ControllerMessage,
  DRIVE_CHANNEL,
  ERROR_KEYS,
  IdText,
} from '@telerace/protocol';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { assertRegistrationComplete, memberFromAccessToken, unauthorized } from '../../http/authenticate.js';
import { HttpError } from '../../http/errors.js';
import type { LimitWindow } from '../../limit-window.js';
import { answerBrowserHello } from '../../sockets/browser-hello.js';
import { defineSocket, registerSockets } from '../../sockets/define-socket.js';
import { messageTable } from '../../sockets/message-table.js';
import { queryOf } from '../../sockets/socket-auth.js';
import type { TokenCheck } from '../../sockets/socket-token.js';
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

function carSocket(app: FastifyInstance, offers: LimitWindow<string>) {
  return defineSocket({
    name: 'car',
    path: '/rcsocket',
    queryType: 'car',
    ownOrigin: false,
    limits: { perAddress: false },
    admit: async (request) => {
      const carId = carIdOf(request);
      const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
      const car = match?.[1] ? await app.cars.carForSecret(carId, match[1]) : null;
      if (!car) throw unauthorized();
      return { carId };
    },
    open: (connection, { carId }) =>
      app.carRelay.attachCar(carId, connection, {
        clock: app.clock,
        driveChannel: app.config.driveChannel,
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
    dropped: app.carRelay.dropped.car,
  });
}

function controllerSocket(app: FastifyInstance, check: TokenCheck, driveChannelOffers: LimitWindow<string>) {
  return defineSocket({
    name: 'controller',
    path: '/rcsocket',
    queryType: 'controller',
    ownOrigin: true,
    limits: {
      perAddress: true,
      perMember: {
        kind: 'controller',
        max: CONTROL_LIMITS.controllerSocketsPerMember,
        memberOf: ({ user }) => user.id,
      },
    },
    admit: async (request) => {
      const carId = carIdOf(request);
      const query = queryOf(request);
      const { user, claims } = await check(query.token ?? '');
      const session = query.control_token
        ? await app.drivingSessions.sessionForControlToken(user.id, carId, query.control_token)
        : null;
      if (!session) throw forbidden('This control token does not open this car.');
      return { carId, sessionId: session.id, user, claims };
    },
    open: (connection, { carId, sessionId, user, claims }, request) =>
      app.carRelay.attachController(
        carId,
        sessionId,
        connection,
        { user, claims, check, clock: app.clock, driveChannel: app.config.driveChannel, driveChannelOffers },
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
    dropped: app.carRelay.dropped.controller,
  });
}

export const controlRoutes: FastifyPluginAsync = async (app) => {
  const keys = app.tokenKeys;
  // Driving is for members who accepted the terms (a social sign-up finishes its registration first).
  const check: TokenCheck = async (token) => {
    const member = await memberFromAccessToken(app.userCache, keys, token);
    assertRegistrationComplete(member.user);
    return member;
  };
  const driveChannelOffers = app.limitStores.window<string>(
    'drive-channel-offers',
    DRIVE_CHANNEL.offersPerMinute,
    60_000,
  );
  registerSockets(app, [
    carSocket(app, driveChannelOffers),
    controllerSocket(app, check, driveChannelOffers),
  ]);
};
