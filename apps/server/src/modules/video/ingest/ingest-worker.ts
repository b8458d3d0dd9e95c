/**
 * The video ingest's thread (video-ingest.ts starts it): one UDP socket per car, each datagram
 * through the car's IngestSession, authenticated packets on to Janus. Every packet of every car's
 * video passes here, so none of it shares the event loop that relays the cars' drive commands.
 */
import { createSocket, type Socket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { masterFromBase64 } from '@telerace/protocol/video-uplink';
import type { FromIngest, ToIngest } from './ingest-messages.js';
import { IngestSession } from './ingest-session.js';

/** How often NACKs and give-ups are looked at (a NACK waits at least NACK_DELAY_MS anyway). */
const TICK_MS = 5;
const STATS_EVERY_MS = 1_000;
const BIND_TRIES = 64;

interface Car {
  socket: Socket;
  port: number;
  key: string;
  session: IngestSession;
  janus: { host: string; port: number };
  /** For the per-second figures. */
  last: { bytes: number; lost: number; unrepaired: number; forwarded: number };
}

const port = parentPort;
if (!port) throw new Error('ingest-worker.ts runs as a worker thread');
const post = (message: FromIngest) => port.postMessage(message);
const cars = new Map<number, Car>();
const now = () => performance.now();

function bindSocket(
  bind: string,
  ports: { min: number; max: number } | null,
  prefer?: number,
): Promise<Socket> {
  const candidates: number[] = [];
  if (prefer !== undefined) candidates.push(prefer);
  if (ports === null) candidates.push(0);
  else
    for (let i = 0; i < BIND_TRIES; i++)
      candidates.push(ports.min + Math.floor(Math.random() * (ports.max - ports.min + 1)));
  const attempt = async (index: number): Promise<Socket> => {
    const candidate = candidates[index];
    if (candidate === undefined) throw new Error(`no free UDP port in ${ports?.min}-${ports?.max}`);
    const socket = createSocket(bind.includes(':') ? 'udp6' : 'udp4');
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(candidate, bind, () => {
          socket.off('error', reject);
          resolve();
        });
      });
      return socket;
    } catch {
      socket.close();
      return attempt(index + 1);
    }
  };
  return attempt(0);
}

function sessionFor(key: string, socket: Socket, janus: () => { host: string; port: number }) {
  return new IngestSession(
    {
      master: masterFromBase64(key),
      forward: (packet) => {
        const { host, port: janusPort } = janus();
        socket.send(packet, janusPort, host);
      },
      toCar: (datagram, address, carPort) => socket.send(datagram, carPort, address),
    },
    now(),
  );
}

async function open(message: Extract<ToIngest, { type: 'open' }>): Promise<void> {
  const existing = cars.get(message.carId);
  if (existing) {
    existing.janus = message.janus;
    if (existing.key !== message.key) {
      existing.key = message.key;
      existing.session = sessionFor(message.key, existing.socket, () => existing.janus);
    }
    post({ type: 'opened', carId: message.carId, port: existing.port });
    return;
  }
  const socket = await bindSocket(message.bind, message.ports, message.prefer);
  const car: Car = {
    socket,
    port: socket.address().port,
    key: message.key,
    janus: message.janus,
    session: undefined as unknown as IngestSession,
    last: { bytes: 0, lost: 0, unrepaired: 0, forwarded: 0 },
  };
  car.session = sessionFor(message.key, socket, () => car.janus);
  socket.on('message', (datagram, from) => car.session.receive(datagram, from.address, from.port, now()));
  // A send to a car that went away (ICMP unreachable) must not end the thread.
  socket.on('error', () => {});
  cars.set(message.carId, car);
  post({ type: 'opened', carId: message.carId, port: car.port });
}

port.on('message', (message: ToIngest) => {
  if (message.type === 'open') {
    open(message).catch((error: unknown) =>
      post({ type: 'failed', carId: message.carId, error: (error as Error).message }),
    );
    return;
  }
  const car = cars.get(message.carId);
  if (!car) return;
  cars.delete(message.carId);
  car.socket.close();
});

setInterval(() => {
  const at = now();
  for (const car of cars.values()) car.session.tick(at);
}, TICK_MS);

setInterval(() => {
  const figures = [...cars].map(([carId, car]) => {
    const { counters } = car.session;
    const forwarded = counters.forwarded - car.last.forwarded;
    const lost = counters.lost - car.last.lost;
    const figure = {
      carId,
      counters: { ...counters },
      kbps: ((counters.bytes - car.last.bytes) * 8) / STATS_EVERY_MS,
      lossPercent: forwarded + lost > 0 ? (100 * lost) / (forwarded + lost) : 0,
    };
    car.last = {
      bytes: counters.bytes,
      lost: counters.lost,
      unrepaired: counters.unrepaired,
      forwarded: counters.forwarded,
    };
    return figure;
  });
  post({ type: 'stats', cars: figures });
}, STATS_EVERY_MS);
