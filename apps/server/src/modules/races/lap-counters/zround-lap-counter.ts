/**
 * The `zround` lap counter: a decoder speaking the ZRound "Free LapCounter" protocol over TCP
 * (RiCino and other open decoders; frame format in zround-parser.ts). We play ZRound's part: we
 * connect to the decoder at ZROUND_URL, say `%C&` (startup) and `%I&` (race start: the decoder
 * sets its clock to zero and reports passes), and read `%L…&` passes. A transponder becomes a car
 * through the cars' lap counter ids (the admin writes the transponder number, in hexadecimal as
 * the decoder reports it); passes of other transponders are ignored. A lost or refused connection
 * is retried with backoff for as long as the counter runs.
 */
import net from 'node:net';
import { Backoff } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { CarByLapCounterId, LapCounter, LapPass } from '../lap-counter.js';
import { DecoderClock } from './decoder-clock.js';
import { type ZroundFrame, ZroundParser } from './zround-parser.js';

export type LapCounterLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'debug'>;

export interface ZroundLapCounterOptions {
  /** `tcp://host:port` */
  url: string;
  cars: CarByLapCounterId;
  log: LapCounterLog;
  /** Our clock, epoch ms (tests may move it). */
  now?: () => number;
  backoff?: Backoff;
}

/** Unknown transponders are logged once each (the admin reads them to map cars), up to this many. */
const MAX_UNKNOWN_LOGGED = 256;

export class ZroundLapCounter implements LapCounter {
  readonly kind = 'zround' as const;
  readonly #host: string;
  readonly #port: number;
  readonly #cars: CarByLapCounterId;
  readonly #log: LapCounterLog;
  readonly #now: () => number;
  readonly #backoff: Backoff;
  readonly #parser = new ZroundParser();
  readonly #clock = new DecoderClock();
  readonly #unknownLogged = new Set<string>();
  #socket: net.Socket | null = null;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #connected = false;
  #running = false;
  #malformedLogged = false;
  #onPass: (pass: LapPass) => void = () => {};

  constructor(options: ZroundLapCounterOptions) {
    const url = new URL(options.url);
    this.#host = url.hostname.replace(/^\[|\]$/g, '');
    this.#port = Number(url.port);
    this.#cars = options.cars;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#backoff = options.backoff ?? new Backoff();
  }

  start(onPass: (pass: LapPass) => void): void {
    if (this.#running) return;
    this.#running = true;
    this.#onPass = onPass;
    this.#connect();
  }

  stop(): void {
    this.#running = false;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    this.#socket?.destroy();
    this.#socket = null;
    this.#connected = false;
  }

  isConnected(): boolean {
    return this.#connected;
  }

  /** A ZRound decoder knows transponders, not names. */
  async syncNames(): Promise<number> {
    return 0;
  }

  #connect(): void {
    const socket = net.createConnection({ host: this.#host, port: this.#port });
    this.#socket = socket;
    socket.setNoDelay(true);
    // The protocol is ASCII; latin1 maps every byte to one character, so garbage never throws.
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      this.#connected = true;
      this.#backoff.reset();
      this.#parser.reset();
      this.#clock.reset();
      this.#malformedLogged = false;
      this.#log.info({ host: this.#host, port: this.#port }, 'ZRound decoder connected');
      socket.write('%C&%I&');
    });
    socket.on('data', (chunk: string) => {
      const receivedAt = this.#now();
      for (const frame of this.#parser.push(chunk)) this.#onFrame(frame, receivedAt);
    });
    socket.on('error', (error) => {
      this.#log.debug({ err: error }, 'ZRound decoder connection error');
    });
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      if (this.#connected) this.#log.warn('ZRound decoder disconnected');
      this.#connected = false;
      this.#socket = null;
      if (this.#running) this.#retry = setTimeout(() => this.#connect(), this.#backoff.next());
    });
  }

  #onFrame(frame: ZroundFrame, receivedAt: number): void {
    switch (frame.type) {
      case 'clock':
        this.#clock.toEpoch(frame.time, receivedAt);
        return;
      case 'lap': {
        const at = this.#clock.toEpoch(frame.time, receivedAt);
        const carId = this.#carOf(frame.transponder);
        if (carId !== null) this.#onPass({ carId, at });
        return;
      }
      case 'malformed':
        // Noise on a bad link can repeat a lot: one warning per connection, the rest at debug.
        if (this.#malformedLogged) this.#log.debug({ frame: frame.text }, 'malformed ZRound frame');
        else this.#log.warn({ frame: frame.text }, 'malformed ZRound frame skipped');
        this.#malformedLogged = true;
        return;
      default:
        return;
    }
  }

  #carOf(transponder: string): number | null {
    // The admin may have written `0A` or `a`: try the id as the decoder spells it, then padded.
    const carId =
      this.#cars.carFor(transponder) ??
      this.#cars.carFor(transponder.padStart(2, '0')) ??
      this.#cars.carFor(transponder.toUpperCase()) ??
      this.#cars.carFor(transponder.toUpperCase().padStart(2, '0'));
    if (carId === null && !this.#unknownLogged.has(transponder)) {
      if (this.#unknownLogged.size < MAX_UNKNOWN_LOGGED) this.#unknownLogged.add(transponder);
      this.#log.info({ transponder }, 'pass of a transponder no car has; set it as a car’s lap counter id');
    }
    return carId;
  }
}
