/**
 * How many sockets one member and one client address may hold (issue 10, high item 1): caps on
 * /api/race-ws and on /rcsocket controllers, refused with HTTP 429 before the upgrade, counted
 * from the upgrade request to the end of its TCP connection — so concurrent upgrades cannot slip
 * past the cap, and an upgrade that never completes gives its place back.
 */
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { CONTROL_LIMITS, ERROR_KEYS } from '@telerace/protocol';
import { describe, expect, it, vi } from 'vitest';
import { startTestApp } from '../test/app.js';
import { buildUser, tokenFor } from '../test/factories.js';
import {
  connectCar,
  controllerUrl,
  createCar,
  driveCar,
  eventsUrl,
  listen,
  openSocket,
  originOf,
  refusedStatus,
  type TestSocket,
  takeCar,
  upgradeRefusal,
  useListeningTestApp,
} from '../test/sockets.js';

async function closeAll(sockets: TestSocket[]): Promise<void> {
  await Promise.all(sockets.map((socket) => socket.close()));
}

describe('per-member caps', () => {
  const testApp = useListeningTestApp();

  it(`a member's ${CONTROL_LIMITS.eventSocketsPerMember + 1}th event socket is refused with 429; a closed one frees its place`, async () => {
    const { app, host } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    const sockets: TestSocket[] = [];
    for (let i = 0; i < CONTROL_LIMITS.eventSocketsPerMember; i += 1)
      sockets.push(await openSocket(eventsUrl(host, token), originOf(app)));
    const refused = await upgradeRefusal(eventsUrl(host, token), originOf(app).origin);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ errorKey: ERROR_KEYS.tooManyRequests });
    // Another member is not affected.
    const other = await openSocket(
      eventsUrl(host, await tokenFor(app, await buildUser(app.database.db))),
      originOf(app),
    );
    await sockets.pop()?.close();
    sockets.push(await openSocket(eventsUrl(host, token), originOf(app)));
    await closeAll([...sockets, other]);
  });

  it('many upgrades of one member at the same moment: exactly the cap gets in', async () => {
    const { app, host } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, () => openSocket(eventsUrl(host, token), originOf(app))),
    );
    const opened = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    const statuses = attempts.flatMap((a) =>
      a.status === 'rejected' ? [(a.reason as { status?: number }).status] : [],
    );
    expect(opened).toHaveLength(CONTROL_LIMITS.eventSocketsPerMember);
    expect(statuses).toEqual(Array(20 - CONTROL_LIMITS.eventSocketsPerMember).fill(429));
    await closeAll(opened);
  });

  it('an upgrade whose client leaves before it completes gives its place back', async () => {
    const { app, host } = testApp;
    const member = await buildUser(app.database.db);
    const token = await tokenFor(app, member);
    const { port } = app.server.address() as { port: number };
    // The server's ends of those connections: a place taken for one is given back when it closes.
    const serverEnds: Promise<unknown>[] = [];
    const onConnection = (connection: Socket) => serverEnds.push(once(connection, 'close'));
    app.server.on('connection', onConnection);
    // Raw upgrade requests whose connection ends at once: the server admits them in preValidation
    // and then finds nobody to upgrade.
    const abandoned = Array.from({ length: CONTROL_LIMITS.eventSocketsPerMember }, () => {
      const socket: Socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        [
          `GET /api/race-ws?token=${encodeURIComponent(token)} HTTP/1.1`,
          `Host: ${host}`,
          `Origin: ${originOf(app).origin}`,
          'Connection: Upgrade',
          'Upgrade: websocket',
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          '',
          '',
        ].join('\r\n'),
        () => socket.destroy(),
      );
      return socket;
    });
    await Promise.all(abandoned.map((socket) => once(socket, 'close')));
    await vi.waitFor(() => expect(serverEnds).toHaveLength(abandoned.length));
    await Promise.all(serverEnds);
    app.server.off('connection', onConnection);
    const sockets: TestSocket[] = [];
    for (let i = 0; i < CONTROL_LIMITS.eventSocketsPerMember; i += 1)
      sockets.push(await openSocket(eventsUrl(host, token), originOf(app)));
    await closeAll(sockets);
  });

  it(`a member's ${CONTROL_LIMITS.controllerSocketsPerMember + 1}th controller socket is refused with 429; cars are not counted`, async () => {
    const { app, host } = testApp;
    const driver = await buildUser(app.database.db);
    const controllers: TestSocket[] = [];
    const cars: TestSocket[] = [];
    let last: { url: string } | undefined;
    // One car each (a car has one controller at a time): the member drives cap + 1 cars.
    for (let i = 0; i <= CONTROL_LIMITS.controllerSocketsPerMember; i += 1) {
      const driving = await createCar(app, `Cap car ${i}`);
      cars.push(await connectCar(host, driving.carId, driving.secret));
      const taken = await takeCar(app, driving, driver);
      const url = controllerUrl(host, driving.carId, taken.accessToken, taken.controlToken);
      if (i < CONTROL_LIMITS.controllerSocketsPerMember) {
        const controller = await openSocket(url, originOf(app));
        await controller.nextOfType('car-status');
        controllers.push(controller);
      } else last = { url };
    }
    const refused = await upgradeRefusal(last?.url ?? '', originOf(app).origin);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ errorKey: ERROR_KEYS.tooManyRequests });
    await controllers.pop()?.close();
    const admitted = await openSocket(last?.url ?? '', originOf(app));
    await closeAll([...controllers, admitted, ...cars]);
  });
});

describe('per-address cap (SOCKETS_PER_IP)', () => {
  const testApp = useListeningTestApp({ SOCKETS_PER_IP: '3' });

  it('counts event and controller sockets of every member together, and not car sockets', async () => {
    const { app, host } = testApp;
    const { car, taken, controller } = await driveCar(app, host);
    const first = await openSocket(eventsUrl(host, taken.accessToken), originOf(app));
    const second = await openSocket(
      eventsUrl(host, await tokenFor(app, await buildUser(app.database.db))),
      originOf(app),
    );
    const third = eventsUrl(host, await tokenFor(app, await buildUser(app.database.db)));
    const refused = await upgradeRefusal(third, originOf(app).origin);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ errorKey: ERROR_KEYS.tooManyRequests });
    // A car agent behind the same address still connects.
    const otherCar = await createCar(app, 'Second car');
    const secondCar = await connectCar(host, otherCar.carId, otherCar.secret);
    await controller.close();
    const admitted = await openSocket(third, originOf(app));
    await closeAll([first, second, admitted, car, secondCar]);
  });

  it('refused and failed upgrades are not counted', async () => {
    const { app, host } = testApp;
    for (let i = 0; i < 5; i += 1) {
      expect(await refusedStatus(openSocket(eventsUrl(host, 'not-a-token'), originOf(app)))).toBe(401);
    }
    const member = await buildUser(app.database.db);
    const sockets: TestSocket[] = [];
    for (let i = 0; i < 3; i += 1)
      sockets.push(await openSocket(eventsUrl(host, await tokenFor(app, member)), originOf(app)));
    await closeAll(sockets);
  });
});

describe('MAX_CONNECTIONS', () => {
  it('is applied: past it new connections are dropped, below it /api/health answers', async () => {
    const testApp = await startTestApp({ MAX_CONNECTIONS: '100' });
    const held: Socket[] = [];
    try {
      expect(testApp.app.server.maxConnections).toBe(100);
      await listen(testApp.app);
      const { port } = testApp.app.server.address() as { port: number };
      const health = () =>
        new Promise<number>((resolve) => {
          const request = httpRequest(
            { host: '127.0.0.1', port, path: '/api/health', agent: false },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? -1);
            },
          );
          request.on('error', () => resolve(-1));
          request.end();
        });
      for (let i = 0; i < 99; i += 1) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        held.push(socket);
      }
      await expect
        .poll(
          () => new Promise<number>((resolve) => testApp.app.server.getConnections((_e, n) => resolve(n))),
        )
        .toBe(99);
      // The 100th connection is still served…
      expect(await health()).toBe(200);
      const last = connect(port, '127.0.0.1');
      last.on('error', () => {});
      held.push(last);
      await expect
        .poll(
          () => new Promise<number>((resolve) => testApp.app.server.getConnections((_e, n) => resolve(n))),
        )
        .toBe(100);
      // …the 101st is dropped…
      expect(await health()).toBe(-1);
      // …and a freed place serves again.
      held.pop()?.destroy();
      await expect.poll(health).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
      await testApp.close();
    }
  });
});
