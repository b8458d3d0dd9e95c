/**
 * Test support for the sockets: real `ws` clients against an app listening on a real port, a
 * message inbox to wait for messages, and helpers that provision a car and a driver over REST.
 */
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';
import type { UserRow } from '../kernel/users.repo.js';
import { startTestApp, type TestAppOptions } from './app.js';
import { authHeader, buildAdmin, buildUser, tokenFor } from './factories.js';

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return `127.0.0.1:${port}`;
}

/** A test app (see startTestApp) listening on a real port: sockets need one; `host` is `127.0.0.1:port`. */
export async function startListeningTestApp(
  extraEnv: Record<string, string> = {},
  options: TestAppOptions = {},
) {
  const testApp = await startTestApp(extraEnv, options);
  return { ...testApp, host: await listen(testApp.app) };
}

export type ListeningTestApp = Awaited<ReturnType<typeof startListeningTestApp>>;

/**
 * The listening test app of a test file (or of the describe block that calls this): started before
 * its tests, closed after them. Its fields are set in `beforeAll`: read them inside tests and hooks.
 */
export function useListeningTestApp(
  extraEnv: Record<string, string> = {},
  options: TestAppOptions = {},
): ListeningTestApp {
  const testApp = {} as ListeningTestApp;
  beforeAll(async () => {
    Object.assign(testApp, await startListeningTestApp(extraEnv, options));
  });
  afterAll(() => testApp.close());
  return testApp;
}

type Json = Record<string, unknown> & { type?: string };

/** A connected client that keeps every message it receives, in order. */
export class TestSocket {
  readonly messages: Json[] = [];
  readonly #waiters: { predicate: (m: Json) => boolean; resolve: (m: Json) => void; from: number }[] = [];
  closed: Promise<{ code: number; reason: string }>;
  #cursor = 0;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Json;
      this.messages.push(message);
      const index = this.messages.length - 1;
      for (const waiter of [...this.#waiters]) {
        if (index >= waiter.from && waiter.predicate(message)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next message (after the last one returned) matching `predicate`. */
  next(predicate: (m: Json) => boolean = () => true, timeoutMs = 5_000): Promise<Json> {
    const from = this.#cursor;
    const found = this.messages.findIndex((m, i) => i >= from && predicate(m));
    if (found >= 0) {
      this.#cursor = found + 1;
      return Promise.resolve(this.messages[found] as Json);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching message within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.#waiters.push({
        predicate,
        from,
        resolve: (m) => {
          clearTimeout(timer);
          this.#cursor = this.messages.indexOf(m) + 1;
          resolve(m);
        },
      });
    });
  }

  nextOfType(type: string, timeoutMs?: number): Promise<Json> {
    return this.next((m) => m.type === type, timeoutMs);
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/**
 * Waits until both ends have read what the other wrote so far — the server's pings, this client's
 * pongs to them, a drop — without a message (the server answers a client's ping and does not
 * count it as hearing from the client). Two round trips: a ping of the server may cross the first.
 * For tests that move the keepalive's clock (BuildAppOptions.keepaliveClock).
 */
export async function settle(ws: WebSocket): Promise<void> {
  for (let trip = 0; trip < 2 && ws.readyState === WebSocket.OPEN; trip += 1)
    await new Promise<void>((resolve) => {
      const done = () => {
        ws.off('pong', done);
        ws.off('close', done);
        resolve();
      };
      ws.on('pong', done);
      ws.on('close', done);
      ws.ping();
    });
}

/** Opens a socket (with a subprotocol if given); rejects with the HTTP status when the upgrade is refused. */
export function openSocket(
  url: string,
  headers: Record<string, string> = {},
  protocol?: string,
): Promise<TestSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocol ?? [], { headers, perMessageDeflate: false });
    const socket = new TestSocket(ws);
    ws.once('open', () => resolve(socket));
    ws.once('unexpected-response', (_request, response) => {
      reject(
        Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode }),
      );
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

/** The HTTP status of a refused upgrade (fails the test if the upgrade succeeds). */
export async function refusedStatus(promise: Promise<TestSocket>): Promise<number> {
  try {
    const socket = await promise;
    socket.ws.terminate();
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
  throw new Error('the upgrade was accepted');
}

/**
 * The status and JSON body of a refused upgrade, from a plain HTTP upgrade request (a `ws` client
 * does not read the body of the refusal); `headers` adds to the upgrade's (a car's Authorization).
 */
export function upgradeRefusal(
  url: string,
  origin: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const target = new URL(url.replace(/^ws/, 'http'));
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: target.hostname,
      port: target.port,
      path: `${target.pathname}${target.search}`,
      agent: false,
      headers: {
        ...headers,
        origin,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    request.on('upgrade', (_response, socket) => {
      socket.destroy();
      reject(new Error('the upgrade was accepted'));
    });
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? -1, body: JSON.parse(text) }));
    });
    request.on('error', reject);
    request.end();
  });
}

export interface Driving {
  admin: UserRow;
  adminHeaders: { authorization: string };
  carId: number;
  secret: string;
}

/** An admin creates a car over REST; returns its id and secret. */
export async function createCar(app: FastifyInstance, name = 'Test car'): Promise<Driving> {
  const admin = await buildAdmin(app.database.db);
  const adminHeaders = await authHeader(app, admin);
  const response = await app.inject({
    method: 'POST',
    url: '/api/admin/cars',
    headers: adminHeaders,
    payload: { name, image_url: null },
  });
  expect(response.statusCode, response.body).toBe(201);
  const body = response.json() as { car: { id: number }; secret: string };
  return { admin, adminHeaders, carId: body.car.id, secret: body.secret };
}

/**
 * A car agent speaking the protocol by hand: connect, hello, wait for welcome. Without
 * `capabilities` it says none, as an agent older than them does.
 */
export async function connectCar(
  host: string,
  carId: number,
  secret: string,
  capabilities?: { passes: boolean },
): Promise<TestSocket> {
  const car = await openSocket(`ws://${host}/rcsocket?type=car&car=${carId}`, {
    authorization: `Bearer ${secret}`,
  });
  car.send({
    type: 'hello',
    protocolVersion: 1,
    agentVersion: 'test',
    ...(capabilities && { capabilities }),
  });
  await car.nextOfType('welcome');
  return car;
}

export async function generateCode(app: FastifyInstance, driving: Driving): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/admin/cars/${driving.carId}/generate_code`,
    headers: driving.adminHeaders,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { code: string }).code;
}

/** A new member takes the car with a fresh code; returns the member, tokens and headers. */
export async function takeCar(app: FastifyInstance, driving: Driving, user?: UserRow) {
  const driver = user ?? (await buildUser(app.database.db));
  const code = await generateCode(app, driving);
  const headers = await authHeader(app, driver);
  const response = await app.inject({
    method: 'POST',
    url: `/api/cars/${driving.carId}/connect`,
    headers,
    payload: { code },
  });
  expect(response.statusCode, response.body).toBe(200);
  const controlToken = (response.json() as { controlToken: string }).controlToken;
  return { driver, headers, controlToken, accessToken: await tokenFor(app, driver) };
}

export function controllerUrl(
  host: string,
  carId: number,
  accessToken: string,
  controlToken: string,
): string {
  return `ws://${host}/rcsocket?type=controller&car=${carId}&control_token=${encodeURIComponent(controlToken)}&token=${encodeURIComponent(accessToken)}`;
}

/** The event socket (/api/race-ws) of the member whose access token this is. */
export const eventsUrl = (host: string, accessToken: string) =>
  `ws://${host}/api/race-ws?token=${encodeURIComponent(accessToken)}`;

export interface DriveOptions {
  /** Who takes the car; default a new member. */
  driver?: UserRow;
  /** The access token the control socket opens with; default the driver's from takeCar. */
  accessToken?: (driverId: number) => Promise<string>;
}

/**
 * A new car online over its socket and a member driving it: the car taken with a fresh code and
 * its control socket open.
 */
export async function driveCar(app: FastifyInstance, host: string, options: DriveOptions = {}) {
  const driving = await createCar(app);
  const car = await connectCar(host, driving.carId, driving.secret);
  const taken = await takeCar(app, driving, options.driver);
  const accessToken = options.accessToken ? await options.accessToken(taken.driver.id) : taken.accessToken;
  const controller = await openSocket(
    controllerUrl(host, driving.carId, accessToken, taken.controlToken),
    originOf(app),
  );
  return { driving, car, taken, controller };
}

export const originOf = (app: FastifyInstance) => ({ origin: new URL(app.config.publicUrl).origin });
