/**
 * Shared handling of incoming socket messages: a per-socket rate limit and the parsing that
 * drops (and counts) anything that is not a valid message, so no input can crash the server.
 */
import { CONTROL_LIMITS } from '@telerace/protocol';
import type { RawData } from 'ws';
import type { z } from 'zod';

/** How many messages each gateway dropped, by cause (read by tests and logs). */
export interface DropCounters {
  invalidJson: number;
  unknownType: number;
  invalidMessage: number;
  rateLimited: number;
  /** Sockets dropped because their unsent messages passed CONTROL_LIMITS.maxBufferedBytes. */
  slowReaders: number;
}

export const newDropCounters = (): DropCounters => ({
  invalidJson: 0,
  unknownType: 0,
  invalidMessage: 0,
  rateLimited: 0,
  slowReaders: 0,
});

/** More than `max` messages within one second (fixed window) → exceeded. */
export class MessageRateLimit {
  #windowStart = 0;
  #count = 0;

  constructor(readonly max: number = CONTROL_LIMITS.maxMessagesPerSecond) {}

  /** Counts one message; false once the limit is exceeded. */
  allow(now = Date.now()): boolean {
    if (now - this.#windowStart >= 1_000) {
      this.#windowStart = now;
      this.#count = 0;
    }
    this.#count += 1;
    return this.#count <= this.max;
  }
}

/**
 * The message as `schema` describes it, or null (counted in `dropped`). `types` lists the known
 * `type` values, to tell an unknown type from a malformed known one.
 */
export function parseMessage<T>(
  data: RawData,
  schema: z.ZodType<T>,
  types: readonly string[],
  dropped: DropCounters,
): T | null {
  let value: unknown;
  try {
    value = JSON.parse(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString());
  } catch {
    dropped.invalidJson += 1;
    return null;
  }
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !types.includes(type)) {
    dropped.unknownType += 1;
    return null;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    dropped.invalidMessage += 1;
    return null;
  }
  return parsed.data;
}

/** Bytes of a received message (ws hands over a Buffer, an ArrayBuffer or fragments). */
function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/**
 * The control and event sockets take small messages only; the WebSocket server's own limit is
 * higher for the video signalling (SDP). A larger message closes the socket with 1009, as the
 * WebSocket server itself would.
 */
export function closeIfTooBig(socket: { close(code: number, reason: string): void }, data: RawData): boolean {
  if (byteLength(data) <= CONTROL_LIMITS.maxPayloadBytes) return false;
  socket.close(1009, 'message too big');
  return true;
}

/** What sendJson needs of a socket (a `ws` WebSocket). */
export interface JsonSocket {
  readonly readyState: number;
  /** Bytes queued but not yet written to the network. */
  readonly bufferedAmount: number;
  send(data: string): void;
  terminate(): void;
}

/**
 * A JSON send that never throws on a socket that is closing, and drops a client that does not
 * read: once its unsent messages would pass CONTROL_LIMITS.maxBufferedBytes the socket is
 * terminated (counted in `dropped.slowReaders`) instead of growing the server's memory. No close
 * code could reach such a client anyway: the close frame would wait behind the unread backlog.
 * Returns whether the message was queued.
 */
export function sendJson(socket: JsonSocket, message: unknown, dropped?: DropCounters): boolean {
  if (socket.readyState !== 1) return false;
  const data = JSON.stringify(message);
  if (socket.bufferedAmount + Buffer.byteLength(data) > CONTROL_LIMITS.maxBufferedBytes) {
    if (dropped) dropped.slowReaders += 1;
    socket.terminate();
    return false;
  }
  try {
    socket.send(data);
    return true;
  } catch {
    // The close handler cleans up.
    return false;
  }
}
