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
 *
 * Loss repair (protocol video-uplink/repair.ts): the last HISTORY packets sent are kept, and those
 * the server's signed NACKs ask for are sent again; once the server reports losses, each frame's
 * packets are followed by a parity packet (XOR FEC) for FEC_AFTER_LOSS_MS, so that one lost packet
 * in a group is rebuilt at once, without a round trip. The reports also drive the encoder's
 * bitrate (`onReport`, bitrate.ts). `repair: 'off'` does none of it — no parity, no resends, no
 * keyframe requests, no bitrate adaptation: the uplink as it was before issue 43, to measure
 * what they bring; `'fec'` sends parity all the time.
 */
import { createSocket, type Socket } from 'node:dgram';
import {
  decodeFeedback,
  type Feedback,
  feedbackKey,
  masterFromBase64,
  ParityEncoder,
  readRtpHeader,
  SrtpSender,
} from '@telerace/protocol/video-uplink';
import { validHost } from './pipeline.js';

export interface UplinkTarget {
  host: string;
  port: number;
  /** The SRTP master key and salt, base64 (the `video` message's `srtp.key`). */
  key: string;
}

export type UplinkRepair = 'auto' | 'fec' | 'off';

/** Packets kept for resending: about a second of 720p at 3 Mbit/s. */
const HISTORY = 1_024;
/** A packet is sent again at most this many times. */
const RESENDS = 3;
/**
 * Resends at most this share of the packets sent over the last RESEND_WINDOW_MS (plus a few): on a
 * link that drops because it is full, resending everything would only fill it more.
 */
const RESEND_SHARE = 0.15;
const RESEND_WINDOW_MS = 250;
/** Parity packets go on this long after the last loss the server reported. */
export const FEC_AFTER_LOSS_MS = 10_000;
/** Feedback counters start again after this long without any (the server's ingest restarted). */
const FEEDBACK_FRESH_MS = 3_000;

/** What the server's last report said of the uplink. */
export type UplinkReport = Extract<Feedback, { kind: 'report' }>;

export interface UplinkCounters {
  /** RTP packets GStreamer handed over. */
  received: number;
  /** SRTP packets sent to the server. */
  sent: number;
  /** Bytes sent, SRTP overhead included (resends too, not parity). */
  bytesSent: number;
  /** Dropped: no target, not RTP, or the send failed. */
  dropped: number;
  /** Packets sent again on the server's NACKs, and parity packets sent. */
  resent: number;
  parity: number;
  /** Keyframes the server asked for. */
  keyframeRequests: number;
}

export class VideoUplink {
  readonly #log: (line: string) => void;
  #local: Socket | undefined;
  #localPort: Promise<number> | undefined;
  #out: Socket | undefined;
  #target: UplinkTarget | undefined;
  #sender: SrtpSender | undefined;
  #feedbackKey: Buffer | undefined;
  #feedbackCounter = 0;
  #feedbackAt = Number.NEGATIVE_INFINITY;
  readonly #repair: UplinkRepair;
  readonly #now: () => number;
  readonly #onKeyframeRequest: () => void;
  readonly #onReport: (report: UplinkReport, now: number) => void;
  /** The packets sent lately, by sequence number (of the current SSRC), and how often each was resent. */
  readonly #history = new Map<number, { packet: Buffer; resends: number }>();
  #historySsrc: number | null = null;
  readonly #parity = new ParityEncoder();
  #lossReportedAt = Number.NEGATIVE_INFINITY;
  /** Packets sent and resent in the current RESEND_WINDOW_MS. */
  #window = { startedAt: 0, sent: 0, resent: 0 };
  /** The server's last report, and when it came. */
  report: (UplinkReport & { at: number }) | undefined;
  readonly counters: UplinkCounters = {
    received: 0,
    sent: 0,
    bytesSent: 0,
    dropped: 0,
    resent: 0,
    parity: 0,
    keyframeRequests: 0,
  };

  constructor(options: {
    log: (line: string) => void;
    repair?: UplinkRepair;
    /** The server asked for a keyframe (repair came too late for the picture). */
    onKeyframeRequest?: () => void;
    /** The server reported what arrived (every 250 ms): the bitrate follows it (bitrate.ts). */
    onReport?: (report: UplinkReport, now: number) => void;
    now?: () => number;
  }) {
    this.#log = options.log;
    this.#repair = options.repair ?? 'auto';
    this.#onKeyframeRequest = options.onKeyframeRequest ?? (() => {});
    this.#onReport = options.onReport ?? (() => {});
    this.#now = options.now ?? (() => performance.now());
  }

  /** Whether parity packets go out now. */
  get sendingParity(): boolean {
    if (this.#repair === 'off') return false;
    return this.#repair === 'fec' || this.#now() - this.#lossReportedAt < FEC_AFTER_LOSS_MS;
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
    this.#history.clear();
    this.report = undefined;
    if (!target) return;
    const master = masterFromBase64(target.key);
    this.#feedbackKey = feedbackKey(master);
    this.#feedbackCounter = 0;
    const host = validHost(target.host);
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.on('error', (error) => this.#log(`video uplink: ${error.message}`));
    socket.on('message', (datagram) => this.#feedback(datagram));
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
    this.#remember(protectedPacket);
    this.#windowNow().sent++;
    this.#send(out, protectedPacket);
    if (!this.sendingParity) return;
    for (const parity of this.#parity.add(protectedPacket)) {
      this.counters.parity++;
      this.#send(out, parity, false);
    }
  }

  #send(out: Socket, datagram: Buffer, media = true): void {
    out.send(datagram, (error) => {
      if (error) {
        // Not connected yet (its lookup) or the network is down: the picture's next packets retry.
        if (media) this.counters.dropped++;
        return;
      }
      if (!media) return;
      this.counters.sent++;
      this.counters.bytesSent += datagram.length;
    });
  }

  #windowNow(): { startedAt: number; sent: number; resent: number } {
    const now = this.#now();
    if (now - this.#window.startedAt >= RESEND_WINDOW_MS)
      this.#window = { startedAt: now, sent: 0, resent: 0 };
    return this.#window;
  }

  #remember(packet: Buffer): void {
    const header = readRtpHeader(packet);
    if (!header) return;
    if (header.ssrc !== this.#historySsrc) {
      this.#history.clear();
      this.#historySsrc = header.ssrc;
    }
    this.#history.delete(header.seq);
    this.#history.set(header.seq, { packet, resends: 0 });
    if (this.#history.size > HISTORY) this.#history.delete(this.#history.keys().next().value as number);
  }

  /** Signed feedback from the server: anything else is ignored. */
  #feedback(datagram: Buffer): void {
    const key = this.#feedbackKey;
    const decoded = key && decodeFeedback(key, datagram);
    if (!decoded) return;
    const now = this.#now();
    // A replay of older feedback is ignored; after a silence the server may have started again.
    if (decoded.counter <= this.#feedbackCounter && now - this.#feedbackAt < FEEDBACK_FRESH_MS) return;
    this.#feedbackCounter = decoded.counter;
    this.#feedbackAt = now;
    const { feedback } = decoded;
    if (feedback.kind === 'report') {
      this.report = { ...feedback, at: now };
      if (feedback.lost > 0) this.#lossReportedAt = now;
      if (this.#repair !== 'off') this.#onReport(feedback, now);
      return;
    }
    if (this.#repair === 'off') return;
    if (feedback.kind === 'keyframe') {
      this.counters.keyframeRequests++;
      this.#onKeyframeRequest();
      return;
    }
    this.#lossReportedAt = now;
    const out = this.#out;
    if (!out || feedback.ssrc !== this.#historySsrc) return;
    const window = this.#windowNow();
    for (const seq of feedback.seqs) {
      const kept = this.#history.get(seq);
      if (!kept || kept.resends >= RESENDS) continue;
      if (window.resent >= 2 + RESEND_SHARE * window.sent) break;
      window.resent++;
      kept.resends++;
      this.counters.resent++;
      this.#send(out, kept.packet);
    }
  }
}
