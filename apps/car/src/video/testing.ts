/** Test helpers for the video tests: a UDP port that collects RTP, and processes that exist. */
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { expect, vi } from 'vitest';

export interface UdpSink {
  port: number;
  packets: Buffer[];
  /** When each packet came (performance.now()). */
  arrivals: number[];
  /** The packets that are RTP version 2 with payload type 96 (the marker bit aside). */
  rtp(): Buffer[];
  close(): Promise<void>;
}

/** An SRTP key for the tests' video targets (the server makes one per mountpoint). */
export const TEST_SRTP = {
  suite: 'AES_CM_128_HMAC_SHA1_80',
  key: Buffer.alloc(30, 7).toString('base64'),
} as const;

export const isRtp96 = (packet: Buffer): boolean =>
  packet.length > 12 && (packet[0] as number) >> 6 === 2 && ((packet[1] as number) & 0x7f) === 96;

/**
 * Whether an RTP packet (H.264, RFC 6184) carries the start of an IDR slice: a single NAL unit of
 * type 5, one inside an aggregate (STAP-A, 24), or the first fragment of one (FU-A, 28).
 */
export function isIdr(packet: Buffer): boolean {
  if (!isRtp96(packet)) return false;
  const first = packet[0] as number;
  let offset = 12 + 4 * (first & 0x0f);
  if (first & 0x10) offset += 4 + 4 * packet.readUInt16BE(offset + 2);
  const type = (packet[offset] as number) & 0x1f;
  if (type === 5) return true;
  if (type === 28) return ((packet[offset + 1] as number) & 0x9f) === 0x85;
  if (type !== 24) return false;
  for (let at = offset + 1; at + 2 < packet.length; at += 2 + packet.readUInt16BE(at)) {
    if (((packet[at + 2] as number) & 0x1f) === 5) return true;
  }
  return false;
}

export async function udpSink(): Promise<UdpSink> {
  const socket = createSocket('udp4');
  const packets: Buffer[] = [];
  const arrivals: number[] = [];
  socket.on('message', (message) => {
    packets.push(message);
    arrivals.push(performance.now());
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    packets,
    arrivals,
    rtp: () => packets.filter(isRtp96),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** Waits until the sink holds more than `moreThan` RTP packets (GStreamer takes a while to start). */
export async function rtpArrives(sink: UdpSink, { moreThan = 10, timeout = 10_000 } = {}): Promise<void> {
  await vi.waitFor(() => expect(sink.rtp().length).toBeGreaterThan(moreThan), { timeout, interval: 50 });
}

/** Checks that nothing more reaches the sink for `ms`: whatever streamed to it has stopped. */
export async function expectSilence(sink: UdpSink, ms: number): Promise<void> {
  const received = sink.packets.length;
  await new Promise((resolve) => setTimeout(resolve, ms));
  expect(sink.packets.length).toBe(received);
}

/** Whether a process exists (a child that exited and was reaped no longer does). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a process exists and has not exited: a zombie (exited, not yet reaped — an orphan waits
 * for init to reap it, which here takes up to a second or two) does not count.
 */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The ids of a process's children running `command` (from /proc: the parent id is field 4 of `stat`). */
export function childrenOf(pid: number, command: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid …`: the name may hold spaces, so read after its closing parenthesis.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid && command.startsWith(name)) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
