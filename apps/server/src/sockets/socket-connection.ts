/**
 * One open JSON socket, run the same way on every path: size → rate → parse → dispatch to the
 * message table, a keepalive that drops a silent peer, and one error message
 * `{type: 'error', error, errorKey}` for whatever a client gets wrong or a handler refuses.
 */
import { performance } from 'node:perf_hooks';
import {
  CONTROL_LIMITS,
  ERROR_KEYS,
  type ErrorKey,
  SOCKET_CLOSE_CODES,
  type SocketErrorMessage,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { z } from 'zod';
import type { Clock, ClockTimer } from '../clock.js';
import { DomainError } from '../domain-error.js';
import { HttpError } from '../http/errors.js';
import {
  type DropCounters,
  MessageRateLimit,
  type SerializedMessage,
  sendJson,
  sendText,
} from './message-guard.js';
import type { MessageTable } from './message-table.js';
import type { SocketTraffic } from './socket-meter.js';

/**
 * The server checks every `pingMs`; a peer that sent nothing (message or pong) for `silenceMs`
 * after it was pinged is gone.
 */
export interface Keepalive {
  pingMs: number;
  silenceMs: number;
}

export interface ConnectionOptions {
  /** For logs: `car`, `controller`, `event`. */
  name: string;
  keepalive: Keepalive;
  /** The keepalive's time (tests move it: test/clock.ts). */
  clock: Clock;
  maxMessagesPerSecond: number;
  dropped: DropCounters;
  /** This kind's message counts (GET /metrics). */
  traffic: SocketTraffic;
  log: FastifyBaseLogger;
}

const OPEN = 1;

/**
 * Timers fire late: heard this much less than a ping period ago still counts as heard within the
 * period, and the next check is taken to come this much later than one period from now.
 */
const PING_SLACK_MS = 5;

/** Bytes of a received message (ws hands over a Buffer, an ArrayBuffer or fragments). */
function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  // ws hands over a Buffer: read it in place (Buffer.from would copy every message first).
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** `carId: Too big: expected number to be <=2147483647` — names the field, as a REST 400 does. */
function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`).join('; ');
}

/**
 * What a client may read of a handler's failure: a refusal (a service's DomainError, an
 * HttpError below 500 with its key) keeps its text and key; anything else is internal, as on REST
 * (no stack, no SQL).
 */
export function socketErrorOf(error: unknown): SocketErrorMessage {
  if (error instanceof DomainError) return { type: 'error', error: error.message, errorKey: error.errorKey };
  if (error instanceof HttpError && error.statusCode < 500 && error.errorKey)
    return { type: 'error', error: error.message, errorKey: error.errorKey };
  return { type: 'error', error: 'Internal server error', errorKey: ERROR_KEYS.internal };
}

export class SocketConnection {
  /**
   * `performance.now()` when the message being handled arrived: the relay's latency histogram
   * measures from here to the drive's forwarding (a number, nothing allocated per message).
   */
  receivedAt = 0;
  readonly #clock: Clock;
  /** Anything from the peer, a pong included: the silence limit counts from here. */
  #lastHeard: number;
  /** A message from the peer (not a pong): a peer that talks needs no ping. */
  #lastMessageAt: number;
  /** A ping went out and nothing was heard since: only such a peer may be treated as gone. */
  #pingUnanswered = false;
  readonly #rate: MessageRateLimit;
  readonly #pinger: ClockTimer;
  readonly #closeListeners: (() => void)[] = [];

  constructor(
    readonly socket: WebSocket,
    readonly options: ConnectionOptions,
  ) {
    this.#clock = options.clock;
    this.#lastHeard = this.#clock.now().getTime();
    this.#lastMessageAt = this.#lastHeard;
    this.#rate = new MessageRateLimit(options.maxMessagesPerSecond);
    this.#pinger = this.#clock.setInterval(() => this.#checkAlive(), options.keepalive.pingMs);
    socket.on('pong', () => this.#heard());
    socket.on('error', (error) => options.log.warn({ err: error }, `${options.name} socket error`));
    socket.on('close', () => {
      this.#clock.clear(this.#pinger);
      for (const listener of this.#closeListeners.splice(0)) listener();
    });
  }

  get isOpen(): boolean {
    return this.socket.readyState === OPEN;
  }

  /** Starts dispatching the client's messages to `table`'s handlers, with `context` (the link). */
  listen<C>(table: MessageTable<C>, context: C): void {
    this.socket.on('message', (data) => this.receive(data, table, context));
  }

  onClose(listener: () => void): void {
    this.#closeListeners.push(listener);
  }

  /** Queues a message (see sendJson: a client that does not read is dropped). */
  send(message: object): boolean {
    const sent = sendJson(this.socket, message, this.options.dropped);
    if (sent) this.options.traffic.sent += 1;
    return sent;
  }

  /** A message already written as JSON text (a hot path's own serializer, e.g. the car's drive frame). */
  sendText(text: string): boolean {
    const sent = sendText(this.socket, text, Buffer.byteLength(text), this.options.dropped);
    if (sent) this.options.traffic.sent += 1;
    return sent;
  }

  /** A broadcast's message, serialized once for every socket it goes to. */
  sendSerialized(message: SerializedMessage): boolean {
    const sent = sendText(this.socket, message.utf8, message.utf8.length, this.options.dropped);
    if (sent) this.options.traffic.sent += 1;
    return sent;
  }

  sendError(error: string, errorKey: ErrorKey): void {
    this.send({ type: 'error', error, errorKey } satisfies SocketErrorMessage);
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  /** Drops the connection without a close handshake (a silent peer would not answer one). */
  terminate(): void {
    this.socket.terminate();
  }

  /**
   * A peer silent for `silenceMs` (no message, no pong) after a ping it left unanswered is gone;
   * one that sent no message for a whole ping period is pinged, every period, as it always was. A
   * peer that is talking (a driver's drives, a car's telemetry) proves it is there and gets no
   * ping: the pings of many sockets due together were a burst of frames written ahead of the
   * drives waiting to be relayed (issue 27). Only messages spare the ping, never a pong: a viewer's
   * quiet socket whose pongs took more than a moment would otherwise be pinged every other period
   * and, with the event socket's 15 s period and 20 s limit, dropped.
   *
   * A spared ping must not cost the peer its socket (issue 39): a viewer whose last message came
   * 8 s into the event socket's period got no ping at 15 s and was over the 20 s limit at 30 s,
   * dropped without ever being asked. So a peer is also pinged whenever its silence could pass the
   * limit before the next check, and a peer is only treated as gone once a ping has been left
   * unanswered for a period: over the limit within `silenceMs` and one period of its last word, as
   * before, and never without having been asked. (A late check still pings first and drops a
   * period later: late, never unasked.)
   */
  #checkAlive(): void {
    const { pingMs, silenceMs } = this.options.keepalive;
    const now = this.#clock.now().getTime();
    const silence = now - this.#lastHeard;
    if (silence > silenceMs && this.#pingUnanswered) {
      this.options.log.info(`${this.options.name} socket silent, treated as gone`);
      this.terminate();
      return;
    }
    if (!this.isOpen) return;
    const quietForAPeriod = now - this.#lastMessageAt >= pingMs - PING_SLACK_MS;
    const overTheLimitByNextCheck = silence + pingMs + PING_SLACK_MS > silenceMs;
    if (quietForAPeriod || overTheLimitByNextCheck) {
      this.#pingUnanswered = true;
      this.socket.ping();
    }
  }

  #heard(): number {
    this.#lastHeard = this.#clock.now().getTime();
    this.#pingUnanswered = false;
    return this.#lastHeard;
  }

  /**
   * One message of the client, from this socket or from a side channel of the same client (the
   * drive channel, modules/control/drive-channel.ts): the same size, rate and schema checks, the
   * same drop counters and error answers (on this socket), and it counts as hearing from the
   * client for the keepalive.
   */
  receive<C>(data: RawData, table: MessageTable<C>, context: C): void {
    this.receivedAt = performance.now();
    this.#lastMessageAt = this.#heard();
    const { dropped, log, name } = this.options;
    this.options.traffic.received += 1;
    // A socket being closed (session ended, token expired, revoked…) acts on nothing it still receives.
    if (!this.isOpen) return;
    if (byteLength(data) > CONTROL_LIMITS.maxPayloadBytes) {
      this.sendError('Message too big', ERROR_KEYS.validation);
      this.close(1009, 'message too big');
      return;
    }
    if (!this.#rate.allow()) {
      dropped.rateLimited += 1;
      log.warn(`${name} socket flooding, closing`);
      this.sendError('Too many messages', ERROR_KEYS.tooManyRequests);
      this.close(SOCKET_CLOSE_CODES.policy, 'too many messages');
      return;
    }
    const text = textOf(data);
    const message = table.quick?.(text) ?? this.#parse(text, table);
    if (!message) return;
    const handler = table.byType.get(message.type)?.[1];
    if (!handler) return;
    try {
      const result = handler(context, message as never);
      if (result instanceof Promise) result.catch((error: unknown) => this.#failed(message.type, error));
    } catch (error) {
      this.#failed(message.type, error);
    }
  }

  /** JSON.parse, then the message's schema; null (counted, answered with an error) when either refuses. */
  #parse<C>(text: string, table: MessageTable<C>): { type: string } | null {
    const { dropped } = this.options;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      dropped.invalidJson += 1;
      this.sendError('Not JSON', ERROR_KEYS.validation);
      return null;
    }
    const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
    const entry = typeof type === 'string' ? table.byType.get(type) : undefined;
    if (!entry) {
      dropped.unknownType += 1;
      this.sendError('Unknown message type', ERROR_KEYS.validation);
      return null;
    }
    const parsed = entry[0].safeParse(value);
    if (!parsed.success) {
      dropped.invalidMessage += 1;
      this.sendError(`Invalid ${type} message: ${issuesOf(parsed.error)}`, ERROR_KEYS.validation);
      return null;
    }
    return parsed.data as { type: string };
  }

  #failed(type: string, error: unknown): void {
    const message = socketErrorOf(error);
    if (message.errorKey === ERROR_KEYS.internal)
      this.options.log.error({ err: error }, `${this.options.name} socket: ${type} failed`);
    this.send(message);
  }
}
