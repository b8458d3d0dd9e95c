/**
 * The ingest on its own thread, with real sockets: a car's SRTP reaches the mountpoint's port and
 * a stranger's does not; when the thread dies it comes back on the same port and the video flows
 * again, without the car being told anything new.
 */
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import type { Worker } from 'node:worker_threads';
import { SrtpSender } from '@telerace/protocol/video-uplink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startModuleWorker, VIDEO_INGEST_WORKER } from '../../../paths.js';
import { quietLogger } from '../../../test/quiet-logger.js';
import { VideoIngest } from './video-ingest.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function udp(): Promise<{ socket: Socket; port: number; received: Buffer[] }> {
  const socket = createSocket('udp4');
  const received: Buffer[] = [];
  socket.on('message', (datagram) => received.push(datagram));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  cleanups.push(() => socket.close());
  return { socket, port: socket.address().port, received };
}

function rtp(seq: number): Buffer {
  const packet = Buffer.alloc(100, 1);
  packet[0] = 0x80;
  packet[1] = 0x80 | 96;
  packet.writeUInt16BE(seq, 2);
  packet.writeUInt32BE(seq * 3000, 4);
  packet.writeUInt32BE(5, 8);
  return packet;
}

describe('VideoIngest (its own thread, real sockets)', () => {
  it("forwards the car's SRTP to the mountpoint's port, not a stranger's; comes back on the same port after its thread dies", async () => {
    const janus = await udp();
    const car = await udp();
    const master = randomBytes(30);
    const moved = vi.fn();
    let worker: Worker | undefined;
    const ingest = new VideoIngest({
      log: quietLogger(),
      onMoved: moved,
      start: () => {
        worker = startModuleWorker(VIDEO_INGEST_WORKER);
        return worker;
      },
    });
    cleanups.push(() => ingest.stop());
    const request = {
      key: master.toString('base64'),
      bind: '127.0.0.1',
      ports: null,
      janus: { host: '127.0.0.1', port: janus.port },
    };
    const port = await ingest.open(7, request);
    expect(ingest.portOf(7)).toBe(port);

    const sender = new SrtpSender(master);
    let seq = 0;
    const sendFromCar = () => car.socket.send(sender.protect(rtp(++seq)) as Buffer, port, '127.0.0.1');
    sendFromCar();
    car.socket.send(rtp(500), port, '127.0.0.1');
    // The car's next packet, sent after the stranger's: once it is through, the stranger's was
    // read and dropped before it (one socket, read in order).
    sendFromCar();
    await vi.waitFor(() => expect(janus.received).toHaveLength(2));
    expect(janus.received.map((packet) => packet.readUInt16BE(2))).toEqual([1, 2]);

    await worker?.terminate();
    // Back after a second, on the same port: the car keeps sending where it was told.
    await vi.waitFor(
      () => {
        sendFromCar();
        expect(janus.received.length).toBeGreaterThan(2);
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(ingest.restarts).toBe(1);
    expect(ingest.portOf(7)).toBe(port);
    expect(moved).not.toHaveBeenCalled();
  });
});
