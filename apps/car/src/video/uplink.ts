/**
 * The car's video uplink (docs/video.md "The car's uplink"): GStreamer sends its RTP to this
 * process on loopback, and every packet leaves the car encrypted and authenticated with the
 * mountpoint's SRTP key, which only the server gives out (over the car's TLS socket, in `video`)
 * and which changes whenever the mountpoint is made again. The key never appears in a process's
 * arguments, and packets that do not parse as RTP never leave.
 *
 * One socket receives from GStreamer (127.0.0.1, a port of the system's choosing that stays the
 * same across encoder restarts); another, connected to the server's address, sends: the kernel
 * then drops anything that does not come from there.
 */
import { createSocket, type Socket } from 'node:dgram';
import { masterFromBase64, SrtpSender } from '@telerace/protocol/video-uplink';
import { validHost } from './pipeline.js';

export interface UplinkTarget {
  host: string;
  port: number;
  /** The SRTP master key and salt, base64 (the `video` message's `srtp.key`). */
  key: string;
}

export interface UplinkCounters {
  /** RTP packets GStreamer handed over. */
  received: number;
  /** SRTP packets sent to the server. */
  sent: number;
  /** Bytes sent, SRTP overhead included. */
  bytesSent: number;
  /** Dropped: no target, not RTP, or the send failed. */
  dropped: number;
}

export class VideoUplink {
  readonly #log: (line: string) => void;
  #local: Socket | undefined;
  #localPort: Promise<number> | undefined;
  #out: Socket | undefined;
  #target: UplinkTarget | undefined;
  #sender: SrtpSender | undefined;
  readonly counters: UplinkCounters = { received: 0, sent: 0, bytesSent: 0, dropped: 0 };

  constructor(options: { log: (line: string) => void }) {
    this.#log = options.log;
  }

  /** The loopback port GStreamer sends its RTP to (bound on first use). */
  localPort(): Promise<number> {
    this.#localPort ??= new Promise((resolve, reject) => {
      const socket = createSocket('udp4');
      this.#local = socket;
      socket.once('error', reject);
      socket.on('message', (packet) => this.#forward(packet));
      socket.bind(0, '127.0.0.1', () => {
        socket.off('error', reject);
        socket.on('error', (error) => this.#log(`video uplink: ${error.message}`));
        // Never what keeps the agent alive.
        socket.unref();
        resolve(socket.address().port);
      });
    });
    return this.#localPort;
  }

  /** Where packets go now, under which key; null: nowhere (they are dropped). Throws on a bad host or key. */
  setTarget(target: UplinkTarget | null): void {
    const same =
      target &&
      this.#target &&
      target.host === this.#target.host &&
      target.port === this.#target.port &&
      target.key === this.#target.key;
    if (same) return;
    this.#out?.close();
    this.#out = undefined;
    this.#sender = undefined;
    this.#target = undefined;
    if (!target) return;
    const master = masterFromBase64(target.key);
    const host = validHost(target.host);
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.on('error', (error) => this.#log(`video uplink: ${error.message}`));
    socket.connect(target.port, host);
    socket.unref();
    this.#out = socket;
    this.#sender = new SrtpSender(master);
    this.#target = target;
  }

  close(): void {
    this.setTarget(null);
    this.#local?.close();
    this.#local = undefined;
    this.#localPort = undefined;
  }

  #forward(packet: Buffer): void {
    this.counters.received++;
    const out = this.#out;
    const protectedPacket = out && this.#sender?.protect(packet);
    if (!out || !protectedPacket) {
      this.counters.dropped++;
      return;
    }
    out.send(protectedPacket, (error) => {
      if (error) {
        // Not connected yet (its lookup) or the network is down: the picture's next packets retry.
        this.counters.dropped++;
        return;
      }
      this.counters.sent++;
      this.counters.bytesSent += protectedPacket.length;
    });
  }
}
