/** Test helpers for the video tests: a UDP port that collects RTP, and whether a process exists. */
import { createSocket } from 'node:dgram';

export interface UdpSink {
  port: number;
  packets: Buffer[];
  /** The packets that are RTP version 2 with payload type 96 (the marker bit aside). */
  rtp(): Buffer[];
  close(): Promise<void>;
}

export const isRtp96 = (packet: Buffer): boolean =>
  packet.length > 12 && (packet[0] as number) >> 6 === 2 && ((packet[1] as number) & 0x7f) === 96;

export async function udpSink(): Promise<UdpSink> {
  const socket = createSocket('udp4');
  const packets: Buffer[] = [];
  socket.on('message', (message) => packets.push(message));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    packets,
    rtp: () => packets.filter(isRtp96),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
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
