/**
 * The browser sockets carry the protocol version (issue 24 point 7), as the car's handshake does:
 * on the event socket and on the control socket, a page whose `hello` names a version the server
 * does not speak is answered `incompatible {reason, supported}` and the socket closes (4002); a
 * version it speaks is served.
 */
import {
  BROWSER_PROTOCOL_VERSION,
  MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { buildUser, tokenFor } from '../test/factories.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  eventsUrl,
  openSocket,
  originOf,
  type TestSocket,
  takeCar,
  useListeningTestApp,
} from '../test/sockets.js';

const testApp = useListeningTestApp();

const supported = { min: MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION, max: BROWSER_PROTOCOL_VERSION };
const refusals = [
  { protocolVersion: BROWSER_PROTOCOL_VERSION + 1, reason: 'server_too_old' },
  { protocolVersion: MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION - 1, reason: 'client_too_old' },
] as const;

/** A browser socket of each kind, opened by a member as the web app does. */
const sockets: [string, () => Promise<{ socket: TestSocket; ping: object; pong: string }>][] = [
  [
    'event socket',
    async () => {
      const { app, host } = testApp;
      const member = await buildUser(app.database.db);
      const socket = await openSocket(eventsUrl(host, await tokenFor(app, member)), originOf(app));
      return { socket, ping: { type: 'ping', timestamp: 7 }, pong: 'pong' };
    },
  ],
  [
    'control socket',
    async () => {
      const { app, host } = testApp;
      const driving = await createCar(app);
      const car = await connectCar(host, driving.carId, driving.secret);
      const { accessToken, controlToken } = await takeCar(app, driving);
      const socket = await openSocket(
        controllerUrl(host, driving.carId, accessToken, controlToken),
        originOf(app),
      );
      socket.closed.then(() => car.close());
      return { socket, ping: { type: 'controller-ping', timestamp: 7 }, pong: 'controller-pong' };
    },
  ],
];

describe.each(sockets)('the %s', (_name, open) => {
  it.each(refusals)(
    'answers hello {protocolVersion: $protocolVersion} with incompatible {reason: $reason}, then closes with 4002',
    async ({ protocolVersion, reason }) => {
      const { socket } = await open();
      socket.send({ type: 'hello', protocolVersion });
      expect(await socket.nextOfType('incompatible')).toEqual({ type: 'incompatible', reason, supported });
      expect(await socket.closed).toEqual({ code: SOCKET_CLOSE_CODES.incompatible, reason });
    },
  );

  it('serves a page that speaks its protocol', async () => {
    const { socket, ping, pong } = await open();
    socket.send({ type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION });
    socket.send(ping);
    expect(await socket.nextOfType(pong)).toMatchObject({ timestamp: 7 });
    expect(socket.messages.some((message) => message.type === 'incompatible')).toBe(false);
    await socket.close();
  });
});
