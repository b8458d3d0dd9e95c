/**
 * Loss repair on the car's uplink (docs/video.md "The car's uplink"): besides its SRTP packets the
 * car sends parity packets (XOR forward error correction over a frame's packets, at most
 * FEC_GROUP_MAX each), and the server's ingest sends back signed feedback: NACKs for the packets
 * it still misses, keyframe requests when repair came too late, and reports of what arrived.
 *
 * Every uplink datagram is told apart by its first byte: RTP/SRTP is version 2 (0x80–0xBF); ours
 * start with FEC_TYPE or FEEDBACK_TYPE, which RTP never does.
 *
 * A parity packet needs no signature: what it rebuilds is an SRTP packet, which the ingest and
 * Janus authenticate like any other. Feedback is signed (HMAC-SHA256 with a key derived from the
 * mountpoint's SRTP master, cut to 10 bytes) and numbered, so that nobody else can make the car
 * resend, drop its bitrate or spend its keyframes, and an old report replayed is ignored.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readRtpHeader } from './srtp.js';

export const FEC_TYPE = 0x01;
export const FEEDBACK_TYPE = 0x02;
/** Packets one parity packet covers at most: one loss in 8 + 1 is repaired. */
export const FEC_GROUP_MAX = 8;
const FEC_HEADER = 1 + 4 + 2 + 1 + 2;
const FEEDBACK_TAG = 10;

// ---- Forward error correction ----------------------------------------------------------------

export interface ParityPacket {
  ssrc: number;
  /** The first covered sequence number; the group is `count` consecutive ones. */
  baseSeq: number;
  count: number;
  /** XOR of the covered packets' lengths. */
  lengthXor: number;
  /** XOR of the covered packets, each padded with zeros to the longest. */
  xor: Buffer;
}

export function encodeParity(parity: ParityPacket): Buffer {
  const out = Buffer.alloc(FEC_HEADER + parity.xor.length);
  out[0] = FEC_TYPE;
  out.writeUInt32BE(parity.ssrc, 1);
  out.writeUInt16BE(parity.baseSeq, 5);
  out[7] = parity.count;
  out.writeUInt16BE(parity.lengthXor, 8);
  parity.xor.copy(out, FEC_HEADER);
  return out;
}

export function decodeParity(datagram: Buffer): ParityPacket | null {
  if (datagram.length <= FEC_HEADER || datagram[0] !== FEC_TYPE) return null;
  const count = datagram[7] as number;
  if (count < 1 || count > FEC_GROUP_MAX) return null;
  return {
    ssrc: datagram.readUInt32BE(1),
    baseSeq: datagram.readUInt16BE(5),
    count,
    lengthXor: datagram.readUInt16BE(8),
    xor: datagram.subarray(FEC_HEADER),
  };
}

function xorInto(target: Buffer, source: Buffer): void {
  for (let i = 0; i < source.length; i++) target[i] = (target[i] as number) ^ (source[i] as number);
}

/**
 * The car's side: feeds every SRTP packet sent; returns a parity packet when a group closes —
 * at the end of a frame (the RTP marker bit), at FEC_GROUP_MAX packets, or when a packet does not
 * follow the last (a new SSRC, a gap).
 */
export class ParityEncoder {
  #ssrc = 0;
  #baseSeq = 0;
  #count = 0;
  #lengthXor = 0;
  #xor = Buffer.alloc(0);
  #lastSeq = -1;

  /** The parity packets to send after `packet` (none, or the one closing its group). */
  add(packet: Buffer): Buffer[] {
    const header = readRtpHeader(packet);
    if (!header) return [];
    const out: Buffer[] = [];
    const follows =
      this.#count > 0 && header.ssrc === this.#ssrc && header.seq === ((this.#lastSeq + 1) & 0xffff);
    if (this.#count > 0 && !follows) out.push(...this.flush());
    if (this.#count === 0) {
      this.#ssrc = header.ssrc;
      this.#baseSeq = header.seq;
      this.#lengthXor = 0;
      this.#xor = Buffer.alloc(0);
    }
    if (packet.length > this.#xor.length) {
      const grown = Buffer.alloc(packet.length);
      this.#xor.copy(grown);
      this.#xor = grown;
    }
    xorInto(this.#xor, packet);
    this.#lengthXor ^= packet.length;
    this.#count++;
    this.#lastSeq = header.seq;
    if (header.marker || this.#count === FEC_GROUP_MAX) out.push(...this.flush());
    return out;
  }

  /** Closes the open group, if any. */
  flush(): Buffer[] {
    if (this.#count === 0) return [];
    const parity = encodeParity({
      ssrc: this.#ssrc,
      baseSeq: this.#baseSeq,
      count: this.#count,
      lengthXor: this.#lengthXor & 0xffff,
      xor: this.#xor,
    });
    this.#count = 0;
    return [parity];
  }
}

/**
 * The packet a parity packet rebuilds, when exactly one of its group is missing: `have(seq)`
 * gives each packet received, or undefined. Null when none or more than one is missing.
 */
export function recoverFromParity(
  parity: ParityPacket,
  have: (seq: number) => Buffer | undefined,
): Buffer | null {
  let missing = -1;
  const xor = Buffer.from(parity.xor);
  let length = parity.lengthXor;
  for (let i = 0; i < parity.count; i++) {
    const seq = (parity.baseSeq + i) & 0xffff;
    const packet = have(seq);
    if (packet === undefined) {
      if (missing !== -1) return null;
      missing = seq;
      continue;
    }
    xorInto(xor, packet);
    length ^= packet.length;
  }
  if (missing === -1 || length < 12 || length > xor.length) return null;
  const rebuilt = xor.subarray(0, length);
  const header = readRtpHeader(rebuilt);
  return header && header.seq === missing && header.ssrc === parity.ssrc ? Buffer.from(rebuilt) : null;
}

// ---- Feedback (server → car) -----------------------------------------------------------------

export type Feedback =
  /** Packets the ingest misses: send them again. */
  | { kind: 'nack'; ssrc: number; seqs: number[] }
  /** Repair came too late: the picture needs a keyframe. */
  | { kind: 'keyframe' }
  /** What arrived over the last report's period (for bitrate adaptation and the car's status). */
  | {
      kind: 'report';
      /** Packets that arrived, and packets missing before any repair. */
      received: number;
      lost: number;
      /** Of the missing: rebuilt from parity, arrived again after a NACK, never repaired. */
      recovered: number;
      retransmitted: number;
      unrepaired: number;
      /** Video kbit/s that arrived. */
      kbps: number;
      /** How much later than its lowest the car's frames arrived lately (queueing on the uplink), ms. */
      queueMs: number;
      /** Round trip between ingest and car (NACK to its answer), ms; 0: not measured yet. */
      rttMs: number;
    };

const KINDS = { nack: 1, keyframe: 2, report: 3 } as const;
const REPORT_FIELDS = [
  'received',
  'lost',
  'recovered',
  'retransmitted',
  'unrepaired',
  'kbps',
  'queueMs',
  'rttMs',
] as const;
/** NACKs carry at most this many sequence numbers. */
export const NACK_MAX = 64;
/**
 * Queueing (ms) that means the uplink is narrower than what the car sends: the car lowers its
 * bitrate above it, and the ingest reports at once when the queue crosses it rather than at the
 * next quarter second (each 100 ms waited is 100 ms more queue to drain).
 */
export const QUEUE_HIGH_MS = 60;

/** The feedback signing key for a mountpoint's SRTP master. */
export function feedbackKey(master: Buffer): Buffer {
  return createHmac('sha256', master).update('telerace video feedback').digest();
}

/** A signed feedback datagram; `counter` must grow from one to the next. */
export function encodeFeedback(key: Buffer, counter: number, feedback: Feedback): Buffer {
  const body: number[] = [];
  const u32 = (v: number) => body.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  const u16 = (v: number) => body.push((v >>> 8) & 0xff, v & 0xff);
  body.push(FEEDBACK_TYPE, KINDS[feedback.kind]);
  u32(counter);
  if (feedback.kind === 'nack') {
    u32(feedback.ssrc);
    const seqs = feedback.seqs.slice(0, NACK_MAX);
    body.push(seqs.length);
    for (const seq of seqs) u16(seq);
  } else if (feedback.kind === 'report') {
    for (const field of REPORT_FIELDS) u32(Math.max(0, Math.min(0xffffffff, Math.round(feedback[field]))));
  }
  const unsigned = Buffer.from(body);
  const tag = createHmac('sha256', key).update(unsigned).digest().subarray(0, FEEDBACK_TAG);
  return Buffer.concat([unsigned, tag]);
}

/** The feedback in a datagram and its counter, or null when it is not feedback signed with `key`. */
export function decodeFeedback(
  key: Buffer,
  datagram: Buffer,
): { counter: number; feedback: Feedback } | null {
  if (datagram.length < 2 + 4 + FEEDBACK_TAG || datagram[0] !== FEEDBACK_TYPE) return null;
  const unsigned = datagram.subarray(0, datagram.length - FEEDBACK_TAG);
  const tag = createHmac('sha256', key).update(unsigned).digest().subarray(0, FEEDBACK_TAG);
  if (!timingSafeEqual(tag, datagram.subarray(datagram.length - FEEDBACK_TAG))) return null;
  const counter = unsigned.readUInt32BE(2);
  const kind = unsigned[1];
  if (kind === KINDS.keyframe && unsigned.length === 6) return { counter, feedback: { kind: 'keyframe' } };
  if (kind === KINDS.nack && unsigned.length >= 11) {
    const count = unsigned[10] as number;
    if (unsigned.length !== 11 + 2 * count) return null;
    const seqs = Array.from({ length: count }, (_, i) => unsigned.readUInt16BE(11 + 2 * i));
    return { counter, feedback: { kind: 'nack', ssrc: unsigned.readUInt32BE(6), seqs } };
  }
  if (kind === KINDS.report && unsigned.length === 6 + 4 * REPORT_FIELDS.length) {
    const values = REPORT_FIELDS.map((_, i) => unsigned.readUInt32BE(6 + 4 * i));
    const report = Object.fromEntries(REPORT_FIELDS.map((field, i) => [field, values[i] as number]));
    return {
      counter,
      feedback: { kind: 'report', ...(report as Record<(typeof REPORT_FIELDS)[number], number>) },
    };
  }
  return null;
}
