/**
 * SRTP (RFC 3711) with the suite AES_CM_128_HMAC_SHA1_80, the one Janus's streaming mountpoints
 * take (`srtpsuite: 80`): the car's camera packets are encrypted and authenticated with a master
 * key the server makes for each mountpoint (docs/video.md "The car's uplink"). The car protects
 * (`SrtpSender`), the server's ingest authenticates before it forwards (`SrtpReceiver.verify`) and
 * Janus (libsrtp) decrypts. Node only (node:crypto).
 *
 * Only what the uplink needs: no MKI, key derivation rate 0, RTP only (the car sends no RTCP).
 */
import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';

/** Master key (16 bytes) followed by the master salt (14 bytes): Janus's `srtpcrypto`, in base64. */
export const SRTP_MASTER_LENGTH = 30;
const KEY_LENGTH = 16;
const SALT_LENGTH = 14;
const AUTH_KEY_LENGTH = 20;
export const SRTP_TAG_LENGTH = 10;
const RTP_HEADER = 12;
/** Packets older than this many behind the newest are refused as replays (libsrtp's default is 128). */
export const REPLAY_WINDOW = 1024;

export interface SessionKeys {
  encryption: Buffer;
  auth: Buffer;
  salt: Buffer;
}

/** The AES-CM PRF of RFC 3711 §4.3.1 with a key derivation rate of 0. */
function derive(masterKey: Buffer, masterSalt: Buffer, label: number, length: number): Buffer {
  const iv = Buffer.alloc(16);
  masterSalt.copy(iv, 0);
  iv[7] = (iv[7] as number) ^ label;
  const cipher = createCipheriv('aes-128-ctr', masterKey, iv);
  return Buffer.concat([cipher.update(Buffer.alloc(length)), cipher.final()]);
}

/** The session keys of a master key and salt (30 bytes: key then salt). */
export function sessionKeys(master: Buffer): SessionKeys {
  if (master.length !== SRTP_MASTER_LENGTH)
    throw new RangeError(`SRTP master must be ${SRTP_MASTER_LENGTH} bytes`);
  const key = master.subarray(0, KEY_LENGTH);
  const salt = master.subarray(KEY_LENGTH);
  return {
    encryption: derive(key, salt, 0x00, KEY_LENGTH),
    auth: derive(key, salt, 0x01, AUTH_KEY_LENGTH),
    salt: derive(key, salt, 0x02, SALT_LENGTH),
  };
}

/** Parses a base64 master (Janus's `srtpcrypto`), or throws. */
export function masterFromBase64(text: string): Buffer {
  const master = Buffer.from(text, 'base64');
  if (master.length !== SRTP_MASTER_LENGTH || master.toString('base64') !== text)
    throw new RangeError('SRTP master must be 30 bytes of base64');
  return master;
}

/** The fields of an RTP header the uplink reads; null when `packet` is not RTP version 2. */
export interface RtpHeader {
  ssrc: number;
  seq: number;
  timestamp: number;
  marker: boolean;
  payloadType: number;
  /** Where the payload starts (after CSRCs and the header extension). */
  payloadOffset: number;
}

export function readRtpHeader(packet: Buffer): RtpHeader | null {
  if (packet.length < RTP_HEADER || (packet[0] as number) >> 6 !== 2) return null;
  const first = packet[0] as number;
  let offset = RTP_HEADER + 4 * (first & 0x0f);
  if (first & 0x10) {
    if (packet.length < offset + 4) return null;
    offset += 4 + 4 * packet.readUInt16BE(offset + 2);
  }
  if (offset > packet.length) return null;
  return {
    marker: ((packet[1] as number) & 0x80) !== 0,
    payloadType: (packet[1] as number) & 0x7f,
    seq: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: packet.readUInt32BE(8),
    payloadOffset: offset,
  };
}

/** The AES-CM counter block of RFC 3711 §4.1.1 for packet index `index` of `ssrc`. */
function counterBlock(salt: Buffer, ssrc: number, index: number): Buffer {
  const iv = Buffer.alloc(16);
  salt.copy(iv, 0);
  iv.writeUInt32BE((iv.readUInt32BE(4) ^ ssrc) >>> 0, 4);
  // The 48-bit index sits in bytes 8–13.
  const high = Math.floor(index / 2 ** 32);
  iv.writeUInt16BE(iv.readUInt16BE(8) ^ high, 8);
  iv.writeUInt32BE((iv.readUInt32BE(10) ^ index) >>> 0, 10);
  return iv;
}

function tag(keys: SessionKeys, authenticated: Buffer, roc: number): Buffer {
  const rocBytes = Buffer.alloc(4);
  rocBytes.writeUInt32BE(roc >>> 0);
  return createHmac('sha1', keys.auth)
    .update(authenticated)
    .update(rocBytes)
    .digest()
    .subarray(0, SRTP_TAG_LENGTH);
}

function crypt(keys: SessionKeys, packet: Buffer, header: RtpHeader, index: number): Buffer {
  const out = Buffer.from(packet);
  const cipher = createCipheriv('aes-128-ctr', keys.encryption, counterBlock(keys.salt, header.ssrc, index));
  cipher.update(packet.subarray(header.payloadOffset)).copy(out, header.payloadOffset);
  return out;
}

/** The car's side: every RTP packet out of the encoder, encrypted and tagged. */
export class SrtpSender {
  readonly #keys: SessionKeys;
  /** Per SSRC (a restarted encoder has a new one): the rollover counter and the last sequence number. */
  readonly #streams = new Map<number, { roc: number; seq: number }>();

  constructor(master: Buffer) {
    this.#keys = sessionKeys(master);
  }

  /** The SRTP packet for an RTP packet, or null when it is not RTP. */
  protect(packet: Buffer): Buffer | null {
    const header = readRtpHeader(packet);
    if (!header) return null;
    let stream = this.#streams.get(header.ssrc);
    if (!stream) {
      // A handful of streams at most (one per encoder run): forget the oldest beyond that.
      if (this.#streams.size >= 8) this.#streams.delete(this.#streams.keys().next().value as number);
      stream = { roc: 0, seq: header.seq };
      this.#streams.set(header.ssrc, stream);
    } else if (header.seq < stream.seq && stream.seq - header.seq > 0x8000) {
      stream.roc = (stream.roc + 1) >>> 0;
    }
    if (seqNewer(header.seq, stream.seq)) stream.seq = header.seq;
    // A packet from before a wrap (reordered on the car's loopback: never in practice) keeps the
    // current counter; the receiver then refuses it, which only loses that packet.
    const index = stream.roc * 0x10000 + header.seq;
    const encrypted = crypt(this.#keys, packet, header, index);
    return Buffer.concat([encrypted, tag(this.#keys, encrypted, stream.roc)]);
  }
}

/** Whether sequence number `a` comes after `b` (RFC 1982 arithmetic on 16 bits). */
export function seqNewer(a: number, b: number): boolean {
  const d = (a - b) & 0xffff;
  return d !== 0 && d < 0x8000;
}

export type VerifyResult =
  | { ok: true; ssrc: number; seq: number; index: number; header: RtpHeader }
  | { ok: false; reason: 'not-rtp' | 'auth' | 'replay' };

/** Per SSRC, what the receiver has seen: the highest index and a bitmap of the window below it. */
interface ReceiveStream {
  highest: number;
  seen: Uint8Array;
}

/**
 * The server's side: accepts a packet only when its tag is right for the mountpoint's key and it
 * was not accepted before (a replay of a captured packet, or a retransmission that came twice).
 * `decrypt` is for tests (Janus decrypts what the ingest forwards).
 */
export class SrtpReceiver {
  readonly #keys: SessionKeys;
  readonly #streams = new Map<number, ReceiveStream>();

  constructor(master: Buffer) {
    this.#keys = sessionKeys(master);
  }

  /** Checks the tag and the replay window, and records the packet as received. */
  verify(packet: Buffer): VerifyResult {
    const checked = this.#check(packet);
    if (!checked.ok) return checked;
    const stream = this.#streams.get(checked.ssrc) ?? this.#newStream(checked.ssrc, checked.index);
    const { index } = checked;
    if (index > stream.highest) {
      for (let i = Math.max(stream.highest + 1, index - REPLAY_WINDOW + 1); i < index; i++)
        stream.seen[i % REPLAY_WINDOW] = 0;
      stream.highest = index;
    } else if (stream.highest - index >= REPLAY_WINDOW || stream.seen[index % REPLAY_WINDOW]) {
      return { ok: false, reason: 'replay' };
    }
    stream.seen[index % REPLAY_WINDOW] = 1;
    return checked;
  }

  /** The RTP packet inside an SRTP packet that `verify` accepted. */
  decrypt(packet: Buffer, result: Extract<VerifyResult, { ok: true }>): Buffer {
    const body = packet.subarray(0, packet.length - SRTP_TAG_LENGTH);
    return crypt(this.#keys, body, result.header, result.index);
  }

  #newStream(ssrc: number, index: number): ReceiveStream {
    if (this.#streams.size >= 8) this.#streams.delete(this.#streams.keys().next().value as number);
    const stream = { highest: index - 1, seen: new Uint8Array(REPLAY_WINDOW) };
    this.#streams.set(ssrc, stream);
    return stream;
  }

  /** The tag checked with the rollover counter guessed as RFC 3711 §3.3.1 does. */
  #check(packet: Buffer): VerifyResult {
    if (packet.length < RTP_HEADER + SRTP_TAG_LENGTH) return { ok: false, reason: 'not-rtp' };
    const body = packet.subarray(0, packet.length - SRTP_TAG_LENGTH);
    const header = readRtpHeader(body);
    if (!header) return { ok: false, reason: 'not-rtp' };
    const stream = this.#streams.get(header.ssrc);
    const highest = stream?.highest ?? header.seq;
    const roc = Math.floor(highest / 0x10000);
    const last = highest % 0x10000;
    let guess = roc;
    if (last < 0x8000) {
      if (header.seq - last > 0x8000 && roc > 0) guess = roc - 1;
    } else if (last - 0x8000 > header.seq) {
      guess = roc + 1;
    }
    const expected = tag(this.#keys, body, guess);
    const given = packet.subarray(packet.length - SRTP_TAG_LENGTH);
    if (!timingSafeEqual(expected, given)) return { ok: false, reason: 'auth' };
    return { ok: true, ssrc: header.ssrc, seq: header.seq, index: guess * 0x10000 + header.seq, header };
  }
}
