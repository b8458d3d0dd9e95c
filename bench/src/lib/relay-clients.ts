/**
 * Controller → car pairs and the timing of drives between them, shared by the relay benches. Cars
 * here are protocol-speaking clients in the bench process (not agent processes), so sender and
 * receiver share one clock. The same pairs can be opened on the real relay or on a bare forwarder.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type CreatedCar, createCar, takeCarWithCode } from './telerace-api.js';

export interface Pair {
  controller: WebSocket;
  car: WebSocket;
}

export interface DriveMeasure {
  latencies: number[];
  sent: number;
  received: number;
}

export function openSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Connects a car's own socket to the relay and completes its handshake. */
export async function connectCar(base: string, car: CreatedCar): Promise<WebSocket> {
  const socket = await openSocket(`${base.replace(/^http/, 'ws')}/rcsocket?type=car&car=${car.id}`, {
    authorization: `Bearer ${car.secret}`,
  });
  const welcomed = new Promise<void>((resolve) => socket.once('message', () => resolve()));
  socket.send(JSON.stringify({ type: 'hello', protocolVersion: 1, agentVersion: 'bench' }));
  await welcomed;
  return socket;
}

/** A member takes control of a car with a code an admin generated, and opens the controller socket. */
export async function takeControl(
  base: string,
  adminToken: string,
  carId: number,
  memberToken: string,
  ip?: string,
): Promise<WebSocket> {
  const { controlToken } = await takeCarWithCode(base, adminToken, carId, memberToken, ip);
  return openSocket(
    `${base.replace(/^http/, 'ws')}/rcsocket?type=controller&car=${carId}&control_token=${encodeURIComponent(controlToken)}&token=${encodeURIComponent(memberToken)}`,
    { origin: base },
  );
}

/** Creates a car, connects it and hands it to the given member: one pair on the real relay. */
export async function teleracePair(
  base: string,
  adminToken: string,
  memberToken: string,
  name: string,
  ip?: string,
): Promise<Pair> {
  const car = await createCar(base, adminToken, name);
  const carSocket = await connectCar(base, car);
  const controller = await takeControl(base, adminToken, car.id, memberToken, ip);
  return { controller, car: carSocket };
}

/**
 * A bare `ws` forwarder (controller `?id=n` → car `?id=n`), as program source defining
 * `forwarder(options)`: attached to an existing http.Server (`{server}`) or listening by itself.
 */
export const FORWARDER_SOURCE = `
import { WebSocketServer } from 'ws';
function forwarder(options) {
  const cars = new Map();
  const wss = new WebSocketServer({ ...options, perMessageDeflate: false });
  wss.on('connection', (socket, request) => {
    const url = new URL(request.url, 'http://x');
    const id = url.searchParams.get('id');
    if (url.pathname === '/car') { cars.set(id, socket); return; }
    socket.on('message', (data) => cars.get(id)?.send(data.toString()));
  });
  return wss;
}
`;

/** The forwarder alone in its own process, listening on PORT. */
export const FORWARDER_SCRIPT = `${FORWARDER_SOURCE}
forwarder({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

export async function forwarderPairs(url: string, count: number): Promise<Pair[]> {
  const ws = url.replace(/^http/, 'ws');
  const pairs: Pair[] = [];
  for (let i = 0; i < count; i++) {
    const car = await openSocket(`${ws}/car?id=${i}`);
    const controller = await openSocket(`${ws}/controller?id=${i}`);
    pairs.push({ controller, car });
  }
  return pairs;
}

/**
 * Drives every pair at `rate` messages per second for `seconds` and measures arrival on the cars.
 * The pairs stay open (a bench may drive them again); `closePairs` ends them.
 */
export async function drive(pairs: Pair[], rate: number, seconds: number): Promise<DriveMeasure> {
  const measure: DriveMeasure = { latencies: [], sent: 0, received: 0 };
  // Distinct throttle values, one per message sent, so a car tells a new drive from a heartbeat.
  const values = rate * seconds + 10;
  const sentAt = pairs.map(() => new Map<number, number>());
  const listeners = pairs.map((pair, i) => {
    let last = Number.NaN;
    const onMessage = (data: WebSocket.RawData) => {
      const now = performance.now();
      const message = JSON.parse(data.toString()) as { type?: string; throttle?: number };
      if (message.type !== 'drive' || message.throttle === undefined || message.throttle === last) return;
      last = message.throttle;
      const at = sentAt[i]?.get(message.throttle);
      if (at === undefined) return;
      sentAt[i]?.delete(message.throttle);
      measure.latencies.push(now - at);
      measure.received++;
    };
    pair.car.on('message', onMessage);
    return onMessage;
  });
  const interval = 1000 / rate;
  const ticks = rate * seconds;
  const start = performance.now();
  // Each controller keeps its own phase within the tick, as real drivers do: no artificial bursts.
  await Promise.all(
    pairs.map(async (pair, i) => {
      const phase = (i / pairs.length) * interval;
      for (let tick = 0; tick < ticks; tick++) {
        const wait = start + phase + tick * interval - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const throttle = ((tick % values) + 1) / (values + 1);
        sentAt[i]?.set(throttle, performance.now());
        pair.controller.send(JSON.stringify({ type: 'drive', throttle, steer: 0 }));
        measure.sent++;
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  pairs.forEach((pair, i) => {
    const listener = listeners[i];
    if (listener) pair.car.off('message', listener);
  });
  return measure;
}

export function closePairs(pairs: Pair[]): void {
  for (const pair of pairs) {
    pair.controller.close();
    pair.car.close();
  }
}
