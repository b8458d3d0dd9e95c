/**
 * One car's video as the ingest receives it (docs/video.md "The car's uplink"): every datagram is
 * authenticated before anything else (SRTP; a parity packet only from the car's own address), the
 * car's address is the last one that sent an authenticated packet, and each packet goes on to
 * Janus at once. What is missing is repaired: rebuilt from the car's parity packets when one
 * packet of a group is lost, else asked for again (NACK) until it comes, and given up after
 * GIVE_UP_MS with a keyframe request. Reports tell the car what arrived.
 *
 * No sockets and no timers here (ingest-worker.ts has them): `receive` and `tick` are driven by
 * the worker, with the time passed in, so the logic is tested on its own.
 */
import {
  decodeParity,
  encodeFeedback,
  type Feedback,
  feedbackKey,
  NACK_MAX,
  type ParityPacket,
  QUEUE_HIGH_MS,
  recoverFromParity,
  SrtpReceiver,
  seqNewer,
} from '@telerace/protocol/video-uplink';

/** A gap waits this long for its parity packet (or a reordered packet) before a NACK. */
export const NACK_DELAY_MS = 10;
/** NACKs for one packet at most, the next after 1.5 round trips (at least RETRY_MIN_MS). */
export const NACK_TRIES = 3;
const RETRY_MIN_MS = 30;
/** A packet still missing after this is given up: the picture needs a keyframe. */
export const GIVE_UP_MS = 400;
/** Keyframe requests at most this often. */
const KEYFRAME_EVERY_MS = 300;
export const REPORT_EVERY_MS = 250;
/** A report sooner than REPORT_EVERY_MS when the queue crosses QUEUE_HIGH_MS, but not sooner than this. */
export const ALERT_AFTER_MS = 50;
/** Packets (and parity packets) kept for rebuilding a lost one. */
const KEEP = 512;
/** A jump beyond this many packets is an outage, not losses to repair one by one. */
const MAX_GAP = 256;
const FIRST_RTT_MS = 100;
/** Seconds over which the lowest frame delay is the queue's zero. */
const QUEUE_FLOOR_SECONDS = 10;

export interface IngestCounters {
  /** Authenticated packets forwarded to Janus (repaired ones included). */
  forwarded: number;
  /** Datagrams refused: not authenticated (a stranger's), a replay, or not ours at all. */
  refused: number;
  /** Packets found missing (before repair), then: rebuilt from parity, resent after a NACK, given up. */
  lost: number;
  recovered: number;
  retransmitted: number;
  unrepaired: number;
  nacksSent: number;
  keyframesRequested: number;
  /** Video bytes forwarded. */
  bytes: number;
}

interface Missing {
  since: number;
  nacks: number;
  lastNackAt: number;
}

interface Period {
  received: number;
  lost: number;
  recovered: number;
  retransmitted: number;
  unrepaired: number;
  bytes: number;
  startedAt: number;
}

const emptyPeriod = (now: number): Period => ({
  received: 0,
  lost: 0,
  recovered: 0,
  retransmitted: 0,
  unrepaired: 0,
  bytes: 0,
  startedAt: now,
});

export interface IngestSessionOptions {
  /** The mountpoint's SRTP master key and salt (30 bytes). */
  master: Buffer;
  /** An authenticated packet, to Janus. */
  forward(packet: Buffer): void;
  /** Feedback to the car's address (the last one an authenticated packet came from). */
  toCar(datagram: Buffer, address: string, port: number): void;
}

export class IngestSession {
  readonly counters: IngestCounters = {
    forwarded: 0,
    refused: 0,
    lost: 0,
    recovered: 0,
    retransmitted: 0,
    unrepaired: 0,
    nacksSent: 0,
    keyframesRequested: 0,
    bytes: 0,
  };
  readonly #options: IngestSessionOptions;
  readonly #srtp: SrtpReceiver;
  readonly #feedbackKey: Buffer;
  #feedbackCounter = 0;
  /** Where the car sends from now. */
  #car: { address: string; port: number } | null = null;
  /** The stream being repaired: the newest SSRC (an encoder restarted: a new one). */
  #ssrc: number | null = null;
  #highest = 0;
  readonly #packets = new Map<number, Buffer>();
  readonly #parities: ParityPacket[] = [];
  readonly #missing = new Map<number, Missing>();
  /** When each packet asked for was first asked for: its arrival measures the round trip. */
  #rttMs = 0;
  #lastKeyframeAt = Number.NEGATIVE_INFINITY;
  #lastReportAt = 0;
  #period: Period;
  /** Frame arrival minus capture (RTP timestamp), ms, and the lowest lately: the uplink's queue. */
  #lastTimestamp: number | null = null;
  /** The lowest frame delay of each of the last seconds. */
  readonly #delayMinima: { second: number; value: number }[] = [];
  #queueMs = 0;
  /** The queue the last report said. */
  #reportedQueueMs = 0;

  constructor(options: IngestSessionOptions, now: number) {
    this.#options = options;
    this.#srtp = new SrtpReceiver(options.master);
    this.#feedbackKey = feedbackKey(options.master);
    this.#period = emptyPeriod(now);
    this.#lastReportAt = now;
    this.#reportedQueueMs = this.#queueMs;
  }

  /** The car's address, once an authenticated packet came. */
  get car(): { address: string; port: number } | null {
    return this.#car;
  }

  /** One datagram to the ingest's port for this car, from `address:port`. */
  receive(datagram: Buffer, address: string, port: number, now: number): void {
    const first = datagram[0] ?? 0;
    if (first >> 6 === 2) {
      this.#media(datagram, address, port, now, false);
      return;
    }
    const fromCar = this.#car !== null && this.#car.address === address && this.#car.port === port;
    const parity = fromCar ? decodeParity(datagram) : null;
    if (!parity) {
      this.counters.refused++;
      return;
    }
    this.#parity(parity, now);
  }

  /** Every few milliseconds: NACKs due, packets given up, the report. */
  tick(now: number): void {
    const nack: number[] = [];
    const retryMs = Math.max(RETRY_MIN_MS, 1.5 * (this.#rttMs || FIRST_RTT_MS));
    let gaveUp = false;
    for (const [seq, missing] of this.#missing) {
      if (now - missing.since >= GIVE_UP_MS) {
        this.#missing.delete(seq);
        this.counters.unrepaired++;
        this.#period.unrepaired++;
        gaveUp = true;
        continue;
      }
      if (missing.nacks >= NACK_TRIES || now - missing.since < NACK_DELAY_MS) continue;
      if (missing.nacks > 0 && now - missing.lastNackAt < retryMs) continue;
      if (nack.length >= NACK_MAX) continue;
      nack.push(seq);
      missing.nacks++;
      missing.lastNackAt = now;
    }
    if (nack.length > 0 && this.#ssrc !== null) {
      this.counters.nacksSent++;
      this.#send({ kind: 'nack', ssrc: this.#ssrc, seqs: nack });
    }
    if (gaveUp) this.#requestKeyframe(now);
    const sinceReport = now - this.#lastReportAt;
    // A queue that just became too long is told at once: the car can cut before it grows more.
    const alert = this.#queueMs > QUEUE_HIGH_MS && this.#reportedQueueMs <= QUEUE_HIGH_MS;
    if (sinceReport >= REPORT_EVERY_MS || (alert && sinceReport >= ALERT_AFTER_MS)) this.#report(now);
  }

  #media(packet: Buffer, address: string, port: number, now: number, rebuilt: boolean): void {
    const verified = this.#srtp.verify(packet);
    if (!verified.ok) {
      // A retransmission of what parity already rebuilt is a replay too: harmless, not a stranger.
      if (!rebuilt && !(verified.reason === 'replay' && this.#car?.address === address))
        this.counters.refused++;
      return;
    }
    if (!rebuilt) this.#car = { address, port };
    this.#options.forward(packet);
    this.counters.forwarded++;
    this.counters.bytes += packet.length;
    this.#period.received++;
    this.#period.bytes += packet.length;
    // Only what arrives in order measures the queue: a resend or a rebuilt packet is late by the
    // repair's round trip, which is not the uplink queueing (it would cut the bitrate at each loss).
    if (this.#track(verified.ssrc, verified.seq, packet, now, rebuilt))
      this.#measureQueue(verified.header.timestamp, now);
  }

  /** Whether the packet is the newest yet (not a resend, nor one rebuilt or overtaken). */
  #track(ssrc: number, seq: number, packet: Buffer, now: number, rebuilt: boolean): boolean {
    let newest = true;
    if (this.#ssrc !== ssrc) {
      // A new stream (the encoder restarted): what the old one missed no longer matters.
      this.#ssrc = ssrc;
      this.#highest = seq;
      this.#missing.clear();
      this.#packets.clear();
      this.#parities.length = 0;
    } else if (seqNewer(seq, this.#highest)) {
      const gap = (seq - this.#highest - 1) & 0xffff;
      if (gap > MAX_GAP) {
        // An outage (a blackout, a new route): too much to ask for again; start from a keyframe.
        this.#missing.clear();
        this.#requestKeyframe(now);
      } else {
        for (let i = 1; i <= gap; i++) {
          this.#missing.set((this.#highest + i) & 0xffff, { since: now, nacks: 0, lastNackAt: 0 });
          this.counters.lost++;
          this.#period.lost++;
        }
      }
      this.#highest = seq;
    } else newest = false;
    const wasMissing = this.#missing.get(seq);
    if (wasMissing) {
      this.#missing.delete(seq);
      if (rebuilt) {
        this.counters.recovered++;
        this.#period.recovered++;
      } else {
        this.counters.retransmitted++;
        this.#period.retransmitted++;
        if (wasMissing.nacks > 0) this.#sampleRtt(now - wasMissing.lastNackAt);
      }
    }
    this.#packets.set(seq, packet);
    if (this.#packets.size > KEEP) this.#packets.delete(this.#packets.keys().next().value as number);
    this.#tryParities(now);
    return newest && !rebuilt;
  }

  #parity(parity: ParityPacket, now: number): void {
    if (parity.ssrc !== this.#ssrc) return;
    this.#parities.push(parity);
    if (this.#parities.length > 64) this.#parities.shift();
    this.#tryParities(now);
  }

  /** Rebuilds every packet a parity packet can: one missing from its group, received or not yet known missing. */
  #tryParities(now: number): void {
    for (let i = this.#parities.length - 1; i >= 0; i--) {
      const parity = this.#parities[i] as ParityPacket;
      const rebuilt = recoverFromParity(parity, (seq) => this.#packets.get(seq));
      if (!rebuilt) continue;
      this.#parities.splice(i, 1);
      const seq = rebuilt.readUInt16BE(2);
      // Lost at the end of a frame, it was not known missing yet: it is now.
      if (!this.#missing.has(seq) && seqNewer(seq, this.#highest)) {
        for (let s = (this.#highest + 1) & 0xffff; ; s = (s + 1) & 0xffff) {
          this.#missing.set(s, { since: now, nacks: 0, lastNackAt: 0 });
          this.counters.lost++;
          this.#period.lost++;
          if (s === seq) break;
        }
        this.#highest = seq;
      }
      if (!this.#missing.has(seq)) continue;
      this.#media(rebuilt, '', 0, now, true);
    }
  }

  #sampleRtt(sample: number): void {
    this.#rttMs = this.#rttMs === 0 ? sample : 0.8 * this.#rttMs + 0.2 * sample;
  }

  #measureQueue(timestamp: number, now: number): void {
    // Once per frame, from its first packet to arrive.
    if (timestamp === this.#lastTimestamp) return;
    this.#lastTimestamp = timestamp;
    const delta = now - timestamp / 90;
    // The queue's zero: the lowest delay over the last QUEUE_FLOOR_SECONDS, kept per second (the
    // clocks' offset plus the path's own delay). A queue that lasts stays a queue for that long,
    // and a camera whose timestamps drift from real time moves the zero along with them.
    const second = Math.floor(now / 1000);
    const minima = this.#delayMinima;
    const last = minima.at(-1);
    if (last && last.second === second) last.value = Math.min(last.value, delta);
    else minima.push({ second, value: delta });
    while (minima.length > 0 && (minima[0] as { second: number }).second <= second - QUEUE_FLOOR_SECONDS)
      minima.shift();
    const floor = Math.min(...minima.map((entry) => entry.value));
    this.#queueMs = 0.7 * this.#queueMs + 0.3 * Math.max(0, delta - floor);
  }

  #requestKeyframe(now: number): void {
    if (now - this.#lastKeyframeAt < KEYFRAME_EVERY_MS) return;
    this.#lastKeyframeAt = now;
    this.counters.keyframesRequested++;
    this.#send({ kind: 'keyframe' });
  }

  #report(now: number): void {
    const period = this.#period;
    const seconds = Math.max(0.001, (now - period.startedAt) / 1000);
    this.#send({
      kind: 'report',
      received: period.received,
      lost: period.lost,
      recovered: period.recovered,
      retransmitted: period.retransmitted,
      unrepaired: period.unrepaired,
      kbps: (period.bytes * 8) / 1000 / seconds,
      queueMs: this.#queueMs,
      rttMs: this.#rttMs,
    });
    this.#period = emptyPeriod(now);
    this.#lastReportAt = now;
    this.#reportedQueueMs = this.#queueMs;
  }

  #send(feedback: Feedback): void {
    if (!this.#car) return;
    this.#feedbackCounter++;
    const datagram = encodeFeedback(this.#feedbackKey, this.#feedbackCounter, feedback);
    this.#options.toCar(datagram, this.#car.address, this.#car.port);
  }
}
